//! Runs the independent plain forward sweep of `benches/plain` (the baseline the solver is
//! measured against) on Nim with `HEAPS` heaps of up to `MAX_HEAP`, and prints its counts.
//! With `--check` it also solves the same universe with nimdb's retrograde solver (in
//! memory) and compares every tier, value for value.
//!
//! `cargo run --release --example plain_sweep -- [misere|normal] [HEAPS] [MAX_HEAP] [--check]`
//! (default: misère, 8 heaps of up to 32, the universe of `examples/nim_8x32`).

#[path = "../benches/plain/mod.rs"]
mod plain;

use std::time::Instant;

use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, Universe};
use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let words: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let misere = words.first().is_none_or(|a| *a != "normal");
    let heaps: u32 = words.get(1).map_or(Ok(8), |a| a.parse())?;
    let max_heap: u32 = words.get(2).map_or(Ok(32), |a| a.parse())?;
    let started = Instant::now();
    let solved = plain::solve_nim(heaps, max_heap, misere);
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "plain sweep nim {heaps}x{max_heap} {}: {} positions, {} losses, {:.2} s, {:.2} M positions/s, {} edges ({:.1} M edges/s)",
        if misere { "misere" } else { "normal" },
        solved.positions,
        solved.losses,
        seconds,
        solved.positions as f64 / seconds / 1e6,
        solved.edges,
        solved.edges as f64 / seconds / 1e6
    );
    if check {
        let nim = GameSpec::nim();
        let convention = Convention::from_misere(misere);
        let universe = Universe::new(nim.rules(), "nim", None, Some(max_heap), Some(heaps))?;
        let options =
            SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
        let store = solve_in_memory(&nim, &options)?;
        let mut tiers = 0;
        for (total, by_heaps) in solved.tiers.iter().enumerate() {
            for (k, values) in by_heaps.iter().enumerate() {
                let tier = TierId { total: total as u32, heaps: k as u32 };
                match store.tiers.get(&tier) {
                    Some(t) => anyhow::ensure!(t.remoteness == *values, "tier {tier} differs"),
                    None => anyhow::ensure!(values.is_empty(), "tier {tier} is missing from the solver's"),
                }
                tiers += usize::from(!values.is_empty());
            }
        }
        anyhow::ensure!(tiers == store.tiers.len(), "the solver has tiers the sweep has not");
        println!("checked: all {tiers} tiers equal the retrograde solver's");
    }
    Ok(())
}
