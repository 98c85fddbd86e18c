//! The virtual clock: every timestamp a fake writes comes from here.
//!
//! It starts at the scenario's `clock` (an RFC 3339 UTC time) and only moves
//! when the fake says so: by the scripted delays, and by 1 ms per stamped
//! record so timestamps strictly increase. Wall-clock time never leaks in, so
//! the same scenario gives the same bytes.

/// Milliseconds since the Unix epoch, virtual.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    now_ms: i64,
}

/// The default start time of every scenario.
pub const DEFAULT_START: &str = "2026-12-02T19:52:00Z";

impl Clock {
    /// A clock starting at `rfc3339` (e.g. `2026-12-02T19:52:00Z`, `…00.250+01:00`).
    pub fn parse(rfc3339: &str) -> Result<Self, String> {
        parse_rfc3339(rfc3339)
            .map(|now_ms| Self { now_ms })
            .ok_or_else(|| format!("invalid clock `{rfc3339}` (expected e.g. {DEFAULT_START})"))
    }

    /// A clock at a given epoch millisecond.
    pub fn at_ms(now_ms: i64) -> Self {
        Self { now_ms }
    }

    /// The current virtual time in epoch milliseconds.
    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// Moves the clock forward.
    pub fn advance(&mut self, ms: u64) {
        self.now_ms = self.now_ms.saturating_add(ms as i64);
    }

    /// Returns the current time as an ISO string, then advances 1 ms.
    pub fn stamp(&mut self) -> String {
        let s = iso(self.now_ms);
        self.now_ms += 1;
        s
    }

    /// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (no advance).
    pub fn iso(&self) -> String {
        iso(self.now_ms)
    }

    /// The current date as `YYYY-MM-DD`.
    pub fn date(&self) -> String {
        let (y, m, d, ..) = fields(self.now_ms);
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// The current time of day as a 12-hour clock, e.g. `7:52 PM`.
    pub fn twelve_hour(&self) -> String {
        let (_, _, _, h, min, ..) = fields(self.now_ms);
        let (h12, ampm) = match h {
            0 => (12, "AM"),
            1..=11 => (h, "AM"),
            12 => (12, "PM"),
            _ => (h - 12, "PM"),
        };
        format!("{h12}:{min:02} {ampm}")
    }
}

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso(ms: i64) -> String {
    let (y, mo, d, h, mi, s, milli) = fields(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

fn fields(ms: i64) -> (i64, u32, u32, u32, u32, u32, u32) {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let secs = (in_day / 1000) as u32;
    (
        y,
        m,
        d,
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        (in_day % 1000) as u32,
    )
}

// Howard Hinnant's algorithms (public domain): days since 1970-01-01 <-> civil date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0u32;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        let frac = &s[start..i.min(start + 3)];
        millis = frac.parse::<u32>().ok()? * 10u32.pow(3 - frac.len() as u32);
    }
    let offset_min: i64 = match s.get(i..)? {
        "Z" | "z" => 0,
        rest if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            let oh = num(i + 1..i + 3)? as i64;
            let om = num(i + 4..i + 6)? as i64;
            if rest.as_bytes()[3] != b':' {
                return None;
            }
            sign * (oh * 60 + om)
        }
        _ => return None,
    };
    let days = days_from_civil(y as i64, mo, d);
    let secs = days * 86_400 + h as i64 * 3600 + mi as i64 * 60 + sec as i64 - offset_min * 60;
    Some(secs * 1000 + millis as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_the_default_start() {
        let c = Clock::parse(DEFAULT_START).unwrap();
        assert_eq!(c.iso(), "2026-12-02T19:52:00.000Z");
        assert_eq!(c.twelve_hour(), "7:52 PM");
        assert_eq!(c.date(), "2026-12-02");
    }

    #[test]
    fn accepts_fractions_and_offsets() {
        let c = Clock::parse("2026-12-02T20:52:00.25+01:00").unwrap();
        assert_eq!(c.iso(), "2026-12-02T19:52:00.250Z");
        assert_eq!(Clock::parse("1970-01-01T00:00:00Z").unwrap().now_ms(), 0);
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "2026-12-02",
            "2026-13-02T00:00:00Z",
            "2026-12-02T19:52:00",
            "x026-12-02T19:52:00Z",
        ] {
            assert!(Clock::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn stamps_strictly_increase_and_advance_moves_time() {
        let mut c = Clock::parse(DEFAULT_START).unwrap();
        assert_eq!(c.stamp(), "2026-12-02T19:52:00.000Z");
        assert_eq!(c.stamp(), "2026-12-02T19:52:00.001Z");
        c.advance(59_998);
        assert_eq!(c.iso(), "2026-12-02T19:53:00.000Z");
        assert_eq!(Clock::at_ms(0).twelve_hour(), "12:00 AM");
    }
}
