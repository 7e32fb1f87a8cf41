//! The SQLite position database.
//!
//! The schema lives in `migrations/NNNN_name.sql` and is applied when a database is opened.
//! A file that is not a nimdb database, or one written by a newer nimdb, is refused without
//! being touched. Solves live in `solves`, one row per solved tier in `tiers`, each tier
//! committed in its own transaction (so a killed solve resumes from the last one) with a
//! payload of fixed-width records read by offset through SQLite's incremental BLOB I/O.
//! Each run that commits tiers has a row in `solve_runs` (its tiers, positions, seconds and
//! peak memory), kept up to date in the transaction of each tier.
#![warn(missing_docs)]

use nimdb_core::{game, index};
use nimdb_theory as theory;

pub mod atlas;
pub mod codec;
mod export;
mod games;
mod heap_values;
mod lookup;
mod open;
mod parts;
pub mod quotients;
mod reader;
mod runs;
mod solves;
mod tiers;
mod upgrade;

pub use export::ExportFilter;
pub use games::game_name;
pub use heap_values::{HEAP_ROWS_LIMIT, HeapRows, SequenceFacts};
pub use lookup::TierMeta;
pub use open::{
    Database, OLDEST_READABLE_VERSION, SCHEMA_VERSION, STORAGE_IDS_SINCE_VERSION, StoreError, forbid_writes,
    writes_forbidden,
};
pub use parts::TierParts;
pub use reader::{Prober, Reader, RecordSource};
pub use runs::{RUNS_SINCE_VERSION, RunOutcome, RunStart, RunTick, SolveHistory, SolveRun};
pub use solves::{SolveKey, SolveRecord, SolveStatus};
pub use tiers::{QUEUE, StoredTier, TierCounts, TierWriter, TotalEnds};
pub use upgrade::ChecksumUpgrade;
