//! The remote tier (`just test-remote`): workers on simulated hosts reached through OpenSSH's
//! real `sshd` on 127.0.0.1, driven by the real `umbel` on both sides. Skipped with a notice
//! where sshd is missing (`.ci/run` installs it).

mod hosts;
mod scenarios;
mod workflow;
