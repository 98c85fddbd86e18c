//! `fake-qwen`: a deterministic stand-in for the qwen CLI (see docs/simulator.md).

fn main() -> std::process::ExitCode {
    sim::qwen::main()
}
