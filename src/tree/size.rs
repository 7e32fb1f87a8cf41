//! Measuring a game tree before drawing it: tree size, DAG size and distinct positions.
//!
//! The tree size is counted without building the tree, by a memoized count over positions:
//! `size(p) = 1 + Σ size(child)`. The DAG size counts the distinct pairs (position, player to
//! move) reachable from the root, found by pushing the set of depth parities at which each
//! position is reachable from parents to children in topological order. Both walks touch
//! each distinct position a bounded number of times, so a tree of 10^30 nodes over a few
//! thousand positions is measured at once.

use std::collections::HashMap;

use super::order::TreeWalker;

/// The sizes of the game tree below a root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeSize {
    /// Nodes of the complete game tree (saturating at `u128::MAX`).
    pub tree: u128,
    /// Nodes of the DAG that merges equal (position, player to move) pairs.
    pub dag: u64,
    /// Edges of that DAG: one line each when it is drawn (a merged node is printed once,
    /// every later edge to it as a reference), so a DAG of few nodes may still be long.
    pub dag_edges: u64,
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
    /// The root itself may have more moves (up to `bound`) than the budget of moves, so even
    /// its children are not listed.
    RootMoves {
        /// The upper bound on the root's number of moves.
        bound: u128,
        /// The budget of moves.
        budget: u64,
    },
    /// More distinct positions are reachable than `cap`: the tree and the DAG have more
    /// nodes than that.
    Positions {
        /// The most distinct positions measuring would hold.
        cap: u64,
    },
    /// The positions found so far would take more memory than allowed.
    Memory {
        /// The bytes measuring may hold.
        bytes: u64,
    },
}

/// What measuring may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeasureBudget {
    /// The most moves between distinct positions to examine.
    pub moves: u64,
    /// The most distinct positions to hold.
    pub positions: u64,
    /// The most bytes of positions to hold.
    pub bytes: u64,
}

impl MeasureBudget {
    /// A budget of `moves` moves, with no cap on positions or memory.
    pub fn moves(moves: u64) -> Self {
        MeasureBudget { moves, positions: u64::MAX, bytes: u64::MAX }
    }
}

/// The bytes measuring holds per distinct position of `heaps` heaps: the position as the key
/// of the size map, its copy on the stack, in the finishing order and as the key of the
/// reach map, and the entries.
pub fn measured_position_bytes(heaps: usize) -> u64 {
    let position = std::mem::size_of::<Vec<u32>>() as u64 + 4 * heaps as u64;
    4 * position + 64
}

/// Bit for "reachable at an even depth" (player A to move) and at an odd depth (B).
const EVEN: u8 = 1;
const ODD: u8 = 2;

/// Measures the game tree below `root`, examining at most `budget.moves` moves between
/// distinct positions and holding at most `budget.positions` positions in `budget.bytes`.
pub fn measure(
    walker: &mut TreeWalker<'_>,
    root: &[u32],
    budget: MeasureBudget,
) -> Result<TreeSize, MeasureStopped> {
    if let Some((heap, bound)) = walker.heap_bound(root)
        && bound > 10 * budget.moves as u128
    {
        return Err(MeasureStopped::HeapMoves { heap, bound });
    }
    let root_bound = walker.move_bound(root);
    if root_bound > budget.moves as u128 {
        return Err(MeasureStopped::RootMoves { bound: root_bound, budget: budget.moves });
    }
    // A family lists a position's children whole, each as long as the position: they must
    // fit the bytes allowed before the first is built.
    if walker.game().heaps().is_none()
        && root_bound.saturating_mul(measured_position_bytes(root.len()) as u128) > budget.bytes as u128
    {
        return Err(MeasureStopped::Memory { bytes: budget.bytes });
    }
    let mut held = Held::new(budget);
    // None: discovered, subtree not yet counted.
    let mut size: HashMap<Vec<u32>, Option<u128>> = HashMap::new();
    // The positions in the order their subtrees were counted: children before parents.
    let mut finished: Vec<Vec<u32>> = Vec::new();
    held.add(root)?;
    size.insert(root.to_vec(), None);
    let mut stack = vec![(root.to_vec(), false)];
    let mut edges = 0u64;
    while let Some((p, expanded)) = stack.pop() {
        if size[&p].is_some() {
            continue;
        }
        if expanded {
            let mut total = 1u128;
            walker.for_each_child(&p, &mut |c| -> Result<(), MeasureStopped> {
                total = total.saturating_add(size[c].expect("a child is counted before its parent"));
                Ok(())
            })?;
            size.insert(p.clone(), Some(total));
            finished.push(p);
            continue;
        }
        // The expanded entry goes under its children, which are counted first.
        stack.push((p.clone(), true));
        walker.for_each_child(&p, &mut |c| {
            edges += 1;
            if edges > budget.moves {
                return Err(MeasureStopped::Moves { budget: budget.moves });
            }
            match size.get(c) {
                Some(Some(_)) => {}
                // Found before and still waiting on the stack: counted again above `p`, so
                // that it is done before `p` is.
                Some(None) => {
                    held.charge(c)?;
                    stack.push((c.to_vec(), false));
                }
                None => {
                    held.add(c)?;
                    size.insert(c.to_vec(), None);
                    stack.push((c.to_vec(), false));
                }
            }
            Ok(())
        })?;
    }
    let tree = size[root].unwrap();

    // Parents before children: the reverse of the order the subtrees were counted in.
    let mut reach: HashMap<Vec<u32>, u8> = HashMap::with_capacity(finished.len());
    reach.insert(root.to_vec(), EVEN);
    let mut dag = 0u64;
    let mut dag_edges = 0u64;
    for p in finished.iter().rev() {
        let here = reach.get(p).copied().unwrap_or(0);
        dag += here.count_ones() as u64;
        let there = ((here & EVEN) << 1) | ((here & ODD) >> 1);
        let mut children = 0u64;
        walker.for_each_child(p, &mut |c| -> Result<(), MeasureStopped> {
            children += 1;
            *reach.entry(c.to_vec()).or_insert(0) |= there;
            Ok(())
        })?;
        // Each of its DAG nodes (one per player to move) has every child as an edge.
        dag_edges = dag_edges.saturating_add(children * here.count_ones() as u64);
    }
    Ok(TreeSize { tree, dag, dag_edges, positions: finished.len() as u64 })
}

/// The positions measuring holds, against its budget.
struct Held {
    positions: u64,
    bytes: u64,
    budget: MeasureBudget,
}

impl Held {
    fn new(budget: MeasureBudget) -> Self {
        Held { positions: 0, bytes: 0, budget }
    }

    /// Counts one more position held.
    fn add(&mut self, p: &[u32]) -> Result<(), MeasureStopped> {
        self.positions += 1;
        self.bytes = self.bytes.saturating_add(measured_position_bytes(p.len()));
        self.check()
    }

    /// Charges one more copy of a position held on the stack.
    fn charge(&mut self, p: &[u32]) -> Result<(), MeasureStopped> {
        self.bytes = self.bytes.saturating_add(std::mem::size_of::<Vec<u32>>() as u64 + 4 * p.len() as u64);
        self.check()
    }

    fn check(&self) -> Result<(), MeasureStopped> {
        if self.bytes > self.budget.bytes {
            Err(MeasureStopped::Memory { bytes: self.budget.bytes })
        } else if self.positions > self.budget.positions {
            Err(MeasureStopped::Positions { cap: self.budget.positions })
        } else {
            Ok(())
        }
    }
}

/// Writes a node count, or "more than 10^38" when the count saturated.
pub fn format_count(n: u128) -> String {
    if n == u128::MAX { "more than 10^38".to_string() } else { n.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    fn measure_of(game: &str, root: &[u32], budget: MeasureBudget) -> Result<TreeSize, MeasureStopped> {
        let game: Game = game.parse().unwrap();
        measure(&mut TreeWalker::new(&game), root, budget)
    }

    #[test]
    fn long_subtraction_chains_are_measured_at_once() {
        let s = measure_of("subtraction:1,2,3", &[100_000], MeasureBudget::moves(1_000_000)).unwrap();
        // [100000] only with A to move, [99999] only with B, every smaller heap with both.
        assert_eq!((s.tree, s.dag, s.positions), (u128::MAX, 2 + 2 * 99_999, 100_001));
    }

    #[test]
    fn take_one_to_three_from_six() {
        let s = measure_of("subtraction:1,2,3", &[6], MeasureBudget::moves(100)).unwrap();
        // T(n) = 1 + T(n-1) + T(n-2) + T(n-3): 1, 2, 4, 8, 15, 28, 52.
        // The DAG's edges: 3 from each of [6]A, [5]B, [4]A, [4]B, [3]A, [3]B; 2 from [2]A and
        // [2]B; 1 from [1]A and [1]B; none from [0]A and [0]B: 24.
        assert_eq!(s, TreeSize { tree: 52, dag: 12, dag_edges: 24, positions: 7 });
    }

    #[test]
    fn nim_trees_saturate_and_budgets_stop() {
        // One Nim heap of n has a tree of 2^n nodes.
        let s = measure_of("nim", &[20], MeasureBudget::moves(1000)).unwrap();
        assert_eq!(s.tree, 1 << 20);
        let s = measure_of("nim", &[200], MeasureBudget::moves(100_000)).unwrap();
        assert_eq!(format_count(s.tree), "more than 10^38");
        let e = measure_of("nim", &[50, 50, 50], MeasureBudget::moves(1000)).unwrap_err();
        assert_eq!(e, MeasureStopped::Moves { budget: 1000 });
        let e = measure_of("lines", &[100_000], MeasureBudget::moves(1000)).unwrap_err();
        assert_eq!(e, MeasureStopped::HeapMoves { heap: 100_000, bound: 100_001 + 100_001 * 50_000 });
        // [3] has 3 moves, [2] 2, [1] 1: six edges between its distinct positions.
        assert!(measure_of("nim", &[3], MeasureBudget::moves(6)).is_ok());
        assert!(measure_of("nim", &[3], MeasureBudget::moves(5)).is_err());
    }

    #[test]
    fn roots_with_too_many_moves_are_refused_before_any_is_made() {
        let root: Vec<u32> = (1..=10_000).rev().collect();
        let e = measure_of("nim", &root, MeasureBudget::moves(1_000_000)).unwrap_err();
        assert_eq!(e, MeasureStopped::RootMoves { bound: 50_015_000, budget: 1_000_000 });
    }

    #[test]
    fn positions_and_bytes_held_are_capped() {
        let root = [5, 5, 5];
        // [5,5,5] reaches 56 multisets of three heaps of at most 5 (zeros dropped).
        let all = measure_of("nim", &root, MeasureBudget::moves(1_000)).unwrap();
        assert_eq!(all.positions, 56);
        let capped = MeasureBudget { positions: 55, ..MeasureBudget::moves(1_000) };
        assert_eq!(measure_of("nim", &root, capped), Err(MeasureStopped::Positions { cap: 55 }));
        let bytes = 10 * measured_position_bytes(3);
        let small = MeasureBudget { bytes, ..MeasureBudget::moves(1_000) };
        assert_eq!(measure_of("nim", &root, small), Err(MeasureStopped::Memory { bytes }));
        let enough = MeasureBudget { positions: 56, bytes: 1 << 20, moves: 1_000 };
        assert_eq!(measure_of("nim", &root, enough), Ok(all));
    }
}
