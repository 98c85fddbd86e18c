#!/bin/sh
# umbel launch wrapper: runs one worker in its tmux pane. Installed into <state>/hooks/.
#
#   launch.sh ENV_BUFFER EVENTS_DIR BIN [ARGS...]
#
# The worker's environment arrives as `export K='v'` lines in the tmux buffer ENV_BUFFER, which
# umbel loaded from its stdin: values never travel on a command line. This script reads the
# buffer, deletes it, drops everything the pane inherited except the terminal's identity,
# applies the handed-over environment and runs the worker. When the worker ends it records how
# in EVENTS_DIR/exit ({"exitCode":N} or {"signal":N}) and appends an `Exit` line to
# EVENTS_DIR/log, then exits the same way.
__umbel_buf=$1
__umbel_events=$2
shift 2
__umbel_path=$PATH
__umbel_env=$(tmux show-buffer -b "$__umbel_buf" 2>/dev/null) || {
  printf '%s\n' "umbel: the worker's environment was not handed over (tmux buffer $__umbel_buf is missing)" >&2
  exit 1
}
tmux delete-buffer -b "$__umbel_buf" 2>/dev/null
for __umbel_name in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
  case $__umbel_name in
    TERM | COLORTERM | TMUX | TMUX_PANE | __umbel_*) ;;
    *) unset "$__umbel_name" ;;
  esac
done
eval "$__umbel_env"
unset __umbel_env __umbel_name __umbel_buf
# Ctrl-C and Ctrl-\ belong to the worker; the wrapper only survives them.
trap ':' INT QUIT
"$@"
__umbel_status=$?
if [ "$__umbel_status" -gt 128 ]; then
  __umbel_record="{\"signal\":$((__umbel_status - 128))}"
else
  __umbel_record="{\"exitCode\":$__umbel_status}"
fi
if [ -d "$__umbel_events" ]; then
  PATH=$__umbel_path
  printf '%s\n' "$__umbel_record" >"$__umbel_events/.exit.tmp.$$" &&
    mv -f "$__umbel_events/.exit.tmp.$$" "$__umbel_events/exit"
  __umbel_ns=$(date +%s%N)
  case $__umbel_ns in
    # BSD date (macOS) prints %N as a literal N: whole seconds, in nanoseconds.
    '' | *[!0-9]*) __umbel_ns=$(date +%s)000000000 ;;
  esac
  # A line cut short (a full disk) is not continued: the exit gets a line of its own.
  if [ -s "$__umbel_events/log" ] && [ -n "$(tail -c 1 "$__umbel_events/log")" ]; then
    printf '\n' >>"$__umbel_events/log"
  fi
  printf '%s Exit -\n' "$__umbel_ns" >>"$__umbel_events/log"
fi
exit "$__umbel_status"
