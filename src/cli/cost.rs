//! What a solve will cost, in words for the command line: sizes, and the memory and disk
//! plan (the library's [`Estimate::plan`]) worded with the flag that changes it.

use std::path::Path;

use nimdb::resources::MemoryBudget;
use nimdb::solve::Estimate;

/// How a solve fits `budget` and the disk ([`Estimate::plan`]), its refusal worded for the
/// command line.
pub(super) fn plan(
    estimate: &Estimate,
    budget: &MemoryBudget,
    what: &str,
    db: &Path,
) -> anyhow::Result<Option<u64>> {
    estimate.plan(budget, what, db).map_err(|e| {
        if e.is_memory() {
            anyhow::anyhow!("{e}; nothing was written (--memory-limit SIZE sets the budget)")
        } else {
            anyhow::anyhow!("{e}; nothing was written")
        }
    })
}

/// Bytes in human units.
pub(super) fn mb(bytes: u64) -> String {
    if bytes >= 10 << 20 {
        format!("{:.0} MB", bytes as f64 / (1 << 20) as f64)
    } else if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}
