//! The P-positions (losses for the player to move) of three-heap Wythoff's game under
//! normal play, from a retrograde solve of every position of at most three heaps and at
//! most `T` tokens (default 60): each P-position, their count per total, and, for each
//! smallest heap `c`, whether the two larger heaps still pair off the way Wythoff's pairs do
//! (every size appearing in exactly one pair, the differences all distinct).
//!
//! `cargo run --release --example wythoff_three_heaps -- [T]`

use std::collections::BTreeMap;

use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};

fn main() -> anyhow::Result<()> {
    let total: u32 = std::env::args().nth(1).map_or(Ok(60), |s| s.parse())?;
    let game: GameSpec = "wythoff".parse()?;
    let universe = Universe::new(game.rules(), "wythoff", Some(total), None, Some(3))?;
    let table = universe.table()?;
    let options = SolveOptions {
        convention: Convention::Normal,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    };
    let solved = solve_in_memory(&game, &options)?;
    let mut losses: Vec<Vec<u32>> = Vec::new();
    for tier in universe.tiers().into_iter().filter(|t| t.heaps == 3) {
        for (position, &r) in table.positions(tier).zip(&solved.tiers[&tier].remoteness) {
            if r % 2 == 0 {
                losses.push(position.heaps().to_vec());
            }
        }
    }
    let mut per_total: BTreeMap<u32, usize> = BTreeMap::new();
    for p in &losses {
        *per_total.entry(p.iter().sum()).or_default() += 1;
    }
    println!("three-heap P-positions of wythoff with total <= {total}: {}", losses.len());
    println!("per total: {per_total:?}");
    let mut by_smallest: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for p in &losses {
        by_smallest.entry(p[2]).or_default().push((p[1], p[0]));
    }
    for (c, pairs) in &by_smallest {
        let mut pairs = pairs.clone();
        pairs.sort_unstable();
        let shown: Vec<String> = pairs.iter().map(|(b, a)| format!("({b},{a})")).collect();
        println!("smallest heap {c}: {}", shown.join(" "));
    }
    for p in &losses {
        println!("P {p:?}");
    }
    Ok(())
}
