//! Looking up single positions: one block read by offset, verified by its checksum.

use std::collections::HashMap;
use std::rc::Rc;

use rusqlite::blob::Blob;
use rusqlite::{MAIN_DB, OptionalExtension, params};

use crate::game::Position;
use crate::index::{PartitionTable, TierId};

use super::codec::{self, Record, RecordLayout};
use super::open::{Database, StoreError};
use super::solves::SolveRecord;

/// What a lookup needs to know about one stored tier.
#[derive(Clone, Debug)]
pub struct TierMeta {
    /// Row id of the tier (for BLOB I/O).
    pub row_id: i64,
    /// Positions in the tier.
    pub positions: u64,
    /// Record layout.
    pub layout: RecordLayout,
    /// Packed block checksums.
    pub block_checksums: Vec<u8>,
}

/// Probes one solve's positions. Keeps the tier metadata and the verified blocks it has
/// read, so a position and its children cost a handful of small reads.
pub struct Prober<'a> {
    db: &'a Database,
    solve: SolveRecord,
    table: PartitionTable,
    metas: HashMap<TierId, Option<Rc<TierMeta>>>,
    blocks: HashMap<(i64, usize), Rc<Vec<u8>>>,
    /// Open BLOB handles by tier row: SQLite caches a handle's overflow pages, so reads by
    /// offset into a large payload stay cheap after the first.
    blobs: HashMap<i64, Blob<'a>>,
}

impl<'a> Prober<'a> {
    /// A prober of `solve` for positions with at most `up_to_total` tokens (the rank table is
    /// built only that far).
    pub fn new(db: &'a Database, solve: SolveRecord, up_to_total: u32) -> Result<Self, StoreError> {
        let table = solve.target_universe().table_to(up_to_total)?;
        Ok(Prober { db, solve, table, metas: HashMap::new(), blocks: HashMap::new(), blobs: HashMap::new() })
    }

    /// The solve probed.
    pub fn solve(&self) -> &SolveRecord {
        &self.solve
    }

    /// Forgets the blocks read so far (the next lookups read from the database again).
    pub fn clear_block_cache(&mut self) {
        self.blocks.clear();
    }

    /// Whether the solve covers `position` (its caps allow it and its tier is stored).
    pub fn covers(&mut self, position: &Position) -> Result<bool, StoreError> {
        if !self.solve.target_universe().contains(position) {
            return Ok(false);
        }
        Ok(self.meta(TierId::of(position))?.is_some())
    }

    fn meta(&mut self, tier: TierId) -> Result<Option<Rc<TierMeta>>, StoreError> {
        if let Some(m) = self.metas.get(&tier) {
            return Ok(m.clone());
        }
        let meta = self
            .db
            .conn
            .prepare_cached(
                "SELECT id, positions, remoteness_bytes, nim_value_bytes, block_records, block_checksums
                 FROM tiers WHERE solve_id = ?1 AND total = ?2 AND heaps = ?3",
            )?
            .query_row(params![self.solve.id, tier.total, tier.heaps], |r| {
                Ok(TierMeta {
                    row_id: r.get(0)?,
                    positions: r.get::<_, i64>(1)? as u64,
                    layout: RecordLayout {
                        remoteness_bytes: r.get::<_, i64>(2)? as usize,
                        nim_value_bytes: r.get::<_, i64>(3)? as usize,
                        block_records: r.get::<_, i64>(4)? as usize,
                    },
                    block_checksums: r.get(5)?,
                })
            })
            .optional()?
            .map(Rc::new);
        self.metas.insert(tier, meta.clone());
        Ok(meta)
    }

    /// The stored record of `position`, or `None` when its tier is not stored.
    pub fn record(&mut self, position: &Position) -> Result<Option<Record>, StoreError> {
        let tier = TierId::of(position);
        if !self.solve.target_universe().contains(position) || tier.total > self.table.max_total() {
            return Ok(None);
        }
        let Some(meta) = self.meta(tier)? else {
            return Ok(None);
        };
        let rank = self.table.rank(position.heaps()) as usize;
        let corrupt = |what: String| {
            StoreError::Corrupt(format!("tier {tier} of solve #{} is corrupt: {what}", self.solve.id))
        };
        // The row must be this tier's: a row relabelled (or swapped with another tier's)
        // holds a different number of positions than the tier has.
        let size = self.table.size(tier);
        if meta.positions != size {
            return Err(corrupt(format!(
                "its row holds {} positions, but the tier has {size}: the row is not this tier's",
                meta.positions
            )));
        }
        if rank as u64 >= meta.positions {
            return Err(corrupt(format!(
                "it holds {} positions, fewer than the rank {rank}",
                meta.positions
            )));
        }
        let layout = meta.layout;
        if layout.block_records == 0
            || !(1..=2).contains(&layout.remoteness_bytes)
            || layout.nim_value_bytes > 2
        {
            return Err(corrupt("its record layout is invalid".into()));
        }
        let block = rank / layout.block_records;
        let bytes = match self.blocks.get(&(meta.row_id, block)) {
            Some(b) => b.clone(),
            None => {
                if !self.blobs.contains_key(&meta.row_id) {
                    let blob = self.db.conn.blob_open(MAIN_DB, c"tiers", c"payload", meta.row_id, true)?;
                    self.blobs.insert(meta.row_id, blob);
                }
                let blob = &self.blobs[&meta.row_id];
                let expected = meta.positions as usize * layout.width();
                if blob.len() != expected {
                    return Err(corrupt(format!(
                        "its payload has {} bytes, expected {expected}",
                        blob.len()
                    )));
                }
                let start = block * layout.block_bytes();
                let len = layout.block_bytes().min(expected - start);
                let mut buf = vec![0u8; len];
                blob.read_at_exact(&mut buf, start)?;
                if codec::block_checksum(&meta.block_checksums, block) != Some(crc32fast::hash(&buf)) {
                    return Err(corrupt(format!("block {block} fails its checksum")));
                }
                let buf = Rc::new(buf);
                self.blocks.insert((meta.row_id, block), buf.clone());
                buf
            }
        };
        Ok(Some(layout.decode(&bytes, (rank % layout.block_records) * layout.width())))
    }
}
