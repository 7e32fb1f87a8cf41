//! The tiers a solver holds in memory: solved tiers still needed as children, and pending
//! tiers whose positions are being marked by their children.

use crate::index::{PartitionTable, TierId, Universe};

use super::UNKNOWN;

/// One tier's arrays, indexed by rank.
#[derive(Clone, Debug)]
pub struct TierValues {
    /// Remoteness (or, for a pending tier, the least win remoteness found so far).
    pub remoteness: Vec<u16>,
    /// Nim-values, for sweeps that compute them.
    pub nim_values: Option<Vec<u16>>,
}

/// Tier arrays by tier, with a byte count and its peak.
pub struct Window {
    slots: Vec<Option<TierValues>>,
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
        self.slots[self.slot(tier)].as_ref()
    }

    /// The remoteness array of `tier`, created full of [`UNKNOWN`] if not held.
    #[inline]
    pub fn pending_mut(&mut self, tier: TierId, table: &PartitionTable) -> &mut [u16] {
        let slot = self.slot(tier);
        if self.slots[slot].is_none() {
            let size = table.tier_size(tier.total, tier.heaps) as usize;
            self.note_bytes(size as i64 * 2);
            self.slots[slot] = Some(TierValues { remoteness: vec![UNKNOWN; size], nim_values: None });
        }
        &mut self.slots[slot].as_mut().unwrap().remoteness
    }

    /// Takes `tier`'s arrays out (to finish it while reading others).
    pub fn take(&mut self, tier: TierId) -> Option<TierValues> {
        let slot = self.slot(tier);
        let v = self.slots[slot].take();
        if let Some(v) = &v {
            self.note_bytes(-(Self::size_of(v) as i64));
        }
        v
    }

    /// Puts `tier`'s arrays in.
    pub fn put(&mut self, tier: TierId, values: TierValues) {
        let slot = self.slot(tier);
        self.note_bytes(Self::size_of(&values) as i64);
        if let Some(old) = self.slots[slot].replace(values) {
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
        2 * (v.remoteness.len() + v.nim_values.as_ref().map_or(0, |n| n.len())) as u64
    }

    fn note_bytes(&mut self, delta: i64) {
        self.bytes = (self.bytes as i64 + delta) as u64;
        self.peak = self.peak.max(self.bytes);
    }
}
