//! The game tree (or its merged DAG) as explicit nodes, with minimax values for player A.

use std::collections::HashMap;
use std::fmt;

use super::order::TreeWalker;
use crate::game::{Convention, Game};

/// The two players, named by level as in the textbook figure: A moves at the root and at
/// every even depth, B at every odd depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// The player to move at the root (drawn as a square node).
    A,
    /// The other player (drawn as a circle).
    B,
}

impl Player {
    /// The player who moves next.
    pub fn other(self) -> Self {
        match self {
            Player::A => Player::B,
            Player::B => Player::A,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::A => "A",
            Player::B => "B",
        })
    }
}

/// A minimax value for player A: `+1` when A wins with best play, `-1` when B does.
pub type Value = i8;

/// Whether equal positions share a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The complete game tree: every path is its own node.
    Tree,
    /// The DAG: nodes with the same position *and* the same player to move are one node.
    ///
    /// Merging by position alone would be wrong for the labels: who is to move at a position
    /// is not determined by the position (take 1 then 2, or 3 at once), and the value "for
    /// A" of a position flips with the player to move, although its value for the player to
    /// move does not.
    Dag,
}

/// Index of a node in a [`GameGraph`]; the root is 0.
pub type NodeId = usize;

/// A move from a node, and the node it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The move played, as a short label (see [`super::order`]).
    pub label: String,
    /// The node after the move.
    pub child: NodeId,
}

/// One node: a position with a player to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The position, in the family's canonical form.
    pub position: Vec<u32>,
    /// The player to move.
    pub player: Player,
    /// The moves, in tree order (see [`super::order`]).
    pub edges: Vec<Edge>,
    /// The minimax value for A.
    pub value: Value,
    /// The index in `edges` of the principal move: the first move (in tree order) whose
    /// child has this node's value. `None` at a terminal.
    pub principal: Option<usize>,
}

/// A complete game tree or DAG with minimax values.
///
/// Nodes are numbered in depth-first order of first discovery, children in move order, so
/// the text rendering reads top to bottom in id order.
#[derive(Clone, Debug)]
pub struct GameGraph {
    game: Game,
    shape: Shape,
    convention: Convention,
    nodes: Vec<Node>,
}

impl GameGraph {
    /// Builds the game tree (or DAG) of `game` below `root`, A to move, and computes its
    /// minimax values. The game must not be loopy (its tree would be infinite).
    ///
    /// The whole graph is held in memory: measure it first (see [`super::size::measure`]).
    pub fn build(game: &Game, convention: Convention, root: &[u32], shape: Shape) -> Self {
        assert!(!game.family().loopy(), "a loopy game has no finite tree");
        let mut walker = TreeWalker::new(game);
        let mut nodes: Vec<Node> = Vec::new();
        let mut index: HashMap<(Vec<u32>, Player), NodeId> = HashMap::new();
        // (parent and the label of the move from it, position, player to move), popped in
        // preorder.
        type Pending = (Option<(NodeId, String)>, Vec<u32>, Player);
        let mut stack: Vec<Pending> = vec![(None, root.to_vec(), Player::A)];
        while let Some((from, position, player)) = stack.pop() {
            let merged = match shape {
                Shape::Dag => index.get(&(position.clone(), player)).copied(),
                Shape::Tree => None,
            };
            let id = match merged {
                Some(id) => id,
                None => {
                    let id = nodes.len();
                    for (label, child) in walker.children(&position).into_iter().rev() {
                        stack.push((Some((id, label)), child, player.other()));
                    }
                    if shape == Shape::Dag {
                        index.insert((position.clone(), player), id);
                    }
                    nodes.push(Node { position, player, edges: Vec::new(), value: 0, principal: None });
                    id
                }
            };
            if let Some((parent, label)) = from {
                nodes[parent].edges.push(Edge { label, child: id });
            }
        }
        let mut graph = GameGraph { game: game.clone(), shape, convention, nodes };
        graph.solve();
        graph
    }

    /// Every node, children before parents (a depth-first postorder from the root).
    fn postorder(&self) -> Vec<NodeId> {
        let mut order = Vec::with_capacity(self.nodes.len());
        let mut done = vec![false; self.nodes.len()];
        let mut stack = vec![(self.root(), false)];
        while let Some((id, expanded)) = stack.pop() {
            if done[id] {
                continue;
            }
            if expanded {
                done[id] = true;
                order.push(id);
                continue;
            }
            stack.push((id, true));
            stack.extend(self.nodes[id].edges.iter().filter(|e| !done[e.child]).map(|e| (e.child, false)));
        }
        order
    }

    /// Minimax, children before parents.
    fn solve(&mut self) {
        for id in self.postorder() {
            let node = &self.nodes[id];
            let (value, principal) = if node.edges.is_empty() {
                (self.terminal_value(node.player), None)
            } else {
                let values = node.edges.iter().map(|e| self.nodes[e.child].value);
                let value = match node.player {
                    Player::A => values.max().unwrap(),
                    Player::B => values.min().unwrap(),
                };
                (value, node.edges.iter().position(|e| self.nodes[e.child].value == value))
            };
            let node = &mut self.nodes[id];
            node.value = value;
            node.principal = principal;
        }
    }

    /// The payoff for A at a terminal where `player` is to move: under normal play the player
    /// to move has lost, under misère play the previous player made the last move and lost.
    pub fn terminal_value(&self, player: Player) -> Value {
        let mover_wins = self.convention.terminal_is_win();
        if (player == Player::A) == mover_wins { 1 } else { -1 }
    }

    /// The root's id (always 0).
    pub fn root(&self) -> NodeId {
        0
    }

    /// Every node, the root first.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// One node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph has no nodes (never true: the root is always there).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether this is the tree or the merged DAG.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// `position` in the game's notation.
    pub fn show(&self, position: &[u32]) -> String {
        self.game.family().show(position)
    }

    /// The convention the values were computed under.
    pub fn convention(&self) -> Convention {
        self.convention
    }

    /// The principal line: the nodes from the root along principal moves to a terminal.
    pub fn principal_line(&self) -> Vec<NodeId> {
        let mut line = vec![self.root()];
        let mut id = self.root();
        while let Some(i) = self.nodes[id].principal {
            id = self.nodes[id].edges[i].child;
            line.push(id);
        }
        line
    }

    /// The number of tree nodes below and including each node (for a DAG: in its unfolding),
    /// saturating at `u64::MAX`.
    pub fn subtree_sizes(&self) -> Vec<u64> {
        let mut sizes = vec![1u64; self.nodes.len()];
        // In a DAG a shared node is counted once per parent, so the root gets the tree size.
        for id in self.postorder() {
            let below = self.nodes[id].edges.iter().fold(0u64, |acc, e| acc.saturating_add(sizes[e.child]));
            sizes[id] = sizes[id].saturating_add(below);
        }
        sizes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_004(shape: Shape) -> GameGraph {
        let game: Game = "subtraction:1,2,3".parse().unwrap();
        GameGraph::build(&game, Convention::Misere, &[6], shape)
    }

    fn total(p: &[u32]) -> u32 {
        p.iter().sum()
    }

    #[test]
    fn figure_5_17_values() {
        let g = seed_004(Shape::Tree);
        assert_eq!(g.len(), 52);
        let root = g.node(0);
        assert_eq!((root.player, root.value), (Player::A, 1));
        let first = &root.edges[root.principal.unwrap()];
        assert_eq!(
            (first.label.as_str(), g.show(&g.node(first.child).position)),
            ("take 1", "[5]".to_string())
        );
        // Every node's value for the player to move: a loss iff n ≡ 1 (mod 4) in misère.
        for n in g.nodes() {
            let mover_wins = total(&n.position) % 4 != 1;
            let for_a = if (n.player == Player::A) == mover_wins { 1 } else { -1 };
            assert_eq!(n.value, for_a, "{:?} {}", n.position, n.player);
        }
        let line: Vec<String> = g.principal_line().iter().map(|&i| g.show(&g.node(i).position)).collect();
        assert_eq!(line, ["[6]", "[5]", "[4]", "[1]", "[]"]);
        assert_eq!(g.subtree_sizes()[0], 52);
    }

    #[test]
    fn dag_merges_by_position_and_player() {
        let g = seed_004(Shape::Dag);
        assert_eq!(g.len(), 12);
        let mut keys: Vec<(u32, Player)> = g.nodes().iter().map(|n| (total(&n.position), n.player)).collect();
        keys.sort_by_key(|k| (k.0, k.1 == Player::B));
        keys.dedup();
        assert_eq!(keys.len(), 12);
        assert_eq!(g.subtree_sizes()[0], 52, "unfolding the DAG gives the tree back");
        let t = seed_004(Shape::Tree);
        assert_eq!(g.node(0).value, t.node(0).value);
    }
}
