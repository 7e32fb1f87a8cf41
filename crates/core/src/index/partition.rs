//! Counting, ranking and unranking restricted partitions.

use crate::game::Position;

use super::tier::TierId;

/// Why a partition table cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The table would be too large to hold.
    #[error(
        "the universe is too wide to index: its partition table would need {entries} entries (limit {MAX_TABLE_ENTRIES})"
    )]
    TooWide {
        /// Entries the table would need.
        entries: u64,
    },
    /// A tier would hold more positions than a rank can number.
    #[error("a tier of this universe (total {total}, {heaps} heaps) holds more than 2^32 positions")]
    TierTooLarge {
        /// The tier's total.
        total: u32,
        /// Its heap count.
        heaps: u32,
    },
    /// The table's memory could not be allocated (an address-space limit below it).
    #[error("the universe's partition table needs {bytes} bytes, which this process could not allocate")]
    OutOfMemory {
        /// Bytes the table needs.
        bytes: u64,
    },
}

/// The most table entries a [`PartitionTable`] may hold (8 bytes each).
const MAX_TABLE_ENTRIES: u64 = 40_000_000;

/// `n` zeroed counts, or [`TableError::OutOfMemory`] when they cannot be allocated (as
/// `vec![0; n]`, the zeroed pages are the system's until written: a table that stops at its
/// first tier too large costs no more than it wrote).
fn zeroed_counts(n: usize) -> Result<Vec<u32>, TableError> {
    let out_of_memory = || TableError::OutOfMemory { bytes: n as u64 * 4 };
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u32>(n).map_err(|_| out_of_memory())?;
    // SAFETY: the layout's size is not zero (n > 0). A non-null result is `n` zeroed u32s
    // (zero is a valid u32) from the global allocator with exactly this layout, which
    // `Vec::from_raw_parts` takes over with length and capacity `n`.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<u32>();
        if ptr.is_null() {
            return Err(out_of_memory());
        }
        Ok(Vec::from_raw_parts(ptr, n, n))
    }
}

/// `count(s, j, p)`: the number of partitions of `s` into exactly `j` parts, each at most `p`,
/// for `s ≤ max_total`, `j ≤ max_parts`, `p ≤ max_part`.
///
/// The rank of a partition `p1 ≥ p2 ≥ … ≥ pk` of `t` among all partitions of `t` into `k`
/// parts in lexicographic order is `Σ_i count(s_i, k−i+1, p_i − 1)`, where `s_i` is what
/// remains of `t` before part `i`: the partitions that agree on the first `i−1` parts and
/// have a smaller part `i` are exactly those whose remaining parts are all below `p_i`.
/// A cap on the part size does not change the rank, only the tier size.
#[derive(Clone, Debug)]
pub struct PartitionTable {
    max_total: u32,
    max_parts: u32,
    max_part: u32,
    /// Index stride of one more part: `(max_total + 1) * (max_part + 1)`.
    stride_parts: usize,
    /// Index stride of one more token: `max_part + 1`.
    stride_total: usize,
    /// Counts, kept in 32 bits so the table stays in cache (every tier must hold fewer
    /// than 2³² positions, which no feasible universe exceeds).
    counts: Vec<u32>,
}

impl PartitionTable {
    /// Entries the table for these bounds would hold.
    pub fn entries(max_total: u32, max_parts: u32, max_part: u32) -> u64 {
        (max_parts as u64 + 1) * (max_total as u64 + 1) * (max_part as u64 + 1)
    }

    /// Builds the table, or explains why the bounds are too wide for it. A universe's table
    /// is built by [`Universe::table`](super::Universe::table).
    pub fn new(max_total: u32, max_parts: u32, max_part: u32) -> Result<Self, TableError> {
        let entries = Self::entries(max_total, max_parts, max_part);
        if entries > MAX_TABLE_ENTRIES {
            return Err(TableError::TooWide { entries });
        }
        let stride_total = max_part as usize + 1;
        let stride_parts = (max_total as usize + 1) * stride_total;
        let mut t = PartitionTable {
            max_total,
            max_parts,
            max_part,
            stride_parts,
            stride_total,
            counts: zeroed_counts(entries as usize)?,
        };
        for j in 0..=max_parts {
            for s in 0..=max_total {
                for p in 0..=max_part {
                    let v: u64 = if j == 0 {
                        u64::from(s == 0)
                    } else if p == 0 {
                        0
                    } else {
                        // Largest part below p, or exactly p (then drop one part of size p).
                        let below = t.counts[t.index(j, s, p - 1)] as u64;
                        let with_p = if s >= p { t.counts[t.index(j - 1, s - p, p)] as u64 } else { 0 };
                        below + with_p
                    };
                    let i = t.index(j, s, p);
                    t.counts[i] =
                        u32::try_from(v).map_err(|_| TableError::TierTooLarge { total: s, heaps: j })?;
                }
            }
        }
        Ok(t)
    }

    #[inline]
    fn index(&self, j: u32, s: u32, p: u32) -> usize {
        j as usize * self.stride_parts + s as usize * self.stride_total + p as usize
    }

    /// The largest total covered.
    pub fn max_total(&self) -> u32 {
        self.max_total
    }

    /// The most parts covered.
    pub fn max_parts(&self) -> u32 {
        self.max_parts
    }

    /// The largest part size covered.
    pub fn max_part(&self) -> u32 {
        self.max_part
    }

    /// The bytes its counts hold (what a memory estimate counts for it).
    pub fn bytes(&self) -> u64 {
        self.counts.len() as u64 * 4
    }

    /// The number of partitions of `s` into exactly `j` parts, each at most `p`.
    #[inline]
    pub fn count(&self, s: u32, j: u32, p: u32) -> u64 {
        self.counts[self.index(j, s, p.min(self.max_part))] as u64
    }

    /// `count(s, j, p)` for `p ≤ max_part`, without clamping: the solver's inner loops.
    #[inline]
    pub fn count_within(&self, s: u32, j: u32, p: u32) -> u32 {
        self.counts[self.index(j, s, p)]
    }

    /// The number of positions in tier (`total`, `heaps`) with every heap ≤ `max_part`.
    pub fn tier_size(&self, total: u32, heaps: u32) -> u64 {
        self.count(total, heaps, self.max_part)
    }

    /// The number of positions in `tier` with every heap ≤ `max_part`.
    #[inline]
    pub fn size(&self, tier: TierId) -> u64 {
        self.tier_size(tier.total, tier.heaps)
    }

    /// Writes into `out` the heaps of the position of rank `rank` in `tier`.
    #[inline]
    pub fn unrank_into(&self, tier: TierId, rank: u64, out: &mut Vec<u32>) {
        self.unrank(tier.total, tier.heaps, rank, out)
    }

    /// The position of rank `rank` in `tier`.
    pub fn position(&self, tier: TierId, rank: u64) -> Position {
        let mut heaps = Vec::with_capacity(tier.heaps as usize);
        self.unrank_into(tier, rank, &mut heaps);
        Position::from_sorted(heaps)
    }

    /// Walks the heaps of `tier`'s positions in rank order (a lending walk: no allocation).
    pub fn walk(&self, tier: TierId) -> TierWalk {
        TierWalk::new(tier.total, tier.heaps, self.max_part)
    }

    /// The positions of `tier` in rank order (the `n`th is the position of rank `n`).
    pub fn positions(&self, tier: TierId) -> impl Iterator<Item = Position> + use<> {
        let mut walk = self.walk(tier);
        std::iter::from_fn(move || walk.next().map(|heaps| Position::from_sorted(heaps.to_vec())))
    }

    /// The rank of `heaps` (sorted largest first, nonzero) within its tier.
    #[inline]
    pub fn rank(&self, heaps: &[u32]) -> u64 {
        let s: u32 = heaps.iter().sum();
        // Index of count(s, k, ·); each part moves it one part and p tokens down.
        let mut base = self.index(heaps.len() as u32, s, 0);
        let mut r = 0u64;
        for &p in heaps {
            r += self.counts[base + p as usize - 1] as u64;
            base -= self.stride_parts + p as usize * self.stride_total;
        }
        r
    }

    /// Writes into `out` the heaps of the position of rank `rank` in tier (`total`, `heaps`).
    pub fn unrank(&self, total: u32, heaps: u32, mut rank: u64, out: &mut Vec<u32>) {
        out.clear();
        let mut s = total;
        let mut cap = self.max_part.min(total);
        for i in 0..heaps {
            let j = heaps - i;
            // The largest p ≤ cap with count(s, j, p − 1) ≤ rank.
            let (mut lo, mut hi) = (1u32, cap.min(s));
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if self.counts[self.index(j, s, mid - 1)] as u64 <= rank {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            rank -= self.counts[self.index(j, s, lo - 1)] as u64;
            out.push(lo);
            s -= lo;
            cap = lo;
        }
        debug_assert_eq!(s, 0);
    }

    /// Writes into `tails` the rank terms of `heaps` (sorted largest first, nonzero) summed
    /// from each heap index to the end: `heaps.len() + 1` values, the first the rank.
    pub fn tails_into(&self, heaps: &[u32], tails: &mut Vec<u32>) {
        let k = heaps.len();
        tails.clear();
        tails.resize(k + 1, 0);
        let mut suffix = 0;
        for j in (0..k).rev() {
            suffix += heaps[j];
            tails[j] = tails[j + 1] + self.count_within(suffix, (k - j) as u32, heaps[j] - 1);
        }
    }

    /// A cursor over the positions of tier (`total`, `heaps`) that unranks ascending ranks
    /// cheaply: see [`RankCursor`].
    pub fn cursor(&self, total: u32, heaps: u32) -> RankCursor<'_> {
        RankCursor {
            table: self,
            total,
            heaps: Vec::with_capacity(heaps as usize),
            k: heaps,
            tails: vec![0; heaps as usize + 1],
            rest: vec![0; heaps as usize + 1],
            rank: 0,
            valid: false,
        }
    }
}

/// Unranks positions of one tier, reusing the heaps it shares with the position it
/// unranked last: when ranks come in ascending order and close together (a tier's losses),
/// only the last few heaps change, and only they are searched for again.
///
/// The positions whose first `i` heaps are those of the current position hold the ranks
/// `rank - tails[i] ..` for `count(rest[i], k - i, heaps[i - 1])` ranks; a new rank in that
/// range keeps those `i` heaps.
#[derive(Clone, Debug)]
pub struct RankCursor<'a> {
    table: &'a PartitionTable,
    total: u32,
    k: u32,
    heaps: Vec<u32>,
    /// `tails[i]`: the rank's terms from heap `i` on (the rank left before step `i`).
    tails: Vec<u32>,
    /// `rest[i]`: the tokens in heaps `i..`.
    rest: Vec<u32>,
    rank: u64,
    valid: bool,
}

impl RankCursor<'_> {
    /// Moves to the position of `rank` and returns its heaps (largest first).
    pub fn seek(&mut self, rank: u64) -> &[u32] {
        let table = self.table;
        let k = self.k as usize;
        let top = table.max_part.min(self.total);
        // How many leading heaps stay, and where their block of ranks starts.
        let (mut keep, mut base) = (0, 0);
        if self.valid {
            keep = k;
            while keep > 0 {
                base = self.rank - self.tails[keep] as u64;
                let size = if keep == k {
                    1
                } else {
                    table.count_within(self.rest[keep], (k - keep) as u32, self.heaps[keep - 1]) as u64
                };
                if rank >= base && rank < base + size {
                    break;
                }
                keep -= 1;
                base = 0;
            }
        }
        self.heaps.truncate(keep);
        self.rest[0] = self.total;
        // The kept heaps' terms stay; the rank left before each of them moves with the rank.
        let left_at_keep = (rank - base) as u32;
        if keep > 0 {
            let old = self.tails[keep];
            for tail in &mut self.tails[..keep] {
                *tail = *tail - old + left_at_keep;
            }
        }
        let mut left = left_at_keep;
        let mut s = self.rest[keep];
        let mut cap = if keep == 0 { top } else { self.heaps[keep - 1] };
        for i in keep..k {
            let j = (k - i) as u32;
            self.tails[i] = left;
            let (mut lo, mut hi) = (1u32, cap.min(s));
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if table.count_within(s, j, mid - 1) <= left {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            left -= table.count_within(s, j, lo - 1);
            self.heaps.push(lo);
            s -= lo;
            self.rest[i + 1] = s;
            cap = lo;
        }
        debug_assert_eq!((s, left), (0, 0));
        self.tails[k] = 0;
        self.rank = rank;
        self.valid = true;
        &self.heaps
    }

    /// The current position's heaps.
    pub fn heaps(&self) -> &[u32] {
        &self.heaps
    }

    /// The current rank's terms summed from each heap index to the end (`heaps + 1`
    /// values: the first is the rank, the last 0). A position that differs from this one
    /// only in its first heaps is ranked by recomputing those heaps' terms and adding the
    /// tail.
    pub fn tails(&self) -> &[u32] {
        &self.tails
    }
}

/// Walks the positions of one tier in rank order, cheaper than unranking each.
#[derive(Clone, Debug)]
pub struct TierWalk {
    heaps: Vec<u32>,
    max_part: u32,
    started: bool,
    done: bool,
}

impl TierWalk {
    /// A walk over tier (`total`, `heaps`) with every heap ≤ `max_part`.
    pub fn new(total: u32, heaps: u32, max_part: u32) -> Self {
        let mut walk = TierWalk { heaps: vec![0; heaps as usize], max_part, started: false, done: false };
        if heaps == 0 {
            walk.done = total != 0;
            return walk;
        }
        if total < heaps || total > heaps * max_part {
            walk.done = true;
            return walk;
        }
        fill_flat(&mut walk.heaps, total);
        walk
    }

    /// A walk that starts at `heaps` (a position of the tier) instead of its first position.
    pub fn starting_at(heaps: Vec<u32>, max_part: u32) -> Self {
        TierWalk { heaps, max_part, started: false, done: false }
    }

    /// The next position, or `None` after the last one.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Option<&[u32]> {
        if self.done {
            return None;
        }
        if !self.started {
            self.started = true;
            return Some(&self.heaps);
        }
        let k = self.heaps.len();
        let mut suffix: u32 = self.heaps[k.saturating_sub(1)..].iter().sum();
        for i in (0..k.saturating_sub(1)).rev() {
            suffix += self.heaps[i];
            let raised = self.heaps[i] + 1;
            let cap = if i == 0 { self.max_part } else { self.heaps[i - 1] };
            let rest = suffix - raised;
            let count = (k - 1 - i) as u32;
            if raised <= cap && rest >= count && rest <= count * raised {
                self.heaps[i] = raised;
                fill_flat(&mut self.heaps[i + 1..], rest);
                return Some(&self.heaps);
            }
        }
        self.done = true;
        None
    }
}

/// Fills `parts` with the lexicographically smallest partition of `sum` (the flattest one).
fn fill_flat(parts: &mut [u32], sum: u32) {
    let k = parts.len() as u32;
    if k == 0 {
        return;
    }
    let (q, r) = (sum / k, sum % k);
    for (i, p) in parts.iter_mut().enumerate() {
        *p = q + u32::from((i as u32) < r);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cursor_agrees_with_unrank_in_any_order() {
        let table = PartitionTable::new(30, 30, 12).unwrap();
        for (total, heaps) in [(30, 5), (30, 1), (20, 8), (12, 12), (25, 3), (0, 0)] {
            let size = table.tier_size(total, heaps);
            let mut cursor = table.cursor(total, heaps);
            let mut expected = Vec::new();
            // Ascending with gaps, then a few jumps back.
            let ranks: Vec<u64> =
                (0..size).step_by(3).chain([size / 2, 0, size.saturating_sub(1), 1 % size.max(1)]).collect();
            for rank in ranks.into_iter().filter(|&r| r < size) {
                table.unrank(total, heaps, rank, &mut expected);
                assert_eq!(cursor.seek(rank), &expected[..], "tier ({total}, {heaps}) rank {rank}");
                let tails = cursor.tails();
                assert_eq!(tails[0] as u64, rank);
                assert_eq!(tails[heaps as usize], 0);
            }
        }
    }

    use super::*;

    #[test]
    fn counts_match_known_partition_numbers() {
        let t = PartitionTable::new(30, 30, 30).unwrap();
        let p: Vec<u64> = (0..=30).map(|n| (0..=n).map(|k| t.count(n, k, 30)).sum()).collect();
        assert_eq!(&p[..11], &[1, 1, 2, 3, 5, 7, 11, 15, 22, 30, 42]);
        assert_eq!(p[30], 5604);
    }

    #[test]
    fn rank_unrank_and_walk_agree() {
        let t = PartitionTable::new(24, 6, 9).unwrap();
        let mut buf = Vec::new();
        for total in 0..=24 {
            for k in 0..=6 {
                let size = t.tier_size(total, k);
                let mut walk = TierWalk::new(total, k, 9);
                for r in 0..size {
                    t.unrank(total, k, r, &mut buf);
                    assert_eq!(t.rank(&buf), r);
                    assert_eq!(walk.next().unwrap(), &buf[..], "tier ({total},{k}) rank {r}");
                    assert!(buf.iter().all(|&h| h <= 9) && buf.windows(2).all(|w| w[0] >= w[1]));
                }
                assert!(walk.next().is_none(), "tier ({total},{k}) walk too long");
            }
        }
    }

    #[test]
    fn positions_come_in_rank_order() {
        let t = PartitionTable::new(12, 4, 5).unwrap();
        for total in 0..=12 {
            for heaps in 0..=4 {
                let tier = TierId { total, heaps };
                let all: Vec<Position> = t.positions(tier).collect();
                assert_eq!(all.len() as u64, t.size(tier));
                for (rank, p) in all.iter().enumerate() {
                    assert_eq!(*p, t.position(tier, rank as u64));
                    assert_eq!(t.rank(p.heaps()), rank as u64);
                }
            }
        }
    }

    #[test]
    fn refuses_huge_tables() {
        assert!(PartitionTable::new(100_000, 2, 50_000).is_err());
    }
}
