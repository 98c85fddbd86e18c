#!/usr/bin/env bash
# The offline real-CLI tier (tests/e2e/tiers.rs, `tiers::real::<provider>::…`) on every release of
# each CLI that umbel's tables list as tested (`umbel releases --json`): one run per CLI and
# release, that CLI at that release and the others at their newest. Prints a table of release ×
# scenarios passed (also written to target/smoke-matrix.md; each run's whole output to
# target/smoke-matrix/<provider>-<release>.log) and fails when any scenario failed.
# `--older` (CI) runs, of each CLI's older tested releases, only those in its `covering` list:
# the oldest, and the newest of each stretch between two recorded behaviour changes (the others
# behave as one of them at every point umbel knows of; `just smoke-offline` has just run the
# newest). Without it every tested release runs, the newest too.
# On an older release `--older` leaves out the scenarios in SAME_ON_EVERY_RELEASE: they test
# umbel's own machinery (queues, park and resume races, the warm pool, tmux faults) through keys,
# hooks and records the other scenarios already cover on that release; the pinned release runs
# them all (docs/testing.md, "The split"). A new scenario runs everywhere unless listed here.
# Names after it run those CLIs only: `just smoke-matrix opencode`, `just smoke-matrix --older qwen`.
# UMBEL_MATRIX_THREADS (default 2): scenarios run at once (1 on a machine busy with other work).
# Skips with a notice where npm cannot be had (fails under CI=true), like just smoke-offline.
set -uo pipefail
UMBEL=${UMBEL_BIN:-target/debug/umbel}
report=target/smoke-matrix.md
older=
if [ "${1:-}" = --older ]; then older=1; shift; fi
only=" $* "
runs=$("$UMBEL" releases --json | python3 -c '
import json, sys
older = sys.argv[1] == "1"
for w in json.load(sys.stdin):
    for v in w["covering"] if older else w["tested"]:
        print(w["provider"], v, "pinned" if v == w["newestTested"] else "")
' "${older:-0}") || { echo "smoke-matrix: \`$UMBEL releases --json\` failed" >&2; exit 1; }

SAME_ON_EVERY_RELEASE='three_queued_sends_to_a_busy_worker_are_three_turns_in_order|five_concurrent_sends_to_a_parked_worker_resume_it_once_and_are_five_turns|parked_again_before_a_turn_a_worker_still_resumes|a_killed_tmux_server_then_resume_continues_the_conversation|a_pane_left_in_copy_mode_takes_the_prompt_once|a_second_warm_print_answers_on_the_warm_worker|interrupt_ends_a_running_turn_and_the_next_send_works|esc_before_any_text_is_provider_error_interrupted'

rows=()
failed=0
mkdir -p target/smoke-matrix
while read -r provider version pinned; do
  if [ -n "$older" ] && [ -n "$pinned" ]; then continue; fi
  if [ "$only" != "  " ] && [[ "$only" != *" $provider "* ]]; then continue; fi
  status=0; bins=$(bash scripts/realclis.sh "$provider" "$version") || status=$?
  if [ "$status" -eq 3 ]; then exit 0; elif [ "$status" -ne 0 ]; then exit "$status"; fi
  echo "smoke-matrix: $provider $version" >&2
  log=target/smoke-matrix/$provider-$version.log
  start=$(date +%s)
  filter="test(/tiers::real::$provider::/)"
  if [ -n "$older" ]; then filter="$filter - test(/::($SAME_ON_EVERY_RELEASE)\$/)"; fi
  UMBEL_REAL_CLIS="$bins" cargo nextest run --test e2e --run-ignored only \
    -E "$filter" --test-threads "${UMBEL_MATRIX_THREADS:-2}" --no-fail-fast --retries 1 \
    2>&1 | tee "$log" | grep -E '^ +(PASS|FAIL|FLAKY|SLOW|TIMEOUT|TRY|SIG)' >&2
  took=$(( $(date +%s) - start ))
  summary=$(grep -Eo '[0-9]+ tests? run: [0-9]+ passed[^,]*(, [0-9]+ (failed|flaky))*' "$log" | tail -1)
  run=$(echo "$summary" | grep -Eo '^[0-9]+')
  passed=$(echo "$summary" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+')
  flaky=$(echo "$summary" | grep -Eo '[0-9]+ flaky' | grep -Eo '[0-9]+' || true)
  if [ -z "$run" ] || [ "${passed:-0}" -ne "$run" ]; then
    failed=1
    # Why, where CI shows it (the whole output is in the log, which CI does not keep).
    grep -E -A14 'panicked at|^ +(FAIL|TIMEOUT|SIGSEGV|SIGABRT) ' "$log" | head -150 >&2
  fi
  rows+=("| $provider $version${pinned:+ (pinned)} | ${passed:-0} of ${run:-0}${flaky:+ ($flaky flaky)} | ${took} s |")
done <<<"$runs"

if [ "${#rows[@]}" -eq 0 ]; then
  echo "smoke-matrix: no tested release of \`${*:-any CLI}\` (see \`umbel releases\`)" >&2
  exit 2
fi
{
  echo "| release | scenarios passed | time |"
  echo "|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "$report"
if [ "$failed" -ne 0 ]; then
  echo "smoke-matrix: FAILED: a release did not pass every scenario (table above)" >&2
  exit 1
fi
