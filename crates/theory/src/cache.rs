//! What a cache of single-heap values holds, in the theory's own types. The cache itself
//! (the `heap_values` table) is the store's; the driver reads and writes it.

use super::genus::Genus;

/// A game's single-heap values as a cache holds them, with the genus in type `G`: the
/// theory's [`Genus`] ([`StoredSequence`]), or its written form in the store's rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapTable<G> {
    /// Nim-values g(0..=up_to).
    pub values: Vec<u32>,
    /// Misère values of single heaps, `Some` for n ≤ the misère range.
    pub misere: Vec<Option<u32>>,
    /// Genus of single heaps, `Some` for n ≤ the genus range.
    pub genus: Vec<Option<G>>,
    /// Tameness of single heaps, `Some` for n ≤ the genus range.
    pub tame: Vec<Option<bool>>,
    /// The depth (number of added *2s) the genus was computed to.
    pub genus_depth: Option<u16>,
}

impl<G> Default for HeapTable<G> {
    /// No values (a genus type need not have a default of its own).
    fn default() -> Self {
        HeapTable {
            values: Vec::new(),
            misere: Vec::new(),
            genus: Vec::new(),
            tame: Vec::new(),
            genus_depth: None,
        }
    }
}

/// A game's stored single-heap values, in the theory's own types.
pub type StoredSequence = HeapTable<Genus>;

impl<G: Clone> HeapTable<G> {
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

    /// The same values cut to heaps `0..=up_to`.
    pub fn truncated(&self, up_to: u32) -> HeapTable<G> {
        let len = (up_to as usize + 1).min(self.values.len());
        HeapTable {
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
