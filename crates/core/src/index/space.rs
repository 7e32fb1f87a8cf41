//! Position spaces: the tiers of a family with its own position space and the dense rank of a position in its
//! tier, whatever a position is (a multiset, an ordered sequence, a set).
//!
//! Each layout is ranked through a bijection onto partitions, so one [`PartitionTable`]
//! serves them all:
//! - a **multiset** of heaps is a partition (tier (tokens, heaps));
//! - a **staircase** c₁ … cₙ (top step nonempty) is the partition whose parts are the coins
//!   on each step and above, hⱼ = cⱼ + … + cₙ: n parts summing to Σ i·cᵢ, the tier's total
//!   (the weighted sum every move lowers), and cⱼ = hⱼ − hⱼ₊₁ back;
//! - a **set** of n distinct heaps a₁ > … > aₙ ≥ 0 is the partition with parts
//!   aᵢ − (n − i) + 1: n positive parts summing to Σa − n(n−1)/2 + n.
//!
//! A **row** of labelled heaps (zeros allowed, written without its trailing zeros) is
//! ranked on its own, lexicographically within its tier (tokens, length), by a table of how
//! many rows of each length and total there are; a sorted row is a multiset.

use crate::game::SpaceLayout;

use super::partition::{PartitionTable, TableError};
use super::tier::TierId;
use super::universe::UniverseError;

/// The bounds of a solve over a position space: every position whose tier total is at most `max_total`
/// (tokens; for a staircase the weighted sum Σ i·cᵢ), with at most `max_heaps` heaps (steps
/// for a staircase), each at most `max_heap` where the rules cap it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SpaceBounds {
    /// The largest tier total.
    pub max_total: u32,
    /// The most heaps (steps, coins).
    pub max_heaps: u32,
    /// The largest heap, where the rules cap it.
    pub max_heap: Option<u32>,
}

/// A family's positions within bounds, ranked densely tier by tier.
pub trait PositionSpace: Send + Sync {
    /// The bounds.
    fn bounds(&self) -> SpaceBounds;
    /// The nonempty tiers of one total, heap count descending.
    fn tiers_of_total(&self, total: u32) -> Vec<TierId>;
    /// The positions in `tier`.
    fn size(&self, tier: TierId) -> u64;
    /// The tier and rank of `position` (canonical form), or `None` outside the bounds.
    fn locate(&self, position: &[u32]) -> Option<(TierId, u64)>;
    /// The position of rank `rank` in `tier`, written into `out`.
    fn unrank(&self, tier: TierId, rank: u64, out: &mut Vec<u32>);

    /// Every nonempty tier, total ascending (an acyclic family's solve order).
    fn tiers(&self) -> Vec<TierId> {
        (0..=self.bounds().max_total).flat_map(|t| self.tiers_of_total(t)).collect()
    }
    /// The number of positions.
    fn positions(&self) -> u64 {
        self.tiers().iter().map(|&t| self.size(t)).sum()
    }
    /// The bytes its rank tables hold (what a memory estimate counts for the space itself).
    fn index_bytes(&self) -> u64 {
        0
    }
}

/// The space of `layout` within `bounds`.
pub fn space_for(layout: SpaceLayout, bounds: SpaceBounds) -> Result<Box<dyn PositionSpace>, UniverseError> {
    let b = bounds;
    Ok(match layout {
        SpaceLayout::Multiset => {
            let cap = b.max_heap.unwrap_or(b.max_total).min(b.max_total).max(1);
            let parts = b.max_heaps.min(b.max_total);
            Box::new(Multisets { bounds, table: PartitionTable::new(b.max_total, parts, cap)? })
        }
        SpaceLayout::Staircase => {
            let parts = b.max_heaps.min(b.max_total);
            // The bijection's partitions have the weighted sum as total and the steps as parts.
            let table = PartitionTable::new(b.max_total, parts, b.max_total.max(1)).map_err(|e| match e {
                TableError::TierTooLarge { total, heaps } => {
                    UniverseError::TierTooWide(format!("weighted sum {total}, {heaps} steps"))
                }
                other => UniverseError::TooWide(other),
            })?;
            Box::new(Staircases { bounds, table })
        }
        SpaceLayout::DistinctSet => {
            // The most coins n with n(n−1)/2 ≤ max_total.
            let mut n = 0u32;
            while n < b.max_heaps && (n as u64 + 1) * n as u64 / 2 <= b.max_total as u64 {
                n += 1;
            }
            let top = b.max_total + n;
            // The bijection adds 0, 1, …, n − 1 to the heaps (largest first) to make them
            // distinct: its parts are the heaps.
            let table = PartitionTable::new(top, n, top.max(1)).map_err(|e| match e {
                TableError::TierTooLarge { heaps, .. } => {
                    UniverseError::TierTooWide(format!("{heaps} distinct heaps"))
                }
                other => UniverseError::TooWide(other),
            })?;
            Box::new(DistinctSets { bounds: SpaceBounds { max_heaps: n, ..bounds }, table })
        }
        SpaceLayout::Row { heaps, sorted: true } => {
            let bounds = SpaceBounds { max_heaps: b.max_heaps.min(heaps), ..bounds };
            return space_for(SpaceLayout::Multiset, bounds);
        }
        SpaceLayout::Row { heaps, sorted: false } => {
            Box::new(Rows::new(SpaceBounds { max_heaps: b.max_heaps.min(heaps), ..bounds })?)
        }
    })
}

/// Rows h₁ … hₘ of heaps from 0 to a cap, the last nonzero, ranked lexicographically in
/// their tier (total, m).
struct Rows {
    bounds: SpaceBounds,
    cap: u32,
    /// `ends[len][s]`: the rows of length `len` (last heap nonzero) summing to `s`.
    ends: Vec<Vec<u64>>,
    /// `below[len][s]`: Σ of `ends[len][u]` for u ≤ s.
    below: Vec<Vec<u64>>,
}

impl Rows {
    fn new(bounds: SpaceBounds) -> Result<Rows, UniverseError> {
        let (t, l) = (bounds.max_total as usize, bounds.max_heaps as usize);
        let entries = 3 * (l as u64 + 1) * (t as u64 + 1);
        if entries > 40_000_000 {
            return Err(UniverseError::TooWide(TableError::TooWide { entries }));
        }
        let cap = bounds.max_heap.unwrap_or(bounds.max_total).min(bounds.max_total);
        // free[len][s]: rows of length len (any last heap) summing to s.
        let mut free = vec![vec![0u64; t + 1]; l + 1];
        free[0][0] = 1;
        let mut ends = vec![vec![0u64; t + 1]; l + 1];
        let clamp = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        for len in 1..=l {
            // below[u]: Σ free[len − 1][0..u] (exact: at most 2⁶⁴ − 1 a term); the last heap
            // is s − u for u from s − cap to s (any) or to s − 1 (nonzero).
            let mut below = vec![0u128; t + 2];
            for u in 0..=t {
                below[u + 1] = below[u] + free[len - 1][u] as u128;
            }
            for s in 0..=t {
                let lowest = s.saturating_sub(cap as usize);
                free[len][s] = clamp(below[s + 1] - below[lowest]);
                ends[len][s] = clamp(below[s] - below[lowest.min(s)]);
            }
        }
        let below: Vec<Vec<u64>> = ends
            .iter()
            .map(|row| {
                row.iter()
                    .scan(0u64, |acc, &c| {
                        *acc = acc.saturating_add(c);
                        Some(*acc)
                    })
                    .collect()
            })
            .collect();
        for (len, row) in ends.iter().enumerate() {
            if let Some(s) = row.iter().position(|&c| c > u32::MAX as u64) {
                return Err(UniverseError::TierTooWide(format!("total {s}, a row of {len} heaps")));
            }
        }
        Ok(Rows { bounds, cap, ends, below })
    }
}

impl PositionSpace for Rows {
    fn bounds(&self) -> SpaceBounds {
        self.bounds
    }
    fn index_bytes(&self) -> u64 {
        8 * (self.ends.iter().chain(&self.below)).map(|row| row.len() as u64).sum::<u64>()
    }
    fn tiers_of_total(&self, total: u32) -> Vec<TierId> {
        if total == 0 {
            return vec![TierId { total: 0, heaps: 0 }];
        }
        (1..=self.bounds.max_heaps)
            .rev()
            .filter(|&m| self.ends[m as usize][total as usize] > 0)
            .map(|heaps| TierId { total, heaps })
            .collect()
    }
    fn size(&self, tier: TierId) -> u64 {
        match self.ends.get(tier.heaps as usize).and_then(|row| row.get(tier.total as usize)) {
            _ if tier.heaps == 0 => u64::from(tier.total == 0),
            Some(&c) => c,
            None => 0,
        }
    }
    fn locate(&self, row: &[u32]) -> Option<(TierId, u64)> {
        let m = row.len();
        if m as u32 > self.bounds.max_heaps || row.last() == Some(&0) || row.iter().any(|&h| h > self.cap) {
            return None;
        }
        let total: u64 = row.iter().map(|&h| h as u64).sum();
        if total > self.bounds.max_total as u64 {
            return None;
        }
        let mut rank = 0u64;
        let mut rest = total as usize;
        for (i, &h) in row[..m.saturating_sub(1)].iter().enumerate() {
            let below = &self.below[m - 1 - i];
            rank += below[rest] - if rest >= h as usize { below[rest - h as usize] } else { 0 };
            rest -= h as usize;
        }
        Some((TierId { total: total as u32, heaps: m as u32 }, rank))
    }
    fn unrank(&self, tier: TierId, mut rank: u64, out: &mut Vec<u32>) {
        out.clear();
        let m = tier.heaps as usize;
        if m == 0 {
            return;
        }
        let mut rest = tier.total as usize;
        for i in 0..m - 1 {
            let ends = &self.ends[m - 1 - i];
            let mut v = 0usize;
            while rank >= ends[rest - v] {
                rank -= ends[rest - v];
                v += 1;
            }
            out.push(v as u32);
            rest -= v;
        }
        out.push(rest as u32);
    }
}

/// Positions at most this long are ranked through a buffer on the stack.
const SHORT: usize = 32;

/// `len` zeros of scratch space: on the stack when short, else in `heap`.
fn scratch<'a>(stack: &'a mut [u32; SHORT], heap: &'a mut Vec<u32>, len: usize) -> &'a mut [u32] {
    if len <= SHORT {
        &mut stack[..len]
    } else {
        heap.resize(len, 0);
        heap
    }
}

/// Multisets of positive heaps.
struct Multisets {
    bounds: SpaceBounds,
    table: PartitionTable,
}

impl PositionSpace for Multisets {
    fn bounds(&self) -> SpaceBounds {
        self.bounds
    }
    fn index_bytes(&self) -> u64 {
        self.table.bytes()
    }
    fn tiers_of_total(&self, total: u32) -> Vec<TierId> {
        if total == 0 {
            return vec![TierId { total: 0, heaps: 0 }];
        }
        let cap = self.table.max_part() as u64;
        (1..=self.table.max_parts().min(total))
            .rev()
            .filter(|&h| total as u64 <= h as u64 * cap)
            .map(|heaps| TierId { total, heaps })
            .collect()
    }
    fn size(&self, tier: TierId) -> u64 {
        self.table.size(tier)
    }
    fn locate(&self, position: &[u32]) -> Option<(TierId, u64)> {
        let total: u64 = position.iter().map(|&h| h as u64).sum();
        let fits = total <= self.bounds.max_total as u64
            && position.len() as u32 <= self.table.max_parts()
            && position.iter().all(|&h| h >= 1 && h <= self.table.max_part());
        let tier = TierId { total: total as u32, heaps: position.len() as u32 };
        fits.then(|| (tier, self.table.rank(position)))
    }
    fn unrank(&self, tier: TierId, rank: u64, out: &mut Vec<u32>) {
        self.table.unrank(tier.total, tier.heaps, rank, out);
    }
}

/// Ordered counts on steps 1..n, ranked as the partition of their suffix sums.
struct Staircases {
    bounds: SpaceBounds,
    table: PartitionTable,
}

impl PositionSpace for Staircases {
    fn bounds(&self) -> SpaceBounds {
        self.bounds
    }
    fn index_bytes(&self) -> u64 {
        self.table.bytes()
    }
    fn tiers_of_total(&self, total: u32) -> Vec<TierId> {
        if total == 0 {
            return vec![TierId { total: 0, heaps: 0 }];
        }
        (1..=self.table.max_parts().min(total)).rev().map(|heaps| TierId { total, heaps }).collect()
    }
    fn size(&self, tier: TierId) -> u64 {
        self.table.size(tier)
    }
    fn locate(&self, steps: &[u32]) -> Option<(TierId, u64)> {
        if steps.last() == Some(&0) || steps.len() as u32 > self.table.max_parts() {
            return None;
        }
        // Locating is on the solver's path for every child: no allocation for short positions.
        let mut stack = [0u32; SHORT];
        let mut heap = Vec::new();
        let suffix = scratch(&mut stack, &mut heap, steps.len());
        let mut run = 0u64;
        let mut total = 0u64;
        for i in (0..steps.len()).rev() {
            run += steps[i] as u64;
            total += run;
            if total > self.bounds.max_total as u64 {
                return None;
            }
            suffix[i] = run as u32;
        }
        Some((TierId { total: total as u32, heaps: steps.len() as u32 }, self.table.rank(suffix)))
    }
    fn unrank(&self, tier: TierId, rank: u64, out: &mut Vec<u32>) {
        let mut suffix = Vec::with_capacity(tier.heaps as usize);
        self.table.unrank(tier.total, tier.heaps, rank, &mut suffix);
        out.clear();
        for j in 0..suffix.len() {
            out.push(suffix[j] - suffix.get(j + 1).copied().unwrap_or(0));
        }
    }
}

/// Sets of distinct non-negative heaps, ranked as the partition aᵢ − (n − i) + 1.
struct DistinctSets {
    bounds: SpaceBounds,
    table: PartitionTable,
}

impl DistinctSets {
    /// The partition tier a set tier maps to.
    fn mapped(tier: TierId) -> TierId {
        let n = tier.heaps as u64;
        TierId { total: (tier.total as u64 + n - n * n.saturating_sub(1) / 2) as u32, heaps: tier.heaps }
    }
}

impl PositionSpace for DistinctSets {
    fn bounds(&self) -> SpaceBounds {
        self.bounds
    }
    fn index_bytes(&self) -> u64 {
        self.table.bytes()
    }
    fn tiers_of_total(&self, total: u32) -> Vec<TierId> {
        let mut out: Vec<TierId> = (1..=self.bounds.max_heaps)
            .rev()
            .filter(|&n| n as u64 * (n as u64 - 1) / 2 <= total as u64)
            .map(|heaps| TierId { total, heaps })
            .collect();
        if total == 0 {
            out.push(TierId { total: 0, heaps: 0 });
        }
        out
    }
    fn size(&self, tier: TierId) -> u64 {
        if tier.heaps == 0 {
            return u64::from(tier.total == 0);
        }
        self.table.size(Self::mapped(tier))
    }
    fn locate(&self, set: &[u32]) -> Option<(TierId, u64)> {
        let n = set.len();
        let total: u64 = set.iter().map(|&h| h as u64).sum();
        if n as u32 > self.bounds.max_heaps || total > self.bounds.max_total as u64 {
            return None;
        }
        if set.windows(2).any(|w| w[0] <= w[1]) {
            return None;
        }
        let tier = TierId { total: total as u32, heaps: n as u32 };
        if n == 0 {
            return Some((tier, 0));
        }
        let mut stack = [0u32; SHORT];
        let mut heap = Vec::new();
        let parts = scratch(&mut stack, &mut heap, n);
        for (i, &a) in set.iter().enumerate() {
            parts[i] = a - (n - 1 - i) as u32 + 1;
        }
        Some((tier, self.table.rank(parts)))
    }
    fn unrank(&self, tier: TierId, rank: u64, out: &mut Vec<u32>) {
        out.clear();
        if tier.heaps == 0 {
            return;
        }
        let m = Self::mapped(tier);
        let mut parts = Vec::with_capacity(tier.heaps as usize);
        self.table.unrank(m.total, m.heaps, rank, &mut parts);
        let n = parts.len();
        out.extend(parts.iter().enumerate().map(|(i, &b)| b + (n - 1 - i) as u32 - 1));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn roundtrip(layout: SpaceLayout, bounds: SpaceBounds) -> BTreeSet<Vec<u32>> {
        let space = space_for(layout, bounds).unwrap();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for tier in space.tiers() {
            for rank in 0..space.size(tier) {
                space.unrank(tier, rank, &mut out);
                assert_eq!(space.locate(&out), Some((tier, rank)), "{layout:?} {out:?}");
                assert!(seen.insert(out.clone()), "{layout:?}: {out:?} twice");
            }
        }
        seen
    }

    #[test]
    fn staircases_rank_every_sequence_once() {
        let seen =
            roundtrip(SpaceLayout::Staircase, SpaceBounds { max_total: 12, max_heaps: 4, max_heap: None });
        // Every sequence of at most 4 steps, top step nonempty, with Σ i·cᵢ ≤ 12.
        let mut want = BTreeSet::new();
        for c in 0..13u32 * 13 * 13 * 13 {
            let s = [c % 13, c / 13 % 13, c / 169 % 13, c / 2197];
            let mut v = s.to_vec();
            while v.last() == Some(&0) {
                v.pop();
            }
            if v.iter().enumerate().map(|(i, &x)| (i as u32 + 1) * x).sum::<u32>() <= 12 {
                want.insert(v);
            }
        }
        assert_eq!(seen, want);
    }

    #[test]
    fn sets_rank_every_distinct_set_once() {
        let seen =
            roundtrip(SpaceLayout::DistinctSet, SpaceBounds { max_total: 14, max_heaps: 4, max_heap: None });
        let mut want = BTreeSet::new();
        for mask in 0u32..1 << 15 {
            let set: Vec<u32> = (0..15).rev().filter(|b| mask >> b & 1 == 1).collect();
            if set.len() <= 4 && set.iter().sum::<u32>() <= 14 {
                want.insert(set);
            }
        }
        assert_eq!(seen, want);
    }

    #[test]
    fn rows_rank_every_capped_row_once() {
        let bounds = SpaceBounds { max_total: 9, max_heaps: 7, max_heap: Some(4) };
        let seen = roundtrip(SpaceLayout::Row { heaps: 3, sorted: false }, bounds);
        let mut want = BTreeSet::new();
        for c in 0..125u32 {
            let mut v = vec![c % 5, c / 5 % 5, c / 25];
            while v.last() == Some(&0) {
                v.pop();
            }
            if v.iter().sum::<u32>() <= 9 {
                want.insert(v);
            }
        }
        assert_eq!(seen, want);
        // Uncapped: every row of at most 3 heaps with total at most 6, C(6 + 3, 3) of them.
        let bounds = SpaceBounds { max_total: 6, max_heaps: 3, max_heap: None };
        assert_eq!(roundtrip(SpaceLayout::Row { heaps: 5, sorted: false }, bounds).len(), 84);
        // Sorted rows are the multisets of at most `heaps` heaps.
        let bounds = SpaceBounds { max_total: 12, max_heaps: 12, max_heap: Some(4) };
        assert_eq!(roundtrip(SpaceLayout::Row { heaps: 3, sorted: true }, bounds).len(), 35);
    }

    #[test]
    fn multisets_rank_every_capped_multiset_once() {
        let seen =
            roundtrip(SpaceLayout::Multiset, SpaceBounds { max_total: 12, max_heaps: 3, max_heap: Some(4) });
        assert_eq!(seen.len(), 35); // C(4 + 3, 3): multisets of ≤ 3 heaps from 1..4.
    }
}
