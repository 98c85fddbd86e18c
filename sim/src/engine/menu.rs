//! A tool dialog's keys as data: each fake's permission, approval or
//! confirmation dialog is a [`Menu`] (how many options, which keys pick one),
//! and [`Core::menu_key`] applies a key to the running turn's dialog.

use super::timeline::{Core, Phase};
use crate::keys::Key;

/// A tool dialog's menu as data: how many options, and the keys that pick one directly.
pub struct Menu {
    /// The last option's index (the refusal).
    pub last: usize,
    /// Keys that pick an option: (text, option).
    pub hotkeys: &'static [(&'static str, usize)],
    /// True when Ctrl-C refuses like Esc (else the caller handles it).
    pub ctrl_c_refuses: bool,
}

/// What a key does in a [`Menu`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Choice {
    /// Nothing.
    Nothing,
    /// The cursor moved here.
    Move(usize),
    /// This option was picked (not the last one, the refusal).
    Pick(usize),
    /// Esc (or Ctrl-C), or the last option: refused.
    Refuse,
}

impl Core {
    /// A key in the tool dialog `menu` (when one is up): moves the cursor, or
    /// says what was answered.
    pub fn menu_key(&mut self, menu: &Menu, key: &Key) -> Option<Choice> {
        let Phase::Dialog(cursor) = self.phase else {
            return None;
        };
        match menu.key(cursor, key) {
            Choice::Move(c) => self.phase = Phase::Dialog(c),
            Choice::Nothing => {}
            answer => return Some(answer),
        }
        None
    }
}

impl Menu {
    /// What `key` does with the cursor at `cursor`.
    pub fn key(&self, cursor: usize, key: &Key) -> Choice {
        match key {
            Key::Up => Choice::Move(cursor.saturating_sub(1)),
            Key::Down => Choice::Move((cursor + 1).min(self.last)),
            Key::Enter if cursor == self.last => Choice::Refuse,
            Key::Enter => Choice::Pick(cursor),
            Key::Text(t) => match self.hotkeys.iter().find(|(k, _)| k == t) {
                Some((_, i)) if *i == self.last => Choice::Refuse,
                Some((_, i)) => Choice::Pick(*i),
                None => Choice::Nothing,
            },
            Key::Esc => Choice::Refuse,
            Key::CtrlC if self.ctrl_c_refuses => Choice::Refuse,
            _ => Choice::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, Script};
    use std::time::Instant;

    const YES_ALWAYS_NO: Menu = Menu {
        last: 2,
        hotkeys: &[("y", 0), ("p", 1), ("3", 2)],
        ctrl_c_refuses: false,
    };

    #[test]
    fn keys_move_pick_or_refuse() {
        let m = YES_ALWAYS_NO;
        assert_eq!(m.key(0, &Key::Up), Choice::Move(0));
        assert_eq!(m.key(2, &Key::Down), Choice::Move(2));
        assert_eq!(m.key(1, &Key::Enter), Choice::Pick(1));
        assert_eq!(m.key(2, &Key::Enter), Choice::Refuse);
        assert_eq!(m.key(0, &Key::Text("p".into())), Choice::Pick(1));
        assert_eq!(m.key(0, &Key::Text("3".into())), Choice::Refuse);
        assert_eq!(m.key(0, &Key::Text("x".into())), Choice::Nothing);
        assert_eq!(m.key(0, &Key::Esc), Choice::Refuse);
        assert_eq!(m.key(0, &Key::CtrlC), Choice::Nothing);
        let m = Menu {
            ctrl_c_refuses: true,
            ..YES_ALWAYS_NO
        };
        assert_eq!(m.key(0, &Key::CtrlC), Choice::Refuse);
    }

    #[test]
    fn the_turn_keeps_the_cursor_and_only_a_dialog_takes_keys() {
        let chosen = Script::new(Scenario::default()).select("hi");
        let mut core = Core::new(chosen, Vec::new(), Instant::now(), 0);
        assert_eq!(core.menu_key(&YES_ALWAYS_NO, &Key::Enter), None);
        core.phase = Phase::Dialog(0);
        assert_eq!(core.menu_key(&YES_ALWAYS_NO, &Key::Down), None);
        assert_eq!(core.phase, Phase::Dialog(1));
        assert_eq!(
            core.menu_key(&YES_ALWAYS_NO, &Key::Enter),
            Some(Choice::Pick(1))
        );
    }
}
