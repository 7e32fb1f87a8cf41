//! Nim-values of every position of an acyclic family's position space, by mex in tier order:
//! what a researcher tests a conjectured Sprague–Grundy formula against, for any family the
//! one contract describes (Hypergraph Nim, Staircase Nim, Welter's game, the heap games).
//!
//! Tiers are taken as an acyclic solve takes them (total ascending, heap count descending),
//! so every child's value is known when its parent's is computed. Under misère play the
//! value is the misère nim-value: 1 at a position with no move, else the mex of the
//! children's (a position is a loss iff its value is 0 under either convention).

use nimdb_core::game::{Convention, Family};
use nimdb_core::index::{PositionSpace, TierId};

use crate::stop::Stop;

/// Why nim-values were not computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpaceValuesError {
    /// The family's game graph has cycles: positions may have no finite nim-value.
    #[error(
        "the game is loopy: its positions may be draws, and have no Sprague–Grundy value to compute by mex"
    )]
    Loopy,
    /// The computation was asked to stop.
    #[error("stopped before every nim-value was computed")]
    Stopped,
}

/// The nim-value of every position of a space, in the space's (tier, rank) order.
#[derive(Clone, Debug)]
pub struct SpaceValues {
    tiers: Vec<TierId>,
    /// `start[i]`: the index of tier `i`'s first position.
    start: Vec<u64>,
    values: Vec<u32>,
}

impl SpaceValues {
    /// The number of positions.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the space is empty.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The nim-value of `position` (canonical form), or `None` outside the space.
    pub fn get(&self, space: &dyn PositionSpace, position: &[u32]) -> Option<u32> {
        let (tier, rank) = space.locate(position)?;
        let i = self.tiers.binary_search_by_key(&order(tier), |&t| order(t)).ok()?;
        Some(self.values[(self.start[i] + rank) as usize])
    }

    /// Calls `visit(position, value)` for every position, tier by tier in solve order and
    /// by rank within a tier.
    pub fn for_each(&self, space: &dyn PositionSpace, mut visit: impl FnMut(&[u32], u32)) {
        let mut pos = Vec::new();
        for (i, &tier) in self.tiers.iter().enumerate() {
            for rank in 0..space.size(tier) {
                space.unrank(tier, rank, &mut pos);
                visit(&pos, self.values[(self.start[i] + rank) as usize]);
            }
        }
    }
}

/// The solve order of tiers as a sortable key: total ascending, heap count descending.
fn order(t: TierId) -> (u32, std::cmp::Reverse<u32>) {
    (t.total, std::cmp::Reverse(t.heaps))
}

/// The nim-values (misère nim-values under misère play) of every position of `space`, a
/// space of `family`'s, by mex over each position's children in tier order. `stop` is
/// heard once a tier.
pub fn space_nim_values(
    family: &dyn Family,
    space: &dyn PositionSpace,
    convention: Convention,
    stop: &Stop,
) -> Result<SpaceValues, SpaceValuesError> {
    if family.loopy() {
        return Err(SpaceValuesError::Loopy);
    }
    let tiers = space.tiers();
    debug_assert!(tiers.windows(2).all(|w| order(w[0]) < order(w[1])));
    let mut start = Vec::with_capacity(tiers.len() + 1);
    let mut at = 0u64;
    for &t in &tiers {
        start.push(at);
        at += space.size(t);
    }
    let mut values = vec![0u32; at as usize];
    let terminal = if convention == Convention::Normal { 0 } else { 1 };
    let (mut pos, mut buf) = (Vec::new(), Vec::new());
    let mut seen: Vec<u64> = Vec::new();
    for (i, &tier) in tiers.iter().enumerate() {
        if stop.is_stopped() {
            return Err(SpaceValuesError::Stopped);
        }
        for rank in 0..space.size(tier) {
            space.unrank(tier, rank, &mut pos);
            seen.clear();
            let mut any = false;
            family.for_each_child(&pos, &mut buf, &mut |child| {
                any = true;
                let (t, r) = space.locate(child).expect("a move stays in the space");
                let j = tiers.binary_search_by_key(&order(t), |&u| order(u)).expect("a child's tier");
                debug_assert!(j < i, "a child's tier comes first");
                let v = values[(start[j] + r) as usize] as usize;
                if v / 64 >= seen.len() {
                    seen.resize(v / 64 + 1, 0);
                }
                seen[v / 64] |= 1 << (v % 64);
            });
            let value = if !any {
                terminal
            } else {
                let word = seen.iter().position(|&w| w != u64::MAX).unwrap_or(seen.len());
                let bit = seen.get(word).map_or(0, |w| w.trailing_ones());
                word as u32 * 64 + bit
            };
            values[(start[i] + rank) as usize] = value;
        }
    }
    start.push(at);
    Ok(SpaceValues { tiers, start, values })
}
