#!/usr/bin/env bash
# The demo behind `just demo`: umbel drives the fake claude, codex and gemini (sim crate) in a
# private tmux server, in a throw-away state root and HOME, so no real CLI or subscription is
# involved.
# shellcheck disable=SC2016 # the commands are single-quoted to be shown and run as typed
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
umbel="$top/target/debug/umbel"
fake="$top/target/debug/fake-claude"
for bin in "$umbel" "$fake" "$top/target/debug/fake-codex" "$top/target/debug/fake-gemini"; do
  [ -x "$bin" ] || { echo "demo: $bin is missing; run \`just build\` first" >&2; exit 1; }
done

sandbox=$(mktemp -d /tmp/umbel-demo.XXXXXX)
export HOME="$sandbox/home" UMBEL_STATE="$sandbox/state" UMBEL_CLAUDE_BIN="$fake"
export UMBEL_CODEX_BIN="$top/target/debug/fake-codex" UMBEL_GEMINI_BIN="$top/target/debug/fake-gemini"
# The fake gemini wants a key in the environment, as the real one does (it talks to no network).
export GEMINI_API_KEY=fake-demo-key
mkdir -p "$HOME" "$sandbox/project"
# The fake claude, like the real one, wants onboarding done; the trust dialog umbel answers itself.
printf '{"hasCompletedOnboarding":true,"theme":"dark"}\n' >"$HOME/.claude.json"
cleanup() { umbel kill --all --purge >/dev/null 2>&1 || true; rm -rf "$sandbox"; }
trap cleanup EXIT
# `umbel` below is this build; the fakes are UMBEL_*_BIN above (`just try` puts them on PATH
# as claude, codex and gemini instead: the same commands work there).
export PATH="$top/target/debug:$PATH"
cd "$sandbox/project"

# Prints a command exactly as it is run (quotes kept), then runs that same text.
run() { printf '\n\033[1m$ %s\033[0m\n' "$1"; eval "$1"; }

echo "umbel demo on the fakes, in $sandbox (removed at the end). Every command is shown exactly"
echo "as it runs: paste them into \`just try\`'s shell to run them yourself."

run 'umbel -p "Say hello"'
run 'umbel -p "Say hello" --output-format json'
run 'umbel -p "Say hello" --provider codex --output-format json'
run 'umbel -p "Say hello" --provider gemini'
run 'umbel spawn --name demo'
run 'pos=$(umbel send demo "Write a haiku about tmux")'
run 'echo "$pos"'
run 'umbel wait demo --since "$pos"'
run 'umbel read demo'
run 'umbel ls'
run 'umbel kill demo --purge'

# Guardrails (docs/guardrails.md): the fake answers wrong first, right after umbel's feedback;
# which reply it gives is its scenario (docs/simulator.md), handed to it with --env.
verdict=$(cat <<'CMD'
cat >verdict.json <<'JSON'
{"type": "object", "required": ["verdict"], "properties": {"verdict": {"enum": ["pass", "fail"]}}}
JSON
CMD
)
run "$verdict"
scenario=$(cat <<'CMD'
cat >scenario.json <<'JSON'
{"turns": [
  {"match": "Judge", "reply": "I would say it passes."},
  {"match": "[umbel] Your answer was rejected", "reply": "```json\n{\"verdict\": \"pass\"}\n```"}
]}
JSON
CMD
)
run "$scenario"
run 'umbel -p "Judge the haiku; answer as JSON" --schema verdict.json --env UMBEL_SIM_SCENARIO="$PWD/scenario.json"'

# A worker whose answer never passes its check: the outcome is `rejected`, exit 121.
run "echo '{\"default\": {\"reply\": \"Still working on it.\"}}' >stubborn.json"
run 'umbel spawn --name stubborn --env UMBEL_SIM_SCENARIO="$PWD/stubborn.json"'
run 'umbel send stubborn "Finish the job" --accept "grep -q finished" --max-attempts 2'
run 'umbel wait stubborn' ||
  echo "(exit $?: rejected, as intended: the answer never contains \"finished\", so both attempts fail the check)"
