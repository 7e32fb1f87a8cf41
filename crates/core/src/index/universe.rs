//! Universes of positions closed under moves, and their tiers in solve order.

use std::fmt;

use crate::game::{GameRules, Position};

use super::partition::{PartitionTable, TableError};
use super::tier::TierId;

/// Why a universe cannot be solved.
#[derive(Debug, thiserror::Error)]
pub enum UniverseError {
    /// A cap on heap count with a game that splits heaps.
    #[error(
        "a cap on the number of heaps cannot be used with {0}: its moves can split a heap in two, so a position with the most heaps allowed would have children with more, and the universe would not be closed under moves"
    )]
    HeapCapWithSplits(String),
    /// No bound makes the universe finite.
    #[error(
        "the universe is unbounded: it needs a cap on the total, or caps on both the heap size and the number of heaps"
    )]
    Unbounded,
    /// The bounds are too wide to index.
    #[error(transparent)]
    TooWide(#[from] TableError),
    /// A tier of a family's space is too large to index, in the family's own words.
    #[error(
        "a tier of this space ({0}) holds more than 2^32 positions: too wide to index (only smaller bounds can be solved)"
    )]
    TierTooWide(String),
}

/// The positions a solve covers: every position with at most `max_total` tokens, optionally
/// with every heap at most `max_heap` and at most `max_heaps` heaps. Closed under moves
/// (the heap-count cap only for games that never split).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Universe {
    /// The most tokens in a position.
    pub max_total: u32,
    /// The largest heap, if capped below `max_total`.
    pub max_heap: Option<u32>,
    /// The most heaps, if capped below `max_total`.
    pub max_heaps: Option<u32>,
}

impl Universe {
    /// A universe from its bounds. Without a total, both caps must be given and the total
    /// is their product. Caps at or above the total are dropped, since they
    /// do not restrict anything, so the same positions always give the same universe.
    pub fn new<R: GameRules + ?Sized>(
        rules: &R,
        game_name: &str,
        max_total: Option<u32>,
        max_heap: Option<u32>,
        max_heaps: Option<u32>,
    ) -> Result<Self, UniverseError> {
        if max_heaps.is_some() && !rules.heap_cap_closed() {
            return Err(UniverseError::HeapCapWithSplits(game_name.to_string()));
        }
        let product = match (max_heap, max_heaps) {
            (Some(n), Some(h)) => Some(n.checked_mul(h).ok_or(UniverseError::Unbounded)?),
            // No heaps, or heaps of no tokens: only the empty position.
            (Some(0), None) | (None, Some(0)) => Some(0),
            _ => None,
        };
        // No position has more tokens than N × H, so a larger total adds nothing (and a
        // solve to a total no tier reaches could never complete).
        let max_total = match (max_total, product) {
            (Some(t), Some(p)) => t.min(p),
            (Some(t), None) => t,
            (None, Some(p)) => p,
            (None, None) => return Err(UniverseError::Unbounded),
        };
        let u = Universe {
            max_total,
            max_heap: max_heap.filter(|&n| n < max_total),
            max_heaps: max_heaps.filter(|&h| h < max_total),
        };
        Ok(u)
    }

    /// The largest heap any position may have.
    pub fn part_cap(&self) -> u32 {
        self.max_heap.unwrap_or(self.max_total).min(self.max_total)
    }

    /// The most heaps any position may have.
    pub fn heaps_cap(&self) -> u32 {
        self.max_heaps.unwrap_or(self.max_total).min(self.max_total)
    }

    /// The partition table that ranks this universe's tiers.
    pub fn table(&self) -> Result<PartitionTable, UniverseError> {
        self.table_to(self.max_total)
    }

    /// The partition table that ranks this universe's tiers of at most `total` tokens: the
    /// one place a universe's table is built.
    pub fn table_to(&self, total: u32) -> Result<PartitionTable, UniverseError> {
        let total = total.min(self.max_total);
        Ok(PartitionTable::new(total, self.heaps_cap().min(total), self.part_cap().min(total))?)
    }

    /// Whether `position` lies in this universe.
    #[inline]
    pub fn contains(&self, position: &Position) -> bool {
        position.total() <= self.max_total as u64
            && position.largest() <= self.part_cap()
            && position.len() as u32 <= self.heaps_cap()
    }

    /// Whether tier `tier` has positions in this universe (regardless of table bounds).
    pub fn has_tier(&self, tier: TierId) -> bool {
        if tier.total == 0 {
            return tier.heaps == 0;
        }
        tier.total <= self.max_total
            && tier.heaps >= 1
            && tier.heaps <= self.heaps_cap()
            && tier.total as u64 <= tier.heaps as u64 * self.part_cap() as u64
            && tier.heaps <= tier.total
    }

    /// The nonempty tiers of total `total`, in solve order (heap count descending).
    pub fn tiers_of_total(&self, total: u32) -> impl Iterator<Item = TierId> + '_ {
        let top = if total == 0 { 0 } else { self.heaps_cap().min(total) };
        let bottom = u32::from(total > 0);
        (bottom..=top).rev().map(move |heaps| TierId { total, heaps }).filter(|&t| self.has_tier(t))
    }

    /// Every nonempty tier, in solve order: children before parents.
    pub fn tiers(&self) -> Vec<TierId> {
        (0..=self.max_total).flat_map(|t| self.tiers_of_total(t).collect::<Vec<_>>()).collect()
    }

    /// The number of positions.
    pub fn positions(&self, table: &PartitionTable) -> u64 {
        self.tiers().iter().map(|&t| table.size(t)).sum()
    }
}

impl fmt::Display for Universe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "total ≤ {}", self.max_total)?;
        if let Some(n) = self.max_heap {
            write!(f, ", heap ≤ {n}")?;
        }
        if let Some(h) = self.max_heaps {
            write!(f, ", heaps ≤ {h}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    #[test]
    fn nim_8x32_has_the_published_count() {
        let nim = GameSpec::nim();
        let u = Universe::new(nim.rules(), "nim", None, Some(32), Some(8)).unwrap();
        assert_eq!(u.max_total, 256);
        assert_eq!(u.positions(&u.table().unwrap()), 76_904_685);
    }

    #[test]
    fn heap_cap_refused_for_splitting_games() {
        let lines: GameSpec = "lines".parse().unwrap();
        let err = Universe::new(lines.rules(), "lines", Some(10), None, Some(3)).unwrap_err();
        assert!(err.to_string().contains("split"));
    }

    #[test]
    fn tiers_run_children_first() {
        let nim = GameSpec::nim();
        let u = Universe::new(nim.rules(), "nim", Some(6), None, None).unwrap();
        let tiers = u.tiers();
        assert_eq!(tiers[0], TierId { total: 0, heaps: 0 });
        assert!(tiers.windows(2).all(|w| w[0].solve_order() < w[1].solve_order()));
        assert_eq!(u.positions(&u.table().unwrap()), 1 + 1 + 2 + 3 + 5 + 7 + 11);
    }
}
