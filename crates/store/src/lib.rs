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

pub mod atlas;
pub mod codec;
mod database;
mod error;
mod export;
mod games;
mod heap_values;
mod key;
mod lookup;
mod open;
mod parts;
pub mod quotients;
mod reader;
pub mod reclaim;
mod runs;
mod schema;
mod solves;
mod tiers;
mod upgrade;

pub use database::Database;
pub use error::{LOG_READER_WAIT_SECONDS, StoreError};
pub use export::ExportFilter;
pub use games::game_name;
pub use heap_values::{HEAP_ROWS_LIMIT, HeapRows, SequenceFacts};
pub use key::SolveKey;
pub use lookup::TierMeta;
pub use open::{forbid_writes, release_side_files, writes_forbidden};
pub use parts::TierParts;
pub use reader::{Prober, Reader, RecordSource};
pub use runs::{RUNS_SINCE_VERSION, RunOutcome, RunStart, RunTick, SolveHistory, SolveRun};
pub use schema::{OLDEST_READABLE_VERSION, SCHEMA_VERSION, STORAGE_IDS_SINCE_VERSION};
pub use solves::{SolveRecord, SolveStatus};
pub use tiers::{QUEUE, StoredTier, TierCounts, TierWriter, TotalEnds};
pub use upgrade::ChecksumUpgrade;
