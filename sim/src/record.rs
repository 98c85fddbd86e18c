//! `UMBEL_SIM_RECORD_DIR`: every submitted prompt, byte for byte, and the
//! command line the fake was started with.
//!
//! Tests point this at a directory and compare `prompt-<n>.txt` (n from 1)
//! with what they sent, which proves exact delivery through tmux, and read
//! `argv.json` (the arguments after the program name, a JSON list) to see
//! which flags a launch passed.

use std::path::PathBuf;

/// The environment variable naming the directory.
pub const ENV: &str = "UMBEL_SIM_RECORD_DIR";

/// Writes submitted prompts into a directory.
#[derive(Clone, Debug)]
pub struct Recorder {
    dir: PathBuf,
    count: u32,
}

impl Recorder {
    /// A recorder when the environment variable is set and non-empty.
    pub fn from_env() -> Option<Self> {
        let dir = std::env::var_os(ENV).filter(|v| !v.is_empty())?;
        Some(Self {
            dir: PathBuf::from(dir),
            count: 0,
        })
    }

    /// A recorder writing into `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, count: 0 }
    }

    /// Writes the next `prompt-<n>.txt`.
    pub fn record(&mut self, prompt: &str) -> std::io::Result<PathBuf> {
        self.count += 1;
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(format!("prompt-{}.txt", self.count));
        std::fs::write(&path, prompt.as_bytes())?;
        Ok(path)
    }
}

/// Writes `argv.json` into the record directory, when one is set.
pub fn record_argv(args: &[String]) {
    if let Some(dir) = std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let text = serde_json::to_string(args).unwrap_or_default();
        let _ = std::fs::write(dir.join("argv.json"), text);
    }
}

/// Writes `name` with `text` into the record directory, when one is set (what a fake learned
/// at its start, for tests to read).
pub fn record_file(name: &str, text: &str) {
    if let Some(dir) = std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(name), text);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn prompts_are_numbered_from_one_and_kept_exactly() {
        let dir = std::env::temp_dir().join(format!("sim-record-{}", std::process::id()));
        let mut r = super::Recorder::new(dir.clone());
        r.record("a\r\nb").unwrap();
        r.record("ü").unwrap();
        assert_eq!(std::fs::read(dir.join("prompt-1.txt")).unwrap(), b"a\r\nb");
        assert_eq!(
            std::fs::read_to_string(dir.join("prompt-2.txt")).unwrap(),
            "ü"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
