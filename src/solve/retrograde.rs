//! Retrograde solving driven by the losses.
//!
//! Tiers are finished in solve order (children first). When a tier comes up, every win in
//! it has already been marked by its losing children with `1 + least loss remoteness`;
//! the unmarked positions are losses (or terminals), and only they read their children to
//! find the greatest remoteness among them. The new losses then mark their parents in later
//! tiers. The work is proportional to the losses' children and parents, not to all edges.

use std::time::Instant;

use rayon::prelude::*;

use crate::game::{HeapRules, MoveTable};
use crate::index::{PartitionTable, TierId};

use super::edges::{ParentBounds, for_each_child, for_each_parent};
use super::window::{TierValues, Window};
use super::{Progress, SolveOptions, SolveReport, SolvedTier, TierStore, UNKNOWN, reach};

pub(super) fn run<R: HeapRules>(
    rules: &R,
    options: &SolveOptions,
    table: &PartitionTable,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
) -> anyhow::Result<SolveReport> {
    let universe = &options.universe;
    let convention = options.convention;
    let tiers = universe.tiers();
    let size = |t: TierId| table.tier_size(t.total, t.heaps);
    let stored = store.solved_tiers()?;
    // Stored tiers are a prefix of the solve order: each is committed before the next starts.
    let first = tiers.iter().position(|t| !stored.contains(t)).unwrap_or(tiers.len());
    let mut report = SolveReport { positions: tiers.iter().map(|&t| size(t)).sum(), ..Default::default() };
    progress.start(report.positions, tiers[..first].iter().map(|&t| size(t)).sum());
    if first == tiers.len() {
        return Ok(report);
    }

    let reach = reach(rules, universe);
    let moves = MoveTable::new(rules, universe.part_cap());
    let mut window = Window::new(universe);
    let marker = Marker {
        rules,
        table,
        universe_total: universe.max_total,
        reach,
        bounds_heap: universe.part_cap(),
        bounds_heaps: universe.heaps_cap(),
    };

    // Resume: reload the stored tiers later tiers need as children, and let their losses
    // mark their parents again (those marks were in memory only).
    let resume_total = tiers[first].total;
    for &tier in &tiers[..first] {
        if tier.total + reach >= resume_total {
            let values = store.load(tier)?;
            report.edges +=
                marker.mark_parents(tier, &values.remoteness, convention, &mut window, Some(&stored));
            window.put(tier, TierValues { remoteness: values.remoteness, nim_values: None });
        }
    }

    let mut current_total = resume_total;
    for &tier in &tiers[first..] {
        if tier.total != current_total {
            current_total = tier.total;
            window.evict_below(current_total.saturating_sub(reach));
        }
        let started = Instant::now();
        let mut values =
            window.take(tier).map(|v| v.remoteness).unwrap_or_else(|| vec![UNKNOWN; size(tier) as usize]);

        // Unmarked positions are losses (or terminals): each delays as long as it can.
        let unmarked: Vec<u64> =
            (0..values.len() as u64).filter(|&r| values[r as usize] == UNKNOWN).collect();
        let window_ref = &window;
        let settled: Vec<(u16, u64)> = unmarked
            .par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(heaps, buf), &rank| {
                    table.unrank(tier.total, tier.heaps, rank, heaps);
                    let mut longest = None::<u16>;
                    let edges = for_each_child(&moves, heaps, buf, |child, taken| {
                        let child_tier = TierId { total: tier.total - taken, heaps: child.len() as u32 };
                        let r = window_ref.get(child_tier).expect("child tier in memory").remoteness
                            [table.rank(child) as usize];
                        debug_assert!(
                            convention.is_win(r as u32),
                            "unmarked position {heaps:?} has a losing child {child:?}"
                        );
                        longest = Some(longest.map_or(r, |l| l.max(r)));
                    });
                    (longest.map_or(0, |l| l + 1), edges)
                },
            )
            .collect();
        for (&rank, &(r, edges)) in unmarked.iter().zip(&settled) {
            values[rank as usize] = r;
            report.edges += edges;
        }

        let solved = SolvedTier { tier, remoteness: values, nim_values: None, seconds: 0.0 };
        report.edges += marker.mark_parents(tier, &solved.remoteness, convention, &mut window, None);
        let solved = SolvedTier { seconds: started.elapsed().as_secs_f64(), ..solved };
        store.save(&solved)?;
        report.solved_now += solved.remoteness.len() as u64;
        report.losses_now += solved.losses(convention);
        report.tiers_now += 1;
        progress.tier_done(tier, solved.remoteness.len() as u64);
        window.put(tier, TierValues { remoteness: solved.remoteness, nim_values: None });
    }
    report.peak_window_bytes = window.peak_bytes();
    Ok(report)
}

/// Marks the parents of a tier's losses as wins.
struct Marker<'a, R> {
    rules: &'a R,
    table: &'a PartitionTable,
    universe_total: u32,
    reach: u32,
    bounds_heap: u32,
    bounds_heaps: u32,
}

impl<R: HeapRules> Marker<'_, R> {
    /// Every loss in `values` (tier `tier`) offers its parents a win of remoteness one more
    /// than its own; each parent keeps the least. With `skip`, parents in those (already
    /// stored) tiers are left alone. Returns the number of parent links followed.
    fn mark_parents(
        &self,
        tier: TierId,
        values: &[u16],
        convention: crate::game::Convention,
        window: &mut Window,
        skip: Option<&std::collections::BTreeSet<TierId>>,
    ) -> u64 {
        let bounds = ParentBounds {
            extra_tokens: self.reach.min(self.universe_total - tier.total),
            max_heap: self.bounds_heap,
            max_heaps: self.bounds_heaps,
        };
        let mut heaps = Vec::new();
        let mut buf = Vec::new();
        let mut edges = 0;
        for (rank, &r) in values.iter().enumerate() {
            if convention.is_win(r as u32) {
                continue;
            }
            self.table.unrank(tier.total, tier.heaps, rank as u64, &mut heaps);
            let offer = r + 1;
            edges += for_each_parent(self.rules, &heaps, bounds, &mut buf, |parent, added| {
                let parent_tier = TierId { total: tier.total + added, heaps: parent.len() as u32 };
                if skip.is_some_and(|s| s.contains(&parent_tier)) {
                    return;
                }
                let slot = &mut window.pending_mut(parent_tier, self.table)[self.table.rank(parent) as usize];
                *slot = (*slot).min(offer);
            });
        }
        edges
    }
}
