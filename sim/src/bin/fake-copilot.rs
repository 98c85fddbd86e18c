//! `fake-copilot`: a deterministic stand-in for GitHub Copilot CLI 1.0.102 (see docs/sim-copilot.md).

fn main() -> std::process::ExitCode {
    sim::copilot::main()
}
