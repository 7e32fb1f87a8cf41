//! Measuring a game tree before drawing it: tree size, DAG size and distinct positions.
//!
//! The tree size is counted without building the tree, by a memoized count over positions:
//! `size(p) = 1 + Σ size(child)`. The DAG size counts the distinct pairs (position, player to
//! move) reachable from the root, found by pushing the set of depth parities at which each
//! position is reachable from parents to children in topological order. Both walks touch
//! each distinct position a bounded number of times, so a tree of 10^30 nodes over a few
//! thousand positions is measured at once.

use std::collections::HashMap;

use super::order::TreeMoves;
use crate::game::result_bound;
use crate::game::{GameRules, Position};

/// The sizes of the game tree below a root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeSize {
    /// Nodes of the complete game tree (saturating at `u128::MAX`).
    pub tree: u128,
    /// Nodes of the DAG that merges equal (position, player to move) pairs.
    pub dag: u64,
    /// Distinct positions reachable from the root, the root included.
    pub positions: u64,
}

/// Why measuring gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureStopped {
    /// There are more moves between distinct positions than the budget: the tree has more
    /// than `budget` nodes, and the DAG more than `budget` edges.
    Moves {
        /// The budget of moves that was exceeded.
        budget: u64,
    },
    /// The root's largest heap may have so many moves (up to `bound`, more than ten times the
    /// budget) that merely listing them is too much work.
    HeapMoves {
        /// The largest heap.
        heap: u32,
        /// The upper bound on its number of moves.
        bound: u128,
    },
}

/// Bit for "reachable at an even depth" (player A to move) and at an odd depth (B).
const EVEN: u8 = 1;
const ODD: u8 = 2;

/// Measures the game tree below `root`, examining at most `budget` moves between distinct
/// positions.
pub fn measure<R: GameRules + ?Sized>(
    rules: &R,
    root: &Position,
    budget: u64,
) -> Result<TreeSize, MeasureStopped> {
    let bound = match rules.single_heap() {
        Some(heap_rules) => result_bound(heap_rules, root.largest()),
        None => rules.move_bound(root),
    };
    if bound > 10 * budget as u128 {
        return Err(MeasureStopped::HeapMoves { heap: root.largest(), bound });
    }
    let mut moves_gen = TreeMoves::new(rules);
    // None: discovered, subtree not yet counted.
    let mut size: HashMap<Position, Option<u128>> = HashMap::new();
    size.insert(root.clone(), None);
    let mut stack = vec![(root.clone(), false)];
    let mut edges = 0u64;
    while let Some((p, expanded)) = stack.pop() {
        if size[&p].is_some() {
            continue;
        }
        let children: Vec<Position> = moves_gen.moves(&p).iter().map(|m| m.apply(&p)).collect();
        if expanded {
            let total = children.iter().fold(1u128, |acc, c| acc.saturating_add(size[c].unwrap()));
            size.insert(p, Some(total));
            continue;
        }
        edges += children.len() as u64;
        if edges > budget {
            return Err(MeasureStopped::Moves { budget });
        }
        stack.push((p, true));
        for c in children {
            let known = match size.get(&c) {
                Some(s) => s.is_some(),
                None => {
                    size.insert(c.clone(), None);
                    false
                }
            };
            if !known {
                stack.push((c, false));
            }
        }
    }
    let tree = size[root].unwrap();

    // Parents before children: a move lowers the total, or keeps it and adds a heap.
    let mut order: Vec<Position> = size.into_keys().collect();
    order.sort_by(|a, b| b.total().cmp(&a.total()).then(a.len().cmp(&b.len())));
    let mut reach: HashMap<Position, u8> = HashMap::with_capacity(order.len());
    reach.insert(root.clone(), EVEN);
    let mut dag = 0u64;
    for p in &order {
        let here = reach.get(p).copied().unwrap_or(0);
        dag += here.count_ones() as u64;
        let there = ((here & EVEN) << 1) | ((here & ODD) >> 1);
        for m in moves_gen.moves(p) {
            *reach.entry(m.apply(p)).or_insert(0) |= there;
        }
    }
    Ok(TreeSize { tree, dag, positions: order.len() as u64 })
}

/// Writes a node count, or "more than 10^38" when the count saturated.
pub fn format_count(n: u128) -> String {
    if n == u128::MAX { "more than 10^38".to_string() } else { n.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    #[test]
    fn long_subtraction_chains_are_measured_at_once() {
        let spec: GameSpec = "subtraction:1,2,3".parse().unwrap();
        let s = measure(spec.rules(), &Position::new(vec![100_000]), 1_000_000).unwrap();
        // [100000] only with A to move, [99999] only with B, every smaller heap with both.
        assert_eq!((s.tree, s.dag, s.positions), (u128::MAX, 2 + 2 * 99_999, 100_001));
    }

    #[test]
    fn take_one_to_three_from_six() {
        let spec: GameSpec = "subtraction:1,2,3".parse().unwrap();
        let s = measure(spec.rules(), &Position::new(vec![6]), 100).unwrap();
        // T(n) = 1 + T(n-1) + T(n-2) + T(n-3): 1, 2, 4, 8, 15, 28, 52.
        assert_eq!(s, TreeSize { tree: 52, dag: 12, positions: 7 });
    }

    #[test]
    fn nim_trees_saturate_and_budgets_stop() {
        let nim = GameSpec::nim();
        // One Nim heap of n has a tree of 2^n nodes.
        let s = measure(nim.rules(), &Position::new(vec![20]), 1000).unwrap();
        assert_eq!(s.tree, 1 << 20);
        let s = measure(nim.rules(), &Position::new(vec![200]), 100_000).unwrap();
        assert_eq!(format_count(s.tree), "more than 10^38");
        let e = measure(nim.rules(), &Position::new(vec![50, 50, 50]), 1000).unwrap_err();
        assert_eq!(e, MeasureStopped::Moves { budget: 1000 });
        let lines: GameSpec = "lines".parse().unwrap();
        let e = measure(lines.rules(), &Position::new(vec![100_000]), 1000).unwrap_err();
        assert_eq!(e, MeasureStopped::HeapMoves { heap: 100_000, bound: 100_001 + 100_001 * 50_000 });
        // [3] has 3 moves, [2] 2, [1] 1: six edges between its distinct positions.
        assert!(measure(nim.rules(), &Position::new(vec![3]), 6).is_ok());
        assert!(measure(nim.rules(), &Position::new(vec![3]), 5).is_err());
    }
}
