//! `nimdb tree`: the shape, values, principal line and node counts of game trees, checked
//! against brute-force counts written independently here, and the DOT output checked with
//! Graphviz when it is installed.

use std::collections::HashSet;
use std::io::Write;
use std::process::{Command, Stdio};

mod common;

use common::{err, ok, run as nimdb};

/// One parsed node line of the text tree.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Line {
    depth: usize,
    taken: Option<u32>,
    heap: u32,
    player: char,
    value: i32,
    principal: bool,
}

/// Parses the node lines of a single-heap text tree (between the legend and the counts).
fn parse_tree(text: &str) -> Vec<Line> {
    let body: Vec<&str> = text.split("\n\n").nth(1).expect("a tree after the legend").lines().collect();
    body.iter()
        .map(|raw| {
            let prefix = raw.chars().take_while(|c| "│├└─ ".contains(*c)).count();
            let rest: String = raw.chars().skip(prefix).collect();
            let (taken, rest) = match rest.split_once(" → ") {
                Some((mv, rest)) => {
                    (Some(mv.strip_prefix("take ").unwrap().parse().unwrap()), rest.to_string())
                }
                None => (None, rest),
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            let heap = words[0].trim_matches(['[', ']']).parse().unwrap_or(0);
            Line {
                depth: prefix / 4,
                taken,
                heap,
                player: words[1].chars().next().unwrap(),
                value: words[2].parse().unwrap(),
                principal: words.last() == Some(&"*"),
            }
        })
        .collect()
}

/// Misère take-1..3 by brute force: does the player to move win with `n` tokens left?
fn misere_win(n: u32) -> bool {
    n == 0 || (1..=3.min(n)).any(|k| !misere_win(n - k))
}

/// The expected tree in preorder, moves take 1, 2, 3, values for A.
fn expected_tree(n: u32, depth: usize, taken: Option<u32>, out: &mut Vec<Line>) {
    let player = if depth.is_multiple_of(2) { 'A' } else { 'B' };
    let mover_wins = misere_win(n);
    let value = if (player == 'A') == mover_wins { 1 } else { -1 };
    out.push(Line { depth, taken, heap: n, player, value, principal: false });
    for k in 1..=3.min(n) {
        expected_tree(n - k, depth + 1, Some(k), out);
    }
}

fn tree_size(n: u32) -> usize {
    1 + (1..=3.min(n)).map(|k| tree_size(n - k)).sum::<usize>()
}

#[test]
fn seed_004_figure_shape_values_and_principal_line() {
    let text = ok(&["tree", "--game", "subtraction:1,2,3", "--misere", "6"]);
    let lines = parse_tree(&text);
    assert_eq!(lines.len(), tree_size(6));
    assert_eq!(lines.len(), 52);
    let mut want = Vec::new();
    expected_tree(6, 0, None, &mut want);
    let unmarked: Vec<Line> = lines.iter().map(|l| Line { principal: false, ..l.clone() }).collect();
    assert_eq!(unmarked, want);
    // The root is a win for A, by taking 1 (to [5], a loss for B).
    assert!(text.contains("\n[6]  A  +1  *\n"), "{text}");
    assert!(text.contains("\n├── take 1 → [5]  B  +1  *\n"), "{text}");
    let line: Vec<(Option<u32>, u32)> =
        lines.iter().filter(|l| l.principal).map(|l| (l.taken, l.heap)).collect();
    assert_eq!(line, [(None, 6), (Some(1), 5), (Some(1), 4), (Some(3), 1), (Some(1), 0)]);
    assert!(text.contains("\ntree: 52 nodes, DAG: 12 nodes (7 distinct positions)\n"), "{text}");
}

#[test]
fn principal_line_from_a_lost_root_takes_the_first_move() {
    // [5] is a misère loss for A: every move loses, so the line takes the first (take 1);
    // the winner then plays its first winning move.
    let lines = parse_tree(&ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "5"]));
    assert_eq!(lines[0].value, -1);
    let line: Vec<(Option<u32>, u32)> =
        lines.iter().filter(|l| l.principal).map(|l| (l.taken, l.heap)).collect();
    // [5] A loses: take 1 → [4]; B wins from [4] with take 3 → [1]; A: take 1 → [].
    assert_eq!(line, [(None, 5), (Some(1), 4), (Some(3), 1), (Some(1), 0)]);
}

/// Alpha-beta with the payoff window (-1, +1) in move order: a node's search stops at its
/// first child that is a loss for the player to move there. Counts the nodes entered.
fn alpha_beta_visits(
    pos: &[u32],
    moves: &dyn Fn(&[u32]) -> Vec<Vec<u32>>,
    win: &dyn Fn(&[u32]) -> bool,
) -> usize {
    let mut visited = 1;
    for child in moves(pos) {
        visited += alpha_beta_visits(&child, moves, win);
        if !win(&child) {
            break;
        }
    }
    visited
}

fn full_size(pos: &[u32], moves: &dyn Fn(&[u32]) -> Vec<Vec<u32>>) -> usize {
    1 + moves(pos).iter().map(|c| full_size(c, moves)).sum::<usize>()
}

fn take_123(pos: &[u32]) -> Vec<Vec<u32>> {
    let n = pos.first().copied().unwrap_or(0);
    (1..=3.min(n)).map(|k| if n == k { vec![] } else { vec![n - k] }).collect()
}

/// Nim moves in tree order: distinct heaps largest first, fewest tokens first.
fn nim_moves(pos: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, &h) in pos.iter().enumerate() {
        if !seen.insert(h) {
            continue;
        }
        for k in 1..=h {
            let mut c = pos.to_vec();
            c[i] = h - k;
            c.retain(|&x| x > 0);
            c.sort_unstable_by(|a, b| b.cmp(a));
            out.push(c);
        }
    }
    out
}

fn nim_win(pos: &[u32]) -> bool {
    pos.iter().fold(0, |x, h| x ^ h) != 0
}

#[test]
fn alpha_beta_counts_by_hand_misere_four() {
    // Hand count (misère take-1..3, losses are n ≡ 1 mod 4): [4] A enters take 1 → [3];
    // [3] B enters [2] (A wins: its first child [1] is a loss, so [2] enters 2 nodes below
    // and prunes take 2 → []), then take 2 → [1] A, which loses ([1], [] entered): a win
    // for B, so take 3 → [] is pruned. [4] then enters take 2 → [2] B, which stops after
    // [1] A loses (2 more nodes, take 2 → [] pruned), and take 3 → [1] B, a loss for B (2
    // nodes): A stops there. Entered: 1 + (1 + 3 + 2) + (1 + 2) + 2 = 12; pruned 15 − 12 = 3.
    let text = ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--alpha-beta", "4"]);
    assert!(text.contains("\nminimax visited 15 nodes; alpha-beta visited 12 (3 pruned)\n"), "{text}");
    let misere = |p: &[u32]| misere_win(p.first().copied().unwrap_or(0));
    assert_eq!(alpha_beta_visits(&[4], &take_123, &misere), 12);
    assert_eq!(text.matches("[pruned: 1 node]").count(), 3);
}

#[test]
fn alpha_beta_counts_on_fixed_examples() {
    let misere = |p: &[u32]| misere_win(p.first().copied().unwrap_or(0));
    let (full, ab) = (full_size(&[6], &take_123), alpha_beta_visits(&[6], &take_123, &misere));
    assert_eq!((full, ab), (52, 23));
    let text = ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--alpha-beta", "6"]);
    assert!(text.contains("\nminimax visited 52 nodes; alpha-beta visited 23 (29 pruned)\n"), "{text}");
    // [6]'s second and third moves are cut off whole.
    assert!(text.contains("\n├── take 2 → [4]  B  [pruned: 15 nodes]\n"), "{text}");
    assert!(text.contains("\n└── take 3 → [3]  B  [pruned: 8 nodes]\n"), "{text}");

    let (full, ab) = (full_size(&[3, 2], &nim_moves), alpha_beta_visits(&[3, 2], &nim_moves, &nim_win));
    assert_eq!((full, ab), (62, 10));
    let text = ok(&["tree", "-g", "nim", "--alpha-beta", "3", "2"]);
    assert!(text.contains("\nminimax visited 62 nodes; alpha-beta visited 10 (52 pruned)\n"), "{text}");
}

#[test]
fn dag_merges_position_and_player() {
    // Distinct (tokens left, player to move) pairs reachable from 6.
    let mut seen = HashSet::new();
    let mut stack = vec![(6u32, 0usize)];
    while let Some((n, parity)) = stack.pop() {
        if seen.insert((n, parity)) {
            stack.extend((1..=3.min(n)).map(|k| (n - k, 1 - parity)));
        }
    }
    assert_eq!(seen.len(), 12);
    let text = ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--dag", "6"]);
    assert!(text.contains("\ntree: 52 nodes, DAG: 12 nodes (7 distinct positions)\n"), "{text}");
    let ids: HashSet<&str> =
        text.split_whitespace().filter(|w| w.starts_with('#') && w[1..].parse::<u32>().is_ok()).collect();
    assert_eq!(ids.len(), 12);
    assert!(text.contains("= shown above"));
    let text = ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--dag", "--alpha-beta", "6"]);
    assert!(text.contains("\nminimax visited 12 DAG nodes; alpha-beta visited 11 (1 pruned)\n"), "{text}");
}

#[test]
fn size_limit_refuses_with_the_count() {
    let e = err(&["tree", "-g", "subtraction:1,2,3", "--misere", "--max-nodes", "51", "6"]);
    assert!(e.contains("has 52 nodes") && e.contains("--max-nodes"), "{e}");
    assert!(nimdb(&["tree", "-g", "subtraction:1,2,3", "--max-nodes", "52", "6"]).0);
    let e = err(&["tree", "-g", "subtraction:1,2,3", "--dag", "--max-nodes", "11", "6"]);
    assert!(e.contains("DAG of [6] has 12 nodes"), "{e}");
    // One Nim heap of 20 has a tree of 2^20 nodes, over the default limit of 10,000.
    let e = err(&["tree", "-g", "nim", "20"]);
    assert!(e.contains("has 1048576 nodes, more than the limit of 10000"), "{e}");
    let e = err(&["tree", "-g", "nim", "300", "300", "300"]);
    assert!(e.contains("--max-nodes"), "{e}");
}

#[test]
fn a_dag_s_memory_counts_its_edges() {
    // Welter [30 20 10] merges into 5,712 nodes, but they hold about 190,000 edges, each a
    // line of text (about 34 MB of output): within 8 MB the DAG is refused up front, in
    // one line that names the edges, and draws when the memory allows it.
    let root = ["30", "20", "10"];
    let args = |limit: &'static str| {
        let mut a = vec!["tree", "-g", "welter", "--dag", "--max-nodes", "100000", "--memory-limit", limit];
        a.extend(root);
        a
    };
    let e = err(&args("8M"));
    assert!(e.contains("5712 nodes") && e.contains("edges") && e.contains("memory allowed"), "{e}");
    let text = ok(&args("1G"));
    assert!(text.contains("DAG: 5712 nodes"), "{}", &text[text.len().saturating_sub(200)..]);
    // The same holds for the DOT output, one line an edge.
    let mut dot = args("8M");
    dot.extend(["--format", "dot"]);
    assert!(err(&dot).contains("edges"));
}

#[test]
fn bad_input_is_one_line() {
    assert!(err(&["tree", "-g", "nim", "-3"]).contains("negative"));
    assert!(err(&["tree", "-g", "nim", "3", "-1"]).contains("negative"));
    assert!(err(&["tree", "-g", "nim", "3", "x"]).contains("'x'"));
    assert!(err(&["tree", "-g", "nim"]).contains("give the root position"));
    // Flags after the heaps are still flags.
    assert!(ok(&["tree", "-g", "nim", "2", "--dag"]).contains("Game DAG of [2]"));
    assert!(ok(&["tree", "-g", "nim", "[2,1]", "--format", "dot"]).starts_with("digraph"));
    let (success, _, _) = nimdb(&["tree", "-g", "chess", "3"]);
    assert!(!success);
}

/// Feeds DOT to Graphviz; `None` when `dot` is not installed.
fn graphviz_svg(dot: &str) -> Option<String> {
    let mut child =
        match Command::new("dot").arg("-Tsvg").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn() {
            Ok(child) => child,
            Err(_) => return None,
        };
    child.stdin.take().unwrap().write_all(dot.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "dot -Tsvg rejected:\n{dot}");
    Some(String::from_utf8(out.stdout).unwrap())
}

/// The DOT of the seed-004 tree, plain, with alpha-beta marks, as a DAG, and of Kayles.
fn dot_variants() -> [String; 4] {
    [
        ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--format", "dot", "6"]),
        ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--format", "dot", "--alpha-beta", "6"]),
        ok(&["tree", "-g", "subtraction:1,2,3", "--misere", "--format", "dot", "--dag", "--alpha-beta", "6"]),
        ok(&["tree", "-g", "kayles", "--format", "dot", "4", "2"]),
    ]
}

#[test]
fn dot_output_has_the_trees_nodes_and_edges() {
    let variants = dot_variants();
    let plain = &variants[0];
    assert!(plain.starts_with("digraph"));
    let nodes: Vec<&str> =
        plain.lines().filter(|l| l.trim_start().starts_with('n') && l.contains("shape=")).collect();
    assert_eq!(nodes.len(), 52);
    assert_eq!(plain.lines().filter(|l| l.contains(" -> ")).count(), 51);
    assert!(plain.contains("n0 [shape=square, label=\"[6]\\nA +1\""), "{plain}");
    assert!(plain.contains("n1 [shape=circle, label=\"[5]\\nB +1\""), "{plain}");
    assert!(variants[1].contains("style=dashed"));
}

#[test]
#[ignore = "needs Graphviz's dot (.ci/run installs it and runs it with --ignored)"]
fn dot_output_is_accepted_by_graphviz() {
    for dot in &dot_variants() {
        match graphviz_svg(dot) {
            Some(svg) => assert!(svg.contains("<svg"), "{svg}"),
            None => common::missing("Graphviz's `dot` is not installed (apt-get install graphviz)"),
        }
    }
}
