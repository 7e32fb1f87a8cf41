//! Alpha-beta search over a built game tree or DAG, recording what it visits and prunes.
//!
//! The search is the textbook one (max at A's nodes, min at B's; a node stops as soon as
//! `α ≥ β`), visiting children in tree order. It starts with the window α = −1, β = +1,
//! the payoff bounds, not ±∞: no value lies outside them, so this loses nothing, and it lets
//! a node stop at its first child that already gives its player the best possible payoff.
//!
//! Because every payoff is −1 or +1, i.e. on a bound of the window, every value the search
//! returns is exact (a cut-off at A's node returns +1, the maximum; at B's node −1, the
//! minimum). So on a DAG it may reuse a node's value when it meets the node again (a
//! transposition table), and the count of visited nodes is the count of distinct nodes.

use super::graph::{GameGraph, NodeId, Player, Value};

/// What one alpha-beta run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaBetaRun {
    /// The root's value for A (always equal to the minimax value).
    pub value: Value,
    /// Per node: whether the search entered it.
    pub visited: Vec<bool>,
    /// Per node: how many of its edges, in order, were searched (a prefix); the rest were
    /// cut off. 0 for nodes never entered.
    pub searched: Vec<usize>,
}

impl AlphaBetaRun {
    /// How many nodes the search entered.
    pub fn visited_count(&self) -> usize {
        self.visited.iter().filter(|&&v| v).count()
    }

    /// How many nodes it never entered.
    pub fn pruned_count(&self) -> usize {
        self.visited.len() - self.visited_count()
    }

    /// Whether the edge `edge` (an index into the node's edges) of `node` was cut off: the
    /// node was never entered, or the search stopped before this edge.
    pub fn edge_pruned(&self, node: NodeId, edge: usize) -> bool {
        !self.visited[node] || edge >= self.searched[node]
    }
}

struct Frame {
    node: NodeId,
    alpha: Value,
    beta: Value,
    next: usize,
}

/// Runs alpha-beta from the root of `graph` with the window (−1, +1).
pub fn alpha_beta(graph: &GameGraph) -> AlphaBetaRun {
    let n = graph.len();
    let mut visited = vec![false; n];
    let mut searched = vec![0usize; n];
    let mut known: Vec<Option<Value>> = vec![None; n];
    let root = graph.root();
    visited[root] = true;
    let mut stack = vec![Frame { node: root, alpha: -1, beta: 1, next: 0 }];
    let mut returned: Option<Value> = None;
    loop {
        let top = stack.last_mut().expect("the root frame returns last");
        let node = graph.node(top.node);
        let mut cut = false;
        if let Some(v) = returned.take() {
            match node.player {
                Player::A => top.alpha = top.alpha.max(v),
                Player::B => top.beta = top.beta.min(v),
            }
            cut = top.alpha >= top.beta;
        }
        if !cut && top.next < node.edges.len() {
            let child = node.edges[top.next].child;
            top.next += 1;
            if let Some(v) = known[child] {
                returned = Some(v);
            } else {
                visited[child] = true;
                let (alpha, beta) = (top.alpha, top.beta);
                stack.push(Frame { node: child, alpha, beta, next: 0 });
            }
            continue;
        }
        // Done with this node: fail-hard, the value is clamped to the window.
        let value = if node.edges.is_empty() {
            graph.terminal_value(node.player).clamp(top.alpha, top.beta)
        } else {
            match node.player {
                Player::A => top.alpha,
                Player::B => top.beta,
            }
        };
        searched[top.node] = top.next;
        known[top.node] = Some(value);
        stack.pop();
        if stack.is_empty() {
            return AlphaBetaRun { value, visited, searched };
        }
        returned = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Convention, Game};
    use crate::tree::graph::Shape;

    fn run(game: &str, convention: Convention, heaps: Vec<u32>, shape: Shape) -> (GameGraph, AlphaBetaRun) {
        let game: Game = game.parse().unwrap();
        let g = GameGraph::build(&game, convention, &heaps, shape);
        let ab = alpha_beta(&g);
        (g, ab)
    }

    #[test]
    fn take_one_to_three_misere_from_four_by_hand() {
        // Root [4] A: take 1 → [3] B: its first child [2] A stops at [1] (B to move, +1);
        // [3]'s second child [1] A has only [] with B to move, B wins: −1, so [3] stops (one
        // child, [0] after take 3, pruned). [4]'s second child [2] B stops at its first child
        // [1] A = −1 ([] pruned). The third child [1] B = +1 ends the root: 12 visited, of 15.
        let (g, ab) = run("subtraction:1,2,3", Convention::Misere, vec![4], Shape::Tree);
        assert_eq!(g.len(), 15);
        assert_eq!((ab.value, ab.visited_count(), ab.pruned_count()), (1, 12, 3));
    }

    #[test]
    fn values_match_minimax_everywhere() {
        for game in ["nim", "subtraction:1,2,3", "kayles", "grundy", "subtraction:1,3,4"] {
            for convention in [Convention::Normal, Convention::Misere] {
                for heaps in [vec![5], vec![3, 2], vec![4, 2, 1], vec![7], vec![2, 2, 2]] {
                    for shape in [Shape::Tree, Shape::Dag] {
                        let (g, ab) = run(game, convention, heaps.clone(), shape);
                        assert_eq!(ab.value, g.node(0).value, "{game} {convention} {heaps:?} {shape:?}");
                        for &id in &g.principal_line() {
                            assert!(ab.visited[id], "the principal line is never pruned");
                        }
                    }
                }
            }
        }
    }
}
