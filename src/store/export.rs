//! Streaming every stored position of a solve, in rank order, in constant memory.
//!
//! Tiers are visited by total, then heap count; within a tier, positions come in rank
//! order, walked alongside the payload one checksummed block at a time.

use rusqlite::{MAIN_DB, params};

use crate::index::{TierId, TierWalk};

use super::codec::{self, Record, RecordLayout};
use super::open::{Database, StoreError};
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
        let tiers: Vec<(i64, TierId, u64, RecordLayout, Vec<u8>)> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT id, total, heaps, positions, remoteness_bytes, nim_value_bytes, block_records,
                            block_checksums
                     FROM tiers WHERE solve_id = ?1 AND total <= ?2 ORDER BY total, heaps",
                )
                .map_err(StoreError::from)?;
            stmt.query_map(params![solve.id, filter.max_total.unwrap_or(u32::MAX)], |r| {
                Ok((
                    r.get(0)?,
                    TierId { total: r.get(1)?, heaps: r.get(2)? },
                    r.get::<_, i64>(3)? as u64,
                    RecordLayout {
                        remoteness_bytes: r.get::<_, i64>(4)? as usize,
                        nim_value_bytes: r.get::<_, i64>(5)? as usize,
                        block_records: r.get::<_, i64>(6)? as usize,
                    },
                    r.get(7)?,
                ))
            })
            .map_err(StoreError::from)?
            .collect::<Result<_, _>>()
            .map_err(StoreError::from)?
        };
        let mut given = 0u64;
        let mut buf = Vec::new();
        for (row_id, tier, positions, layout, checksums) in tiers {
            let corrupt = |what: String| -> E {
                StoreError::Corrupt(format!("tier {tier} of solve #{} is corrupt: {what}", solve.id)).into()
            };
            if layout.block_records == 0
                || !(1..=2).contains(&layout.remoteness_bytes)
                || layout.nim_value_bytes > 2
            {
                return Err(corrupt("its record layout is invalid".into()));
            }
            let blob =
                self.conn.blob_open(MAIN_DB, c"tiers", c"payload", row_id, true).map_err(StoreError::from)?;
            let expected = positions as usize * layout.width();
            if blob.len() != expected {
                return Err(corrupt(format!("its payload has {} bytes, expected {expected}", blob.len())));
            }
            let mut walk = TierWalk::new(tier.total, tier.heaps, universe.part_cap().min(tier.total));
            let mut start = 0usize;
            let mut block = 0usize;
            while start < expected {
                let len = layout.block_bytes().min(expected - start);
                buf.resize(len, 0);
                blob.read_at_exact(&mut buf, start).map_err(StoreError::from)?;
                if codec::block_checksum(&checksums, block) != Some(crc32fast::hash(&buf)) {
                    return Err(corrupt(format!("block {block} fails its checksum")));
                }
                for offset in (0..len).step_by(layout.width()) {
                    let heaps =
                        walk.next().ok_or_else(|| corrupt("it holds more records than positions".into()))?;
                    let record = layout.decode(&buf, offset);
                    if filter.losses_only && solve.convention.is_win(record.remoteness as u32) {
                        continue;
                    }
                    row(heaps, record)?;
                    given += 1;
                }
                start += len;
                block += 1;
            }
        }
        Ok(given)
    }
}
