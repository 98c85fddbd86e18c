#!/usr/bin/env bash
# `just try`: umbel with the fake claude, codex, gemini, qwen, opencode and copilot (sim crate) on
# PATH as `claude`, `codex`, `gemini`, `qwen`, `opencode` and `copilot`, in a throw-away HOME onboarded for
# them (claude's hasCompletedOnboarding, a codex auth.json, a gemini key, a qwen key, opencode's
# saved sign-in and plugin SDK), a throw-away state root and tmux
# folder, so the commands of README's "Use" and docs/getting-started.md can be typed by hand, as
# written, with no real CLI, network or subscription.
#
#   just try            opens a shell there; leaving it kills every worker and removes it all
#   just try --print    prints the exports instead: eval "$(just try --print)"
#   just try --check    runs the docs' command blocks marked `<!-- just try --check -->`
#                       verbatim there, each in a fresh state root; fails when one fails
#
# UMBEL_TRY_NO_BUILD=1 skips the build (the e2e test that runs --check has built everything).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=shell
case "${1:-}" in
  "") ;;
  --print) mode=print ;;
  --check) mode=check ;;
  *) echo "usage: just try [--print|--check]" >&2; exit 2 ;;
esac

if [ -z "${UMBEL_TRY_NO_BUILD:-}" ]; then
  echo "try: building umbel and the fake CLIs (cargo build --workspace --bins)" >&2
  (cd "$top" && cargo build --workspace --bins) >&2
fi
debug="$top/target/debug"
for bin in umbel fake-claude fake-codex fake-gemini fake-qwen fake-opencode fake-copilot; do
  [ -x "$debug/$bin" ] || { echo "try: $debug/$bin is missing; run \`just build\` first" >&2; exit 1; }
done

sandbox=$(mktemp -d /tmp/umbel-try.XXXXXX)
home="$sandbox/home"
mkdir -p "$sandbox/bin" "$sandbox/tmux" "$home/.claude" "$home/.codex" "$home/.gemini" "$home/.qwen" "$home/proj"
ln -s "$debug/umbel" "$sandbox/bin/umbel"
for cli in claude codex gemini qwen opencode copilot; do ln -s "$debug/fake-$cli" "$sandbox/bin/$cli"; done
# Onboarded as each CLI wants it (the fakes read the same files as the real ones):
# claude opens on its first-run setup without this flag ...
printf '{"hasCompletedOnboarding":true,"theme":"dark"}\n' >"$home/.claude.json"
# ... codex on its sign-in screen without an auth.json (or OPENAI_API_KEY) ...
printf '{"auth_mode":"apikey","OPENAI_API_KEY":"fake-try-key"}\n' >"$home/.codex/auth.json"
chmod 600 "$home/.codex/auth.json"
# ... gemini asks how to authenticate without a key (GEMINI_API_KEY, exported below), and qwen
# opens "Connect a Provider" without one (DASHSCOPE_API_KEY below: OPENAI_API_KEY would sign
# codex in by the environment too); opencode's `umbel doctor` check wants a saved sign-in (its
# provider keys would sign claude in too) and the plugin SDK opencode installs on its first start.
mkdir -p "$home/.local/share/opencode" "$home/.config/opencode/node_modules/@opencode-ai/plugin"
printf '{"anthropic":{"type":"api","key":"fake-try-key"}}\n' >"$home/.local/share/opencode/auth.json"
printf '{"name":"@opencode-ai/plugin","version":"1.18.33"}\n' \
  >"$home/.config/opencode/node_modules/@opencode-ai/plugin/package.json"
# The project the docs' commands run in: ~/proj, a git repository with a change to diff, and
# the example workflow at the same path as in this repository.
cp "$top/README.md" "$home/proj/README.md"
mkdir -p "$home/proj/examples"
cp "$top/examples/review.yaml" "$home/proj/examples/review.yaml"
git -C "$home/proj" init -q
git -C "$home/proj" add -A
git -C "$home/proj" -c user.name=try -c user.email=try@umbel.invalid commit -qm "try: start"
echo "One more line to review." >>"$home/proj/README.md"

# The environment every mode sets. IS_SANDBOX=1 only as root, where claude needs it for
# `--unattended` (this is a throw-away sandbox, which is what the variable declares).
exports=(
  "PATH=$sandbox/bin:$PATH"
  "HOME=$home"
  "UMBEL_STATE=$sandbox/state"
  "TMUX_TMPDIR=$sandbox/tmux"
  "GEMINI_API_KEY=fake-try-key"
  "DASHSCOPE_API_KEY=fake-try-key"
  "COPILOT_GITHUB_TOKEN=fake-try-key"
)
[ "$(id -u)" -eq 0 ] && exports+=("IS_SANDBOX=1")
# Variables that would point umbel or the CLIs elsewhere than this sandbox.
unsets=(UMBEL_CLAUDE_BIN UMBEL_CODEX_BIN UMBEL_GEMINI_BIN UMBEL_QWEN_BIN UMBEL_OPENCODE_BIN
  UMBEL_COPILOT_BIN COPILOT_HOME COPILOT_PROVIDER_BASE_URL
  UMBEL_TMUX_SOCKET CLAUDE_CONFIG_DIR CODEX_HOME GEMINI_CLI_HOME QWEN_HOME XDG_CONFIG_HOME
  XDG_DATA_HOME OPENCODE_CONFIG OPENCODE_CONFIG_CONTENT TMUX)

if [ "$mode" = print ]; then
  for var in "${unsets[@]}"; do echo "unset $var"; done
  for pair in "${exports[@]}"; do printf 'export %s=%q\n' "${pair%%=*}" "${pair#*=}"; done
  echo "cd $(printf '%q' "$home/proj")"
  echo "# afterwards: umbel kill --all --purge; rm -rf $(printf '%q' "$sandbox")"
  exit 0
fi

for var in "${unsets[@]}"; do unset "$var"; done
for pair in "${exports[@]}"; do export "${pair?}"; done
cleanup() {
  for state in "$sandbox"/state*; do
    if [ -d "$state" ]; then UMBEL_STATE="$state" umbel kill --all --purge >/dev/null 2>&1 || true; fi
  done
  rm -rf "$sandbox"
}
trap cleanup EXIT
cd "$home/proj"

if [ "$mode" = check ]; then
  # Every fenced block right after a `<!-- just try --check -->` line, as written.
  n=0
  for doc in README.md docs/getting-started.md; do
    while IFS= read -r -d '' block; do
      n=$((n + 1))
      printf '\n\033[1mtry --check: %s, block %d\033[0m\n' "$doc" "$n"
      printf '%s' "$block" >"$sandbox/block-$n.sh"
      UMBEL_STATE="$sandbox/state-$n" bash -v -euo pipefail "$sandbox/block-$n.sh" ||
        { echo "try --check: FAILED: a command of the block above (in $doc) exited $?" >&2; exit 1; }
    done < <(awk '/<!-- just try --check -->/ { armed = 1; next }
                  armed && /^```/ && !inside { inside = 1; next }
                  inside && /^```/ { printf "%s", body; printf "%c", 0; body = ""; inside = 0; armed = 0; next }
                  inside { body = body $0 "\n" }' "$top/$doc")
  done
  [ "$n" -gt 0 ] || { echo "try --check: no block marked <!-- just try --check --> was found" >&2; exit 1; }
  echo "try --check: all $n blocks ran"
  exit 0
fi

cat <<EOF
umbel try: \`claude\`, \`codex\`, \`gemini\`, \`qwen\`, \`opencode\`, \`copilot\` here are the fakes; HOME, the state root and tmux are throw-away ($sandbox).
  umbel -p "Say hello"     then every command of docs/getting-started.md ("Try it on the fakes")
  exit                     leaves the shell, kills its workers and removes $sandbox
EOF
shell=${SHELL:-bash}
if [ "$(basename "$shell")" = bash ]; then
  printf '%s\n' "PS1='(umbel try) \\w \\$ '" >"$sandbox/bashrc"
  "$shell" --rcfile "$sandbox/bashrc" -i || true
else
  "$shell" || true
fi
