//! Tiers: the positions of one total and heap count, the unit a solve stores.

use std::fmt;

use crate::game::Position;

/// A tier: every position with `total` tokens in `heaps` heaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct TierId {
    /// Tokens in every position of the tier.
    pub total: u32,
    /// Heaps in every position of the tier.
    pub heaps: u32,
}

impl TierId {
    /// The tier of `position`.
    #[inline]
    pub fn of(position: &Position) -> Self {
        TierId { total: position.total() as u32, heaps: position.len() as u32 }
    }

    /// The key that orders tiers children-first: total ascending, then heap count
    /// descending (a split that removes nothing keeps the total and adds a heap).
    pub fn solve_order(self) -> (u32, std::cmp::Reverse<u32>) {
        (self.total, std::cmp::Reverse(self.heaps))
    }
}

impl fmt::Display for TierId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.total, self.heaps)
    }
}
