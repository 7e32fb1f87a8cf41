//! The sparse space of a splitting game: its heaps sorted into a common and a rare class by
//! the parity of their nim-values' bits under a mask (Winning Ways, "sparse space spells
//! speed"; Flammenkamp's class by heap parity). What the sparse method of
//! [`sparse`](super::sparse) and the rare-pair engine of [`rare`](super::rare) both read,
//! kept apart from either so that neither module needs the other's.

/// A split of values into rare and common classes: class(n) = popcount(g(n) & mask) mod 2,
/// xor (n mod 2) when `domain` is set; heaps of class `rare_class` are rare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparseSpace {
    /// The bit mask.
    pub mask: u32,
    /// Whether the heap size's parity enters the class (Flammenkamp's "domain" variant).
    pub domain: bool,
    /// The class (0 or 1) of the rare heaps.
    pub rare_class: u8,
}

impl SparseSpace {
    #[inline]
    fn parity(self, v: u32) -> u32 {
        (v & self.mask).count_ones() & 1
    }

    /// The class (0 or 1) of a heap of size `n` with nim-value `v`.
    #[inline]
    pub fn class(self, n: u32, v: u32) -> u8 {
        (self.parity(v) ^ (self.domain as u32 & n & 1)) as u8
    }

    /// Whether a heap of size `n` with nim-value `v` is rare.
    #[inline]
    pub fn is_rare(self, n: u32, v: u32) -> bool {
        self.class(n, v) == self.rare_class
    }

    /// The mask as an infinite bitstring, e.g. `...1110` (all higher bits set).
    pub fn bitstring(self) -> String {
        let low = 32 - (!self.mask).leading_zeros();
        if low == 0 {
            return "...1".to_string();
        }
        let bits = self.mask & ((1u32 << low) - 1);
        format!("...1{bits:0low$b}", low = low as usize)
    }

    /// Whether the value `v` can come from a pair of parts of the same class adding to `s`.
    #[inline]
    pub(crate) fn same_class_pair(self, v: u32, s: u32) -> bool {
        self.parity(v) == (self.domain as u32 & s & 1)
    }
}
