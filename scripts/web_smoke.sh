#!/bin/sh
# `umbel serve` in a real browser: installs what the check needs where it is missing, builds
# umbel and the fakes, then runs scripts/web_smoke.py (headless Chromium through Selenium; its
# docstring says what it checks). Extra arguments go to it (`--shots DIR`: where the PNGs go,
# default target/web-smoke/; `--shots docs/web` refreshes the docs' images).
#
#   sh scripts/web_smoke.sh
#
# What it installs, saying so first, only what is missing:
#   chromium, chromium-driver   Debian's browser and its WebDriver (apt-get; only as root)
#   selenium>=4.20,<5           the WebDriver client (pip); it is handed /usr/bin/chromedriver
#                               and /usr/bin/chromium, so Selenium Manager downloads nothing
# Where it cannot, it prints `web-smoke: SKIPPED: <what is missing and how to install it>` and
# exits 0; under CI=true that is a failure (exit 1). WEB_SMOKE_CHROMIUM and
# WEB_SMOKE_CHROMEDRIVER point it at another browser and driver (nothing is installed then).
set -eu

cd "$(dirname "$0")/.."

chromium=${WEB_SMOKE_CHROMIUM:-/usr/bin/chromium}
chromedriver=${WEB_SMOKE_CHROMEDRIVER:-/usr/bin/chromedriver}
selenium_spec='selenium>=4.20,<5'

has_browser() { [ -x "$chromium" ] && [ -x "$chromedriver" ]; }
has_selenium() {
  python3 -c 'import sys, selenium
major, minor = (int(p) for p in selenium.__version__.split(".")[:2])
sys.exit(0 if (4, 20) <= (major, minor) < (5, 0) else 1)' 2>/dev/null
}

missing=""
skip() { # skip WHAT-IS-MISSING-AND-HOW-TO-INSTALL-IT
  missing="${missing:+$missing; }$1"
}

if ! has_browser; then
  if [ "$chromium$chromedriver" != /usr/bin/chromium/usr/bin/chromedriver ]; then
    skip "$chromium or $chromedriver (from WEB_SMOKE_CHROMIUM / WEB_SMOKE_CHROMEDRIVER) is not an executable"
  elif [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "web-smoke: will install: chromium chromium-driver (apt-get): the browser and the WebDriver the check drives" >&2
    status=0
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null || status=$?
    if [ "$status" -ne 0 ] || ! has_browser; then
      skip "chromium and chromium-driver (apt-get install -y chromium chromium-driver failed, exit $status)"
    fi
  elif command -v apt-get >/dev/null 2>&1; then
    skip "chromium and chromium-driver (as root: sudo apt-get install -y chromium chromium-driver)"
  else
    skip "chromium and its chromedriver (no apt-get here: install both with your package manager and set WEB_SMOKE_CHROMIUM and WEB_SMOKE_CHROMEDRIVER to them)"
  fi
fi

if ! has_selenium; then
  echo "web-smoke: will install: $selenium_spec (pip): the WebDriver client" >&2
  if ! python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "$selenium_spec" || ! has_selenium; then
    skip "the Python selenium package (python3 -m pip install --root-user-action=ignore '$selenium_spec' failed)"
  fi
fi

if [ -n "$missing" ]; then
  echo "web-smoke: SKIPPED: missing $missing"
  if [ "${CI:-}" = true ]; then exit 1; fi
  exit 0
fi

cargo build -p umbel --bins --quiet
cargo build -p sim --bins --quiet
exec python3 scripts/web_smoke.py target/debug/umbel "$@"
