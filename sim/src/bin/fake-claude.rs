//! `fake-claude`: a deterministic stand-in for Claude Code 2.1.332 (see docs/simulator.md).

fn main() -> std::process::ExitCode {
    sim::claude::main()
}
