//! The one contract between a game and the rest of nimdb: [`Family`].
//!
//! Every game implements it, the heap games included (`families/heaps.rs`): its position
//! space ([`SpaceLayout`], which `index` turns into tiers and ranks), whether its graph has
//! cycles, how its positions are read and written, its moves with their labels, its rules
//! in words and the theorem that decides it under each convention ([`Formula`], ruled on in
//! `theory`). The solvers, the store and every face speak of a game only through this trait
//! and the (tier, rank) of a position in its space; the heap games' speed comes from
//! capabilities the driver picks up on top of it ([`Game::heaps`](super::Game::heaps): the
//! specialised tier solvers, heap-move labels, sums and misère quotients).

use std::fmt;

use super::convention::Convention;
use super::model::Formula;

/// The remoteness stored for a draw (a position of a loopy game from which neither player
/// can force a win). No acyclic solve stores it: their remoteness is below
/// 2 × `MAX_SOLVE_TOTAL`.
pub const DRAW: u16 = u16::MAX;

/// How a family's positions are ranked inside their tiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpaceLayout {
    /// An unordered bag of positive heaps, written largest first (zeros dropped); tier =
    /// (tokens, heaps).
    Multiset,
    /// An ordered sequence c₁ … cₙ of counts on steps 1..n, the top step nonempty; tier =
    /// (Σ i·cᵢ, n): every move lowers the weighted sum.
    Staircase,
    /// A set of distinct non-negative heaps, written largest first; tier = (tokens, heaps).
    DistinctSet,
    /// A row of at most `heaps` labelled heaps h₁ … hₙ (zeros allowed), written without
    /// its trailing zeros; tier = (tokens, the row's length). When `sorted`, the heaps' labels
    /// do not matter (the rules are symmetric under every permutation) and a row is kept
    /// largest first with its zeros dropped: a multiset of at most `heaps` heaps.
    Row {
        /// The most heaps a row has (the family's n).
        heaps: u32,
        /// Whether rows are kept sorted (largest first, zeros dropped).
        sorted: bool,
    },
}

/// One move of a family, labelled: the position it leads to and the move in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelledMove {
    /// The position after the move, in the family's canonical form.
    pub to: Vec<u32>,
    /// The move in words.
    pub text: String,
}

/// Why a position was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A word is not a number in range.
    #[error("'{word}' is not a count from 0 to {max}")]
    NotACount {
        /// The word (shortened if long).
        word: String,
        /// The largest count accepted.
        max: u32,
    },
    /// The position breaks a rule of the family.
    #[error("{0}")]
    Illegal(String),
}

/// The largest count (coins on a step, a heap) a position of a family with its own
/// position space may hold.
pub const MAX_COUNT: u32 = 1 << 20;

/// A game's rules as the rest of nimdb sees them (object safe).
pub trait Family: Send + Sync + fmt::Debug {
    /// How its positions are ranked.
    fn layout(&self) -> SpaceLayout;
    /// Whether its game graph has cycles (positions may then be draws).
    fn loopy(&self) -> bool;
    /// The canonical form of a position given as counts, or why it is not one.
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError>;
    /// The position in the family's own notation.
    fn show(&self, position: &[u32]) -> String;
    /// Every move, one per distinct resulting position, in the family's fixed move order.
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove>;
    /// Calls `visit` with every child (the position after each move, in move order),
    /// without describing the moves: what the solvers and checks walk. `buf` is scratch
    /// space. The default goes through [`Family::moves`].
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        let _ = buf;
        for m in self.moves(position) {
            visit(&m.to);
        }
    }
    /// The words of the move from `position` to `to` (a child, as [`Family::for_each_child`]
    /// gives it), as [`Family::moves`] labels it, without listing the moves; `None` where the
    /// family does not say (the default): a caller then finds it among [`Family::moves`].
    fn describe_move(&self, position: &[u32], to: &[u32]) -> Option<String> {
        let _ = (position, to);
        None
    }
    /// The rules in words.
    fn rules_text(&self) -> String;
    /// The theorem that decides its positions under `convention`, if one is known.
    fn formula(&self, convention: Convention) -> Option<Formula>;
    /// Whether its moves are known here: `false` for a game defined by a program whose
    /// rules this process does not have (a stored solve of it is read by its records alone,
    /// and [`Family::moves`] gives none).
    fn moves_known(&self) -> bool {
        true
    }
    /// The largest heap any position may have, when the rules cap it.
    fn heap_cap(&self) -> Option<u32> {
        None
    }
    /// An upper bound on the number of moves from `position`, without listing them. The
    /// default, Σ (cᵢ + 1), holds for the families with their own position space: a
    /// staircase step of c coins, a Welter heap of a and a raise heap of h have at most c,
    /// a and h + 1 moves.
    fn move_bound(&self, position: &[u32]) -> u64 {
        position.iter().map(|&c| c as u64 + 1).sum()
    }
    /// An optional capability of an acyclic family: calls `visit` with every position that
    /// has a move to `position` (in canonical form) and whose tier total is at most
    /// `max_total`, each heap at most `max_heap`; a parent may be visited more than once, and
    /// one outside the caller's space is skipped by the caller. Returns `false`, visiting
    /// nothing, when the family does not list parents (the default); the generic solver then
    /// reads every position's children instead of marking the parents of each loss.
    fn for_each_parent(
        &self,
        position: &[u32],
        max_total: u32,
        max_heap: u32,
        buf: &mut Vec<u32>,
        visit: &mut dyn FnMut(&[u32]),
    ) -> bool {
        let _ = (position, max_total, max_heap, buf, visit);
        false
    }
}

/// The most work listing a position's moves may take: each move's position is built (as
/// many counts as the position has), so a position's moves are listed only when
/// [`Family::move_bound`] × (its length + 1) is at most this (about 200 MB of positions).
pub const MOVES_WORK_LIMIT: u64 = 50_000_000;

/// Whether the moves of `position` may be listed: [`Family::move_bound`] × (its length +
/// 1 + `per_move`) is within [`MOVES_WORK_LIMIT`], where `per_move` is what the caller
/// spends on each move beyond building it (e.g. a theorem's evaluation).
pub fn moves_fit(family: &dyn Family, position: &[u32], per_move: u64) -> bool {
    let per = position.len() as u64 + 1 + per_move;
    family.move_bound(position).saturating_mul(per) <= MOVES_WORK_LIMIT
}

/// The one count of `position` that `to` lacks and the one `to` has that `position` lacks
/// (multisets, both largest first; `None` where there is none): a move that changed one heap.
pub(crate) fn changed_heap(position: &[u32], to: &[u32]) -> (Option<u32>, Option<u32>) {
    let (mut i, mut j) = (0, 0);
    let (mut gone, mut came) = (None, None);
    while i < position.len() || j < to.len() {
        match (position.get(i), to.get(j)) {
            (Some(a), Some(b)) if a == b => (i, j) = (i + 1, j + 1),
            (Some(&a), Some(&b)) if a > b => (gone, i) = (Some(a), i + 1),
            (Some(_), Some(&b)) => (came, j) = (Some(b), j + 1),
            (Some(&a), None) => (gone, i) = (Some(a), i + 1),
            (None, Some(&b)) => (came, j) = (Some(b), j + 1),
            (None, None) => break,
        }
    }
    (gone, came)
}

/// A position's counts separated by spaces, in the family's order.
pub(crate) fn list(position: &[u32]) -> String {
    position.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod describe_tests {
    use crate::game::Game;

    /// Each family that describes a single move says what its list says, for every move of
    /// every position tried, and its children walk lists as many moves as its list.
    #[test]
    fn a_described_move_has_the_words_of_the_listed_one() {
        for (game, positions) in [
            ("staircase", vec![vec![3, 0, 2], vec![1], vec![0, 4, 1, 2], vec![2, 2, 2]]),
            ("welter", vec![vec![5, 3, 0], vec![7, 6, 2, 1], vec![4]]),
            ("raise:3", vec![vec![3, 2, 2, 1], vec![1, 1], vec![2]]),
            ("raise:5", vec![vec![5, 4, 4, 1], vec![3]]),
        ] {
            let game: Game = game.parse().unwrap();
            let family = game.family();
            for p in positions {
                let p = family.canonical(p).unwrap();
                let listed = family.moves(&p);
                for m in &listed {
                    assert_eq!(family.describe_move(&p, &m.to).as_deref(), Some(&m.text[..]), "{game} {p:?}");
                }
                let mut walked = 0;
                family.for_each_child(&p, &mut Vec::new(), &mut |_| walked += 1);
                assert_eq!(walked, listed.len(), "{game} {p:?}");
            }
        }
    }
}
