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
        let meta = read_meta(self.db, self.solve.id, tier)?.map(Rc::new);
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
        let at = locate(&meta, self.solve.id, tier, self.table.size(tier), rank)?;
        let bytes = match self.blocks.get(&(meta.row_id, at.block)) {
            Some(b) => b.clone(),
            None => {
                let blob = open_blob(self.db, &mut self.blobs, meta.row_id)?;
                let buf = Rc::new(read_block(blob, &meta, self.solve.id, tier, at.block)?);
                self.blocks.insert((meta.row_id, at.block), buf.clone());
                buf
            }
        };
        Ok(Some(meta.layout.decode(&bytes, at.offset)))
    }
}

/// Where a record lies in its tier's payload.
pub(crate) struct RecordAt {
    /// The block holding it.
    pub block: usize,
    /// Its byte offset in that block.
    pub offset: usize,
}

/// The metadata of `tier` of solve `solve_id`, if the tier is stored.
pub(crate) fn read_meta(db: &Database, solve_id: i64, tier: TierId) -> Result<Option<TierMeta>, StoreError> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT id, positions, remoteness_bytes, nim_value_bytes, block_records, block_checksums
             FROM tiers WHERE solve_id = ?1 AND total = ?2 AND heaps = ?3",
        )?
        .query_row(params![solve_id, tier.total, tier.heaps], |r| {
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
        .optional()?)
}

fn corrupt(solve_id: i64, tier: TierId, what: String) -> StoreError {
    StoreError::Corrupt(format!("tier {tier} of solve #{solve_id} is corrupt: {what}"))
}

/// Checks that `meta` is the row of `tier` (which has `size` positions) and that its layout
/// is sound, and says where the record of rank `rank` lies.
pub(crate) fn locate(
    meta: &TierMeta,
    solve_id: i64,
    tier: TierId,
    size: u64,
    rank: usize,
) -> Result<RecordAt, StoreError> {
    // A row relabelled (or swapped with another tier's) holds a different number of
    // positions than its tier has.
    if meta.positions != size {
        return Err(corrupt(
            solve_id,
            tier,
            format!(
                "its row holds {} positions, but the tier has {size}: the row is not this tier's",
                meta.positions
            ),
        ));
    }
    if rank as u64 >= meta.positions {
        return Err(corrupt(
            solve_id,
            tier,
            format!("it holds {} positions, fewer than the rank {rank}", meta.positions),
        ));
    }
    let layout = meta.layout;
    if layout.block_records == 0 || !(1..=2).contains(&layout.remoteness_bytes) || layout.nim_value_bytes > 2
    {
        return Err(corrupt(solve_id, tier, "its record layout is invalid".into()));
    }
    Ok(RecordAt {
        block: rank / layout.block_records,
        offset: (rank % layout.block_records) * layout.width(),
    })
}

/// The open BLOB handle of a tier row's payload, opened on first use.
pub(crate) fn open_blob<'a, 'b>(
    db: &'a Database,
    blobs: &'b mut HashMap<i64, Blob<'a>>,
    row_id: i64,
) -> Result<&'b Blob<'a>, StoreError> {
    match blobs.entry(row_id) {
        std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
        std::collections::hash_map::Entry::Vacant(e) => {
            Ok(e.insert(db.conn.blob_open(MAIN_DB, c"tiers", c"payload", row_id, true)?))
        }
    }
}

/// Reads block `block` of a tier's payload through `blob` and checks it against its
/// checksum.
pub(crate) fn read_block(
    blob: &Blob<'_>,
    meta: &TierMeta,
    solve_id: i64,
    tier: TierId,
    block: usize,
) -> Result<Vec<u8>, StoreError> {
    let layout = meta.layout;
    let expected = meta.positions as usize * layout.width();
    if blob.len() != expected {
        return Err(corrupt(
            solve_id,
            tier,
            format!("its payload has {} bytes, expected {expected}", blob.len()),
        ));
    }
    let start = block * layout.block_bytes();
    let len = layout.block_bytes().min(expected - start);
    let mut buf = vec![0u8; len];
    blob.read_at_exact(&mut buf, start)?;
    if codec::block_checksum(&meta.block_checksums, block) != Some(crc32fast::hash(&buf)) {
        return Err(corrupt(solve_id, tier, format!("block {block} fails its checksum")));
    }
    Ok(buf)
}
