//! The hostile round's findings (issue 24), one test each: every one of them failed on the
//! code before its fix. What they share: a command facing a bad input or a hostile
//! condition answers with one clear line and a non-zero exit, spends only what it said it
//! would, and leaves what is stored as it was.

mod common;

use std::process::Output;

use common::assert_one_line_error;

/// Runs `nimdb args` in a shell whose address space is limited to `kib` KiB (`ulimit -v`),
/// so that an unbounded allocation aborts instead of answering.
fn under_ulimit(kib: u64, args: &[String]) -> Output {
    let script = format!("ulimit -v {kib}; exec \"$0\" \"$@\"");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_nimdb"))
        .args(args)
        .env_remove("NIMDB_DB")
        .output()
        .unwrap()
}

fn tree_of(first: u32, last: u32) -> Vec<String> {
    let mut args: Vec<String> = ["tree", "--game", "nim"].map(String::from).to_vec();
    args.extend((first..=last).map(|h| h.to_string()));
    args
}

/// Finding 1: `tree` counted nodes but each node holds a whole position; Nim on heaps
/// 1..10000 reached 14 GB. Its root alone has 50 million moves: refused before any is made,
/// inside 100 MB of address space.
#[test]
fn a_tree_whose_root_has_millions_of_moves_is_refused_at_once() {
    let out = under_ulimit(100_000, &tree_of(1, 10_000));
    assert_one_line_error(&out, "moves");
}

/// Finding 1, the other side: Nim on heaps 1..1000 (half a million moves at the root, each
/// child 4 KB) aborted under `ulimit -v 2000000` with "memory allocation failed" and a
/// backtrace. Measuring now counts the bytes it holds, and the limit on address space is
/// part of the budget.
#[test]
fn a_tree_of_large_positions_is_refused_within_its_memory() {
    let out = under_ulimit(2_000_000, &tree_of(1, 1000));
    assert_one_line_error(&out, "tree");
    let out = under_ulimit(2_000_000, &[tree_of(1, 1000), vec!["--dag".into()]].concat());
    assert_one_line_error(&out, "DAG");
}
