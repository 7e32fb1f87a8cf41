//! Many lookups through one connection ([`Reader`], and [`Prober`] over one solve): stored
//! solves, rank tables, tier metadata and verified blocks are kept between lookups, and
//! dropped when another connection commits.
//!
//! A reader keeps its BLOB handles open between lookups (SQLite then remembers where a
//! large payload's overflow pages are, so reads by offset stay cheap), which holds a read
//! transaction. [`Reader::refresh`] closes them first, then drops the caches if another
//! connection committed: a long-lived reader (a batch between lines, a server worker
//! between requests) sees tiers a running solve commits and does not pin the WAL.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::rc::Rc;

use rusqlite::blob::Blob;

use nimdb_core::game::{Convention, GameSpec, Position};
use nimdb_core::index::{PartitionTable, TierId};

use super::codec::Record;
use super::database::Database;
use super::error::StoreError;
use super::lookup::{TierMeta, decode, locate, open_blob, read_block, read_meta};
use super::solves::SolveRecord;

/// The most bytes of verified blocks a reader keeps before starting afresh.
const BLOCK_CACHE_BYTES: usize = 128 << 20;

/// How much of the file a reader's connection maps into memory.
const MMAP_BYTES: i64 = 1 << 30;

/// Cached lookups in the solves of one database (see the module documentation).
pub struct Reader<'a> {
    db: &'a Database,
    blobs: HashMap<i64, Blob<'a>>,
    version: Option<i64>,
    solves: Vec<(GameSpec, Convention, Rc<[SolveRecord]>)>,
    tables: HashMap<i64, PartitionTable>,
    metas: HashMap<(i64, TierId), Option<Rc<TierMeta>>>,
    blocks: HashMap<(i64, usize), Vec<u8>>,
    block_bytes: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `db`, with nothing cached.
    pub fn new(db: &'a Database) -> Self {
        // Map the file: cold blocks then cost a page fault, not a read call.
        let _ = db.conn.pragma_update(None, "mmap_size", MMAP_BYTES);
        Self::unmapped(db)
    }

    /// A reader of `db` that leaves the connection's settings as they are (for one short
    /// command, where mapping the file costs more than it saves).
    pub fn unmapped(db: &'a Database) -> Self {
        Reader {
            db,
            blobs: HashMap::new(),
            version: None,
            solves: Vec::new(),
            tables: HashMap::new(),
            metas: HashMap::new(),
            blocks: HashMap::new(),
            block_bytes: 0,
        }
    }

    /// Drops everything cached if another connection has committed since the last call
    /// (SQLite's `data_version`). Returns whether it did.
    pub fn refresh(&mut self) -> Result<bool, StoreError> {
        self.blobs.clear();
        let db = self.db;
        let version: i64 = db.conn.prepare_cached("PRAGMA data_version")?.query_row([], |r| r.get(0))?;
        if self.version == Some(version) {
            return Ok(false);
        }
        self.version = Some(version);
        self.solves.clear();
        self.tables.clear();
        self.metas.clear();
        self.blocks.clear();
        self.block_bytes = 0;
        Ok(true)
    }

    /// Closes the BLOB handles kept open, ending the read transaction they hold (the caches
    /// stay).
    pub fn release(&mut self) {
        self.blobs.clear();
    }

    /// The stored solves of a game and convention (as [`Database::solves_of`]).
    pub fn solves_of(
        &mut self,
        game: &GameSpec,
        convention: Convention,
    ) -> Result<Rc<[SolveRecord]>, StoreError> {
        // A few games at most: a scan beats hashing a game spec.
        if let Some((_, _, solves)) = self.solves.iter().find(|(g, c, _)| *c == convention && g == game) {
            return Ok(solves.clone());
        }
        let solves: Rc<[SolveRecord]> = self.db.solves_of(game, convention)?.into();
        self.solves.push((game.clone(), convention, solves.clone()));
        Ok(solves)
    }

    fn meta(&mut self, solve_id: i64, tier: TierId) -> Result<Option<Rc<TierMeta>>, StoreError> {
        if let Some(m) = self.metas.get(&(solve_id, tier)) {
            return Ok(m.clone());
        }
        let meta = read_meta(self.db, solve_id, tier)?.map(Rc::new);
        self.metas.insert((solve_id, tier), meta.clone());
        Ok(meta)
    }

    /// The rank of `position` in its tier under `solve`'s caps, and the tier's size.
    fn rank(&mut self, solve: &SolveRecord, position: &Position) -> Result<(u64, u64), StoreError> {
        let total = position.total() as u32;
        let table = match self.tables.entry(solve.id) {
            Entry::Occupied(e) if e.get().max_total() >= total => e.into_mut(),
            entry => {
                // Rank tables grow to the largest total asked about, never past the solve's.
                let universe = solve.target_universe();
                let held = match &entry {
                    Entry::Occupied(e) => e.get().max_total(),
                    Entry::Vacant(_) => 0,
                };
                let table = universe.table_to(total.max(held).max(32).min(universe.max_total))?;
                entry.insert_entry(table).into_mut()
            }
        };
        Ok((table.rank(position.heaps()), table.size(TierId::of(position))))
    }

    /// The stored record of `position` in `solve`, or `None` when the solve does not hold it.
    pub fn record(&mut self, solve: &SolveRecord, position: &Position) -> Result<Option<Record>, StoreError> {
        if !solve.target_universe().contains(position) {
            return Ok(None);
        }
        let tier = TierId::of(position);
        let (rank, size) = self.rank(solve, position)?;
        self.record_at(solve.id, tier, size, rank)
    }

    /// Whether tier `tier` of solve `solve_id` is stored.
    pub fn holds(&mut self, solve_id: i64, tier: TierId) -> Result<bool, StoreError> {
        Ok(self.meta(solve_id, tier)?.is_some())
    }

    /// Forgets the blocks read so far (the next lookups read from the database again).
    pub fn clear_blocks(&mut self) {
        self.blocks.clear();
        self.block_bytes = 0;
    }
}

/// Reading one stored record by its (tier, rank): the read path under every face that
/// looks positions up, whatever the family's position space (heap multisets, staircases,
/// sets). The space ranks the position; the source finds, verifies and decodes its block.
pub trait RecordSource {
    /// The record of rank `rank` in tier `tier` of solve `solve_id`, a tier of `size`
    /// positions in the solve's space; `None` when that tier is not stored. A stored row
    /// whose length is not `size`, or whose block fails its checksum, is refused as corrupt.
    fn record_at(
        &mut self,
        solve_id: i64,
        tier: TierId,
        size: u64,
        rank: u64,
    ) -> Result<Option<Record>, StoreError>;
}

impl RecordSource for Reader<'_> {
    fn record_at(
        &mut self,
        solve_id: i64,
        tier: TierId,
        size: u64,
        rank: u64,
    ) -> Result<Option<Record>, StoreError> {
        let Some(meta) = self.meta(solve_id, tier)? else {
            return Ok(None);
        };
        let at = locate(&meta, solve_id, tier, size, rank as usize)?;
        if let Some(bytes) = self.blocks.get(&(meta.row_id, at.block)) {
            return decode(&meta, bytes, solve_id, tier, at.offset).map(Some);
        }
        let blob = open_blob(self.db, &mut self.blobs, meta.row_id)?;
        let buf = read_block(blob, &meta, solve_id, tier, at.block)?;
        let record = decode(&meta, &buf, solve_id, tier, at.offset)?;
        let len = buf.len();
        if self.block_bytes + len > BLOCK_CACHE_BYTES {
            self.blocks.clear();
            self.block_bytes = 0;
        }
        self.block_bytes += len;
        self.blocks.insert((meta.row_id, at.block), buf);
        Ok(Some(record))
    }
}

/// Probes one solve's heap positions: ranks them with the solve's partition table and
/// reads them through a [`Reader`] (the read path every face shares), which keeps the tier
/// metadata and the verified blocks it has read, so a position and its children cost a
/// handful of small reads.
pub struct Prober<'a> {
    reader: Reader<'a>,
    solve: SolveRecord,
    table: PartitionTable,
}

impl<'a> Prober<'a> {
    /// A prober of `solve` for positions with at most `up_to_total` tokens (the rank table is
    /// built only that far).
    pub fn new(db: &'a Database, solve: SolveRecord, up_to_total: u32) -> Result<Self, StoreError> {
        let table = solve.target_universe().table_to(up_to_total)?;
        Ok(Prober { reader: Reader::unmapped(db), solve, table })
    }

    /// The solve probed.
    pub fn solve(&self) -> &SolveRecord {
        &self.solve
    }

    /// Forgets the blocks read so far (the next lookups read from the database again).
    pub fn clear_block_cache(&mut self) {
        self.reader.clear_blocks();
    }

    /// Whether the solve covers `position` (its caps allow it and its tier is stored).
    pub fn covers(&mut self, position: &Position) -> Result<bool, StoreError> {
        if !self.solve.target_universe().contains(position) {
            return Ok(false);
        }
        self.reader.holds(self.solve.id, TierId::of(position))
    }

    /// The stored record of `position`, or `None` when its tier is not stored.
    pub fn record(&mut self, position: &Position) -> Result<Option<Record>, StoreError> {
        let tier = TierId::of(position);
        if !self.solve.target_universe().contains(position) || tier.total > self.table.max_total() {
            return Ok(None);
        }
        let rank = self.table.rank(position.heaps());
        self.reader.record_at(self.solve.id, tier, self.table.size(tier), rank)
    }
}
