//! What a cache of single-heap values holds, in the theory's own types. The cache itself
//! (the `heap_values` table) is the store's; the driver reads and writes it.

use super::genus::Genus;

/// A game's stored single-heap values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredSequence {
    /// g(0..=up_to).
    pub values: Vec<u32>,
    /// Misère values of single heaps, `Some` for n ≤ the misère range.
    pub misere: Vec<Option<u32>>,
    /// Genus of single heaps, `Some` for n ≤ the genus range.
    pub genus: Vec<Option<Genus>>,
    /// Tameness of single heaps, `Some` for n ≤ the genus range.
    pub tame: Vec<Option<bool>>,
    /// The depth (number of added *2s) the genus was computed to.
    pub genus_depth: Option<u16>,
}

impl StoredSequence {
    /// The largest heap with a nim-value.
    pub fn up_to(&self) -> Option<u32> {
        self.values.len().checked_sub(1).map(|n| n as u32)
    }

    /// The largest heap with a misère value (all smaller ones have one too).
    pub fn misere_up_to(&self) -> Option<u32> {
        self.misere.iter().take_while(|v| v.is_some()).count().checked_sub(1).map(|n| n as u32)
    }

    /// The largest heap with a genus (all smaller ones have one too).
    pub fn genus_up_to(&self) -> Option<u32> {
        self.genus.iter().take_while(|v| v.is_some()).count().checked_sub(1).map(|n| n as u32)
    }

    /// The same sequence cut to heaps `0..=up_to`.
    pub fn truncated(&self, up_to: u32) -> StoredSequence {
        let len = (up_to as usize + 1).min(self.values.len());
        StoredSequence {
            values: self.values[..len].to_vec(),
            misere: self.misere.iter().take(len).cloned().collect(),
            genus: self.genus.iter().take(len).cloned().collect(),
            tame: self.tame.iter().take(len).cloned().collect(),
            genus_depth: self.genus_depth,
        }
    }
}

/// The version of the engines (nim-values, periodicity, misère values, genus) that wrote a
/// game's rows. Rows written by another version are not trusted: they are recomputed and
/// replaced. Bump it whenever an engine's results could change.
pub const ENGINE_VERSION: &str = "2";
