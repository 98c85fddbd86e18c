//! The local records of remote workers (`<state>/remote/<name>.json`), through the adapter.

use super::super::Ctx;
use crate::adapters::remote_records as store;
use crate::core::errors::Result;
use crate::core::remote::RemoteRecord;

/// The record of remote worker `name`, if it is one.
pub fn find(ctx: &Ctx, name: &str) -> Result<Option<RemoteRecord>> {
    store::find(&ctx.state, name)
}

/// Every remote worker's record, by name.
pub fn list(ctx: &Ctx) -> Vec<RemoteRecord> {
    store::list(&ctx.state)
}

/// Records a remote worker.
pub fn save(ctx: &Ctx, record: &RemoteRecord) -> Result<()> {
    store::save(&ctx.state, record)
}

/// Forgets a remote worker.
pub fn remove(ctx: &Ctx, name: &str) -> Result<()> {
    store::remove(&ctx.state, name)
}
