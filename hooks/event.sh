#!/bin/sh
# umbel hook: records one hook event of a worker. Installed into <state>/hooks/ by umbel itself.
#
#   event.sh EVENTS_DIR EVENT_NAME      (the hook's JSON payload on stdin)
#
# Saves the payload as EVENTS_DIR/<ns>-<pid>.<EVENT>.json, then appends one line
# "<ns> <EVENT> <file>" to EVENTS_DIR/log, which umbel watches. umbel reads a payload only once
# its log line exists, and the line is written after the payload is complete, so no temp file
# and rename are needed. Needs only a POSIX sh, cat, tail and date (GNU or BSD: macOS's date has no
# %N, so there the time falls back to whole seconds); prints nothing, so the CLI proceeds as if
# no hook had run.
dir=$1
event=$2
if [ ! -d "$dir" ]; then
  # A purged worker stays purged: swallow the payload and record nothing.
  cat >/dev/null
  exit 0
fi
case $event in
  '' | *[!A-Za-z0-9_]*) cat >/dev/null; exit 0 ;;
esac
ns=$(date +%s%N)
case $ns in
  # BSD date prints %N as a literal N: whole seconds, in nanoseconds.
  '' | *[!0-9]*) ns=$(date +%s)000000000 ;;
esac
file="$ns-$$.$event.json"
cat >"$dir/$file" || file=-
line="$ns $event $file"
if [ -s "$dir/log" ] && [ -n "$(tail -c 1 "$dir/log")" ]; then
  # A write cut short (a full disk) left the log without its last newline: start a fresh
  # line, or this event would be glued to the fragment.
  line="
$line"
fi
printf '%s\n' "$line" >>"$dir/log"
# A worker spawned with rules (`--allowed-tools`) has an on-ask script next to its events: it
# answers an ask by the rules, in the background (no pipe of the CLI's held) so the CLI goes on.
if [ -f "$dir/../on-ask" ]; then
  sh "$dir/../on-ask" "$event" </dev/null >/dev/null 2>&1 &
fi
exit 0
