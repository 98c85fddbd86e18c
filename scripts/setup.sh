#!/bin/sh
# Installs what umbel's recipes need on a Debian machine that has the Rust toolchain:
# tmux, shellcheck and OpenSSH (apt-get; sshd for `just test-remote`) and just (pip, else cargo). Idempotent; says exactly what is missing when it
# cannot install something itself.
set -eu

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else echo "umbel setup: need root to run: $*" >&2; return 1
  fi
}

if ! command -v cargo >/dev/null 2>&1; then
  echo "umbel setup: cargo is missing; install the Rust toolchain (https://rustup.rs) first" >&2
  exit 1
fi

# apt_install TOOL WHAT: installs TOOL with apt-get unless it is on PATH; WHAT describes it when
# it is missing and there is no apt-get.
apt_install() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if command -v apt-get >/dev/null 2>&1; then
    echo "umbel setup: installing $1 (apt-get)" >&2
    as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
  else
    echo "umbel setup: $2 is missing and there is no apt-get; install it with your package manager" >&2
    exit 1
  fi
}

apt_install tmux "tmux (>= 3.2)"
# `just lint` runs it on hooks/ and scripts/ (the hooks must stay POSIX sh, for macOS).
apt_install shellcheck "shellcheck (macOS: brew install shellcheck)"

# The remote tier (`just test-remote`) runs OpenSSH's sshd and ssh on 127.0.0.1.
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "umbel setup: installing openssh-server and openssh-client (apt-get), for just test-remote" >&2
    as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server openssh-client >/dev/null
  else
    echo "umbel setup: warning: no sshd/ssh and no apt-get; install OpenSSH to run just test-remote" >&2
  fi
fi

if ! command -v just >/dev/null 2>&1; then
  echo "umbel setup: installing just" >&2
  prefix=""
  [ "$(id -u)" -eq 0 ] && prefix="--prefix /usr/local"
  # shellcheck disable=SC2086
  python3 -m pip install -q --disable-pip-version-check $prefix rust-just==1.59.0 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check --break-system-packages $prefix rust-just==1.59.0 2>/dev/null ||
    cargo install just --locked --quiet
  hash -r 2>/dev/null || true
  if ! command -v just >/dev/null 2>&1; then
    echo "umbel setup: just was installed but is not on PATH; add ~/.local/bin or ~/.cargo/bin to PATH" >&2
    exit 1
  fi
fi
