//! Times the solve of misère (or normal) Nim with 8 heaps of up to 32 — 76,904,685
//! positions — without storing anything, for the retrograde solver and optionally the sweep.
//!
//! `cargo run --release --example nim_8x32 -- [normal|misere] [retrograde|sweep|both] [HEAPS MAX_HEAP]`
//! (another universe of Nim when `HEAPS MAX_HEAP` are given: 8 32 by default)
//!
//! Each line ends with a CRC-32 of every tier's remoteness in solve order, so that two
//! builds can be checked to solve the same tiers.

use std::collections::BTreeSet;

use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, Universe};
use nimdb::solve::{DiscardStore, SinkError, SolveOptions, SolvedTier, Strategy, TierStore, solve};

/// Counts what it is given, as [`DiscardStore`] does, and digests it.
struct Digest {
    counts: DiscardStore,
    crc: crc32fast::Hasher,
}

impl TierStore for Digest {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        Ok(BTreeSet::new())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        self.counts.load(tier)
    }
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        self.crc.update(&[solved.tier.total.to_le_bytes(), solved.tier.heaps.to_le_bytes()].concat());
        self.crc.update(&solved.remoteness.iter().flat_map(|r| r.to_le_bytes()).collect::<Vec<u8>>());
        self.counts.save(solved)
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let convention = Convention::from_misere(args.get(1).is_none_or(|a| a != "normal"));
    let which = args.get(2).map_or("retrograde", |s| s.as_str());
    let nim = GameSpec::nim();
    let heaps: u32 = args.get(3).map_or(Ok(8), |a| a.parse())?;
    let max_heap: u32 = args.get(4).map_or(Ok(32), |a| a.parse())?;
    let universe = Universe::new(nim.rules(), "nim", None, Some(max_heap), Some(heaps))?;
    for strategy in [Strategy::Retrograde, Strategy::Sweep] {
        let name = if strategy == Strategy::Retrograde { "retrograde" } else { "sweep" };
        if which != "both" && which != name {
            continue;
        }
        let mut store = Digest { counts: DiscardStore::new(convention), crc: crc32fast::Hasher::new() };
        let options = SolveOptions { convention, universe, nim_values: false, strategy };
        let report = solve(&nim, &options, &mut store, &nimdb::solve::Silent)?;
        println!(
            "{name:>10} nim {heaps}x{max_heap} {convention}: {} positions, {} losses, {:.2} s, {:.2} M positions/s, {} edges ({:.1} M edges/s), peak window {:.1} MB, tiers crc32 {:08x}",
            store.counts.positions,
            store.counts.losses,
            report.seconds,
            store.counts.positions as f64 / report.seconds / 1e6,
            report.edges,
            report.edges as f64 / report.seconds / 1e6,
            report.peak_window_bytes as f64 / 1e6,
            store.crc.clone().finalize()
        );
    }
    Ok(())
}
