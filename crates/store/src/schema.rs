//! The schema's versions: the migrations in order, the version this nimdb writes, and the
//! versions at which the way rows are stored changed. A leaf: every room of the store reads
//! these, and opening a database (`open`) applies them.

/// The schema migrations, in order. The database's `user_version` is how many are applied.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("../../../migrations/0001_solves_and_tiers.sql"),
    include_str!("../../../migrations/0002_theory.sql"),
    include_str!("../../../migrations/0003_quotients.sql"),
    include_str!("../../../migrations/0004_heap_value_checksums.sql"),
    include_str!("../../../migrations/0005_bound_checksums.sql"),
    include_str!("../../../migrations/0006_solve_runs.sql"),
    include_str!("../../../migrations/0007_storage_ids.sql"),
    include_str!("../../../migrations/0008_atlas.sql"),
    include_str!("../../../migrations/0009_packed_quotients.sql"),
];

/// The schema version this nimdb writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// The oldest schema version a database can be read at without upgrading it (read-only
/// opens): version 4, whose checksums are plain CRC-32s, is read with those.
pub const OLDEST_READABLE_VERSION: usize = 4;

/// The first schema version whose `game` columns hold storage ids
/// ([`GameSpec::storage_id`](nimdb_core::game::GameSpec::storage_id)); older ones hold display
/// names.
pub const STORAGE_IDS_SINCE_VERSION: i64 = 7;

/// The first schema version whose quotient rows may be packed (the `packed` column,
/// `checksum_scheme` 3).
pub const PACKED_QUOTIENTS_SINCE_VERSION: i64 = 9;
