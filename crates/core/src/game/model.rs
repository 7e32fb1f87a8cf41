//! The game model: what a rule family must say about whole positions.
//!
//! Two traits split the work:
//! - [`GameRules`] is what people and programs need: the moves from a position, how many
//!   there may be, how far a move reaches in tokens and in heap count, and which theory the
//!   family is known to obey. It is object safe, so play, trees and queries hold a
//!   `&dyn GameRules`.
//! - [`TierRules`] is what the tier solvers need: children that take a given number of
//!   tokens and parents that add one, written into caller-owned buffers so the inner loops
//!   allocate nothing. The solvers are generic over it, so each family's loops are
//!   monomorphised.
//!
//! Every heap game (a move changes one heap: octal and hexadecimal codes, subtraction games,
//! Grundy's game) gets both traits from its [`HeapRules`](super::HeapRules) through one
//! implementation (in `heap_game`). Families whose moves change several heaps at once
//! ([`MooreRules`](super::MooreRules), [`WythoffRules`](super::WythoffRules)) implement
//! them directly.

use super::moves::Move;
use super::position::Position;
use super::rules::HeapRules;

/// How far the heap count can change in one move: a child has between `parent − fewer` and
/// `parent + more` heaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapCountChange {
    /// The most heaps a move can remove (heaps that vanish).
    pub fewer: u32,
    /// The most heaps a move can add (by splitting).
    pub more: u32,
}

/// A closed-form rule for outcomes that a theorem proves for a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "rule")]
pub enum Formula {
    /// Bouton's theorem for Nim (and its misère form).
    Bouton,
    /// Moore's theorem for Nim_k: binary column sums modulo `k + 1`.
    Moore {
        /// The most heaps a move may change.
        k: u32,
    },
    /// Wythoff's pairs, for positions of at most two heaps.
    Wythoff,
    /// Staircase Nim under normal play: a loss iff the nim-sum of the odd steps is 0.
    OddSteps,
    /// Welter's game under normal play: the nim-value is Welter's function, in Sato's form.
    Welter,
    /// A loopy heap game under normal play: Smith's generalized Sprague–Grundy values of
    /// the heaps decide a sum (win, loss or draw).
    Smith {
        /// The cap of the heaps (`raise:C`).
        cap: u32,
    },
    /// Exact k-Nim on n heaps with 2k > n (Hypergraph Nim on every set of exactly k heaps),
    /// under normal play: the nim-value is the length of the longest play (Boros, Gurvich,
    /// Ho, Makino and Mursić, 2018).
    ExactNim {
        /// The number of heaps every move lowers.
        k: u32,
    },
}

impl Formula {
    /// The theorem's short name, as an answer's source names it.
    pub fn name(self) -> &'static str {
        match self {
            Formula::Bouton => "Bouton's theorem",
            Formula::Moore { .. } => "Moore's theorem",
            Formula::Wythoff => "Wythoff's pairs",
            Formula::OddSteps => "Staircase Nim: the odd steps are Nim",
            Formula::Welter => "Welter's function, Sato's form",
            Formula::Smith { .. } => "Smith's generalized Sprague–Grundy values",
            Formula::ExactNim { .. } => "exact k-Nim's longest play, Boros–Gurvich–Ho–Makino–Mursić 2018",
        }
    }
}

/// What theory applies to a family, as the family declares it. Queries answer from
/// theory, and `verify` checks a database against it, only as far as this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Theory {
    /// Every move changes one heap, so a position is the disjunctive sum of its heaps: the
    /// Sprague–Grundy theorem applies under normal play, and misère genus theory under
    /// misère play.
    pub sum_of_heaps: bool,
    /// A proven closed-form rule for outcomes, if any.
    pub formula: Option<Formula>,
}

/// Bounds on the parents the solver may generate.
#[derive(Clone, Copy, Debug)]
pub struct ParentBounds {
    /// The largest heap allowed.
    pub max_heap: u32,
    /// The most heaps allowed.
    pub max_heaps: u32,
}

/// A rule family, seen from whole positions (object safe).
pub trait GameRules: Send + Sync {
    /// Every move from `position`, one per distinct resulting position, in the family's
    /// fixed move order (the order ties between equally good moves are broken in).
    fn moves(&self, position: &Position) -> Vec<Move>;
    /// An upper bound on the number of moves from `position`, computed without listing them.
    fn move_bound(&self, position: &Position) -> u128;
    /// The most tokens one move can remove, or `None` when unbounded.
    fn max_take(&self) -> Option<u32>;
    /// How far the heap count can change in one move.
    fn heap_change(&self) -> HeapCountChange;
    /// Whether every move removes at least one token (so totals strictly decrease).
    fn always_takes(&self) -> bool;
    /// The theory the family obeys.
    fn theory(&self) -> Theory;
    /// The heap rules, when every move changes one heap (heap games); lets callers cache a
    /// heap size's results.
    fn single_heap(&self) -> Option<&dyn HeapRules> {
        None
    }
    /// Whether a cap on the heap count keeps a universe closed under moves (no move adds a
    /// heap).
    fn heap_cap_closed(&self) -> bool {
        self.heap_change().more == 0
    }
}

/// A rule family, seen by the tier solvers: children and parents of positions given as
/// heap slices sorted largest first, written into caller-owned buffers.
pub trait TierRules: GameRules + Sized {
    /// What [`for_each_child`](TierRules::for_each_child) precomputes (a table of heap
    /// results, for heap games).
    type ChildTable: Send + Sync;
    /// Whether every move changes exactly one heap, so that a parent with as many heaps and
    /// more tokens is the child with one heap grown; [`shrinks_to`](TierRules::shrinks_to)
    /// then says which grown heaps are parents, and the retrograde solver ranks them
    /// incrementally.
    const ONE_HEAP_MOVES: bool;

    /// Precomputes what [`for_each_child`](TierRules::for_each_child) needs for heaps up to
    /// `max_heap`.
    fn child_table(&self, max_heap: u32) -> Self::ChildTable;

    /// Calls `visit(child, tokens_taken)` for every child of `heaps`. Returns the number of
    /// children visited.
    fn for_each_child<F: FnMut(&[u32], u32)>(
        &self,
        table: &Self::ChildTable,
        heaps: &[u32],
        buf: &mut Vec<u32>,
        visit: F,
    ) -> u64;

    /// Calls `visit(child)` for every child of `heaps` reached by a move that removes
    /// exactly `taken` tokens. Returns the number of children visited. Where moves change
    /// several heaps, a child may be visited more than once (two moves can reach it).
    fn children_taking<F: FnMut(&[u32])>(
        &self,
        heaps: &[u32],
        taken: u32,
        buf: &mut Vec<u32>,
        visit: F,
    ) -> u64;

    /// Calls `visit(parent)` for every parent of `heaps` (a position with a move to it) that
    /// has exactly `added` more tokens and exactly `parent_heaps` heaps, within `bounds`.
    /// Returns the number of parents visited. A parent may be visited more than once when
    /// two different moves lead from it to `heaps`.
    fn parents_adding<F: FnMut(&[u32])>(
        &self,
        heaps: &[u32],
        added: u32,
        parent_heaps: u32,
        bounds: ParentBounds,
        buf: &mut Vec<u32>,
        visit: F,
    ) -> u64;

    /// For families with [`ONE_HEAP_MOVES`](TierRules::ONE_HEAP_MOVES): whether a heap of
    /// size `heap` may shrink to one heap of size `left`.
    fn shrinks_to(&self, _heap: u32, _left: u32) -> bool {
        false
    }

    /// For families with [`ONE_HEAP_MOVES`](TierRules::ONE_HEAP_MOVES): whether a heap of
    /// size `heap` may split into exactly two heaps `a ≥ b`.
    fn splits_to(&self, _heap: u32, _a: u32, _b: u32) -> bool {
        false
    }

    /// For families with [`ONE_HEAP_MOVES`](TierRules::ONE_HEAP_MOVES): whether a heap of
    /// size `heap` may be removed entirely.
    fn heap_vanishes(&self, _heap: u32) -> bool {
        false
    }

    /// For families with [`ONE_HEAP_MOVES`](TierRules::ONE_HEAP_MOVES): whether some move
    /// that takes exactly `taken` tokens may leave two heaps.
    fn may_split(&self, _taken: u32) -> bool {
        false
    }

    /// For families with [`ONE_HEAP_MOVES`](TierRules::ONE_HEAP_MOVES): whether some move
    /// that takes exactly `taken` tokens may leave three heaps.
    fn may_split_three(&self, _taken: u32) -> bool {
        false
    }

    /// For families with [`ONE_HEAP_MOVES`](TierRules::ONE_HEAP_MOVES): whether a heap of
    /// size `heap` may split into exactly three heaps `a ≥ b ≥ c`.
    fn splits_three_to(&self, _heap: u32, _a: u32, _b: u32, _c: u32) -> bool {
        false
    }
}

/// Every child of `heaps` with the tokens it takes, one `taken` at a time from 1 to the
/// total: [`TierRules::for_each_child`] for families that precompute nothing and never
/// split without taking.
pub fn children_by_tokens<G: TierRules>(
    rules: &G,
    heaps: &[u32],
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32], u32),
) -> u64 {
    let total: u32 = heaps.iter().sum();
    (1..=total).map(|taken| rules.children_taking(heaps, taken, buf, |c| visit(c, taken))).sum()
}

/// Every move from `position` under `rules` (the family's move order).
pub fn all_moves<G: GameRules + ?Sized>(rules: &G, position: &Position) -> Vec<Move> {
    rules.moves(position)
}

/// Calls `visit(parent, tokens_added)` for every parent of `heaps` with at most
/// `extra_tokens` more tokens and at most `bounds.max_heaps` heaps. Returns the number of
/// parents visited.
pub fn for_each_parent<G: TierRules>(
    rules: &G,
    heaps: &[u32],
    extra_tokens: u32,
    bounds: ParentBounds,
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32], u32),
) -> u64 {
    let change = rules.heap_change();
    let k = heaps.len() as u32;
    let mut n = 0;
    for added in 0..=extra_tokens {
        let low = k.saturating_sub(change.more);
        let high = (k + change.fewer).min(bounds.max_heaps);
        for parent_heaps in low..=high {
            n += rules.parents_adding(heaps, added, parent_heaps, bounds, buf, |p| visit(p, added));
        }
    }
    n
}

/// Inserts `v` into `heaps` (sorted largest first), keeping the order.
#[inline]
pub fn insert_sorted(heaps: &mut Vec<u32>, v: u32) {
    let at = heaps.iter().position(|&h| h < v).unwrap_or(heaps.len());
    heaps.insert(at, v);
}

/// Sorts a short heap list largest first and drops zeros (insertion sort: the lists the
/// solvers build are a handful of heaps, nearly sorted).
#[inline]
pub fn sort_heaps(heaps: &mut Vec<u32>) {
    for i in 1..heaps.len() {
        let v = heaps[i];
        let mut j = i;
        while j > 0 && heaps[j - 1] < v {
            heaps[j] = heaps[j - 1];
            j -= 1;
        }
        heaps[j] = v;
    }
    while heaps.last() == Some(&0) {
        heaps.pop();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::game::{GameSpec, RulesVisitor};

    /// Every position with total ≤ `max`, heaps largest first.
    fn universe(max: u32) -> Vec<Vec<u32>> {
        let mut all = Vec::new();
        let mut stack = vec![(Vec::<u32>::new(), 0u32, max)];
        while let Some((p, total, cap)) = stack.pop() {
            all.push(p.clone());
            for h in 1..=cap.min(max - total) {
                let mut q = p.clone();
                q.push(h);
                stack.push((q, total + h, h));
            }
        }
        all
    }

    struct Check {
        game: &'static str,
        max: u32,
    }

    impl RulesVisitor for Check {
        type Output = ();
        fn visit<G: TierRules>(self, rules: &G) {
            let (game, max) = (self.game, self.max);
            let all = universe(max);
            let table = rules.child_table(max);
            let bounds = ParentBounds { max_heap: max, max_heaps: max };
            let mut buf = Vec::new();
            for child in &all {
                let t: u32 = child.iter().sum();
                let pos = Position::from_sorted(child.clone());
                // Children three ways: the move list, the table walk, and by tokens taken.
                let moves = rules.moves(&pos);
                let want: BTreeSet<Vec<u32>> = moves.iter().map(|m| m.apply(&pos).heaps().to_vec()).collect();
                assert_eq!(
                    want.len(),
                    moves.len(),
                    "{game}: moves of {child:?} lead to the same position twice"
                );
                assert!(rules.move_bound(&pos) >= moves.len() as u128, "{game}: move bound of {child:?}");
                for m in &moves {
                    assert!(m.applies_to(&pos));
                    let c = m.apply(&pos);
                    let delta = c.len() as i64 - pos.len() as i64;
                    let change = rules.heap_change();
                    assert!(-(change.fewer as i64) <= delta && delta <= change.more as i64, "{game}: {m}");
                    if let Some(most) = rules.max_take() {
                        assert!(m.taken() <= most, "{game}: {m} takes too much");
                    }
                    if rules.always_takes() {
                        assert!(m.taken() > 0, "{game}: {m} takes nothing");
                    }
                }
                let mut kids = BTreeSet::new();
                rules.for_each_child(&table, child, &mut buf, |c, taken| {
                    assert_eq!(c.iter().sum::<u32>() + taken, t);
                    kids.insert(c.to_vec());
                });
                assert_eq!(kids, want, "{game}: children of {child:?}");
                let mut by_take = BTreeSet::new();
                for taken in 0..=t {
                    rules.children_taking(child, taken, &mut buf, |c| {
                        assert_eq!(c.iter().sum::<u32>() + taken, t);
                        assert!(c.windows(2).all(|w| w[0] >= w[1]) && c.last() != Some(&0));
                        let fresh = by_take.insert(c.to_vec());
                        // Only where moves change several heaps can two moves reach one child.
                        assert!(fresh || !G::ONE_HEAP_MOVES, "{game}: child {c:?} of {child:?} twice");
                    });
                }
                assert_eq!(by_take, want, "{game}: children of {child:?} by tokens taken");
                // Parents: exactly the positions in range with `child` among their children.
                let mut found = BTreeSet::new();
                for_each_parent(rules, child, max - t, bounds, &mut buf, |p, added| {
                    assert_eq!(p.iter().sum::<u32>(), t + added);
                    assert!(p.windows(2).all(|w| w[0] >= w[1]) && p.last() != Some(&0));
                    found.insert(p.to_vec());
                });
                let want: BTreeSet<Vec<u32>> = all
                    .iter()
                    .filter(|p| {
                        let pos = Position::from_sorted(p.to_vec());
                        rules.moves(&pos).iter().any(|m| m.apply(&pos).heaps() == &child[..])
                    })
                    .cloned()
                    .collect();
                assert_eq!(found, want, "{game}: parents of {child:?}");
            }
        }
    }

    #[test]
    fn parents_invert_children_in_every_family() {
        for game in [
            "nim",
            "kayles",
            "dawson",
            "lines",
            "grundy",
            "octal:4.7",
            "octal:0.137",
            "subtraction:2,3",
            "hex:0.F",
            "hex:0.8F",
            "hex:8.9",
            "hex:0.[B]",
            "moore:2",
            "moore:3",
            "wythoff",
        ] {
            let spec: GameSpec = game.parse().unwrap();
            spec.rules().with(Check { game, max: 9 });
        }
    }

    #[test]
    fn families_declare_their_theory() {
        let theory = |g: &str| g.parse::<GameSpec>().unwrap().rules().theory();
        assert_eq!(theory("nim").formula, Some(Formula::Bouton));
        assert!(theory("kayles").sum_of_heaps && theory("kayles").formula.is_none());
        assert!(theory("hex:0.F").sum_of_heaps);
        assert!(!theory("moore:2").sum_of_heaps);
        assert_eq!(theory("moore:2").formula, Some(Formula::Moore { k: 2 }));
        assert!(!theory("wythoff").sum_of_heaps);
        assert_eq!(theory("wythoff").formula, Some(Formula::Wythoff));
    }
}
