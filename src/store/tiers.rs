//! Writing and reading whole tiers: the solver's side of the database.

use std::collections::BTreeSet;

use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use rusqlite::{Connection, params};

use crate::game::Convention;
use crate::index::{TierId, Universe};
use crate::solve::{SolvedTier, TierStore};

use super::codec::{self, RecordLayout};
use super::open::{Database, StoreError};
use super::solves::SolveRecord;

/// The tiers of one solve, as the solver stores and resumes them.
///
/// Tiers are written by a background thread with its own connection, in the order they are
/// solved, each in its own transaction together with the solve's counters, so the database
/// always holds a consistent prefix of the solve and the solver never waits for the disk.
/// At most [`QUEUE`] tiers wait to be written. A tier still queued when the process dies is
/// simply solved again on resume.
pub struct SqliteTierStore<'a> {
    db: &'a Database,
    solve_id: i64,
    universe: Universe,
    convention: Convention,
    writer: Option<TierWriter>,
}

/// Solved tiers waiting for the writer thread.
const QUEUE: usize = 8;

struct TierWriter {
    queue: SyncSender<SolvedTier>,
    thread: JoinHandle<Result<(), StoreError>>,
}

impl<'a> SqliteTierStore<'a> {
    /// The store of `solve`, solving up to `universe` (which has the solve's caps).
    pub fn new(db: &'a mut Database, solve: &SolveRecord, universe: Universe) -> Self {
        SqliteTierStore { db, solve_id: solve.id, universe, convention: solve.convention, writer: None }
    }

    fn writer(&mut self) -> anyhow::Result<&mut TierWriter> {
        if self.writer.is_none() {
            let mut conn = Connection::open(self.db.path())?;
            conn.busy_timeout(std::time::Duration::from_secs(30))?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            let (queue, tiers) = sync_channel::<SolvedTier>(QUEUE);
            let (solve_id, universe, convention) = (self.solve_id, self.universe, self.convention);
            let thread = std::thread::Builder::new().name("nimdb-tier-writer".into()).spawn(move || {
                for solved in tiers {
                    write_tier(&mut conn, solve_id, &universe, convention, &solved)?;
                }
                Ok(())
            })?;
            self.writer = Some(TierWriter { queue, thread });
        }
        Ok(self.writer.as_mut().expect("writer started"))
    }

    /// Stops the writer after it has written everything queued; its result.
    fn join(&mut self) -> anyhow::Result<()> {
        if let Some(TierWriter { queue, thread }) = self.writer.take() {
            drop(queue);
            match thread.join() {
                Ok(result) => result?,
                Err(_) => anyhow::bail!("the tier writer thread panicked"),
            }
        }
        Ok(())
    }
}

impl Drop for SqliteTierStore<'_> {
    fn drop(&mut self) {
        // Write what is queued even when the solve failed: those tiers are correct.
        let _ = self.join();
    }
}

/// Writes one tier and the solve's counters in one transaction.
fn write_tier(
    conn: &mut Connection,
    solve_id: i64,
    universe: &Universe,
    convention: Convention,
    solved: &SolvedTier,
) -> Result<(), StoreError> {
    let enc = codec::encode(solved);
    let tier = solved.tier;
    let losses = solved.losses(convention);
    // The last tier of a total, in solve order, completes that total.
    let completes_total = universe.tiers_of_total(tier.total).last() == Some(tier);
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    // A tier another process stored meanwhile is the same tier: keep the stored one.
    let inserted = tx.execute(
        "INSERT INTO tiers (solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes,
                            nim_value_bytes, block_records, checksum, solve_seconds, block_checksums, payload)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (solve_id, total, heaps) DO NOTHING",
        params![
            solve_id,
            tier.total,
            tier.heaps,
            solved.remoteness.len() as i64,
            losses as i64,
            solved.max_remoteness(),
            enc.layout.remoteness_bytes as i64,
            enc.layout.nim_value_bytes as i64,
            enc.layout.block_records as i64,
            enc.checksum as i64,
            solved.seconds,
            enc.block_checksums,
            enc.payload,
        ],
    )?;
    if inserted == 0 {
        return Ok(());
    }
    tx.execute(
        "UPDATE solves SET positions = positions + ?2, losses = losses + ?3,
            solved_total = CASE WHEN ?4 THEN ?5 ELSE solved_total END,
            status = CASE WHEN ?4 AND ?5 >= target_total THEN 'complete' ELSE status END,
            updated_at = datetime('now')
         WHERE id = ?1",
        params![solve_id, solved.remoteness.len() as i64, losses as i64, completes_total, tier.total],
    )?;
    tx.commit()?;
    Ok(())
}

impl Database {
    /// Loads a whole stored tier of a solve, verifying its layout and checksums.
    pub fn load_tier(&self, solve_id: i64, tier: TierId) -> Result<SolvedTier, StoreError> {
        let (positions, rb, vb, block_records, checksum, blocks, payload): (i64, i64, i64, i64, i64, Vec<u8>, Vec<u8>) =
            self.conn.query_row(
                "SELECT positions, remoteness_bytes, nim_value_bytes, block_records, checksum, block_checksums, payload
                 FROM tiers WHERE solve_id = ?1 AND total = ?2 AND heaps = ?3",
                params![solve_id, tier.total, tier.heaps],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)),
            )?;
        let layout = RecordLayout {
            remoteness_bytes: rb as usize,
            nim_value_bytes: vb as usize,
            block_records: block_records as usize,
        };
        let corrupt = |what: String| {
            StoreError::Corrupt(format!("tier {tier} of solve #{solve_id} is corrupt: {what}"))
        };
        if layout.block_records == 0
            || !(1..=2).contains(&layout.remoteness_bytes)
            || layout.nim_value_bytes > 2
        {
            return Err(corrupt("its record layout is invalid".into()));
        }
        if payload.len() != positions as usize * layout.width() {
            return Err(corrupt(format!(
                "its payload has {} bytes, expected {}",
                payload.len(),
                positions as usize * layout.width()
            )));
        }
        for (b, block) in payload.chunks(layout.block_bytes()).enumerate() {
            if codec::block_checksum(&blocks, b) != Some(crc32fast::hash(block)) {
                return Err(corrupt(format!("block {b} fails its checksum")));
            }
        }
        if crc32fast::hash(&payload) as i64 != checksum {
            return Err(corrupt("the payload fails its checksum".into()));
        }
        let (remoteness, nim_values) = codec::decode_all(&layout, &payload);
        Ok(SolvedTier { tier, remoteness, nim_values, seconds: 0.0 })
    }

    /// Positions stored for a solve in tiers with at most `total` tokens.
    pub fn positions_stored(&self, solve_id: i64, total: u32) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(
            "SELECT COALESCE(SUM(positions), 0) FROM tiers WHERE solve_id = ?1 AND total <= ?2",
            params![solve_id, total],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// The tiers stored for a solve.
    pub fn stored_tiers(&self, solve_id: i64) -> Result<BTreeSet<TierId>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT total, heaps FROM tiers WHERE solve_id = ?1")?;
        let rows = stmt
            .query_map([solve_id], |r| Ok(TierId { total: r.get(0)?, heaps: r.get(1)? }))?
            .collect::<Result<BTreeSet<_>, _>>()?;
        Ok(rows)
    }
}

impl TierStore for SqliteTierStore<'_> {
    fn solved_tiers(&mut self) -> anyhow::Result<BTreeSet<TierId>> {
        Ok(self
            .db
            .stored_tiers(self.solve_id)?
            .into_iter()
            .filter(|t| t.total <= self.universe.max_total)
            .collect())
    }

    fn load(&mut self, tier: TierId) -> anyhow::Result<SolvedTier> {
        Ok(self.db.load_tier(self.solve_id, tier)?)
    }

    fn save(&mut self, solved: &SolvedTier) -> anyhow::Result<()> {
        let sent = self.writer()?.queue.send(solved.clone());
        if sent.is_err() {
            // The writer stopped: report why.
            self.join()?;
            anyhow::bail!("the tier writer stopped");
        }
        Ok(())
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        self.join()
    }
}
