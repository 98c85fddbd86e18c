# umbel's tasks. `just` alone lists them.

set shell := ["bash", "-euo", "pipefail", "-c"]
export RUST_BACKTRACE := "1"

default:
    @just --list

# install what the README's commands need (tmux, just), saying what first; `--lint` adds
# shellcheck, `--remote` OpenSSH (scripts/setup.sh); idempotent
[positional-arguments]
setup *FLAGS:
    sh scripts/setup.sh "$@"

# build umbel and the fake CLIs
build: setup
    cargo build --workspace --bins

# the fake claude/codex/gemini binaries the end-to-end tests drive
sim:
    cargo build -p sim --bins

# umbel on the fake claude, codex and gemini: no real CLI, no network, no subscription
demo: setup
    cargo build --workspace --bins
    bash scripts/demo.sh

# a shell where `claude`, `codex` and `gemini` are the fakes, in a throw-away HOME onboarded for
# them and a throw-away state root (docs/getting-started.md); `--print`: the exports instead;
# `--check`: run the docs' marked command blocks there verbatim (the e2e tests do too)
[positional-arguments]
try *ARGS: setup
    bash scripts/try.sh "$@"

# a workflow (examples/review.yaml: claude drafts, codex and gemini review in parallel) on the fakes
demo-workflow: setup
    cargo build --workspace --bins
    bash scripts/demo_workflow.sh

# the whole test suite (unit + end-to-end on the fakes), then the MCP and ACP interop checks
# with the official Python SDKs when they are installed (`just mcp-smoke`, `just acp-smoke`
# install them; CI does); extra args go to the test runner (and skip the interop checks)
[positional-arguments]
test *ARGS: setup sim
    if command -v cargo-nextest >/dev/null; then cargo nextest run --workspace "$@"; else cargo test --workspace "$@"; fi
    if [ "$#" -eq 0 ]; then just mcp-smoke-if-installed; just acp-smoke-if-installed; just web-smoke-if-installed; fi

# workers on other hosts: the e2e scenarios through OpenSSH's sshd on 127.0.0.1, one per
# simulated host (docs/remote.md); needs OpenSSH (`just setup --remote` installs it)
test-remote: (setup "--remote") sim
    cargo build -p umbel --bins --quiet
    if command -v cargo-nextest >/dev/null; then cargo nextest run --test e2e -E 'test(/^remote::/)'; else cargo test --test e2e remote:: ; fi

# formatting and lints, as CI checks them (shellcheck: the hooks must stay POSIX sh for macOS);
# also the minimal build (`--no-default-features`: no `top`, no `--schema`) must compile cleanly
lint: (setup "--lint")
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings
    cargo clippy -p umbel --no-default-features --all-targets -- -D warnings
    shellcheck hooks/*.sh scripts/*.sh

# what CI runs
ci: lint test

# speed figures per provider (stop→wait latency, -p overhead), a 50-worker fleet run and the soak
# (docs/reliability.md), `umbel top` with 100 workers, `run --check` on 1k and 10k steps;
# `just bench codex fleet soak top check events budget` runs only those parts (events: the event stream,
# `wait --any` over 50 workers, idle `events -f` with 100; budget: a wait watching usage, crossing → keys)
# `just bench load [claude …]`: the latency rows on the six fakes idle and beside two busy processes
# the bench starts itself (only when named)
# `just bench real [claude codex gemini qwen opencode copilot]`: the same on the real CLIs (pinned
# releases, fake model server; only when named)
# `just bench park`: memory a park frees, resume → ready, a parked worker on disk (fakes);
# `just bench park-real` the same on the real CLIs (only when named)
[positional-arguments]
bench *ARGS: setup
    cargo build --release -p sim --bins --quiet
    cargo bench --bench latency -- "$@"

fmt:
    cargo fmt --all

# the real claude, codex and gemini: spawn → send → wait → read → kill and -p on each (spends your
# subscription; needs each CLI signed in). UMBEL_SMOKE_PROVIDERS=claude,codex picks providers.
smoke: sim
    @if [ "${UMBEL_SMOKE:-}" != 1 ]; then echo "smoke: SKIPPED: set UMBEL_SMOKE=1 to run the real-CLI smoke tests (UMBEL_SMOKE=1 just smoke)"; fi
    cargo test --test smoke -- --ignored --nocapture --test-threads 1

# the real claude, codex and gemini (pinned npm releases, installed into ~/.cache/umbel/clis) driven
# through the same e2e scenarios as the fakes, against the sim's fake model server: offline, no
# account. Skips with a notice where npm cannot be had (fails under CI=true). docs/testing.md
smoke-offline: setup sim
    #!/usr/bin/env bash
    set -euo pipefail
    cargo build -p umbel --bins --quiet
    status=0; bins=$(bash scripts/realclis.sh) || status=$?
    if [ "$status" -eq 3 ]; then exit 0; elif [ "$status" -ne 0 ]; then exit "$status"; fi
    export UMBEL_REAL_CLIS="$bins"
    if command -v cargo-nextest >/dev/null; then
      # One retry: the real node CLIs on a shared 2-core box occasionally lag past a settle
      # (a retried pass is printed as FLAKY, so it stays visible).
      cargo nextest run --test e2e --run-ignored only -E 'test(/tiers::real::|tiers::approvals::real::|tiers::questions::real::|tiers::acp::real::|tiers::modes::real::|tiers::models::real::|tiers::budgets::real::|tiers::budgets::mid_turn::real::|tiers::models::fixed::real::|remote::real::/)' --test-threads 2 --no-fail-fast --retries 1
    else
      cargo test --test e2e -- --ignored --test-threads 2 tiers::real:: tiers::approvals::real:: tiers::questions::real:: tiers::acp::real:: tiers::modes::real:: tiers::models:: tiers::budgets::real:: tiers::budgets::mid_turn::real:: remote::real::
    fi

# the offline tier's scenarios on every release of each CLI the tests cover (`umbel releases`:
# the oldest supported, one in the middle, the newest), each installed once into its own npm
# prefix; prints release × scenarios passed. Skips without npm (fails under CI=true). docs/testing.md
[positional-arguments]
smoke-matrix *ARGS: setup sim
    cargo build -p umbel --bins --quiet
    bash scripts/smoke_matrix.sh "$@"

# regenerate docs/cli.md from the clap definitions and docs/json.md from the structs umbel
# serialises (a test fails when either is out of date)
docs:
    cargo build -p umbel --bins --quiet
    target/debug/umbel man --markdown > docs/cli.md
    UMBEL_BLESS=1 cargo test -p umbel --lib --quiet json_md_is_up_to_date

# man pages from the clap definitions into target/man (`man -l target/man/umbel.1`)
man:
    cargo build -p umbel --bins --quiet
    target/debug/umbel man --out-dir target/man
    @echo "man pages in target/man: man -l target/man/umbel.1"

# accept new or changed insta snapshots, then review them with `git diff`
snap: sim
    INSTA_UPDATE=always cargo nextest run --workspace -E 'test(/snapshot/)'
    find . -name '*.snap.new' -not -path './target/*' -delete

# `umbel mcp` against the official MCP Python SDK client (installs `mcp` from PyPI if missing)
mcp-smoke: sim
    cargo build -p umbel --bins --quiet
    if python3 -c 'import mcp' 2>/dev/null || python3 -m pip install -q --root-user-action=ignore 'mcp>=2.3,<3'; then python3 scripts/mcp_smoke.py target/debug/umbel; else echo "mcp-smoke: SKIPPED: the Python mcp SDK could not be installed (pip install 'mcp>=2.3,<3')"; fi

# `umbel acp` against the official ACP Python SDK client (installs `agent-client-protocol` from
# PyPI if missing)
acp-smoke: sim
    cargo build -p umbel --bins --quiet
    if python3 -c 'import acp' 2>/dev/null || python3 -m pip install -q --root-user-action=ignore 'agent-client-protocol>=0.12,<0.13'; then python3 scripts/acp_smoke.py target/debug/umbel; else echo "acp-smoke: SKIPPED: the Python ACP SDK could not be installed (pip install 'agent-client-protocol>=0.12,<0.13')"; fi

# `umbel serve` in headless Chromium through Selenium (scripts/web_smoke.sh installs chromium,
# chromium-driver and selenium where missing); `--shots docs/web` refreshes the docs' images
[positional-arguments]
web-smoke *ARGS: sim
    sh scripts/web_smoke.sh "$@"

# the browser check, only where Chromium, its driver and Selenium are already installed
web-smoke-if-installed: sim
    if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && python3 -c 'import selenium' 2>/dev/null; then just web-smoke; else echo "web-smoke: SKIPPED: Chromium, chromium-driver or selenium is not installed; \`just web-smoke\` installs them (apt-get install chromium chromium-driver; pip install 'selenium>=4.20,<5') and runs the browser check"; fi

# the release artifacts of this machine's target under dist/: tarball + SHA-256, the npm
# packages, manifest.json, install.sh (docs/releasing.md)
dist:
    bash scripts/dist.sh

# what a user without Rust gets: the npm packages installed into an empty prefix and the
# installer run against dist/ served on 127.0.0.1, with no cargo or rustc on PATH
dist-check: setup
    bash scripts/dist_check.sh

# the ACP interop check, only where the Python SDK is already installed (as mcp-smoke-if-installed)
acp-smoke-if-installed: sim
    if python3 -c 'import acp' 2>/dev/null; then just acp-smoke; else echo "acp-smoke: SKIPPED: the Python ACP SDK is not installed; \`just acp-smoke\` installs it (pip install 'agent-client-protocol>=0.12,<0.13') and runs the ACP interop check"; fi

# the MCP interop check, only where the Python SDK is already installed: `just test` installs
# nothing into your Python behind your back (`just mcp-smoke` does, when asked)
mcp-smoke-if-installed: sim
    if python3 -c 'import mcp' 2>/dev/null; then just mcp-smoke; else echo "mcp-smoke: SKIPPED: the Python mcp SDK is not installed; \`just mcp-smoke\` installs it (pip install 'mcp>=2.3,<3') and runs the MCP interop check"; fi
