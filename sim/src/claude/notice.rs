//! When fake-claude's permission `Notification` fires: as claude 2.1.332's
//! `useNotifyAfterTimeout` decides it, not as soon as the dialog shows.
//!
//! From the moment the dialog shows (which counts as an interaction), claude looks every
//! `every` (6 s) whether the person has pressed a key within the last `every`; the first look
//! that finds no key sends the Notification, once. So an untouched dialog notifies after 6 s,
//! and a key pressed 1 s in puts it off to 12 s: the approval recording `claude-2-run1` (a `2`
//! pressed about a second in that left the dialog up) has it 12.4 s after `PermissionRequest`,
//! and no recording shows it while keys come sooner. The delay is `startup.permission_notify_ms`
//! (0: at once, as the dialog shows).

use std::time::{Duration, Instant};

/// claude's interval and threshold (`DEFAULT_INTERACTION_THRESHOLD_MS`).
pub const DEFAULT_EVERY_MS: u64 = 6000;

/// The Notification's timer while the dialog is up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Notice {
    every: Duration,
    next: Instant,
    last_key: Instant,
}

impl Notice {
    /// A dialog shown at `now`, looked at every `every`.
    pub fn new(every: Duration, now: Instant) -> Notice {
        Notice {
            every,
            next: now + every,
            last_key: now,
        }
    }

    /// A key was pressed in the dialog at `now`.
    pub fn key(&mut self, now: Instant) {
        self.last_key = now;
    }

    /// When the next look is due.
    pub fn due(&self) -> Instant {
        self.next
    }

    /// Looks at `now`: true when the Notification is to fire now (it fires once; the caller
    /// drops the timer), else the next look is put off to the interval's next tick.
    pub fn fire_at(&mut self, now: Instant) -> bool {
        if now < self.next {
            return false;
        }
        if now.saturating_duration_since(self.last_key) >= self.every {
            return true;
        }
        while self.next <= now {
            self.next += self.every;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIX: Duration = Duration::from_secs(6);

    #[test]
    fn an_untouched_dialog_notifies_after_the_interval_and_not_before() {
        let t0 = Instant::now();
        let mut n = Notice::new(SIX, t0);
        assert_eq!(n.due(), t0 + SIX);
        assert!(!n.fire_at(t0 + Duration::from_millis(5999)));
        assert!(n.fire_at(t0 + SIX));
    }

    #[test]
    fn a_key_puts_it_off_to_the_first_tick_a_whole_interval_after_it() {
        // claude-2-run1: a key about 1 s in, the Notification 12.4 s after the request.
        let t0 = Instant::now();
        let mut n = Notice::new(SIX, t0);
        n.key(t0 + Duration::from_secs(1));
        assert!(!n.fire_at(t0 + SIX));
        assert_eq!(n.due(), t0 + 2 * SIX);
        assert!(n.fire_at(t0 + 2 * SIX));
    }

    #[test]
    fn no_interval_notifies_at_once() {
        let t0 = Instant::now();
        assert!(Notice::new(Duration::ZERO, t0).fire_at(t0));
    }
}
