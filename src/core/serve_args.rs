//! `umbel serve`'s input: where it listens. Loopback unless `--listen` names another address;
//! port 0 takes a free one.

use super::errors::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use std::net::SocketAddr;

/// Where `umbel serve` listens when `--listen` is not given.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:0";

/// Serve the fleet to a browser: every worker, its turns, answers and approvals.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ServeArgs {
    /// The address and port to listen on (default 127.0.0.1:0, a free port on loopback). An
    /// address other than loopback exposes the server to the network: still behind its token,
    /// but put it behind `ssh -L` or a tunnel instead where you can (docs/web.md).
    #[arg(long, value_name = "ADDR:PORT")]
    #[serde(default)]
    pub listen: Option<String>,
}

impl ServeArgs {
    /// The socket address to bind.
    pub fn address(&self) -> Result<SocketAddr> {
        let given = self.listen.as_deref().unwrap_or(DEFAULT_LISTEN);
        given.parse().map_err(|_| {
            Error::usage(format!(
                "--listen {given:?} is not ADDR:PORT (e.g. 127.0.0.1:8421, [::1]:0, 0.0.0.0:8421)"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(listen: Option<&str>) -> ServeArgs {
        ServeArgs {
            listen: listen.map(str::to_string),
        }
    }

    #[test]
    fn loopback_and_a_free_port_unless_told() {
        let addr = args(None).address().expect("default");
        assert!(addr.ip().is_loopback());
        assert_eq!(addr.port(), 0);
        assert_eq!(args(Some("[::1]:8421")).address().expect("v6").port(), 8421);
    }

    #[test]
    fn a_listen_that_is_no_address_names_itself() {
        for bad in ["localhost:80", "8421", "127.0.0.1", "1.2.3.4:99999"] {
            let err = args(Some(bad)).address().expect_err(bad).to_string();
            assert!(err.contains(bad), "{err}");
        }
    }
}
