//! Complete game trees with minimax and alpha-beta values (`nimdb tree`).
//!
//! This is the textbook view of a game (figure 5.17 of Horowitz and Sahni: take-1..3 from
//! six, the last mover loses): every node is a position with a player to move, A at the
//! root and at even depths, B at odd depths; leaves get the payoff for A (+1 when A wins,
//! −1 when B does), and minimax takes the maximum at A's nodes and the minimum at B's.
//!
//! - [`order`]: the move order every tie-break refers to (heaps largest first, then fewest
//!   tokens taken first).
//! - [`minimax`]: the memoized forward search over positions ([`minimax_value`]), the
//!   reference the retrograde solver is checked against.
//! - [`size`]: counting the tree, the DAG and the distinct positions without building them.
//! - [`graph`]: the explicit tree or DAG with values and the principal line.
//! - [`alpha_beta`](mod@alpha_beta): alpha-beta over the explicit graph, recording what it prunes.
//! - [`render`]: text and Graphviz DOT.
//!
//! [`TreeView`] ties them together for the command line.

pub mod alpha_beta;
pub mod graph;
pub mod minimax;
pub mod order;
pub mod render;
pub mod size;

use std::fmt;

pub use alpha_beta::{AlphaBetaRun, alpha_beta};
pub use graph::{Edge, GameGraph, Node, NodeId, Player, Shape, Value};
pub use minimax::{MinimaxSearch, minimax_value};
pub use order::{TreeMoves, TreeWalker, move_label};
pub use size::{MeasureBudget, MeasureStopped, TreeSize, format_count, measure, measured_position_bytes};

use crate::game::{Convention, Game};
use crate::resources::{Bytes, MemoryBudget};

/// The default `--max-nodes`.
pub const DEFAULT_MAX_NODES: u64 = 10_000;

/// Measuring examines up to this many moves per node allowed (and at least
/// [`MIN_MEASURE_BUDGET`]) before giving up, so that a refusal can usually give the exact size
/// of the tree, yet a hopeless one (Nim with heaps of hundreds) is refused in a moment.
const MEASURE_MOVES_PER_NODE: u64 = 10;

/// The least measuring budget, in moves.
const MIN_MEASURE_BUDGET: u64 = 1_000_000;

/// Measuring holds at least this many distinct positions (and at least the node limit), so
/// that a refusal can usually say the exact size.
const MIN_MEASURE_POSITIONS: u64 = 100_000;

/// Measuring holds at most this many bytes of positions, or room for twice the node limit's
/// positions of the root's size if that is more (and never more than the memory allowed):
/// a tree that can be drawn has no more distinct positions than nodes.
const MEASURE_BYTES: u64 = 256 << 20;

/// The most nodes any tree or DAG is drawn with, whatever the limit asked for: a node costs
/// about a hundred bytes in memory and a line of output, so this bounds both (about 1 GB).
pub const MAX_DRAWN_NODES: u64 = 10_000_000;

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeOptions {
    /// The complete tree, or the DAG merging equal (position, player to move) pairs.
    pub shape: Shape,
    /// Whether to run alpha-beta and mark what it prunes.
    pub alpha_beta: bool,
    /// The most nodes to draw (of the tree, or of the DAG with [`Shape::Dag`]).
    pub max_nodes: u64,
    /// The most bytes measuring and drawing may hold.
    pub memory_bytes: u64,
}

impl Default for TreeOptions {
    /// The default node limit, and the memory this process may use now
    /// ([`MemoryBudget::new`]).
    fn default() -> Self {
        TreeOptions {
            shape: Shape::Tree,
            alpha_beta: false,
            max_nodes: DEFAULT_MAX_NODES,
            memory_bytes: MemoryBudget::new(None).bytes,
        }
    }
}

/// Why a tree was not drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeError {
    /// The game is loopy: a position can come round again, so its tree is infinite.
    Loopy {
        /// The game.
        game: String,
    },
    /// The tree (or DAG) has more nodes than allowed.
    TooLarge {
        /// The root position, in the game's notation (shortened when long).
        root: String,
        /// What was measured.
        shape: Shape,
        /// Its sizes.
        size: TreeSize,
        /// The limit (`--max-nodes`).
        limit: u64,
    },
    /// Measuring itself gave up (see [`MeasureStopped`]).
    MeasureStopped {
        /// The root position, in the game's notation (shortened when long).
        root: String,
        /// What was to be drawn.
        shape: Shape,
        /// Why measuring stopped.
        reason: MeasureStopped,
        /// The limit (`--max-nodes`).
        limit: u64,
    },
    /// The tree (or DAG) has more nodes than can ever be drawn ([`MAX_DRAWN_NODES`]).
    BeyondDrawable {
        /// The root position, in the game's notation (shortened when long).
        root: String,
        /// What was measured.
        shape: Shape,
        /// Its number of nodes (of the tree, or of the DAG), when measuring finished.
        nodes: Option<u128>,
    },
    /// Drawing the tree (or DAG) would take more memory than allowed.
    Memory {
        /// The root position, in the game's notation (shortened when long).
        root: String,
        /// What was to be drawn.
        shape: Shape,
        /// Its number of nodes.
        nodes: u64,
        /// Its number of edges, for a DAG (each a line of output); `None` for a tree,
        /// whose edges are one fewer than its nodes.
        edges: Option<u64>,
        /// The bytes it would take.
        needed: u64,
        /// The bytes allowed.
        limit: u64,
    },
}

/// A root for an error message: in full up to a dozen entries, else its first entries and
/// their count.
fn shown(game: &Game, root: &[u32]) -> String {
    const SHOWN: usize = 12;
    if root.len() <= SHOWN {
        return game.family().show(root);
    }
    let first: Vec<String> = root[..SHOWN].iter().map(u32::to_string).collect();
    match game.heaps() {
        Some(_) => format!("[{},…] ({} heaps)", first.join(","), root.len()),
        None => format!("[{} …] ({} counts)", first.join(" "), root.len()),
    }
}

/// "tree" or "DAG".
fn noun(shape: Shape) -> &'static str {
    if shape == Shape::Tree { "tree" } else { "DAG" }
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::Loopy { game } => write!(
                f,
                "{game} is loopy: a position can come round again, so its game tree is infinite \
                 (its positions are still won, lost or drawn)"
            ),
            TreeError::BeyondDrawable { root, shape, nodes } => {
                let what = noun(*shape);
                match nodes {
                    Some(n) => write!(f, "the game {what} of {root} has {n} nodes"),
                    None => write!(f, "the game {what} of {root} has too many nodes to count"),
                }?;
                write!(f, "; at most {MAX_DRAWN_NODES} can be drawn")
            }
            TreeError::TooLarge { root, shape: Shape::Tree, size, limit } => {
                write!(
                    f,
                    "the game tree of {} has {} nodes, more than the limit of {limit}",
                    root,
                    format_count(size.tree)
                )
            }
            TreeError::TooLarge { root, shape: Shape::Dag, size, limit } => {
                write!(f, "the game DAG of {} has {} nodes, more than the limit of {limit}", root, size.dag)
            }
            TreeError::Memory { root, shape, nodes, edges, needed, limit } => write!(
                f,
                "drawing the game {} of {} ({nodes} nodes{}) needs about {}, more than the {} of \
                 memory allowed",
                noun(*shape),
                root,
                edges.map_or(String::new(), |e| format!(", {e} edges")),
                Bytes(*needed),
                Bytes(*limit)
            ),
            TreeError::MeasureStopped { root, shape, reason, limit } => {
                let what = noun(*shape);
                match reason {
                    MeasureStopped::HeapMoves { heap, bound } => write!(
                        f,
                        "the game {what} of {root} is too large to measure: a heap of {heap} may have \
                         up to {bound} moves, far more than the limit of {limit} nodes"
                    ),
                    MeasureStopped::RootMoves { bound, .. } => write!(
                        f,
                        "the game {what} of {root} is too large to measure: its root may have up to \
                         {bound} moves, far more than the limit of {limit} nodes"
                    ),
                    MeasureStopped::Moves { budget } if *shape == Shape::Tree => write!(
                        f,
                        "the game tree of {root} has more than {budget} nodes (counting stopped \
                         there), more than the limit of {limit}"
                    ),
                    MeasureStopped::Moves { budget } => write!(
                        f,
                        "the game DAG of {root} has more than {budget} edges (counting stopped \
                         there), too many to draw within the limit of {limit} nodes"
                    ),
                    MeasureStopped::Positions { cap } => write!(
                        f,
                        "the game {what} of {root} reaches more than {cap} distinct positions \
                         (counting stopped there), so it has more nodes than the limit of {limit}"
                    ),
                    MeasureStopped::Memory { bytes } => write!(
                        f,
                        "the game {what} of {root} is too large to measure within {} of memory; \
                         the limit is {limit} nodes",
                        Bytes(*bytes)
                    ),
                }
            }
        }
    }
}

impl std::error::Error for TreeError {}

impl TreeError {
    /// The node count of the position's DAG when the tree is too large but its DAG fits
    /// within the limit (drawing the DAG instead would work).
    pub fn dag_that_fits(&self) -> Option<u64> {
        match self {
            TreeError::TooLarge { shape: Shape::Tree, size, limit, .. } if size.dag <= *limit => {
                Some(size.dag)
            }
            _ => None,
        }
    }
}

/// `count` followed by `noun`, with an `s` unless the count is 1.
fn plural(count: &str, noun: &str) -> String {
    if count == "1" { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

/// A measured, built and solved game tree (or DAG), ready to print.
#[derive(Clone, Debug)]
pub struct TreeView {
    game: String,
    order: &'static str,
    graph: GameGraph,
    size: TreeSize,
    alpha_beta: Option<AlphaBetaRun>,
}

impl TreeView {
    /// Measures the tree of `game` (named `name` in the output) below `root` (in the
    /// family's canonical form), refuses it if it is over `options.max_nodes` or the game is
    /// loopy, else builds it, runs minimax and, if asked, alpha-beta.
    pub fn new(
        game: &Game,
        name: &str,
        convention: Convention,
        root: &[u32],
        options: &TreeOptions,
    ) -> Result<Self, TreeError> {
        if game.family().loopy() {
            return Err(TreeError::Loopy { game: name.to_string() });
        }
        let asked = options.max_nodes;
        let limit = asked.min(MAX_DRAWN_NODES);
        // A drawable tree has fewer edges than nodes, so twice the drawable cap is enough.
        let moves =
            limit.saturating_mul(MEASURE_MOVES_PER_NODE).clamp(MIN_MEASURE_BUDGET, 2 * MAX_DRAWN_NODES);
        let budget = MeasureBudget {
            moves,
            positions: limit.max(MIN_MEASURE_POSITIONS),
            bytes: options
                .memory_bytes
                .min(MEASURE_BYTES.max(limit.saturating_mul(2 * measured_position_bytes(root.len())))),
        };
        let shown_root = || shown(game, root);
        let size = measure(&mut TreeWalker::new(game), root, budget).map_err(|reason| {
            if asked > MAX_DRAWN_NODES {
                TreeError::BeyondDrawable { root: shown_root(), shape: options.shape, nodes: None }
            } else {
                TreeError::MeasureStopped { root: shown_root(), shape: options.shape, reason, limit }
            }
        })?;
        let drawn = match options.shape {
            Shape::Tree => size.tree,
            Shape::Dag => size.dag as u128,
        };
        if drawn > limit as u128 {
            if asked > MAX_DRAWN_NODES {
                return Err(TreeError::BeyondDrawable {
                    root: shown_root(),
                    shape: options.shape,
                    nodes: Some(drawn),
                });
            }
            return Err(TreeError::TooLarge { root: shown_root(), shape: options.shape, size, limit });
        }
        // Every node holds its position and the edge to it, and prints it on a line. A DAG
        // also holds every other edge into a merged node, and prints each on a line of its
        // own (text and DOT alike): its lines are its edges and the root.
        let per_line =
            (std::mem::size_of::<Node>() + std::mem::size_of::<Edge>()) as u64 + 12 * root.len() as u64;
        let (lines, edges) = match options.shape {
            Shape::Tree => (drawn as u64, None),
            Shape::Dag => ((drawn as u64).max(size.dag_edges.saturating_add(1)), Some(size.dag_edges)),
        };
        let needed = lines.saturating_mul(per_line);
        if needed > options.memory_bytes {
            return Err(TreeError::Memory {
                root: shown_root(),
                shape: options.shape,
                nodes: drawn as u64,
                edges,
                needed,
                limit: options.memory_bytes,
            });
        }
        let graph = GameGraph::build(game, convention, root, options.shape);
        debug_assert_eq!(graph.len() as u128, drawn);
        let alpha_beta = options.alpha_beta.then(|| alpha_beta(&graph));
        let order = match game.heaps() {
            Some(_) => "largest heap first, fewest tokens first",
            None => "the family's move order",
        };
        Ok(TreeView { game: name.to_string(), order, graph, size, alpha_beta })
    }

    /// The tree or DAG.
    pub fn graph(&self) -> &GameGraph {
        &self.graph
    }

    /// The measured sizes.
    pub fn size(&self) -> TreeSize {
        self.size
    }

    /// The alpha-beta run, if one was asked for.
    pub fn alpha_beta(&self) -> Option<&AlphaBetaRun> {
        self.alpha_beta.as_ref()
    }

    /// The heading: game, convention and root.
    pub fn title(&self) -> String {
        let rule = match self.graph.convention() {
            Convention::Normal => "normal play: the last move wins",
            Convention::Misere => "misère play: the last move loses",
        };
        let what = match self.graph.shape() {
            Shape::Tree => "Game tree",
            Shape::Dag => "Game DAG",
        };
        format!("{what} of {} in {} ({rule})", self.graph.show(&self.graph.node(0).position), self.game)
    }

    /// The closing counts: tree vs DAG size and, with alpha-beta, the visited-node counts,
    /// e.g. `tree: 52 nodes, DAG: 12 nodes (7 distinct positions)` and
    /// `minimax visited 52 nodes; alpha-beta visited 23 (29 pruned)`.
    pub fn summary(&self) -> Vec<String> {
        let s = self.size;
        let mut lines = vec![format!(
            "tree: {}, DAG: {} ({})",
            plural(&format_count(s.tree), "node"),
            plural(&s.dag.to_string(), "node"),
            plural(&s.positions.to_string(), "distinct position")
        )];
        if let Some(ab) = &self.alpha_beta {
            let unit = match self.graph.shape() {
                Shape::Tree => "node",
                Shape::Dag => "DAG node",
            };
            lines.push(format!(
                "minimax visited {}; alpha-beta visited {} ({} pruned)",
                plural(&self.graph.len().to_string(), unit),
                ab.visited_count(),
                ab.pruned_count()
            ));
        }
        lines
    }

    /// The text rendering: title, legend, the indented tree, the summary.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write_text(&mut out).expect("writing to memory");
        String::from_utf8(out).expect("the text is UTF-8")
    }

    /// Writes [`to_text`](Self::to_text) to `out` line by line, never holding the whole
    /// text (a DAG prints a line for every edge, however few its nodes).
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.title())?;
        out.write_all(
            "A moves at the root and every even depth, B at odd depths. Values are minimax\n\
             values for A: +1 A wins, -1 B wins. '*' marks the principal line (optimal play;\n"
                .as_bytes(),
        )?;
        writeln!(out, "ties go to the first move in order: {}).", self.order)?;
        if self.graph.shape() == Shape::Dag {
            out.write_all(
                "Nodes with the same position and player to move are merged: each is printed\n\
                 once with its #id, later references say '= shown above'.\n"
                    .as_bytes(),
            )?;
        }
        if self.alpha_beta.is_some() {
            out.write_all(
                b"[pruned] marks moves alpha-beta never searched (window -1..+1, moves in order).\n",
            )?;
        }
        out.write_all(b"\n")?;
        render::write_text(&self.graph, self.alpha_beta.as_ref(), out)?;
        out.write_all(b"\n")?;
        for line in self.summary() {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    /// The Graphviz DOT rendering, with the title and summary as its label.
    pub fn to_dot(&self) -> String {
        let mut out = Vec::new();
        self.write_dot(&mut out).expect("writing to memory");
        String::from_utf8(out).expect("the text is UTF-8")
    }

    /// Writes [`to_dot`](Self::to_dot) to `out` line by line, never holding the whole text.
    pub fn write_dot(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut title = vec![self.title()];
        title.extend(self.summary());
        render::write_dot(&self.graph, self.alpha_beta.as_ref(), &title, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameSpec, Position};

    fn view(heaps: Vec<u32>, options: TreeOptions) -> Result<TreeView, TreeError> {
        let game: Game = "subtraction:1,2,3".parse().unwrap();
        TreeView::new(&game, "subtraction:1,2,3", Convention::Misere, &heaps, &options)
    }

    #[test]
    fn refuses_trees_over_the_limit() {
        let err = view(vec![6], TreeOptions { max_nodes: 51, ..Default::default() }).unwrap_err();
        assert_eq!(err.to_string(), "the game tree of [6] has 52 nodes, more than the limit of 51");
        assert_eq!(err.dag_that_fits(), Some(12));
        assert!(view(vec![6], TreeOptions { max_nodes: 52, ..Default::default() }).is_ok());
        // However high the limit, a tree beyond what can be drawn is refused at once.
        let err = view(vec![20, 20], TreeOptions { max_nodes: u64::MAX, ..Default::default() }).unwrap_err();
        assert!(err.to_string().contains("at most 10000000 can be drawn"), "{err}");
        let dag = TreeOptions { shape: Shape::Dag, max_nodes: 12, ..Default::default() };
        assert_eq!(view(vec![6], dag).unwrap().graph().len(), 12);
        let err = view(vec![6], TreeOptions { max_nodes: 11, ..dag }).unwrap_err();
        assert!(err.to_string().starts_with("the game DAG of [6] has 12 nodes"), "{err}");
    }

    #[test]
    fn graph_minimax_agrees_with_minimax_value_at_every_node() {
        for game in ["nim", "subtraction:1,2,3", "kayles", "dawson", "grundy", "octal:4.7", "lines"] {
            let spec: GameSpec = game.parse().unwrap();
            let any = Game::from(spec.clone());
            for convention in [Convention::Normal, Convention::Misere] {
                let mut search = MinimaxSearch::new(spec.rules(), convention);
                for heaps in [vec![7], vec![4, 3], vec![3, 2, 1], vec![2, 2, 2]] {
                    for shape in [Shape::Tree, Shape::Dag] {
                        let g = GameGraph::build(&any, convention, &heaps, shape);
                        for n in g.nodes() {
                            let mover_wins = search.is_win(&Position::from_sorted(n.position.clone()));
                            let want = if (n.player == Player::A) == mover_wins { 1 } else { -1 };
                            assert_eq!(
                                n.value, want,
                                "{game} {convention} {heaps:?} {:?} {}",
                                n.position, n.player
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn summary_counts() {
        let v = view(vec![6], TreeOptions { alpha_beta: true, ..Default::default() }).unwrap();
        assert_eq!(
            v.summary(),
            [
                "tree: 52 nodes, DAG: 12 nodes (7 distinct positions)",
                "minimax visited 52 nodes; alpha-beta visited 23 (29 pruned)"
            ]
        );
    }
}
