//! One stored record: a tier row's metadata, where a rank lies in its payload, and one block read
//! by offset and verified by its checksum (what the readers and the export are built on).

use std::collections::HashMap;

use rusqlite::blob::Blob;
use rusqlite::{MAIN_DB, OptionalExtension, params};

use nimdb_core::index::TierId;

use super::codec::{Binding, CodecError, Record, RecordLayout};
use super::database::Database;
use super::error::StoreError;
use super::key::SolveKey;

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
    /// What the checksums are bound to (the tier and its solve's key).
    pub binding: Binding,
}

/// The record at `offset` of a verified block.
pub(crate) fn decode(
    meta: &TierMeta,
    bytes: &[u8],
    solve_id: i64,
    tier: TierId,
    offset: usize,
) -> Result<Record, StoreError> {
    meta.layout
        .decode(bytes, offset)
        .ok_or_else(|| corrupt(solve_id, tier, format!("its block ends before the record at byte {offset}")))
}

/// Where a record lies in its tier's payload.
pub(crate) struct RecordAt {
    /// The block holding it.
    pub block: usize,
    /// Its byte offset in that block.
    pub offset: usize,
}

/// The metadata of `tier` of solve `solve_id`, if the tier is stored. The solve's key is
/// read from the `solves` row the tier row points to, so the checksums are checked against
/// the key of the solve that actually holds the row.
pub(crate) fn read_meta(db: &Database, solve_id: i64, tier: TierId) -> Result<Option<TierMeta>, StoreError> {
    type Row = (i64, i64, (i64, i64, i64), Vec<u8>, i64, SolveKey);
    let row: Option<Row> = db
        .conn
        .prepare_cached(&format!(
            "SELECT t.id, t.positions, t.remoteness_bytes, t.nim_value_bytes, t.block_records, t.block_checksums,
                    {}, s.game, s.convention, s.max_heap, s.max_heaps, s.nim_values
             FROM tiers t JOIN solves s ON s.id = t.solve_id
             WHERE t.solve_id = ?1 AND t.total = ?2 AND t.heaps = ?3",
            db.scheme_column()
        ))?
        .query_row(params![solve_id, tier.total, tier.heaps], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                (r.get(2)?, r.get(3)?, r.get(4)?),
                r.get(5)?,
                r.get(6)?,
                SolveKey::from_columns(r.get(7)?, &r.get::<_, String>(8)?, r.get(9)?, r.get(10)?, r.get(11)?),
            ))
        })
        .optional()?;
    let Some((row_id, positions, (rb, vb, br), block_checksums, scheme, key)) = row else {
        return Ok(None);
    };
    let bad = |e: CodecError| corrupt(solve_id, tier, e.to_string());
    let layout = RecordLayout::from_columns(rb, vb, br).map_err(bad)?;
    let binding = db.binding(&key, tier, &layout, scheme).map_err(bad)?;
    Ok(Some(TierMeta { row_id, positions: positions.max(0) as u64, layout, block_checksums, binding }))
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
    Ok(RecordAt {
        block: rank / layout.block_records,
        offset: (rank % layout.block_records) * layout.width(),
    })
}

/// The most BLOB handles a reader keeps open. SQLite walks every open cursor of a table
/// each time it opens another on it (a handle, or a statement's), so a reader that kept one
/// open for every tier it read made each new one cost in proportion to the tiers read before:
/// a batch over a space of many small tiers (`raise:2` with 200 heaps, 20,301 tiers of one
/// position each) took time quadratic in its tiers. Reopening a handle is not free either (it
/// walks the row's overflow pages to the block read): at 64, a batch of 100,000 random Nim
/// 8×32 positions (about 2,000 tiers) ran 1.30× the instructions of keeping them all. 4,096
/// keeps every tier of the heap games' solves open and bounds the walk: the raise:2 batch
/// above takes 2.9 CPU s (0.3 at 64, 30 unbounded), the Nim batch what it took unbounded.
const MAX_OPEN_BLOBS: usize = 4096;

/// The open BLOB handle of a tier row's payload, opened on first use; past
/// [`MAX_OPEN_BLOBS`] the handles kept are closed first.
pub(crate) fn open_blob<'a, 'b>(
    db: &'a Database,
    blobs: &'b mut HashMap<i64, Blob<'a>>,
    row_id: i64,
) -> Result<&'b Blob<'a>, StoreError> {
    if blobs.len() >= MAX_OPEN_BLOBS && !blobs.contains_key(&row_id) {
        blobs.clear();
    }
    match blobs.entry(row_id) {
        std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
        std::collections::hash_map::Entry::Vacant(e) => {
            Ok(e.insert(db.conn.blob_open(MAIN_DB, c"tiers", c"payload", row_id, true)?))
        }
    }
}

/// Reads block `block` of a tier's payload through `blob` and checks it against its
/// checksum (bound to the tier's identity).
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
    meta.binding
        .check_block(&meta.block_checksums, block, &buf)
        .map_err(|e| corrupt(solve_id, tier, e.to_string()))?;
    Ok(buf)
}
