//! Drawing a game tree or DAG: an indented text tree, or Graphviz DOT.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::alpha_beta::AlphaBetaRun;
use super::graph::{GameGraph, NodeId, Player, Shape};

/// Whether the edge `edge` of `parent` is on the principal line.
fn principal_edge(graph: &GameGraph, on_line: &HashSet<NodeId>, parent: NodeId, edge: usize) -> bool {
    on_line.contains(&parent) && graph.node(parent).principal == Some(edge)
}

/// One line per node, indented with box-drawing characters, each showing the move that led
/// to it, its position, the player to move and its value for A; `*` marks the principal line.
///
/// A DAG prints each node (with its `#id`) in full where the depth-first walk first meets
/// it; later references print one line ending `= #id, shown above`. With an alpha-beta run,
/// a cut-off edge prints one line `[pruned]` (with the subtree's size, for a tree) and its
/// subtree is left out.
pub fn render_text(graph: &GameGraph, alpha_beta: Option<&AlphaBetaRun>) -> String {
    let mut out = Vec::new();
    write_text(graph, alpha_beta, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the text is UTF-8")
}

/// Writes [`render_text`]'s lines to `out` as they are made, holding none of them: what
/// the command line prints with, so that a long tree or DAG costs no memory for its text.
pub fn write_text(
    graph: &GameGraph,
    alpha_beta: Option<&AlphaBetaRun>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let on_line: HashSet<NodeId> = graph.principal_line().into_iter().collect();
    let dag = graph.shape() == Shape::Dag;
    let sizes = if alpha_beta.is_some() && !dag { graph.subtree_sizes() } else { Vec::new() };
    let mut expanded = vec![false; graph.len()];
    struct Item {
        node: NodeId,
        via: Option<(NodeId, usize)>,
        prefix: String,
        child_prefix: String,
    }
    let mut stack =
        vec![Item { node: graph.root(), via: None, prefix: String::new(), child_prefix: String::new() }];
    while let Some(item) = stack.pop() {
        let node = graph.node(item.node);
        out.write_all(item.prefix.as_bytes())?;
        let mut principal = true;
        let mut pruned = false;
        if let Some((parent, edge)) = item.via {
            write!(out, "{} → ", graph.node(parent).edges[edge].label)?;
            principal = principal_edge(graph, &on_line, parent, edge);
            pruned = alpha_beta.is_some_and(|ab| ab.edge_pruned(parent, edge));
        }
        write!(out, "{}  {}", graph.show(&node.position), node.player)?;
        if pruned {
            if dag {
                write!(out, "  #{}  [pruned]", item.node)?;
            } else {
                let n = sizes[item.node];
                write!(out, "  [pruned: {n} node{}]", if n == 1 { "" } else { "s" })?;
            }
            out.write_all(b"\n")?;
            continue;
        }
        write!(out, "  {:+}", node.value)?;
        if dag {
            write!(out, "  #{}", item.node)?;
            if expanded[item.node] {
                out.write_all(b" = shown above")?;
            }
        }
        if principal {
            out.write_all(b"  *")?;
        }
        out.write_all(b"\n")?;
        if expanded[item.node] {
            continue;
        }
        expanded[item.node] = true;
        let last = node.edges.len().saturating_sub(1);
        for (i, e) in node.edges.iter().enumerate().rev() {
            let (branch, carry) = if i == last { ("└── ", "    ") } else { ("├── ", "│   ") };
            stack.push(Item {
                node: e.child,
                via: Some((item.node, i)),
                prefix: format!("{}{branch}", item.child_prefix),
                child_prefix: format!("{}{carry}", item.child_prefix),
            });
        }
    }
    Ok(())
}

/// Escapes text for a double-quoted DOT string.
fn dot_quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A Graphviz `digraph`: squares for A's nodes and circles for B's (as in the textbook
/// figure), labels with position, player and value for A, the principal line in bold red,
/// and, with an alpha-beta run, pruned nodes and edges dashed and gray. `title` lines become
/// the graph's label and leading comments.
pub fn render_dot(graph: &GameGraph, alpha_beta: Option<&AlphaBetaRun>, title: &[String]) -> String {
    let mut out = Vec::new();
    write_dot(graph, alpha_beta, title, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the text is UTF-8")
}

/// Writes [`render_dot`]'s lines to `out` as they are made, holding none of them.
pub fn write_dot(
    graph: &GameGraph,
    alpha_beta: Option<&AlphaBetaRun>,
    title: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let on_line: HashSet<NodeId> = graph.principal_line().into_iter().collect();
    const PRINCIPAL: &str = "color=\"#c0392b\", penwidth=2.5";
    const PRUNED: &str = "style=dashed, color=gray60, fontcolor=gray60";
    out.write_all(b"digraph game_tree {\n")?;
    for line in title {
        writeln!(out, "  // {line}")?;
    }
    let label: Vec<String> = title.iter().map(|l| dot_quote(l)).collect();
    writeln!(out, "  graph [label=\"{}\", labelloc=t, fontname=\"Helvetica\"];", label.join("\\n"))?;
    out.write_all(b"  node [fontname=\"Helvetica\", fontsize=10, fixedsize=false];\n")?;
    out.write_all(b"  edge [fontname=\"Helvetica\", fontsize=9];\n")?;
    for (id, node) in graph.nodes().iter().enumerate() {
        let shape = match node.player {
            Player::A => "square",
            Player::B => "circle",
        };
        let pruned = alpha_beta.is_some_and(|ab| !ab.visited[id]);
        let value = if pruned { "pruned".to_string() } else { format!("{:+}", node.value) };
        let label = format!("{}\\n{} {value}", dot_quote(&graph.show(&node.position)), node.player);
        let mut attrs = format!("shape={shape}, label=\"{label}\"");
        if pruned {
            let _ = write!(attrs, ", {PRUNED}");
        } else if on_line.contains(&id) {
            let _ = write!(attrs, ", {PRINCIPAL}");
        }
        writeln!(out, "  n{id} [{attrs}];")?;
    }
    for (id, node) in graph.nodes().iter().enumerate() {
        for (i, e) in node.edges.iter().enumerate() {
            let label = dot_quote(&e.label);
            let mut attrs = format!("label=\"{label}\"");
            if alpha_beta.is_some_and(|ab| ab.edge_pruned(id, i)) {
                let _ = write!(attrs, ", {PRUNED}");
            } else if principal_edge(graph, &on_line, id, i) {
                let _ = write!(attrs, ", {PRINCIPAL}, fontcolor=\"#c0392b\"");
            }
            writeln!(out, "  n{id} -> n{} [{attrs}];", e.child)?;
        }
    }
    out.write_all(b"}\n")?;
    Ok(())
}
