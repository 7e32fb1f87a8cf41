//! `nimdb.tree`: the complete game tree (or DAG) below a position with its minimax values,
//! as `nimdb tree` draws it, for any acyclic game — a game from `nimdb.define` included,
//! whose moves (and their labels) its function gives.

use pyo3::prelude::*;

use nimdb::resources::MemoryBudget;
use nimdb::tree::{Shape, TreeError, TreeOptions, TreeView};

use crate::defined::game_arg;
use crate::errors::{Kind, cells_arg, convention};

/// The game tree of `game` below `position` with minimax values, as text or as Graphviz
/// DOT (`format="dot"`; render it with `dot -Tsvg`). `dag=True` merges nodes of equal
/// position and player to move; `alpha_beta=True` also runs alpha-beta and marks what it
/// prunes. A tree with more than `max_nodes` nodes, or that would take more than
/// `memory_limit` bytes to draw, is refused (TooCostly) with its size; a loopy game's tree
/// is infinite and refused (BadGame).
#[pyfunction]
#[pyo3(signature = (game, position, misere = false, *, format = "text", dag = false, alpha_beta = false,
                    max_nodes = 10_000, memory_limit = None))]
#[allow(clippy::too_many_arguments)]
pub fn tree(
    game: &Bound<'_, PyAny>,
    position: &Bound<'_, PyAny>,
    misere: bool,
    format: &str,
    dag: bool,
    alpha_beta: bool,
    max_nodes: u64,
    memory_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let dot = match format {
        "text" => false,
        "dot" => true,
        other => {
            return Err(Kind::BadArgument.err(format!("format must be 'text' or 'dot', not {other:?}")));
        }
    };
    let game = game_arg(game)?;
    let cells = cells_arg(&game, position)?.map_err(|e| Kind::BadPosition.err(e))?;
    let root = cells
        .iter()
        .map(|&c| u32::try_from(c))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|_| Kind::TooCostly.err(format!("{cells:?} has a count too large to draw a tree of")))?;
    // As Database.solve takes it: bytes, or a size such as "512M".
    let memory_bytes = MemoryBudget::given(crate::database::memory_arg(memory_limit)?)
        .map_err(crate::database::memory_limit_error)?
        .bytes;
    let options = TreeOptions {
        shape: if dag { Shape::Dag } else { Shape::Tree },
        alpha_beta,
        max_nodes,
        memory_bytes,
    };
    let name = game.to_string();
    // The GIL is held: a defined game's moves are its function's. An exception it raised
    // meanwhile is raised here.
    crate::signals::clear();
    let view = TreeView::new(&game, &name, convention(misere), &root, &options);
    if let Some(e) = crate::signals::take() {
        return Err(e);
    }
    let view = view.map_err(|e| match e {
        TreeError::Loopy { .. } => Kind::BadGame.err(format!("{e}: Database.query answers its positions")),
        TreeError::TooLarge { .. } | TreeError::MeasureStopped { .. } => {
            let dag =
                e.dag_that_fits().map_or(String::new(), |n| format!(" (or dag=True: its DAG has {n} nodes)"));
            Kind::TooCostly.err(format!("{e}; raise max_nodes to draw it{dag}"))
        }
        TreeError::Memory { .. } => {
            Kind::TooCostly.err(format!("{e}; raise memory_limit, or draw a smaller position"))
        }
        other => Kind::TooCostly.err(other.to_string()),
    })?;
    Ok(if dot { view.to_dot() } else { view.to_text() })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_default_node_limit_is_the_command_line_s() {
        // The signature's literal (stubtest reads it) must stay the library's default.
        assert_eq!(nimdb::tree::DEFAULT_MAX_NODES, 10_000);
    }
}
