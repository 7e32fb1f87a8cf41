//! The solved tiers a solver holds in memory while later tiers may still need them.

use crate::index::{TierId, Universe};

/// One tier's remoteness values, indexed by rank: one byte each when every value the
/// universe can hold fits (remoteness is below twice the total), two otherwise.
#[derive(Clone, Debug)]
pub enum Column {
    /// Values below 255.
    Narrow(Vec<u8>),
    /// Any values.
    Wide(Vec<u16>),
}

impl Column {
    /// Keeps `values` narrow when `narrow` is set (the caller knows they are below 255).
    pub fn new(values: Vec<u16>, narrow: bool) -> Self {
        if narrow {
            debug_assert!(values.iter().all(|&v| v < 255));
            Column::Narrow(values.into_iter().map(|v| v as u8).collect())
        } else {
            Column::Wide(values)
        }
    }

    /// The value at `rank`.
    #[inline]
    pub fn get(&self, rank: usize) -> u16 {
        match self {
            Column::Narrow(v) => v[rank] as u16,
            Column::Wide(v) => v[rank],
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        match self {
            Column::Narrow(v) => v.len() as u64,
            Column::Wide(v) => 2 * v.len() as u64,
        }
    }
}

/// One tier's arrays, indexed by rank.
#[derive(Clone, Debug)]
pub struct TierValues {
    /// Remoteness by rank.
    pub remoteness: Column,
    /// Nim-values, for sweeps that compute them.
    pub nim_values: Option<Vec<u16>>,
    /// The greatest remoteness in the tier.
    pub max_remoteness: u16,
    /// The ranks of the tier's losses, ascending (for the retrograde solver to mark their
    /// parents; a loss's heaps come back by unranking, and its remoteness from the column).
    pub losses: Option<Vec<u32>>,
}

impl TierValues {
    /// A solved tier's values.
    pub fn solved(remoteness: Vec<u16>, nim_values: Option<Vec<u16>>, narrow: bool) -> Self {
        let max_remoteness = remoteness.iter().copied().max().unwrap_or(0);
        TierValues { remoteness: Column::new(remoteness, narrow), nim_values, max_remoteness, losses: None }
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

    /// Whether every remoteness in `universe` fits one byte: remoteness is below twice
    /// the total.
    pub fn narrow(universe: &Universe) -> bool {
        2 * universe.max_total < 255
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
        let losses = 4 * v.losses.as_ref().map_or(0, |l| l.len()) as u64;
        v.remoteness.bytes() + 2 * v.nim_values.as_ref().map_or(0, |n| n.len()) as u64 + losses
    }

    fn note_bytes(&mut self, delta: i64) {
        self.bytes = (self.bytes as i64 + delta) as u64;
        self.peak = self.peak.max(self.bytes);
    }
}
