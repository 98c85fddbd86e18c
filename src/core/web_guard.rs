//! What `umbel serve` checks on every request, as pure functions: the access token (compared in
//! constant time), the cookie that carries it after the first visit, the CSRF token a
//! state-changing form must carry, the `Origin` and `Host` a browser sends, and how many wrong
//! tokens one address may present before it is refused for a while.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// The cookie that carries the token after the first visit to the server on `port`: named
/// after the port, as browsers send a host's cookies to each of its ports and two servers
/// would overwrite each other's.
pub fn cookie_name(port: u16) -> String {
    format!("umbel_token_{port}")
}
/// The form field (or header, `X-Umbel-Csrf`) carrying the CSRF token.
pub const CSRF_FIELD: &str = "csrf";
/// How many wrong tokens one address may present within [`FAILURE_WINDOW`].
pub const MAX_FAILURES: u32 = 10;
/// The window failures are counted in, and how long an address over the limit is refused.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);
/// How many addresses the failure count remembers (the oldest windows go first).
const REMEMBERED: usize = 4096;

/// Whether two secrets are equal, in time that does not depend on where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// The CSRF token of a server whose access token is `token`: derived, so it needs no state,
/// and useless without the page that carries it.
pub fn csrf_of(token: &str) -> String {
    let digest = Sha256::digest(format!("umbel-serve-csrf:{token}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then_some(value)
    })
}

/// The `Set-Cookie` value that keeps `token` in cookie `name` for this server's pages: not
/// readable by scripts, never sent by another site's requests.
pub fn set_cookie(name: &str, token: &str) -> String {
    format!("{name}={token}; Path=/; HttpOnly; SameSite=Strict")
}

/// The `Set-Cookie` value that drops cookie `name` (a stale token: the server was restarted).
pub fn drop_cookie(name: &str) -> String {
    format!("{name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// The token of an `Authorization: Bearer …` header.
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, value) = header.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| value.trim())
}

/// Whether a browser request's `Origin` is this server's own (`host` is its `Host` header). A
/// request without an `Origin` (not from a page) passes; the CSRF token still has to.
pub fn same_origin(origin: Option<&str>, host: &str) -> bool {
    match origin {
        None => true,
        Some(origin) => {
            origin.eq_ignore_ascii_case(&format!("http://{host}"))
                || origin.eq_ignore_ascii_case(&format!("https://{host}"))
        }
    }
}

/// Whether `host` (a `Host` header) names a loopback address, for a server listening on one: a
/// page on another name that resolves to 127.0.0.1 (DNS rebinding) is refused.
pub fn loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Wrong tokens per address: [`MAX_FAILURES`] within [`FAILURE_WINDOW`], then refused until the
/// window has passed.
#[derive(Debug, Default)]
pub struct Failures {
    by_address: HashMap<IpAddr, (u32, Instant)>,
}

impl Failures {
    /// Whether `address` is refused at `now` (too many wrong tokens lately).
    pub fn refused(&self, address: IpAddr, now: Instant) -> bool {
        self.by_address.get(&address).is_some_and(|(count, since)| {
            *count >= MAX_FAILURES && now.duration_since(*since) < FAILURE_WINDOW
        })
    }

    /// Counts a wrong token from `address` at `now`.
    pub fn count(&mut self, address: IpAddr, now: Instant) {
        if self.by_address.len() >= REMEMBERED && !self.by_address.contains_key(&address) {
            self.by_address
                .retain(|_, (_, since)| now.duration_since(*since) < FAILURE_WINDOW);
            if self.by_address.len() >= REMEMBERED {
                return;
            }
        }
        let entry = self.by_address.entry(address).or_insert((0, now));
        if now.duration_since(entry.1) >= FAILURE_WINDOW {
            *entry = (0, now);
        }
        entry.0 += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
        assert!(!same_secret("", "a"));
    }

    #[test]
    fn the_csrf_token_is_the_servers_own() {
        assert_eq!(csrf_of("t1"), csrf_of("t1"));
        assert_ne!(csrf_of("t1"), csrf_of("t2"));
        assert_eq!(csrf_of("t1").len(), 64);
    }

    #[test]
    fn the_token_comes_from_its_cookie_or_a_bearer_header() {
        let name = cookie_name(8421);
        assert_eq!(cookie("a=1; umbel_token_8421=xyz; b=2", &name), Some("xyz"));
        assert_eq!(cookie("umbel_token_84210=1", &name), None);
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert!(set_cookie(&name, "t").contains("HttpOnly"));
        assert!(set_cookie(&name, "t").contains("SameSite=Strict"));
        assert!(drop_cookie(&name).contains("Max-Age=0"));
    }

    #[test]
    fn only_this_servers_own_origin_passes() {
        assert!(same_origin(None, "127.0.0.1:8421"));
        assert!(same_origin(Some("http://127.0.0.1:8421"), "127.0.0.1:8421"));
        assert!(!same_origin(Some("http://evil.example"), "127.0.0.1:8421"));
        assert!(!same_origin(Some("null"), "127.0.0.1:8421"));
    }

    #[test]
    fn a_rebound_name_is_no_loopback_host() {
        for good in ["127.0.0.1:8421", "localhost:1", "[::1]:80", "127.0.0.1"] {
            assert!(loopback_host(good), "{good}");
        }
        for bad in [
            "evil.example:8421",
            "10.0.0.1:80",
            "localhost.evil.example:1",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn an_address_presenting_wrong_tokens_is_refused_for_a_while() {
        let (ip, t0) = ("10.0.0.9".parse().expect("ip"), Instant::now());
        let mut failures = Failures::default();
        for _ in 0..MAX_FAILURES - 1 {
            failures.count(ip, t0);
        }
        assert!(!failures.refused(ip, t0));
        failures.count(ip, t0);
        assert!(failures.refused(ip, t0 + Duration::from_secs(30)));
        assert!(!failures.refused(ip, t0 + FAILURE_WINDOW));
        assert!(!failures.refused("10.0.0.8".parse().expect("ip"), t0));
        // A new window starts the count again.
        failures.count(ip, t0 + FAILURE_WINDOW);
        assert!(!failures.refused(ip, t0 + FAILURE_WINDOW));
    }
}
