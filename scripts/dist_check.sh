#!/usr/bin/env bash
# `just dist-check`: what a user without Rust gets. Builds the release artifacts (`just dist`)
# unless DIST_DIR already holds them, then:
#  1. npm: installs the two packed npm packages (the launcher and this platform's binary) into
#     an empty prefix, and with a PATH that has no cargo or rustc runs `umbel --version` (it
#     must say npm), `umbel doctor`, and `umbel -p` against the fake claude; the launcher on a
#     platform it has no package for names it;
#  2. the installer: serves dist/ on 127.0.0.1 and runs scripts/install.sh against it into an
#     empty folder (`umbel --version` must say the installer), then refuses a tarball whose
#     SHA-256 does not match and a platform it has no build for.
# Needs node and npm (skips with a notice without them; fails under CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${DIST_DIR:-dist}

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "dist-check: SKIPPED: node and npm are not installed (apt-get install nodejs npm)"
  [ "${CI:-}" = true ] && exit 1
  exit 0
fi
[ -f "$out/manifest.json" ] || bash scripts/dist.sh
cargo build -p sim --bins --quiet
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$out/manifest.json")
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  if [ -d "$work/state" ]; then
    UMBEL_STATE="$work/state" TMUX_TMPDIR="$work/t" "$work/prefix/bin/umbel" kill --all --purge >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A PATH without cargo or rustc: the prefix's bin, node's folder, the system's.
node_dir=$(dirname "$(command -v node)")
bare_path="$work/prefix/bin:$node_dir:/usr/bin:/bin"
if PATH="$bare_path" command -v cargo >/dev/null || PATH="$bare_path" command -v rustc >/dev/null; then
  echo "dist-check: cargo or rustc is on $bare_path: the check would not prove umbel needs no Rust" >&2
  exit 1
fi

echo "dist-check: npm i -g of the packed packages into an empty prefix" >&2
npm install -g --prefix "$work/prefix" --no-audit --no-fund --loglevel=error \
  "$repo/$out/umbel-cli-linux-x64-gnu-$version.tgz" "$repo/$out/umbel-cli-$version.tgz"
mkdir -p "$work/home" "$work/project" "$work/t"
printf '{"hasCompletedOnboarding":true,"projects":{"%s":{"hasTrustDialogAccepted":true}}}' \
  "$work/project" >"$work/home/.claude.json"
run() {
  env -i PATH="$bare_path" HOME="$work/home" LANG=C.UTF-8 UMBEL_STATE="$work/state" \
    TMUX_TMPDIR="$work/t" UMBEL_CLAUDE_BIN="$repo/target/debug/fake-claude" "$@"
}
says=$(run umbel --version)
echo "$says"
grep -q "installed with npm" <<<"$says" || { echo "dist-check: --version does not say npm" >&2; exit 1; }
run umbel doctor | grep '^ *ok *umbel' || { run umbel doctor; echo "dist-check: doctor names no install" >&2; exit 1; }
answer=$(cd "$work/project" && run umbel -p "Say hi")
[ -n "$answer" ] || { echo "dist-check: umbel -p printed nothing" >&2; exit 1; }
echo "dist-check: umbel -p answered: $answer" >&2
# On a platform without a package the launcher names the platform and the ones that exist.
launcher="$work/prefix/lib/node_modules/umbel-cli/bin/umbel.js"
if node -e "Object.defineProperty(process, 'platform', { value: 'freebsd' }); require('$launcher')" \
  2>"$work/err"; then
  echo "dist-check: the launcher ran on a platform it has no package for" >&2; exit 1
fi
grep -q "no build for this platform (freebsd-x64)" "$work/err" || { cat "$work/err" >&2; exit 1; }

echo "dist-check: the installer against dist/ served on 127.0.0.1" >&2
port_file="$work/port"
python3 - "$out" "$port_file" <<'PY' &
import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
open(sys.argv[2], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
server=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$port_file")"
install_run() { # install_run URL [VAR=VALUE...]
  env -i PATH="/usr/bin:/bin" HOME="$work/home2" XDG_DATA_HOME="$work/home2/.local/share" \
    UMBEL_RELEASE_URL="$1" UMBEL_INSTALL_DIR="$work/bin2" "${@:2}" sh scripts/install.sh
}
mkdir -p "$work/home2"
install_run "$url"
says=$(env -i PATH=/usr/bin:/bin HOME="$work/home2" XDG_DATA_HOME="$work/home2/.local/share" "$work/bin2/umbel" --version)
echo "$says"
grep -q "installed with the installer script" <<<"$says" || { echo "dist-check: --version does not say the installer" >&2; exit 1; }

# A tampered tarball is refused, and nothing is installed.
mkdir -p "$work/bad"
cp "$out"/* "$work/bad/"
printf 'tampered' >>"$work/bad/umbel-$version-x86_64-unknown-linux-gnu.tar.gz"
rm -rf "$work/bin2"
if install_run "file://$work/bad" 2>"$work/err"; then
  echo "dist-check: the installer took a tarball whose SHA-256 does not match" >&2; exit 1
fi
grep -q "does not match its published SHA-256" "$work/err" || { cat "$work/err" >&2; exit 1; }
[ ! -e "$work/bin2/umbel" ] || { echo "dist-check: a refused tarball left a binary" >&2; exit 1; }
# A platform the release has no build for is refused, naming it.
if install_run "$url" UMBEL_TARGET=riscv64gc-unknown-linux-gnu 2>"$work/err"; then
  echo "dist-check: the installer took a platform the release has no build for" >&2; exit 1
fi
grep -q "no build for riscv64gc-unknown-linux-gnu" "$work/err" || { cat "$work/err" >&2; exit 1; }
echo "dist-check: ok (npm install without Rust, installer, checksum and platform refusals)" >&2
