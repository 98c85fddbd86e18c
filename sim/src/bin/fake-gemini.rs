//! `fake-gemini`: a deterministic stand-in for the gemini CLI (see docs/simulator.md).

fn main() -> std::process::ExitCode {
    sim::gemini::main()
}
