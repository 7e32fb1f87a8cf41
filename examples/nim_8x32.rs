//! Times the solve of misère (or normal) Nim with 8 heaps of up to 32 — 76,904,685
//! positions — without storing anything, for the retrograde solver and optionally the sweep.
//!
//! `cargo run --release --example nim_8x32 -- [normal|misere] [retrograde|sweep|both]`

use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{DiscardStore, SolveOptions, Strategy, solve};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let convention = Convention::from_misere(args.get(1).is_none_or(|a| a != "normal"));
    let which = args.get(2).map_or("retrograde", |s| s.as_str());
    let nim = GameSpec::nim();
    let universe = Universe::new(nim.rules(), "nim", None, Some(32), Some(8))?;
    for strategy in [Strategy::Retrograde, Strategy::Sweep] {
        let name = if strategy == Strategy::Retrograde { "retrograde" } else { "sweep" };
        if which != "both" && which != name {
            continue;
        }
        let mut store = DiscardStore::new(convention);
        let options = SolveOptions { convention, universe, nim_values: false, strategy };
        let report = solve(&nim, &options, &mut store, &nimdb::solve::Silent)?;
        println!(
            "{name:>10} nim 8x32 {convention}: {} positions, {} losses, {:.2} s, {:.2} M positions/s, {} edges ({:.1} M edges/s), peak window {:.1} MB",
            store.positions,
            store.losses,
            report.seconds,
            store.positions as f64 / report.seconds / 1e6,
            report.edges,
            report.edges as f64 / report.seconds / 1e6,
            report.peak_window_bytes as f64 / 1e6
        );
    }
    Ok(())
}
