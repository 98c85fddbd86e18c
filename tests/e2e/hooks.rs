//! The hook scripts on a system whose `date` has no `%N` (BSD date, as on macOS, prints a
//! literal `N`): the event line still starts with a number umbel reads, in nanoseconds.

use crate::harness::*;
use std::process::{Command, Stdio};

const EVENT_SH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/hooks/event.sh");

/// A folder whose `date` behaves as BSD date: `%N` comes out as a literal `N`.
fn bsd_date(root: &std::path::Path) -> std::path::PathBuf {
    let bin = root.join("bsd-bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let date = bin.join("date");
    let real = ["/usr/bin/date", "/bin/date"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("a date binary");
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do set -- \"$@\" \"$(printf '%s' \"$a\" | sed 's/%N/N/g')\"; shift; done\nexec {real} \"$@\"\n"
    );
    std::fs::write(&date, script).expect("write date");
    let mut perms = std::fs::metadata(&date).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&date, perms).expect("chmod");
    bin
}

/// Runs event.sh with `path` first on PATH; returns the events folder's log.
fn record_event(sb: &Sandbox, path: &std::path::Path) -> String {
    let events = sb
        .root
        .join(format!("events-{}", path.display().to_string().len()));
    std::fs::create_dir_all(&events).expect("events dir");
    let mut child = Command::new("sh")
        .arg(EVENT_SH)
        .arg(&events)
        .arg("Stop")
        .env("PATH", format!("{}:/usr/bin:/bin", path.display()))
        .stdin(Stdio::piped())
        .spawn()
        .expect("run event.sh");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{\"hook\":1}")
        .expect("payload");
    assert!(child.wait().expect("wait").success());
    let log = std::fs::read_to_string(events.join("log")).expect("log");
    let file = log.split_whitespace().nth(2).expect("payload file");
    let payload = std::fs::read_to_string(events.join(file)).expect("payload saved");
    assert_eq!(payload, "{\"hook\":1}");
    log
}

#[test]
fn event_sh_records_a_numeric_time_with_a_date_that_lacks_percent_n() {
    let sb = Sandbox::new();
    let fake = bsd_date(&sb.root);
    let probe = Command::new(fake.join("date"))
        .arg("+%s%N")
        .output()
        .expect("date");
    assert!(
        String::from_utf8_lossy(&probe.stdout)
            .trim_end()
            .ends_with('N'),
        "the fake date prints a literal N, as BSD date does"
    );
    let log = record_event(&sb, &fake);
    let ns = log.split_whitespace().next().unwrap_or("");
    assert!(ns.bytes().all(|b| b.is_ascii_digit()), "{log}");
    assert!(
        ns.ends_with("000000000") && ns.len() >= 19,
        "whole seconds in ns: {log}"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let secs: u64 = ns[..ns.len() - 9].parse().expect("seconds");
    assert!(secs.abs_diff(now) < 600, "{secs} vs {now}");
    let records = umbel::core::events::parse_log(log.as_bytes());
    assert_eq!(records.len(), 1, "{log}");
    assert_eq!(records[0].at_ns, u128::from(secs) * 1_000_000_000, "{log}");
}

#[test]
fn event_sh_keeps_nanoseconds_where_date_has_them() {
    let sb = Sandbox::new();
    let log = record_event(&sb, std::path::Path::new("/nonexistent"));
    let ns = log.split_whitespace().next().unwrap_or("");
    assert!(
        ns.len() >= 19 && ns.bytes().all(|b| b.is_ascii_digit()),
        "{log}"
    );
}
