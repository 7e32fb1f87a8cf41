//! What a solve's tiers take on disk, bounded from above: the database file's growth (each
//! tier's row as SQLite lays it out in pages) and the peak of its write-ahead log.
//!
//! The store writes each tier in one transaction, as one row of the `tiers` table (the
//! payload: a fixed-width record a position, and a CRC-32 a block of [`BLOCK_RECORDS`]) and
//! one entry of its unique index on (solve, total, heaps). Its writer folds the write-ahead
//! log back into the database whenever the log passes a mark (SQLite's `wal_autocheckpoint`:
//! [`ROOMY_LOG_PAGES`] where the disk has room for it, [`TIGHT_LOG_PAGES`] where it does not,
//! and then it also cuts the file back to that size when it restarts, `journal_size_limit`),
//! so the log never holds more than those pages and the one transaction that crossed the
//! mark ([`log_peak_bytes`]). The estimates of every family
//! (`nimdb-solve`) and the store's own test use these bounds; a solve is refused when the
//! file's growth plus the log's peak are more than nine tenths of the disk free, or when
//! either file would pass the file-size limit (`ulimit -f`).
//!
//! SQLite's layout, as used here (a page of [`PAGE_BYTES`], the bundled SQLite's default): a
//! record of at most `page − 35` bytes sits whole in its table leaf; a longer one keeps a
//! local part there (at least `(page − 12)·32/255 − 23` bytes) and the rest in a chain of
//! overflow pages of `page − 4` bytes each. Rows are appended in rowid order, so a leaf is
//! left only when the next cell does not fit: what a leaf wastes is less than the cell
//! that follows (see `row_pages_bytes`). The index is not appended in order (tiers are
//! solved by total, not always by their heap count), and its pages split: three times its
//! entries bounds it.

/// Bytes in a database page (SQLite's default, which nimdb keeps).
pub const PAGE_BYTES: u64 = 4096;

/// Records in a block of a tier's payload, each block with a 4-byte CRC-32.
pub const BLOCK_RECORDS: u64 = 4096;

/// Pages of write-ahead log after which a writer folds the log into the database (SQLite's
/// `wal_autocheckpoint`) when the disk is tight: a solve whose file, log and spill would not
/// fit with [`ROOMY_LOG_PAGES`] runs with this mark, and is refused only when it does not fit
/// even so. At 256 (1 MiB) a Kayles misère solve to total 62 ran 1.02 times the wall time of
/// the roomy mark's, and raise:2 with 150 heaps (11,476 one-position tiers, a checkpoint and
/// its two fsyncs every 50 tiers) 1.5 times (paired whole-process runs, medians of 5).
pub const TIGHT_LOG_PAGES: u64 = 256;

/// The writer's mark when the disk has room for the log it allows: SQLite's default of
/// 1,000 pages (4 MB). With it raise:2 with 150 heaps ran 0.98 times the wall time of the
/// writer before these marks (paired whole-process runs, median of 7).
pub const ROOMY_LOG_PAGES: u64 = 1000;

/// Bytes of a write-ahead log frame's header, before each page.
const FRAME_HEADER_BYTES: u64 = 24;

/// Bytes of a write-ahead log file's header.
const LOG_HEADER_BYTES: u64 = 32;

/// Pages besides a tier's own that its transaction may write: the paths from the roots to
/// the leaves of the tier table and its index (a few levels each, and the pages a split
/// makes), the solve's row and the run's row and index.
const TRANSACTION_PAGES: u64 = 24;

/// Bytes of a tier row's record besides its payload and block checksums, at most: its
/// header (the header's length, a serial type a column, up to 3 bytes for the block
/// checksums' length and 5 for the payload's) and its columns (the solve's id up to 8 bytes,
/// total and heap count 2 each, positions and losses [`int_bytes`] each, the greatest
/// remoteness 2, the record layout's three columns 4, the checksum 6, the seconds 8, the
/// checksum scheme 1).
fn record_fixed_bytes(positions: u64) -> u64 {
    (1 + 13 + 3 + 5) + (8 + 2 + 2 + 2 * int_bytes(positions) + 2 + 4 + 6 + 8 + 1)
}

/// The fewest bytes of a tier row's record besides its payload and block checksums (every
/// integer 0 or 1, the shortest header).
const RECORD_FIXED_LEAST: u64 = 16 + 4;

/// Bytes of a cell besides its record (the record's length and the rowid, up to 9 bytes
/// each, and the 2-byte pointer to the cell).
const CELL_HEADER_BYTES: u64 = 9 + 9 + 2;

/// Bytes of one entry of the tiers' index, at most: its record (solve id, total, heap
/// count, rowid) with its header, the record's length and the cell pointer.
const INDEX_ENTRY_BYTES: u64 = 5 + 8 + 2 + 2 + 9 + 1 + 2;

/// Bytes a leaf page holds cells in (a page less its 8-byte header).
const LEAF_BYTES: u64 = PAGE_BYTES - 8;

/// Cells up to this size are small: a leaf left because the next cell is small wastes less
/// than it, under `SMALL_CELL / (LEAF_BYTES − SMALL_CELL)` of the cells it holds.
const SMALL_CELL: u64 = 512;

/// The bytes SQLite stores an integer column of value at most `n` in.
fn int_bytes(n: u64) -> u64 {
    match n {
        0..=1 => 0,
        2..=0x7f => 1,
        0x80..=0x7fff => 2,
        0x8000..=0x7f_ffff => 3,
        0x80_0000..=0x7fff_ffff => 4,
        0x8000_0000..=0x7fff_ffff_ffff => 6,
        _ => 8,
    }
}

/// Bytes of an empty nimdb database (16 pages of schema), its first solve's row and run, the
/// last leaf of each tree (whose waste no next cell pays for) and the pages of the first
/// split of each tree's root.
pub const SCHEMA_BYTES: u64 = 24 * PAGE_BYTES;

/// The bytes of a tier's payload and its block checksums: `positions` records of
/// `record_width` bytes.
pub fn payload_bytes(positions: u64, record_width: u64) -> u64 {
    positions.saturating_mul(record_width).saturating_add(4 * positions.div_ceil(BLOCK_RECORDS))
}

/// What a record of `record` bytes takes in the tier table, at most: its cell in the leaf
/// with its share of the leaves' waste, and its overflow pages whole (in that order).
///
/// Rows are appended, so a leaf is left only when the next cell does not fit it: its waste
/// is less than that next cell. Charged to the next cell when that one is larger than
/// [`SMALL_CELL`] (at most its own size again), else to the leaf's own cells (less than
/// `SMALL_CELL / (LEAF_BYTES − SMALL_CELL)`, 14%, of them), a cell takes at most itself,
/// 14% more, and itself again when it is large.
fn row_pages_bytes(record: u64) -> (u64, u64) {
    let max_local = PAGE_BYTES - 35;
    let min_local = (PAGE_BYTES - 12) * 32 / 255 - 23;
    let (local, overflow_pages) = if record <= max_local {
        (record, 0)
    } else {
        let surplus = min_local + (record - min_local) % (PAGE_BYTES - 4);
        let local = if surplus <= max_local { surplus } else { min_local };
        (local + 4, (record - local).div_ceil(PAGE_BYTES - 4))
    };
    let cell = local + CELL_HEADER_BYTES;
    let waste = cell * SMALL_CELL / (LEAF_BYTES - SMALL_CELL) + if cell > SMALL_CELL { cell } else { 0 };
    (cell + waste + 1, overflow_pages * PAGE_BYTES)
}

/// Bytes a tier of `positions` records of `record_width` bytes adds to the database file,
/// at most: its row in the tier table (its fixed columns, block checksums and payload, laid
/// out as SQLite does for every length the fixed columns may take), its index entry, and a
/// share of the trees' inner pages.
pub fn tier_bytes(positions: u64, record_width: u64) -> u64 {
    let payload = payload_bytes(positions, record_width);
    // The record's fixed columns take between RECORD_FIXED_LEAST and record_fixed_bytes: the
    // layout is not monotone in the record's length (a longer one may keep less in its
    // leaf), so every length between is laid out.
    let (leaf, overflow) = (payload + RECORD_FIXED_LEAST
        ..=payload.saturating_add(record_fixed_bytes(positions)))
        .map(row_pages_bytes)
        .max_by_key(|(leaf, overflow)| leaf + overflow)
        .unwrap_or((0, 0));
    // The index is not appended in order (tiers are solved by total, not always by heap
    // count) and its leaves split: three times its entries bounds them.
    let entry = 3 * INDEX_ENTRY_BYTES;
    // Inner pages: a cell (at most 13 bytes in the table, an index entry in the index) for
    // each leaf page, whose cells take more than 40 times that.
    let inner = (leaf + entry) / 40 + INDEX_ENTRY_BYTES;
    leaf + overflow + entry + inner
}

/// Pages of write-ahead log the transaction storing a tier of `tier_bytes` ([`tier_bytes`])
/// writes, at most: the tier's own pages and 24 more (the paths from the roots to the leaves
/// of the tier table and its index, the pages a split makes, the solve's and the run's rows).
pub fn transaction_pages(tier_bytes: u64) -> u64 {
    tier_bytes.div_ceil(PAGE_BYTES) + TRANSACTION_PAGES
}

/// The write-ahead log's peak, at most, for a solve whose largest transaction writes
/// `largest_pages` and whose transactions write `all_pages` together
/// ([`transaction_pages`]), folded in at `mark` pages ([`TIGHT_LOG_PAGES`],
/// [`ROOMY_LOG_PAGES`]): the log holds at most `mark` pages less one and then the largest
/// transaction, and never more than every transaction; each page with its frame header.
pub fn log_peak_bytes(mark: u64, largest_pages: u64, all_pages: u64) -> u64 {
    let pages = (mark.saturating_sub(1) + largest_pages).min(all_pages);
    LOG_HEADER_BYTES + pages * (PAGE_BYTES + FRAME_HEADER_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_row_takes_at_most_twice_its_cell() {
        // One position of two bytes: a record of at most its fixed columns and 6 bytes, its
        // cell and 14% more, its index entry three times, and the inner pages' share.
        let bytes = tier_bytes(1, 2);
        let cell = record_fixed_bytes(1) + 6 + CELL_HEADER_BYTES;
        assert!(bytes >= cell + cell / 7 + 3 * INDEX_ENTRY_BYTES && bytes < 250, "{bytes}");
    }

    #[test]
    fn a_large_row_is_its_overflow_pages_and_a_leaf_cell() {
        // 1,000,000 one-byte records: 245 blocks; about 245 overflow pages' worth more than
        // the payload itself at most two pages' more, and never less.
        let payload = payload_bytes(1_000_000, 1);
        assert_eq!(payload, 1_000_000 + 4 * 245);
        let bytes = tier_bytes(1_000_000, 1);
        assert!(bytes >= payload && bytes <= payload + payload / 500 + 4 * PAGE_BYTES, "{bytes}");
    }

    #[test]
    fn overflow_follows_sqlite() {
        // Just past the in-leaf limit the record keeps a local part and one overflow page.
        let max_local = PAGE_BYTES - 35;
        let cell = max_local + CELL_HEADER_BYTES;
        assert_eq!(row_pages_bytes(max_local), (2 * cell + cell * 512 / 3576 + 1, 0));
        let (leaf, overflow) = row_pages_bytes(max_local + 1);
        assert_eq!(overflow, PAGE_BYTES);
        assert!(leaf <= 3 * (max_local + 24), "{leaf}");
    }

    #[test]
    fn the_log_holds_its_mark_and_the_largest_transaction() {
        let least = log_peak_bytes(TIGHT_LOG_PAGES, transaction_pages(0), u64::MAX);
        assert_eq!(least, 32 + (TIGHT_LOG_PAGES - 1 + TRANSACTION_PAGES) * (PAGE_BYTES + 24));
        let larger = log_peak_bytes(TIGHT_LOG_PAGES, transaction_pages(10 * PAGE_BYTES), u64::MAX);
        assert_eq!(larger - least, 10 * (PAGE_BYTES + 24));
        let roomy = log_peak_bytes(ROOMY_LOG_PAGES, transaction_pages(0), u64::MAX);
        assert_eq!(roomy - least, (ROOMY_LOG_PAGES - TIGHT_LOG_PAGES) * (PAGE_BYTES + 24));
        // A solve that writes less than the mark: the log holds all of it at most.
        assert_eq!(log_peak_bytes(TIGHT_LOG_PAGES, 30, 40), 32 + 40 * (PAGE_BYTES + 24));
    }
}
