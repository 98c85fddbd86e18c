#!/usr/bin/env bash
# Installs real provider CLIs for the offline tier from npm, one npm prefix per release:
#   ${XDG_CACHE_HOME:-~/.cache}/umbel/clis/<name>-<version>/   (stamped; a second run calls no npm)
# The releases come from umbel's own tables (`umbel releases --json`), never from here.
#   realclis.sh                    the newest tested release of each CLI; prints clis/bin/
#                                  (links claude, codex, gemini, qwen, opencode, copilot,
#                                  opencode-config: its plugin SDK, and copilot-cache: its
#                                  unpacked package)
#   realclis.sh PROVIDER VERSION   that release of PROVIDER, the others at their newest tested;
#                                  prints clis/sets/PROVIDER-VERSION/ (the same links)
# UMBEL_BIN names the umbel to ask (default target/debug/umbel).
# npm or the registry missing: exit 1 under CI=true; otherwise exit 3 after saying SKIPPED.
set -u
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/umbel/clis
UMBEL=${UMBEL_BIN:-target/debug/umbel}

unavailable() {
  if [ "${CI:-}" = true ]; then
    echo "realclis: FAILED: $1" >&2
    exit 1
  fi
  echo "realclis: SKIPPED: $1 (install node >= 20 and npm, with the npm registry reachable, then try again)" >&2
  exit 3
}

[ -x "$UMBEL" ] || { echo "realclis: $UMBEL is missing: build umbel first (cargo build -p umbel)" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || unavailable "npm is not installed"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 20 ] || unavailable "node >= 20 is needed (found $(node --version 2>/dev/null || echo none))"
mkdir -p "$CACHE/bin" "$CACHE/sets" || unavailable "cannot create $CACHE"
exec 9>"$CACHE/.lock"
flock -w 1200 9 || unavailable "could not lock $CACHE/.lock"

# "provider package newest" per CLI, from umbel's tables.
windows=$("$UMBEL" releases --json | python3 -c '
import json, sys
for w in json.load(sys.stdin):
    print(w["provider"], w["package"], w["newestTested"])
') || { echo "realclis: \`$UMBEL releases --json\` failed" >&2; exit 1; }

# install NAME PACKAGE VERSION: one npm prefix, stamped; prints the binary.
install() {
  local name=$1 pkg=$2 version=$3
  local dir=$CACHE/$name-$version
  local bin=$dir/node_modules/.bin/$name
  if [ ! -f "$dir/.ok" ] || [ ! -x "$bin" ]; then
    echo "realclis: installing $pkg@$version into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir"
    echo '{"name":"umbel-offline-'"$name"'","private":true}' >"$dir/package.json"
    if ! npm install --prefix "$dir" --no-audit --no-fund --no-update-notifier --loglevel=error \
        "$pkg@$version" >"$dir/npm.log" 2>&1; then
      tail -5 "$dir/npm.log" >&2
      unavailable "npm install $pkg@$version failed (see $dir/npm.log)"
    fi
    [ -x "$bin" ] || unavailable "$bin is missing after npm install"
    touch "$dir/.ok"
  fi
  if [ "$name" = opencode ] && [ ! -d "$dir/config/node_modules/@opencode-ai/plugin" ]; then
    # opencode installs its plugin SDK into each config folder before it loads a plugin and
    # waits for that install without a timeout; offline it never ends. A user online has it
    # after the first start: the offline tier copies this one into each sandbox's config.
    if ! npm install --prefix "$dir/config" --no-audit --no-fund --no-update-notifier \
      --loglevel=error "@opencode-ai/plugin@$version" >>"$dir/npm.log" 2>&1; then
      unavailable "npm install @opencode-ai/plugin@$version failed (see $dir/npm.log)"
    fi
  fi
  if [ "$name" = copilot ] && [ ! -d "$dir/warm/.cache/copilot" ]; then
    # copilot unpacks ~235 MB into ~/.cache/copilot on a HOME's first start (1.4 s): the
    # offline tier links each sandbox's cache to this one, unpacked once.
    mkdir -p "$dir/warm"
    HOME="$dir/warm" "$bin" --version >>"$dir/npm.log" 2>&1 || unavailable "$bin --version failed (see $dir/npm.log)"
  fi
  echo "$bin"
}

want_name=${1:-}
want_version=${2:-}
out=$CACHE/bin
if [ -n "$want_name" ]; then
  [ -n "$want_version" ] || { echo "usage: realclis.sh [PROVIDER VERSION]" >&2; exit 2; }
  out=$CACHE/sets/$want_name-$want_version
  mkdir -p "$out"
fi
found=
while read -r name pkg newest; do
  version=$newest
  if [ "$name" = "$want_name" ]; then version=$want_version; found=1; fi
  bin=$(install "$name" "$pkg" "$version") || exit $?
  ln -sfn "$bin" "$out/$name"
  if [ "$name" = opencode ]; then ln -sfn "$CACHE/$name-$version/config" "$out/opencode-config"; fi
  if [ "$name" = copilot ]; then ln -sfn "$CACHE/$name-$version/warm/.cache/copilot" "$out/copilot-cache"; fi
done <<<"$windows"
if [ -n "$want_name" ] && [ -z "$found" ]; then
  echo "realclis: unknown provider \`$want_name\` (see umbel releases)" >&2
  exit 2
fi
echo "$out"
