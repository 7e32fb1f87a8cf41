//! The solved tiers a solver holds in memory while later tiers may still need them.

use crate::index::{TierId, Universe};

/// One tier's arrays, indexed by rank.
#[derive(Clone, Debug)]
pub struct TierValues {
    /// Remoteness (or, for a pending tier, the least win remoteness found so far).
    pub remoteness: Vec<u16>,
    /// Nim-values, for sweeps that compute them.
    pub nim_values: Option<Vec<u16>>,
    /// The greatest remoteness in the tier.
    pub max_remoteness: u16,
    /// The tier's losses, unranked (for the retrograde solver to mark their parents).
    pub losses: Option<LossList>,
}

/// The losses of one tier: their heaps, and the win remoteness each offers its parents.
#[derive(Clone, Debug, Default)]
pub struct LossList {
    /// Heaps of every loss, `heaps` per loss, back to back.
    pub heaps: Vec<u32>,
    /// One more than each loss's remoteness.
    pub offers: Vec<u16>,
    /// For each loss, its rank's terms summed from each heap index to the end (`heaps + 1`
    /// values per loss; see [`PartitionTable`](crate::index::PartitionTable)), so a parent
    /// that differs in a few heaps is ranked by recomputing only those terms.
    pub tails: Vec<u32>,
}

impl TierValues {
    /// A solved tier's values.
    pub fn solved(remoteness: Vec<u16>, nim_values: Option<Vec<u16>>) -> Self {
        let max_remoteness = remoteness.iter().copied().max().unwrap_or(0);
        TierValues { remoteness, nim_values, max_remoteness, losses: None }
    }
}

/// Tier arrays by tier, with a byte count and its peak.
pub struct Window {
    slots: Vec<Option<Box<TierValues>>>,
    stride: usize,
    bytes: u64,
    peak: u64,
}

impl Window {
    /// An empty window for `universe`.
    pub fn new(universe: &Universe) -> Self {
        let stride = universe.heaps_cap() as usize + 1;
        let slots = (0..(universe.max_total as usize + 1) * stride).map(|_| None).collect();
        Window { slots, stride, bytes: 0, peak: 0 }
    }

    #[inline]
    fn slot(&self, tier: TierId) -> usize {
        tier.total as usize * self.stride + tier.heaps as usize
    }

    /// The arrays of `tier`, if held.
    #[inline]
    pub fn get(&self, tier: TierId) -> Option<&TierValues> {
        if tier.heaps as usize >= self.stride {
            return None;
        }
        self.slots.get(self.slot(tier))?.as_deref()
    }

    /// Puts `tier`'s arrays in.
    pub fn put(&mut self, tier: TierId, values: TierValues) {
        let slot = self.slot(tier);
        self.note_bytes(Self::size_of(&values) as i64);
        if let Some(old) = self.slots[slot].replace(Box::new(values)) {
            self.note_bytes(-(Self::size_of(&old) as i64));
        }
    }

    /// Drops every tier with total below `total`.
    pub fn evict_below(&mut self, total: u32) {
        let end = (total as usize * self.stride).min(self.slots.len());
        for slot in 0..end {
            if let Some(v) = self.slots[slot].take() {
                self.note_bytes(-(Self::size_of(&v) as i64));
            }
        }
    }

    /// The most bytes of tier arrays held at once.
    pub fn peak_bytes(&self) -> u64 {
        self.peak
    }

    fn size_of(v: &TierValues) -> u64 {
        let losses =
            v.losses.as_ref().map_or(0, |l| 4 * (l.heaps.len() + l.tails.len()) + 2 * l.offers.len());
        (2 * (v.remoteness.len() + v.nim_values.as_ref().map_or(0, |n| n.len())) + losses) as u64
    }

    fn note_bytes(&mut self, delta: i64) {
        self.bytes = (self.bytes as i64 + delta) as u64;
        self.peak = self.peak.max(self.bytes);
    }
}
