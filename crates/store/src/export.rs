//! Streaming every stored position of a solve, in rank order, in constant memory.
//!
//! Tiers are visited by total, then heap count; within a tier, positions come in rank
//! order, walked alongside the payload one checksummed block at a time.

use rusqlite::{MAIN_DB, params};

use nimdb_core::index::{TierId, TierWalk};

use super::codec::Record;
use super::database::Database;
use super::error::StoreError;
use super::lookup::{decode, locate, read_block, read_meta};
use super::solves::SolveRecord;

/// Which stored positions to stream.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportFilter {
    /// Only P-positions (losses for the player to move).
    pub losses_only: bool,
    /// Only positions with at most this many tokens.
    pub max_total: Option<u32>,
}

impl Database {
    /// Calls `row` with every stored position of `solve` that passes `filter` (heaps largest
    /// first) and its record, tier by tier and in rank order within a tier. Every block is
    /// checked against its checksum before its rows are given. Returns the rows given; stops
    /// at the first error `row` returns.
    pub fn for_each_stored<E: From<StoreError>>(
        &self,
        solve: &SolveRecord,
        filter: ExportFilter,
        mut row: impl FnMut(&[u32], Record) -> Result<(), E>,
    ) -> Result<u64, E> {
        let universe = solve.target_universe();
        let tiers: Vec<TierId> = {
            let mut stmt = self
                .conn
                .prepare("SELECT total, heaps FROM tiers WHERE solve_id = ?1 AND total <= ?2 ORDER BY total, heaps")
                .map_err(StoreError::from)?;
            stmt.query_map(params![solve.id, filter.max_total.unwrap_or(u32::MAX)], |r| {
                Ok(TierId { total: r.get(0)?, heaps: r.get(1)? })
            })
            .map_err(StoreError::from)?
            .collect::<Result<_, _>>()
            .map_err(StoreError::from)?
        };
        let mut given = 0u64;
        for tier in tiers {
            let mut walk = TierWalk::new(tier.total, tier.heaps, universe.part_cap().min(tier.total));
            let size = meta_positions(self, solve.id, tier)?;
            self.for_each_record(solve.id, tier, size, |_, record| -> Result<(), E> {
                let heaps = walk.next().ok_or_else(|| {
                    E::from(StoreError::Corrupt(format!(
                        "tier {tier} of solve #{} is corrupt: it holds more records than positions",
                        solve.id
                    )))
                })?;
                if filter.losses_only && solve.convention.is_win(record.remoteness as u32) {
                    return Ok(());
                }
                row(heaps, record)?;
                given += 1;
                Ok(())
            })?;
        }
        Ok(given)
    }

    /// Calls `row` with the rank and record of every position of tier `tier` of solve
    /// `solve_id`, a tier of `size` positions in the solve's space, in rank order, one
    /// checksummed block at a time (constant memory). What every export reads a tier
    /// through, whatever the family's space. Returns whether the tier is stored; a stored
    /// row that does not hold `size` records is refused as corrupt.
    pub fn for_each_record<E: From<StoreError>>(
        &self,
        solve_id: i64,
        tier: TierId,
        size: u64,
        mut row: impl FnMut(u64, Record) -> Result<(), E>,
    ) -> Result<bool, E> {
        let Some(meta) = read_meta(self, solve_id, tier)? else { return Ok(false) };
        if size > 0 {
            // The same identity check as a lookup's: the row must be this tier's.
            locate(&meta, solve_id, tier, size, 0)?;
        }
        let blob = self
            .conn
            .blob_open(MAIN_DB, c"tiers", c"payload", meta.row_id, true)
            .map_err(StoreError::from)?;
        let layout = meta.layout;
        let blocks = (meta.positions as usize).div_ceil(layout.block_records);
        let mut rank = 0u64;
        for block in 0..blocks {
            let buf = read_block(&blob, &meta, solve_id, tier, block)?;
            for offset in (0..buf.len()).step_by(layout.width()) {
                row(rank, decode(&meta, &buf, solve_id, tier, offset)?)?;
                rank += 1;
            }
        }
        Ok(true)
    }
}

/// The number of positions tier `tier` of a heap solve holds, as its row says (the walk
/// alongside it refuses a row that holds more).
fn meta_positions(db: &Database, solve_id: i64, tier: TierId) -> Result<u64, StoreError> {
    Ok(read_meta(db, solve_id, tier)?.map_or(0, |m| m.positions))
}
