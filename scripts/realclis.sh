#!/usr/bin/env bash
# Installs the real provider CLIs the offline tier runs, at pinned versions, from npm:
#   ${XDG_CACHE_HOME:-~/.cache}/umbel/clis/<name>-<version>/   (one npm prefix each, stamped)
#   ${XDG_CACHE_HOME:-~/.cache}/umbel/clis/bin/<name>          (links to the binaries)
# Prints the bin directory on stdout. A second run checks the stamps and calls npm not at all.
# npm or the registry missing: exit 1 under CI=true; otherwise exit 3 after saying SKIPPED.
set -u
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/umbel/clis
PINS="claude:@anthropic-ai/claude-code:2.1.332 codex:@openai/codex:0.171.0 gemini:@google/gemini-cli:0.61.0"

unavailable() {
  if [ "${CI:-}" = true ]; then
    echo "smoke-offline: FAILED: $1" >&2
    exit 1
  fi
  echo "smoke-offline: SKIPPED: $1 (install node >= 20 and npm, with the npm registry reachable, then run just smoke-offline)" >&2
  exit 3
}

command -v npm >/dev/null 2>&1 || unavailable "npm is not installed"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 20 ] || unavailable "node >= 20 is needed (found $(node --version 2>/dev/null || echo none))"
mkdir -p "$CACHE/bin" || unavailable "cannot create $CACHE"
exec 9>"$CACHE/.lock"
flock -w 1200 9 || unavailable "could not lock $CACHE/.lock"

for pin in $PINS; do
  name=${pin%%:*}; rest=${pin#*:}; pkg=${rest%:*}; version=${rest##*:}
  dir=$CACHE/$name-$version
  bin=$dir/node_modules/.bin/$name
  if [ ! -f "$dir/.ok" ] || [ ! -x "$bin" ]; then
    echo "smoke-offline: installing $pkg@$version into $dir" >&2
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
  ln -sfn "$bin" "$CACHE/bin/$name"
done
echo "$CACHE/bin"
