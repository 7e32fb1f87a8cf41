//! Universes, tiers and the dense rank of the positions in a tier.
//!
//! A tier is every position with a given total and heap count. Within a tier, positions are
//! ranked densely (no holes, no hash table) in lexicographic order of their heaps written
//! largest first, using the counts of restricted partitions ([`PartitionTable`]). A tier's
//! values are then a flat array indexed by rank, as a chess tablebase ranks identical pieces.

mod partition;
mod space;
mod tier;
mod universe;

pub use partition::{PartitionTable, RankCursor, TableError, TierWalk};
pub use space::{PositionSpace, SpaceBounds, space_for};
pub use tier::TierId;
pub use universe::{Universe, UniverseError};
