//! A stored tier read block by block, each block checked before its values are handed
//! out: how a partitioned solve's rank 0 hands each member its block of a tier on a
//! resume without holding the whole tier ([`Database::tier_in_parts`]).

use rusqlite::blob::Blob;
use rusqlite::{MAIN_DB, params};

use nimdb_core::index::TierId;

use super::database::Database;
use super::error::StoreError;
use super::lookup::{TierMeta, read_block, read_meta};

/// A stored tier being read in rank order, a block at a time (see the module
/// documentation).
pub struct TierParts<'a> {
    blob: Blob<'a>,
    meta: TierMeta,
    solve_id: i64,
    tier: TierId,
    most: u16,
    checksum: i64,
    payload: crc32fast::Hasher,
    next: usize,
}

impl Database {
    /// The stored `tier` of solve `solve_id`, to be read block by block
    /// ([`TierParts::next_block`]); an error if it is not stored.
    pub fn tier_in_parts(&self, solve_id: i64, tier: TierId) -> Result<TierParts<'_>, StoreError> {
        let meta = read_meta(self, solve_id, tier)?
            .ok_or_else(|| StoreError::Corrupt(format!("tier {tier} of solve #{solve_id} is not stored")))?;
        let (checksum, most): (i64, i64) = self.conn.query_row(
            "SELECT checksum, max_remoteness FROM tiers WHERE id = ?1",
            params![meta.row_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let most = u16::try_from(most).map_err(|_| {
            StoreError::Corrupt(format!(
                "tier {tier} of solve #{solve_id} is corrupt: its greatest remoteness is {most}"
            ))
        })?;
        let blob = self.conn.blob_open(MAIN_DB, c"tiers", c"payload", meta.row_id, true)?;
        let payload = meta.binding.payload_hasher();
        Ok(TierParts { blob, meta, solve_id, tier, most, checksum, payload, next: 0 })
    }
}

impl TierParts<'_> {
    /// The tier's positions, as its row records them.
    pub fn positions(&self) -> u64 {
        self.meta.positions
    }

    /// The tier's greatest remoteness, as its row records it (no value handed out passes
    /// it: one that does is refused as corruption).
    pub fn max_remoteness(&self) -> u16 {
        self.most
    }

    /// The remoteness values of the next block, checked against its checksum; `None` after
    /// the last, once the whole payload's checksum is checked too.
    pub fn next_block(&mut self) -> Result<Option<Vec<u16>>, StoreError> {
        let layout = self.meta.layout;
        let blocks = (self.meta.positions as usize).div_ceil(layout.block_records);
        let corrupt = |what: String| {
            StoreError::Corrupt(format!("tier {} of solve #{} is corrupt: {what}", self.tier, self.solve_id))
        };
        if self.next == blocks {
            self.next += 1;
            if i64::from(self.payload.clone().finalize()) != self.checksum {
                return Err(corrupt("the payload fails its checksum".into()));
            }
            return Ok(None);
        }
        if self.next > blocks {
            return Ok(None);
        }
        let bytes = read_block(&self.blob, &self.meta, self.solve_id, self.tier, self.next)?;
        self.payload.update(&bytes);
        self.next += 1;
        let values: Vec<u16> = (0..bytes.len() / layout.width())
            .map_while(|i| layout.decode(&bytes, i * layout.width()))
            .map(|record| record.remoteness)
            .collect();
        if let Some(&v) = values.iter().find(|&&v| v > self.most) {
            return Err(corrupt(format!(
                "it holds remoteness {v}, above its recorded greatest {}",
                self.most
            )));
        }
        Ok(Some(values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::{RunStart, RunTick};
    use crate::tiers::TierWriter;
    use crate::tiers::tests::{database, tiers};

    #[test]
    fn a_tier_read_in_parts_is_the_tier_stored_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (db, solve, universe) = database(Some(dir.path()));
        let tiers = tiers();
        let mut writer = TierWriter::new(&db, &solve, universe, RunStart::now(12, 1, 1));
        for tier in &tiers {
            writer.write_in_run(tier.clone(), RunTick { seconds: 0.0, peak_memory_bytes: None }).unwrap();
        }
        writer.finish().unwrap();
        drop(writer);
        let read = |db: &Database, tier: TierId| -> Result<(u64, u16, Vec<u16>), StoreError> {
            let mut parts = db.tier_in_parts(solve.id, tier)?;
            let mut values = Vec::new();
            while let Some(block) = parts.next_block()? {
                assert!(block.len() <= 4096);
                values.extend(block);
            }
            assert!(parts.next_block()?.is_none());
            Ok((parts.positions(), parts.max_remoteness(), values))
        };
        for tier in &tiers {
            let (positions, most, values) = read(&db, tier.tier).unwrap();
            assert_eq!((positions, most), (tier.remoteness.len() as u64, tier.max_remoteness()));
            assert_eq!(values, tier.remoteness);
        }
        assert!(read(&db, TierId { total: 9, heaps: 1 }).is_err(), "a tier not stored");
        // A flipped byte in the second block of a tier a byte a record, or a greatest
        // remoteness recorded too low in one of two bytes.
        let (one_byte, two_bytes) = (tiers[1].tier, tiers[2].tier);
        assert!(tiers[1].remoteness.len() > 4096 && tiers[1].max_remoteness() < 256);
        assert!(tiers[2].max_remoteness() > 256);
        let damage = |sql: &str, t: TierId| db.conn.execute(sql, params![t.total, t.heaps]).unwrap();
        damage(
            "UPDATE tiers SET payload = CAST(substr(payload, 1, 5000) || X'7F' || substr(payload, 5002) AS BLOB)
             WHERE total = ?1 AND heaps = ?2",
            one_byte,
        );
        let err = read(&db, one_byte).unwrap_err().to_string();
        assert!(err.contains("block 1 fails its checksum"), "{err}");
        damage("UPDATE tiers SET max_remoteness = 200 WHERE total = ?1 AND heaps = ?2", two_bytes);
        let err = read(&db, two_bytes).unwrap_err().to_string();
        assert!(err.contains("above its recorded greatest 200"), "{err}");
    }
}
