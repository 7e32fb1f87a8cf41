//! Solves a heap game to a total without storing anything, and prints the figures and a
//! digest of every tier: the workload the performance chapter profiles
//! (`docs/performance.md`), small enough for `valgrind --tool=callgrind`.
//!
//! `cargo run --release -p nimdb-solve --example splitting -- GAME TOTAL [normal|misere] [partitioned]`
//! (misère by default; `partitioned` solves with the partitioned solver as one member alone,
//! what `nimdb solve --mpi` runs without `mpirun`). The digest (FNV-1a over each tier's id and remoteness, in solve
//! order) is the same for two builds that solve the same tiers.

use std::collections::BTreeSet;

use nimdb_core::game::{Convention, GameSpec};
use nimdb_core::index::{TierId, Universe};
use nimdb_solve::{
    Alone, DiscardStore, SinkError, SolveOptions, SolvedTier, Strategy, TierStore, solve, solve_partitioned,
};

/// Counts what it is given, as [`DiscardStore`] does, and digests it.
struct Digest {
    counts: DiscardStore,
    hash: u64,
}

impl Digest {
    fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.hash = (self.hash ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl TierStore for Digest {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        Ok(BTreeSet::new())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        self.counts.load(tier)
    }
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        self.eat(&solved.tier.total.to_le_bytes());
        self.eat(&solved.tier.heaps.to_le_bytes());
        for r in &solved.remoteness {
            self.eat(&r.to_le_bytes());
        }
        self.counts.save(solved)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(game), Some(total)) = (args.get(1), args.get(2)) else {
        return Err("usage: splitting GAME TOTAL [normal|misere] [partitioned]".into());
    };
    let spec: GameSpec = game.parse()?;
    let total: u32 = total.parse()?;
    let convention = Convention::from_misere(args.get(3).is_none_or(|a| a != "normal"));
    let universe = Universe::new(spec.rules(), game, Some(total), None, None)?;
    let options = SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
    let mut store = Digest { counts: DiscardStore::new(convention), hash: 0xcbf2_9ce4_8422_2325 };
    let report = if args.get(4).is_some_and(|a| a == "partitioned") {
        solve_partitioned(&spec, &options, &mut store, &nimdb_solve::Silent, &Alone)?
    } else {
        solve(&spec, &options, &mut store, &nimdb_solve::Silent)?
    };
    println!(
        "{game} {convention} total {total}: {} positions, {} losses, {} edges ({:.2} a position), {:.2} s, peak window {:.1} MB, digest {:016x}",
        store.counts.positions,
        store.counts.losses,
        report.edges,
        report.edges as f64 / store.counts.positions.max(1) as f64,
        report.seconds,
        report.peak_window_bytes as f64 / 1e6,
        store.hash
    );
    Ok(())
}
