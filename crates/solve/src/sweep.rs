//! The plain forward sweep: every child of every position, tier by tier.
//!
//! This is the baseline the retrograde solver is measured against, and the strategy that
//! computes nim-values (a mex needs every child's value).

use std::time::Instant;

use rayon::prelude::*;

use super::window::{Spill, TierValues, Window};
use super::{
    Plan, Progress, SolveError, SolveOptions, SolveReport, SolvedTier, TierStore, load_checked, reach,
};
use crate::game::{Convention, TierRules};
use crate::index::{PartitionTable, TierId, TierWalk};

/// Positions per parallel work unit.
const CHUNK: usize = 2048;

pub(super) fn run<R: TierRules>(
    rules: &R,
    options: &SolveOptions,
    table: &PartitionTable,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    spill: Option<&Spill>,
) -> Result<SolveReport, SolveError> {
    let universe = &options.universe;
    let convention = options.convention;
    let want_values = options.nim_values;
    let size = |t: TierId| table.tier_size(t.total, t.heaps);
    let (Plan { tiers, stored, first }, mut report) = Plan::new(options, table, store, progress)?;
    if first == tiers.len() {
        return Ok(report);
    }
    let reach = reach(rules, universe);
    let moves = rules.child_table(universe.part_cap());
    let mut window = Window::spilling(universe, spill.cloned());
    let narrow = Window::narrow(universe);
    let resume_total = tiers[first].total;
    for &tier in &tiers[..first] {
        if tier.total + reach >= resume_total {
            let v = load_checked(store, tier, size(tier))?;
            if want_values && v.nim_values.is_none() {
                return Err(SolveError::NoNimValues(tier));
            }
            window
                .put(tier, TierValues::solved(v.remoteness, v.nim_values, narrow))
                .map_err(SolveError::Spill)?;
        }
    }

    let mut current_total = resume_total;
    for &tier in &tiers[first..] {
        if progress.interrupted() {
            store.finish()?;
            return Err(SolveError::Interrupted { tiers: report.tiers_now, positions: report.solved_now });
        }
        if tier.total != current_total {
            current_total = tier.total;
            window.evict_below(current_total.saturating_sub(reach));
        }
        if stored.contains(&tier) {
            // Stored by another run after a gap (or concurrently): reuse it.
            let v = load_checked(store, tier, size(tier))?;
            window
                .put(tier, TierValues::solved(v.remoteness, v.nim_values, narrow))
                .map_err(SolveError::Spill)?;
            progress.tier_done(tier, size(tier));
            continue;
        }
        let started = Instant::now();
        let n = size(tier) as usize;
        let mut remoteness = vec![0u16; n];
        let mut nim_values = if want_values { vec![0u16; n] } else { Vec::new() };
        let window_ref = &window;
        let moves_ref = &moves;
        let mut value_chunks: Vec<Option<&mut [u16]>> = if want_values {
            nim_values.chunks_mut(CHUNK).map(Some).collect()
        } else {
            (0..n.div_ceil(CHUNK)).map(|_| None).collect()
        };
        let edges: u64 = remoteness
            .par_chunks_mut(CHUNK)
            .zip(value_chunks.par_iter_mut())
            .enumerate()
            .map(|(chunk_index, (rem, vals))| {
                let first_rank = (chunk_index * CHUNK) as u64;
                let mut start = Vec::new();
                table.unrank(tier.total, tier.heaps, first_rank, &mut start);
                let mut walk = TierWalk::starting_at(start, table.max_part());
                let mut buf = Vec::new();
                let mut seen = Vec::new();
                let mut edges = 0;
                for (i, slot) in rem.iter_mut().enumerate() {
                    let heaps = walk.next().expect("tier walk ends with the tier");
                    let (r, g, e) = solve_position(
                        rules,
                        heaps,
                        tier,
                        convention,
                        want_values,
                        moves_ref,
                        table,
                        window_ref,
                        &mut buf,
                        &mut seen,
                    );
                    *slot = r;
                    if let Some(v) = vals.as_deref_mut() {
                        v[i] = g;
                    }
                    edges += e;
                }
                edges
            })
            .sum();
        report.edges += edges;
        let solved = SolvedTier {
            tier,
            remoteness,
            nim_values: want_values.then_some(nim_values),
            seconds: started.elapsed().as_secs_f64(),
        };
        // The window's copy first: the store takes the tier.
        let kept = TierValues::solved(solved.remoteness.clone(), solved.nim_values.clone(), narrow);
        report.solved_now += n as u64;
        report.losses_now += solved.losses(convention);
        report.tiers_now += 1;
        store.save(solved)?;
        progress.tier_done(tier, n as u64);
        window.put(tier, kept).map_err(SolveError::Spill)?;
    }
    report.peak_window_bytes = window.peak_bytes();
    report.spilled_bytes = window.spilled_bytes();
    Ok(report)
}

/// Outcome, remoteness and nim-value of one position from all its children.
#[allow(clippy::too_many_arguments)]
#[inline]
fn solve_position<R: TierRules>(
    rules: &R,
    heaps: &[u32],
    tier: TierId,
    convention: Convention,
    want_values: bool,
    moves: &R::ChildTable,
    table: &PartitionTable,
    window: &Window,
    buf: &mut Vec<u32>,
    seen: &mut Vec<u64>,
) -> (u16, u16, u64) {
    let mut fastest_win = u16::MAX; // least remoteness among losing children
    let mut longest = 0u16; // greatest remoteness among children
    let mut any_child = false;
    seen.clear();
    let edges = rules.for_each_child(moves, heaps, buf, |child, taken| {
        any_child = true;
        let child_tier = TierId { total: tier.total - taken, heaps: child.len() as u32 };
        let values = window.get(child_tier).expect("child tier in memory");
        let rank = table.rank(child) as usize;
        let r = values.remoteness.get(rank);
        if convention.is_win(r as u32) {
            longest = longest.max(r);
        } else {
            fastest_win = fastest_win.min(r);
        }
        if want_values {
            let g = values.nim_values.as_ref().expect("child nim-values")[rank] as usize;
            if seen.len() <= g / 64 {
                seen.resize(g / 64 + 1, 0);
            }
            seen[g / 64] |= 1 << (g % 64);
        }
    });
    if !any_child {
        // A terminal: the player to move wins only under misère play.
        let g = u16::from(convention.terminal_is_win());
        return (0, g, 0);
    }
    let r = if fastest_win != u16::MAX { fastest_win + 1 } else { longest + 1 };
    let mex = seen
        .iter()
        .enumerate()
        .find(|(_, w)| **w != u64::MAX)
        .map_or(seen.len() * 64, |(i, w)| i * 64 + w.trailing_ones() as usize);
    (r, mex as u16, edges)
}
