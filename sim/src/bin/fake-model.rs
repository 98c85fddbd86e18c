//! The fake model server for the offline real-CLI tier (see `sim::model`).
fn main() {
    std::process::exit(sim::model::main());
}
