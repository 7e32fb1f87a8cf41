//! Moves that only lower heaps (Nim, Nim_k, Wythoff's game), as the theorems construct them.

use crate::game::{BigChange, BigMove};

/// One heap lowered by a move: the heap at `index` (in the heap list the rule was given)
/// goes from `from` tokens to `to` (`to < from`; 0 means it vanishes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lowering {
    /// Which heap (an index into the heaps given).
    pub index: usize,
    /// Its size before the move.
    pub from: u64,
    /// Its size after the move.
    pub to: u64,
}

impl Lowering {
    /// Heap `index` of `heaps` lowered to `to`.
    pub fn of(heaps: &[u64], index: usize, to: u64) -> Self {
        debug_assert!(to < heaps[index]);
        Lowering { index, from: heaps[index], to }
    }
}

/// The heaps after the lowerings (same order, zeros kept).
pub fn lowered(heaps: &[u64], lowerings: &[Lowering]) -> Vec<u64> {
    let mut out = heaps.to_vec();
    for l in lowerings {
        out[l.index] = l.to;
    }
    out
}

/// The lowerings as a move.
pub fn as_move(lowerings: &[Lowering]) -> BigMove {
    BigMove::of(lowerings.iter().map(|l| BigChange::lower(l.from, l.to)).collect())
}
