//! Deterministic identifiers: no hidden randomness anywhere in the fakes.
//!
//! Every id is a hash of the scenario seed, a salt (the session id, or the
//! config dir for session ids) and a counter. A session id that was not given
//! on the command line also mixes in a per-config-dir counter file, so two
//! fakes sharing a config dir still get distinct sessions.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Name of the counter file kept in a provider's config dir.
pub const COUNTER_FILE: &str = ".umbel-sim-session-counter";

/// A 64-bit FNV-1a hash of `parts` (separated so `["ab","c"] != ["a","bc"]`).
pub fn hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// SplitMix64: turns a state into a well-mixed 64-bit value.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Formats 128 bits as a version-4-shaped UUID.
pub fn uuid_from(hi: u64, lo: u64) -> String {
    uuid_layout((hi & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000, lo)
}

/// A UUIDv7-shaped id: `ms` in the first 48 bits, then version 7, then `r1` and `r2`.
pub fn uuid7(ms: i64, r1: u64, r2: u64) -> String {
    uuid_layout(
        ((ms.max(0) as u64 & 0xffff_ffff_ffff) << 16) | 0x7000 | (r1 & 0x0fff),
        r2,
    )
}

/// `hi` (version already set) and `lo` (variant set here) in the 8-4-4-4-12 layout.
fn uuid_layout(hi: u64, lo: u64) -> String {
    let lo = (lo & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

/// True for `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (hex, any case).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A stream of ids derived from a seed and a salt.
#[derive(Clone, Debug)]
pub struct IdGen {
    base: u64,
    counter: u64,
}

const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

impl IdGen {
    /// Ids for one session: `seed` from the scenario, `salt` usually the session id.
    pub fn new(seed: u64, salt: &str) -> Self {
        Self {
            base: hash(&[&seed.to_le_bytes(), salt.as_bytes()]),
            counter: 0,
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.counter += 1;
        mix(self.base ^ mix(self.counter))
    }

    /// The next UUID.
    pub fn uuid(&mut self) -> String {
        let hi = self.next_u64();
        let lo = self.next_u64();
        uuid_from(hi, lo)
    }

    /// `n` lowercase hex digits.
    pub fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n + 16);
        while s.len() < n {
            s.push_str(&format!("{:016x}", self.next_u64()));
        }
        s.truncate(n);
        s
    }

    /// `n` characters from `[0-9A-Za-z]` (the shape of Anthropic message ids).
    pub fn alnum(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| ALNUM[(self.next_u64() % ALNUM.len() as u64) as usize] as char)
            .collect()
    }

    /// Picks an index below `n` (n > 0).
    pub fn pick(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Takes the next value of the counter file in `config_dir` (1, 2, …),
/// holding an exclusive lock while reading and writing it.
pub fn next_counter(config_dir: &Path) -> io::Result<u64> {
    fs::create_dir_all(config_dir)?;
    let path = config_dir.join(COUNTER_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)?;
    file.lock()?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let next = text.trim().parse::<u64>().unwrap_or(0) + 1;
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    file.write_all(format!("{next}\n").as_bytes())?;
    file.unlock()?;
    Ok(next)
}

/// A session id derived from the seed, the config dir and the next counter value.
pub fn derive_session_id(seed: u64, config_dir: &Path) -> io::Result<String> {
    let n = next_counter(config_dir)?;
    let dir = config_dir.to_string_lossy();
    let h = hash(&[
        b"session",
        &seed.to_le_bytes(),
        dir.as_bytes(),
        &n.to_le_bytes(),
    ]);
    Ok(uuid_from(mix(h), mix(h ^ 0x5555_5555_5555_5555)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_salt_give_the_same_ids() {
        let (mut a, mut b) = (IdGen::new(1, "s"), IdGen::new(1, "s"));
        for _ in 0..5 {
            assert_eq!(a.uuid(), b.uuid());
        }
        assert_ne!(IdGen::new(1, "s").uuid(), IdGen::new(2, "s").uuid());
        assert_ne!(IdGen::new(1, "s").uuid(), IdGen::new(1, "t").uuid());
    }

    #[test]
    fn uuids_are_well_formed() {
        let mut g = IdGen::new(7, "x");
        let u = g.uuid();
        assert!(is_uuid(&u), "{u}");
        assert_eq!(&u[14..15], "4");
        assert!(!is_uuid("not-a-uuid"));
        assert!(is_uuid("11111111-2222-4333-8444-555555555555"));
        assert_eq!(g.hex(20).len(), 20);
        assert_eq!(g.alnum(22).len(), 22);
    }

    #[test]
    fn the_counter_file_gives_distinct_session_ids_in_one_dir() {
        let dir = std::env::temp_dir().join(format!("sim-ids-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let a = derive_session_id(1, &dir).unwrap();
        let b = derive_session_id(1, &dir).unwrap();
        assert_ne!(a, b);
        assert!(is_uuid(&a) && is_uuid(&b));
        assert_eq!(fs::read_to_string(dir.join(COUNTER_FILE)).unwrap(), "2\n");
        let _ = fs::remove_dir_all(&dir);
    }
}
