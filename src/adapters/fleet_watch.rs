//! Waking up when any worker changes: one inotify instance on the `sessions/` folder (workers
//! come and go), each worker's folder (meta.json) and its `events/` folder (hooks), kept in
//! step with the fleet by [`FleetWatch::sync`]. The same change filter as `wait`'s watch: a
//! reader's own opens and reads never wake it. Out of inotify instances, it watches nothing and
//! the caller's own timer is all there is (`top` looks again every few seconds).

use super::watch::{is_change, out_of_inotify, watch_error};
use crate::core::errors::Result;
use notify::{RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::PathBuf;

/// A watch on many folders, calling `wake` on every change in any of them.
pub struct FleetWatch {
    /// `None`: inotify's limits were used up.
    watcher: Option<notify::RecommendedWatcher>,
    watched: HashSet<PathBuf>,
}

impl FleetWatch {
    /// A watch on nothing yet; `wake` runs on notify's thread.
    pub fn new(wake: impl Fn() + Send + 'static) -> Result<Self> {
        let made = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if event.is_ok_and(|e| is_change(&e.kind)) {
                wake();
            }
        });
        let watcher = match made {
            Ok(watcher) => Some(watcher),
            Err(e) if out_of_inotify(&e) => None,
            Err(e) => return Err(watch_error(std::path::Path::new("inotify"), e)),
        };
        Ok(FleetWatch {
            watcher,
            watched: HashSet::new(),
        })
    }

    /// Watches exactly the folders of `dirs` that exist (not recursively). A folder that
    /// cannot be watched (gone meanwhile) is left out: the next sync tries again.
    pub fn sync(&mut self, dirs: &[PathBuf]) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let wanted: HashSet<&PathBuf> = dirs.iter().filter(|d| d.is_dir()).collect();
        let gone: Vec<PathBuf> = self
            .watched
            .iter()
            .filter(|d| !wanted.contains(d))
            .cloned()
            .collect();
        for dir in gone {
            let _ = watcher.unwatch(&dir);
            self.watched.remove(&dir);
        }
        for dir in wanted {
            if !self.watched.contains(dir)
                && watcher.watch(dir, RecursiveMode::NonRecursive).is_ok()
            {
                self.watched.insert(dir.clone());
            }
        }
    }

    /// How many folders are watched.
    pub fn len(&self) -> usize {
        self.watched.len()
    }

    pub fn is_empty(&self) -> bool {
        self.watched.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    #[test]
    fn a_change_in_any_watched_folder_wakes_it_and_dropped_folders_do_not() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let (tx, rx) = channel();
        let mut watch = FleetWatch::new(move || {
            let _ = tx.send(());
        })
        .unwrap();
        watch.sync(&[a.clone(), b.clone(), root.path().join("missing")]);
        assert_eq!(
            watch.len(),
            2,
            "a folder that does not exist is not watched"
        );
        std::fs::write(b.join("log"), "x").unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        watch.sync(std::slice::from_ref(&a));
        assert_eq!(watch.len(), 1);
        while rx.recv_timeout(Duration::from_millis(100)).is_ok() {}
        std::fs::write(b.join("log"), "y").unwrap();
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "b is no longer watched"
        );
        let _ = std::fs::read(a.join("nothing"));
        let _ = std::fs::read_dir(&a).unwrap().count();
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "reads do not wake it"
        );
        std::fs::write(a.join("log"), "z").unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
    }
}
