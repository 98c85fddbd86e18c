//! `fake-codex`: a deterministic stand-in for Codex CLI 0.171.0 (see docs/sim-codex.md).

fn main() -> std::process::ExitCode {
    sim::codex::main()
}
