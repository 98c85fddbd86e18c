#!/bin/sh
# Installs what umbel's recipes need on a Debian machine that has the Rust toolchain. It says
# what it will install before installing anything, installs nothing that is already there, and
# leaves no service running.
#
#   sh scripts/setup.sh            what README's `just demo`, `just try` and `just test` need:
#                                  tmux (apt-get) and just (pip, else cargo)
#   sh scripts/setup.sh --lint     also shellcheck, for `just lint` (the hooks stay POSIX sh)
#   sh scripts/setup.sh --remote   also OpenSSH (openssh-server, openssh-client), for
#                                  `just test-remote`: the tests start their own sshd on
#                                  127.0.0.1; the system's ssh service is not started
#
# Where it cannot install something itself, it says exactly what is missing.
set -eu

lint=no
remote=no
for arg in "$@"; do
  case "$arg" in
    --lint) lint=yes ;;
    --remote) remote=yes ;;
    *) echo "usage: sh scripts/setup.sh [--lint] [--remote]" >&2; exit 2 ;;
  esac
done

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

# What is missing, as Debian packages (apt) and as words for the announcement (plan).
apt=""
plan=""
want() { # want PACKAGE WHAT-IT-IS-FOR
  apt="$apt $1"
  plan="$plan
  $1 (apt-get): $2"
}
command -v tmux >/dev/null 2>&1 || want tmux "the terminal multiplexer umbel drives the CLIs in"
if [ "$lint" = yes ] && ! command -v shellcheck >/dev/null 2>&1; then
  want shellcheck "just lint checks hooks/ and scripts/ with it"
fi
sshd_missing=no
if [ "$remote" = yes ] && { [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null 2>&1; }; then
  sshd_missing=yes
  want "openssh-server openssh-client" "just test-remote runs its own sshd on 127.0.0.1 (the ssh service is not started)"
fi
if ! command -v just >/dev/null 2>&1; then
  plan="$plan
  just 1.59.0 (pip rust-just, else cargo install just): the task runner of the README's commands"
fi

[ -n "$plan" ] || exit 0
echo "umbel setup: will install:$plan" >&2

if [ -n "$apt" ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "umbel setup: no apt-get here; install these with your package manager:$apt (macOS: brew install tmux shellcheck)" >&2
    exit 1
  fi
  # A package's postinst may start its service (openssh-server starts sshd, on systemd hosts
  # too): a policy-rc.d that refuses every start keeps it stopped, then goes away again.
  policy=/usr/sbin/policy-rc.d
  own_policy=no
  if [ "$sshd_missing" = yes ] && [ ! -e "$policy" ]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
    own_policy=yes
  fi
  status=0
  # shellcheck disable=SC2086 # $apt is a list of package names
  as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt >/dev/null || status=$?
  if [ "$own_policy" = yes ]; then
    as_root rm -f "$policy"
    # Nor started at the next boot: the tests need the binary, not the service.
    if [ -d /run/systemd/system ]; then
      as_root systemctl disable --quiet ssh.service ssh.socket 2>/dev/null || true
    fi
  fi
  [ "$status" -eq 0 ] || { echo "umbel setup: apt-get install$apt failed (exit $status)" >&2; exit "$status"; }
fi

# Where pip put just's binary, when it is installed but not on PATH (pip said "already satisfied"
# because rust-just sits in ~/.local, say): from the package's own file list, else the usual places.
installed_just() {
  location=$(python3 -m pip show -f rust-just 2>/dev/null | sed -n 's/^Location: //p')
  file=$(python3 -m pip show -f rust-just 2>/dev/null | sed -n 's|^ *\(.*bin/just\)$|\1|p')
  for candidate in "$location/$file" "$HOME/.local/bin/just" "$HOME/.cargo/bin/just" /usr/local/bin/just; do
    [ -f "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
  done
  return 1
}

if ! command -v just >/dev/null 2>&1; then
  prefix=""
  [ "$(id -u)" -eq 0 ] && prefix="--prefix /usr/local"
  # shellcheck disable=SC2086
  python3 -m pip install -q --disable-pip-version-check $prefix rust-just==1.59.0 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check --break-system-packages $prefix rust-just==1.59.0 2>/dev/null ||
    cargo install just --version 1.59.0 --locked --quiet
  hash -r 2>/dev/null || true
  if ! command -v just >/dev/null 2>&1 && found=$(installed_just); then
    if [ "$(id -u)" -eq 0 ]; then
      ln -sf "$found" /usr/local/bin/just
      echo "umbel setup: linked $found into /usr/local/bin" >&2
      hash -r 2>/dev/null || true
    else
      echo "umbel setup: just is installed at $found; add $(dirname "$found") to PATH" >&2
      exit 1
    fi
  fi
  if ! command -v just >/dev/null 2>&1; then
    echo "umbel setup: just was installed but is not on PATH; add ~/.local/bin or ~/.cargo/bin to PATH" >&2
    exit 1
  fi
fi
