//! `fake-opencode`: a deterministic stand-in for the opencode CLI (see docs/sim-opencode.md).

fn main() -> std::process::ExitCode {
    sim::opencode::main()
}
