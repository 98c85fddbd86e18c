//! Dying on purpose: scenario ends `{"crash": N}` and `{"signal": "…"}`.

use rustix::process::{Signal, getpid, kill_process};

const SIGNALS: &[(&str, i32)] = &[
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ILL", 4),
    ("TRAP", 5),
    ("ABRT", 6),
    ("BUS", 7),
    ("FPE", 8),
    ("KILL", 9),
    ("USR1", 10),
    ("SEGV", 11),
    ("USR2", 12),
    ("ALRM", 14),
    ("TERM", 15),
];

/// The Linux number of a signal name (`KILL`, `SIGKILL`, `kill`, or `9`).
/// `PIPE` is not offered: the Rust runtime ignores it, so it could not kill.
pub fn signal_number(name: &str) -> Option<i32> {
    let upper = name.trim().to_ascii_uppercase();
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    if let Ok(n) = bare.parse::<i32>() {
        return SIGNALS.iter().any(|(_, m)| *m == n).then_some(n);
    }
    SIGNALS.iter().find(|(s, _)| *s == bare).map(|(_, n)| *n)
}

/// Sends `name` to this process. If the process is still alive afterwards
/// (the signal was caught or ignored), exits with 128 + the signal number.
pub fn kill_self(name: &str) -> ! {
    let n = signal_number(name).unwrap_or(9);
    if let Some(sig) = Signal::from_named_raw(n) {
        let _ = kill_process(getpid(), sig);
        // Delivery to ourselves is synchronous for unblocked signals; give it a moment anyway.
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    std::process::exit(128 + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_numbers_and_prefixes_are_understood() {
        assert_eq!(signal_number("KILL"), Some(9));
        assert_eq!(signal_number("SIGTERM"), Some(15));
        assert_eq!(signal_number("int"), Some(2));
        assert_eq!(signal_number("9"), Some(9));
        assert_eq!(signal_number("PIPE"), None);
        assert_eq!(signal_number("NOPE"), None);
    }
}
