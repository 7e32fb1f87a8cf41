//! `nimdb tree`: the complete game tree with minimax values, as text or Graphviz DOT.

use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::cli::GameArgs;
use nimdb::resources::MemoryBudget;
use nimdb::tree::{DEFAULT_MAX_NODES, Shape, TreeOptions, TreeView};

/// How to print the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TreeFormat {
    /// An indented tree, one node per line.
    Text,
    /// Graphviz DOT (render with `dot -Tsvg`).
    Dot,
}

/// Arguments of `nimdb tree`.
#[derive(Debug, Args)]
pub struct TreeArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TreeFormat::Text)]
    format: TreeFormat,
    /// Also run alpha-beta, mark the pruned subtrees and compare node counts with minimax.
    #[arg(long)]
    alpha_beta: bool,
    /// Merge nodes with equal position and player to move into a DAG.
    #[arg(long)]
    dag: bool,
    /// Refuse trees (or DAGs, with --dag) with more nodes than this.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_NODES)]
    max_nodes: u64,
    /// The most memory measuring and drawing may hold, e.g. 512M or 4G (default: 80% of the
    /// memory available now, within any `ulimit -v` and cgroup limit).
    #[arg(long, value_name = "SIZE", value_parser = nimdb::resources::parse_size)]
    memory_limit: Option<u64>,
    /// The root position's heaps: `6`, `3 4 7`, `3,4,7` or `[3,4,7]`; for staircase and
    /// welter the counts in the family's notation (`0 2`).
    #[arg(value_name = "HEAPS", num_args = 0.., allow_negative_numbers = true)]
    heaps: Vec<String>,
}

/// Runs `nimdb tree`.
pub fn run(args: TreeArgs) -> anyhow::Result<ExitCode> {
    let game = &args.game.game;
    if args.heaps.is_empty() {
        // A loopy game's tree is refused whatever the root: no root is asked for.
        if game.family().loopy() {
            return Err(super::words::tree(nimdb::tree::TreeError::Loopy { game: game.to_string() }));
        }
        anyhow::bail!("give the root position, e.g. nimdb tree --game {game} {}", game.example_position())
    }
    let (name, root) = (game.to_string(), game.parse_position(&args.heaps)?);
    let options = TreeOptions {
        shape: if args.dag { Shape::Dag } else { Shape::Tree },
        alpha_beta: args.alpha_beta,
        max_nodes: args.max_nodes,
        memory_bytes: MemoryBudget::given(args.memory_limit).map_err(super::words::memory_limit)?.bytes,
    };
    let view =
        TreeView::new(game, &name, args.game.convention(), &root, &options).map_err(super::words::tree)?;
    // Written as it is made: a DAG's text has a line for every edge.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match args.format {
        TreeFormat::Text => view.write_text(&mut out),
        TreeFormat::Dot => view.write_dot(&mut out),
    };
    written.and_then(|()| std::io::Write::flush(&mut out))?;
    Ok(ExitCode::SUCCESS)
}
