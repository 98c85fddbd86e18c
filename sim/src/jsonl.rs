//! Appending records to JSONL files the way the real CLIs do: one `write` per
//! line, on a file opened in append mode, so a reader polling the file never
//! sees half a record from this writer.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Appends `line` plus a newline to `path` with a single write, creating the
/// file and its parent directories when needed.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_one_line_per_record_and_creates_directories() {
        let dir = std::env::temp_dir().join(format!("sim-jsonl-{}", std::process::id()));
        let path = dir.join("a/b/c.jsonl");
        let _ = fs::remove_dir_all(&dir);
        append_line(&path, &crate::obj! { "n" => 1u64 }.to_line()).unwrap();
        append_line(&path, &crate::obj! { "n" => 2u64 }.to_line()).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"n\":1}\n{\"n\":2}\n");
        let _ = fs::remove_dir_all(&dir);
    }
}
