#!/usr/bin/env bash
# The demo behind `just demo`: umbel drives the fake claude, codex and gemini (sim crate) in a
# private tmux server, in a throw-away state root and HOME, so no real CLI or subscription is
# involved.
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
cleanup() { "$umbel" kill --all --purge >/dev/null 2>&1 || true; rm -rf "$sandbox"; }
trap cleanup EXIT
cd "$sandbox/project"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step umbel -p "Say hello"
"$umbel" -p "Say hello"

step umbel -p "Say hello" --output-format json
"$umbel" -p "Say hello" --output-format json

step umbel -p "Say hello" --provider codex --output-format json
"$umbel" -p "Say hello" --provider codex --output-format json

step umbel -p "Say hello" --provider gemini
"$umbel" -p "Say hello" --provider gemini

step umbel spawn --name demo
"$umbel" spawn --name demo
# shellcheck disable=SC2016 # printed for the reader as typed
step 'pos=$(umbel send demo "Write a haiku about tmux")'
pos=$("$umbel" send demo "Write a haiku about tmux")
echo "$pos"
step umbel wait demo --since "$pos"
"$umbel" wait demo --since "$pos"
step umbel read demo
"$umbel" read demo
step umbel ls
"$umbel" ls
step umbel kill demo --purge
"$umbel" kill demo --purge

# Guardrails (docs/guardrails.md): the fake answers wrong first, right after umbel's feedback.
cat >verdict.json <<'JSON'
{"type": "object", "required": ["verdict"], "properties": {"verdict": {"enum": ["pass", "fail"]}}}
JSON
cat >scenario.json <<'JSON'
{"turns": [
  {"match": "Judge", "reply": "I would say it passes."},
  {"match": "[umbel] Your answer was rejected", "reply": "```json\n{\"verdict\": \"pass\"}\n```"}
]}
JSON
step umbel -p "Judge the haiku; answer as JSON" --schema verdict.json
"$umbel" -p "Judge the haiku; answer as JSON" --schema verdict.json --env UMBEL_SIM_SCENARIO="$PWD/scenario.json"

printf '{"default": {"reply": "Still working on it."}}\n' >stubborn.json
"$umbel" spawn --name stubborn --env UMBEL_SIM_SCENARIO="$PWD/stubborn.json" >/dev/null
step umbel send stubborn "Finish the job" --accept "grep -q finished" --max-attempts 2
"$umbel" send stubborn "Finish the job" --accept "grep -q finished" --max-attempts 2
step umbel wait stubborn
"$umbel" wait stubborn || echo "(exit $?)"

