#!/usr/bin/env bash
# The demo behind `just demo-workflow`: examples/review.yaml on the fake claude, codex and gemini,
# in a throw-away state root and HOME (no real CLI, no network, no subscription).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
umbel="$top/target/debug/umbel"
for bin in "$umbel" "$top/target/debug/fake-claude" "$top/target/debug/fake-codex" "$top/target/debug/fake-gemini"; do
  [ -x "$bin" ] || { echo "demo-workflow: $bin is missing; run \`just build\` first" >&2; exit 1; }
done
sandbox=$(mktemp -d /tmp/umbel-wf-demo.XXXXXX)
export HOME="$sandbox/home" UMBEL_STATE="$sandbox/state" GEMINI_API_KEY=fake-demo-key TOPIC=owls
export UMBEL_CLAUDE_BIN="$top/target/debug/fake-claude" UMBEL_CODEX_BIN="$top/target/debug/fake-codex"
export UMBEL_GEMINI_BIN="$top/target/debug/fake-gemini"
mkdir -p "$HOME"
printf '{"hasCompletedOnboarding":true,"theme":"dark"}\n' >"$HOME/.claude.json"
cleanup() { "$umbel" kill --all --purge >/dev/null 2>&1 || true; rm -rf "$sandbox"; }
trap cleanup EXIT
cp "$top/examples/review.yaml" "$sandbox/review.yaml"
cd "$sandbox"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
step TOPIC=owls umbel run review.yaml --check
"$umbel" run review.yaml --check
step TOPIC=owls umbel run review.yaml
"$umbel" run review.yaml   # prints what the final step (revise) ended with
runs=("$UMBEL_STATE"/workflows/*)   # the sandbox holds this one run
run_id=$(basename "${runs[0]}")
step "cat \$UMBEL_STATE/workflows/$run_id/steps/revise/prompt"
cat "$UMBEL_STATE/workflows/$run_id/steps/revise/prompt"
step "cat \$UMBEL_STATE/workflows/$run_id/steps/revise/outputs/final"
cat "$UMBEL_STATE/workflows/$run_id/steps/revise/outputs/final"; echo
