//! Simulated hosts for the remote tier: OpenSSH's `sshd` on 127.0.0.1, one per host, each with
//! a throwaway host key and its own sshd_config whose `SetEnv` gives the sessions that host's
//! own HOME, UMBEL_STATE, TMUX_TMPDIR and PATH (the built umbel and the fakes): each host is a
//! [`Sandbox`] reached over ssh. Between ssh and each sshd sits a small TCP relay the test can
//! cut, which is a host going away. The local umbel gets an ssh config (`UMBEL_SSH_CONFIG`)
//! naming the hosts, the user key and a known_hosts file; host-key checking stays strict.
//! Nothing here touches the system's ssh configuration.

use crate::harness::Sandbox;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// Whether this machine can run the remote tier; when not, the test is skipped with a notice
/// (and fails under CI=true, where `.ci/run` installs openssh-server).
pub fn sshd_available() -> bool {
    let found = Path::new(SSHD).exists()
        && Command::new("ssh")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the remote tier needs OpenSSH (apt-get install openssh-server openssh-client)"
        );
        eprintln!("remote: SKIPPED: no {SSHD} or ssh (apt-get install openssh-server)");
    }
    found
}

/// One simulated host: its sandbox and the sshd serving it through a relay.
pub struct Host {
    pub name: String,
    pub sandbox: Sandbox,
    pub relay: Relay,
    sshd: Child,
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.sshd.kill();
        let _ = self.sshd.wait();
    }
}

/// The local side and its hosts.
pub struct Net {
    pub local: Sandbox,
    pub hosts: Vec<Host>,
    keys: tempfile::TempDir,
    ssh_config: String,
    /// Hosts that accept TCP and never speak (a hung machine).
    silent: Vec<Relay>,
}

impl Net {
    /// [`Net::new`], or `None` (with the skip notice) where sshd is missing: a test returns.
    pub fn up(count: usize) -> Option<Net> {
        sshd_available().then(|| Net::new(count))
    }

    /// [`Net::with_hosts`], or `None` where sshd is missing.
    pub fn up_with(count: usize, host: impl Fn() -> Sandbox) -> Option<Net> {
        sshd_available().then(|| Net::with_hosts(count, host))
    }

    /// A local sandbox and `count` hosts, `h1`…
    pub fn new(count: usize) -> Net {
        Net::with_hosts(count, Sandbox::new)
    }

    /// A local sandbox and `count` hosts, `h1`…, each host's sandbox made by `host` (the real
    /// CLIs' own: `crate::real::sandbox`).
    pub fn with_hosts(count: usize, host: impl Fn() -> Sandbox) -> Net {
        let keys = tempfile::Builder::new()
            .prefix("k")
            .tempdir_in("/tmp")
            .expect("tempdir");
        let dir = keys.path();
        for key in ["host", "user"] {
            let status = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "umbel-test", "-f"])
                .arg(dir.join(key))
                .status()
                .expect("ssh-keygen");
            assert!(status.success(), "ssh-keygen failed");
        }
        std::fs::copy(dir.join("user.pub"), dir.join("authorized_keys")).expect("keys");
        // sshd (as root) wants its privilege separation folder; the package makes it at boot.
        let _ = std::fs::create_dir_all("/run/sshd");
        let mut net = Net {
            local: Sandbox::new(),
            hosts: Vec::new(),
            keys,
            ssh_config: String::new(),
            silent: Vec::new(),
        };
        for n in 1..=count {
            net.add_host(&format!("h{n}"), host());
        }
        net.write_config();
        net
    }

    fn add_host(&mut self, name: &str, sandbox: Sandbox) {
        let dir = self.keys.path();
        let port = free_port();
        let mut env = sandbox.env();
        let bin = assert_cmd::cargo::cargo_bin("umbel");
        let bin_dir = bin
            .parent()
            .expect("target dir")
            .to_string_lossy()
            .into_owned();
        for (k, v) in env.iter_mut() {
            if k == "PATH" {
                *v = format!("{bin_dir}:{v}");
            }
        }
        let set_env: Vec<String> = env.iter().map(|(k, v)| format!("\"{k}={v}\"")).collect();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {hk}\nPidFile none\n\
             AuthorizedKeysFile {ak}\nStrictModes no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\n\
             MaxSessions 200\nMaxStartups 100\nSetEnv {}\n",
            set_env.join(" "),
            hk = dir.join("host").display(),
            ak = dir.join("authorized_keys").display(),
        );
        let config_path = sandbox.root.join("sshd_config");
        std::fs::write(&config_path, config).expect("sshd_config");
        let log = std::fs::File::create(sandbox.root.join("sshd.log")).expect("log");
        let sshd = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start sshd");
        wait_listening(port, &sandbox.root.join("sshd.log"));
        let relay = Relay::start(Some(port));
        self.hosts.push(Host {
            name: name.to_string(),
            sandbox,
            relay,
            sshd,
        });
    }

    /// Adds a host that accepts connections and never answers.
    pub fn add_silent(&mut self, name: &str) {
        let relay = Relay::start(None);
        self.ssh_config
            .push_str(&self.host_block(name, relay.port, name));
        self.silent.push(relay);
        self.write_file();
    }

    fn host_block(&self, name: &str, port: u16, alias: &str) -> String {
        let dir = self.keys.path();
        format!(
            "Host {name}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  HostKeyAlias {alias}\n  \
             IdentityFile {key}\n  IdentitiesOnly yes\n  IdentityAgent none\n  \
             UserKnownHostsFile {known}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n\n",
            user = user(),
            key = dir.join("user").display(),
            known = dir.join("known_hosts").display(),
        )
    }

    fn write_config(&mut self) {
        let dir = self.keys.path();
        let host_key = std::fs::read_to_string(dir.join("host.pub")).expect("host key");
        let mut known = String::new();
        let mut config = String::new();
        for host in &self.hosts {
            known.push_str(&format!("{} {}", host.name, host_key));
            config.push_str(&self.host_block(&host.name, host.relay.port, &host.name));
        }
        // A host whose key nobody accepted: h1's machine under another name.
        if let Some(first) = self.hosts.first() {
            config.push_str(&self.host_block("stranger", first.relay.port, "stranger"));
        }
        // Nothing listens there.
        config.push_str(&self.host_block("nowhere", free_port(), "nowhere"));
        std::fs::write(dir.join("known_hosts"), known).expect("known_hosts");
        self.ssh_config = config;
        self.write_file();
    }

    fn write_file(&mut self) {
        let path = self.keys.path().join("ssh_config");
        std::fs::write(&path, &self.ssh_config).expect("ssh_config");
        let path = path.to_string_lossy().into_owned();
        self.local
            .var("UMBEL_SSH_CONFIG", &path)
            .var("UMBEL_SSH_CONNECT_TIMEOUT", "2");
    }

    /// The host named `name`.
    pub fn host(&self, name: &str) -> &Host {
        self.hosts
            .iter()
            .find(|h| h.name == name)
            .unwrap_or_else(|| panic!("no host {name}"))
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        // The local side first: its `kill --all` reaches the hosts while they are up.
        let _ = self.local.process(&["kill", "--all", "--purge"]).output();
        // The shared ssh connections end when the relays cut them (`Host` drops).
    }
}

fn user() -> String {
    Command::new("id")
        .arg("-un")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "root".into())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn wait_listening(port: u16, log: &Path) {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "sshd did not start: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A TCP relay in front of a host's sshd (or, without a target, a host that never speaks);
/// [`Relay::cut`] drops every connection and refuses new ones: the host went away.
pub struct Relay {
    pub port: u16,
    cut: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

impl Relay {
    fn start(target: Option<u16>) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind relay");
        let port = listener.local_addr().expect("addr").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let cut = Arc::new(AtomicBool::new(false));
        let streams: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (stop, kept) = (cut.clone(), streams.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                let _ = client.set_nonblocking(false);
                // A relay must not add Nagle's delay to what sshd sends with TCP_NODELAY: a
                // small packet held for the peer's delayed ACK costs ~40 ms (it was the whole
                // gap between a host's own wait and the forwarded one).
                let _ = client.set_nodelay(true);
                kept.lock()
                    .unwrap()
                    .push(client.try_clone().expect("clone"));
                let Some(target) = target else { continue };
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let _ = server.set_nodelay(true);
                kept.lock()
                    .unwrap()
                    .push(server.try_clone().expect("clone"));
                pipe(
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                pipe(server, client);
            }
            // Dropping the listener refuses new connections.
        });
        Relay { port, cut, streams }
    }

    /// The host goes away: every connection through the relay is reset, new ones refused.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::Relaxed);
        for stream in self.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
