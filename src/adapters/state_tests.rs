use super::*;
use crate::adapters::atomic::write_durable;
use std::os::unix::fs::PermissionsExt;

fn root() -> (tempfile::TempDir, StateRoot) {
    let dir = tempfile::tempdir().unwrap();
    let state = StateRoot::open(dir.path().join("state")).unwrap();
    (dir, state)
}

#[test]
fn the_root_is_private() {
    let (_d, state) = root();
    let mode = fs::metadata(state.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn one_of_two_creations_wins() {
    let (_d, state) = root();
    let name = WorkerName::parse("w1").unwrap();
    state.create_session(&name).unwrap();
    let err = state.create_session(&name).unwrap_err();
    assert!(matches!(err, Error::Exists { dead: false, .. }), "{err}");
}

#[test]
fn racing_threads_get_exactly_one_winner() {
    let (_d, state) = root();
    let wins: usize = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    state
                        .create_session(&WorkerName::parse("race").unwrap())
                        .is_ok()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap() as usize)
            .sum()
    });
    assert_eq!(wins, 1);
}

#[test]
fn hooks_are_installed_executable_and_identical() {
    let (_d, state) = root();
    state.install_hooks().unwrap();
    let launch = state.hooks_dir().join("launch.sh");
    assert_eq!(fs::read_to_string(&launch).unwrap(), LAUNCH_SH);
    assert_eq!(
        fs::metadata(&launch).unwrap().permissions().mode() & 0o111,
        0o100
    );
    state.install_hooks().unwrap();
}

#[test]
fn atomic_write_leaves_no_temp_files() {
    let (d, _state) = root();
    let path = d.path().join("f.json");
    write_atomic(&path, b"{}", 0o600).unwrap();
    write_atomic(&path, b"{\"a\":1}", 0o600).unwrap();
    let names: Vec<_> = fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(fs::read(&path).unwrap(), b"{\"a\":1}");
}

/// The temporary file is made exclusively under a random name: a link planted where a
/// predictable name would be (the old `.<name>.tmp.<pid>.<n>`) is never written through
/// (issue 45 item 5), and the record gets its mode from the start.
#[test]
fn an_atomic_write_follows_no_planted_link() {
    let (d, _state) = root();
    let victim = d.path().join("victim");
    fs::write(&victim, b"untouched").unwrap();
    for n in 0..4 {
        let planted = d
            .path()
            .join(format!(".f.json.tmp.{}.{n}", std::process::id()));
        std::os::unix::fs::symlink(&victim, planted).unwrap();
    }
    let path = d.path().join("f.json");
    write_atomic(&path, b"{}", 0o600).unwrap();
    write_durable(&path, b"{\"a\":1}", 0o600).unwrap();
    assert_eq!(fs::read(&victim).unwrap(), b"untouched");
    assert_eq!(fs::read(&path).unwrap(), b"{\"a\":1}");
    assert!(
        !fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// A dying worker's hooks may still write into its folder while `kill --purge` (or `prune`)
/// removes it: the removal waits them out instead of failing "Directory not empty" (the soak
/// saw a `prune` fail so). Many rounds, as the window is narrow.
#[test]
fn removing_a_session_outlasts_hooks_still_writing_into_it() {
    let (_d, state) = root();
    let name = WorkerName::parse("dying").unwrap();
    for round in 0..200 {
        state.create_session(&name).unwrap();
        let events = state.events_dir(&name);
        fs::create_dir_all(&events).unwrap();
        std::thread::scope(|s| {
            for writer in 0..3 {
                let events = &events;
                s.spawn(move || {
                    // Like event.sh: no mkdir, so writes stop once the folder is gone.
                    for n in 0..40 {
                        let file = events.join(format!("{round}-{writer}-{n}.json"));
                        if fs::write(file, b"{}").is_err() {
                            break;
                        }
                    }
                });
            }
            let removed = state.remove_session(&name);
            assert!(removed.is_ok(), "round {round}: {removed:?}");
        });
        assert!(!state.session_dir(&name).exists());
    }
}

/// umbel's own lines create the event log when no hook has yet (a codex worker parked before
/// its first hook): the append never fails for a missing log (issue 45 item 2).
#[test]
fn umbels_own_event_creates_the_log() {
    let (_d, state) = root();
    let name = WorkerName::parse("w1").unwrap();
    state.create_session(&name).unwrap();
    let log = state.events_dir(&name).join("log");
    let _ = fs::remove_file(&log);
    state
        .append_event(&name, "Parked", &serde_json::json!({"at": 1}))
        .unwrap();
    assert_eq!(state.log_len(&name).unwrap(), 1);
    let mode = fs::metadata(&log).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_record_is_missing_unreadable_or_invalid_three_ways() {
    let (_d, state) = root();
    let name = WorkerName::parse("rec").unwrap();
    state.create_session(&name).unwrap();
    let read = |file| state.read_record::<serde_json::Value>(&name, file);
    assert!(matches!(read("launch.json"), Ok(None)));
    fs::write(state.session_dir(&name).join("launch.json"), "{ half").unwrap();
    let corrupt = read("launch.json").unwrap_err();
    assert!(matches!(corrupt, Error::Corrupt { .. }), "{corrupt}");
    // A folder where the file should be: there, but not readable as a file.
    fs::create_dir(state.session_dir(&name).join("rules.json")).unwrap();
    let unreadable = read("rules.json").unwrap_err();
    assert!(matches!(unreadable, Error::Io { .. }), "{unreadable}");
}
