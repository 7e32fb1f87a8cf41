//! The generic solver: outcome and remoteness of every position of any [`Family`]'s
//! [`PositionSpace`], through the family's moves and the space's (tier, rank) alone (the
//! heap games' specialised tier solvers give the same tiers byte for byte, faster).
//!
//! - An **acyclic** family (every move lowers the tier total, or keeps it and adds heaps) is
//!   solved tier by tier, total ascending and heap count descending: each position reads its children, which lie in tiers already solved. Each
//!   tier is stored as it is finished, so an interrupted solve resumes.
//! - A **loopy** family is solved whole, by retrograde analysis with option counters: the
//!   terminal positions are decided first; a decided loss makes every parent a win one
//!   move further, and a decided win takes one from each parent's count of undecided
//!   options, the parent becoming a loss one move further when its count reaches 0. Taken
//!   in order of remoteness (a queue), this gives each win its shortest and each loss its
//!   longest remoteness. What is never decided is a draw ([`DRAW`]).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Instant;

use crate::game::{Convention, DRAW, Family};
use crate::index::{PositionSpace, TierId};

use super::{Progress, SolveError, SolveReport, SolvedTier, TierStore};

/// The most positions a loopy family's solve holds (it keeps the whole graph).
pub const MAX_LOOPY_POSITIONS: u64 = 50_000_000;

/// Bytes a loopy solve holds per position: its option and parent starts (8 each), its
/// count of undecided options (4), its value (2) and its place in the queue (up to 16, a
/// `VecDeque` that doubles).
pub const LOOPY_BYTES_PER_POSITION: u64 = 38;

/// Bytes a loopy solve holds per edge: the option and the parent, 4 each (the options'
/// vector may have doubled past them, but pages never written are not resident).
pub const LOOPY_BYTES_PER_EDGE: u64 = 8;

/// Copies of a tier's values a solve may hold while it is stored, at 2 bytes a position:
/// the one handed to the sink, the store's writer queue (8 tiers), the tier being encoded
/// and its payload.
pub const IN_FLIGHT_TIERS: u64 = 11;

/// Bytes a solve holds per tier beyond its positions: its place in the solve's tables and
/// its row in the database's cache (what counts when a space has many small tiers, as
/// `raise:C`'s has).
pub const BYTES_PER_TIER: u64 = 64;

/// Solves `family` over `space` into `store`, resuming from the tiers it holds.
pub fn solve_family(
    family: &dyn Family,
    space: &dyn PositionSpace,
    convention: Convention,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    if family.loopy() {
        solve_loopy(family, space, convention, store, progress)
    } else {
        solve_acyclic(family, space, convention, store, progress)
    }
}

/// The remoteness of a position from its children's, as the solvers of heap games do: a
/// win one more than its shortest losing child, a loss one more than its longest child.
fn settle(convention: Convention, children: impl Iterator<Item = u16>) -> u16 {
    let mut any = false;
    let mut best_loss: Option<u16> = None;
    let mut longest = 0u16;
    for r in children {
        any = true;
        if !convention.is_win(r as u32) {
            best_loss = Some(best_loss.map_or(r, |b| b.min(r)));
        }
        longest = longest.max(r);
    }
    match (any, best_loss) {
        (false, _) => 0,
        (true, Some(l)) => l + 1,
        (true, None) => longest + 1,
    }
}

/// Where each tier's positions start in one array of the whole space: a dense table by
/// (total, heaps), so a child's or parent's index costs its rank and two reads.
struct Offsets {
    /// The tiers in solve order.
    tiers: Vec<TierId>,
    /// `start[i]`: the first index of tier `i`; `start[tiers.len()]` the positions.
    start: Vec<u64>,
    /// The tier index of (total, heaps), at `total × stride + heaps` (`u32::MAX`: none).
    slot: Vec<u32>,
    stride: usize,
}

impl Offsets {
    fn new(space: &dyn PositionSpace) -> Offsets {
        let tiers = space.tiers();
        let stride = tiers.iter().map(|t| t.heaps as usize).max().unwrap_or(0) + 1;
        let totals = space.bounds().max_total as usize + 1;
        let mut slot = vec![u32::MAX; totals * stride];
        let mut start = Vec::with_capacity(tiers.len() + 1);
        let mut at = 0u64;
        for (i, t) in tiers.iter().enumerate() {
            slot[t.total as usize * stride + t.heaps as usize] = i as u32;
            start.push(at);
            at += space.size(*t);
        }
        start.push(at);
        Offsets { tiers, start, slot, stride }
    }
    fn tier_index(&self, tier: TierId) -> usize {
        self.slot[tier.total as usize * self.stride + tier.heaps as usize] as usize
    }
    /// The index of `position`'s (tier, rank), and its tier's index.
    fn of(&self, space: &dyn PositionSpace, position: &[u32]) -> Option<(usize, usize)> {
        let (t, r) = space.locate(position)?;
        let i = self.tier_index(t);
        Some((self.start[i] as usize + r as usize, i))
    }
}

/// Not yet known (an unsolved position no losing child has marked).
const UNSET: u16 = u16::MAX;

fn solve_acyclic(
    family: &dyn Family,
    space: &dyn PositionSpace,
    convention: Convention,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    let started = Instant::now();
    let offsets = Offsets::new(space);
    let tiers = offsets.tiers.clone();
    let positions = offsets.start[tiers.len()];
    let stored = store.solved_tiers()?;
    let done: u64 = tiers.iter().filter(|t| stored.contains(t)).map(|&t| space.size(t)).sum();
    progress.start(positions, done);
    let mut report = SolveReport { positions, ..SolveReport::default() };
    let is_stored: Vec<bool> = tiers.iter().map(|t| stored.contains(t)).collect();
    // Every position's remoteness, in one array. With parents listed (the loss-driven way),
    // an unsolved position holds the least remoteness + 1 of a losing child that marked it:
    // it is a win with that remoteness; a position no loss marked is a loss, and only then
    // are its children read (each a win: one more than the longest).
    let mut value = vec![UNSET; positions as usize];
    let bounds = space.bounds();
    let max_heap = bounds.max_heap.unwrap_or(bounds.max_total).min(bounds.max_total);
    let (mut pos, mut buf, mut kids) = (Vec::new(), Vec::new(), Vec::new());
    let lists_parents = family.for_each_parent(&[], 0, 0, &mut buf, &mut |_| {});
    // Marks the unsolved parents of a loss of remoteness `r`.
    let mark = |value: &mut Vec<u16>, loss: &[u32], r: u16, buf: &mut Vec<u32>| {
        family.for_each_parent(loss, bounds.max_total, max_heap, buf, &mut |parent| {
            if let Some((at, tier)) = offsets.of(space, parent)
                && !is_stored[tier]
            {
                let v = &mut value[at];
                if *v == UNSET || *v > r + 1 {
                    *v = r + 1;
                }
            }
        });
    };
    for (i, &tier) in tiers.iter().enumerate() {
        let start = offsets.start[i] as usize;
        let size = space.size(tier);
        if is_stored[i] {
            let t = store.load(tier)?;
            check_size(space, tier, t.remoteness.len() as u64)?;
            value[start..start + size as usize].copy_from_slice(&t.remoteness);
            if lists_parents {
                for (rank, &r) in t.remoteness.iter().enumerate() {
                    if !convention.is_win(r as u32) {
                        space.unrank(tier, rank as u64, &mut pos);
                        mark(&mut value, &pos, r, &mut buf);
                    }
                }
            }
            continue;
        }
        if progress.interrupted() {
            store.finish()?;
            return Err(SolveError::Interrupted { tiers: report.tiers_now, positions: report.solved_now });
        }
        let clock = Instant::now();
        for rank in 0..size {
            let at = start + rank as usize;
            if lists_parents && value[at] != UNSET {
                continue;
            }
            space.unrank(tier, rank, &mut pos);
            kids.clear();
            family.for_each_child(&pos, &mut buf, &mut |child| {
                let (c, _) = offsets.of(space, child).expect("a move stays in the space");
                // Children lie in lower totals, or in the same total with more heaps (a split
                // that takes nothing), whose tiers come first.
                kids.push(value[c]);
            });
            report.edges += kids.len() as u64;
            debug_assert!(kids.iter().all(|&r| r != UNSET), "a child's tier is solved before its parent's");
            let r = settle(convention, kids.iter().copied());
            value[at] = r;
            if lists_parents && !convention.is_win(r as u32) {
                mark(&mut value, &pos, r, &mut buf);
            }
        }
        let seconds = clock.elapsed().as_secs_f64();
        let tier_values = value[start..start + size as usize].to_vec();
        save(store, progress, &mut report, convention, tier, tier_values, seconds)?;
    }
    store.finish()?;
    report.peak_window_bytes = 2 * positions;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Stores a newly solved tier, counts it in the run's report and tells the progress.
fn save(
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    report: &mut SolveReport,
    convention: Convention,
    tier: TierId,
    remoteness: Vec<u16>,
    seconds: f64,
) -> Result<SolvedTier, SolveError> {
    let size = remoteness.len() as u64;
    let solved = SolvedTier { tier, remoteness, nim_values: None, seconds };
    report.solved_now += size;
    report.losses_now += solved.losses(convention);
    report.tiers_now += 1;
    store.save(solved.clone())?;
    progress.tier_done(tier, size);
    Ok(solved)
}

fn check_size(space: &dyn PositionSpace, tier: TierId, held: u64) -> Result<(), SolveError> {
    let expected = space.size(tier);
    if held != expected {
        return Err(SolveError::CorruptTier { tier, held, expected });
    }
    Ok(())
}

fn solve_loopy(
    family: &dyn Family,
    space: &dyn PositionSpace,
    convention: Convention,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    let started = Instant::now();
    let tiers = space.tiers();
    let positions: u64 = tiers.iter().map(|&t| space.size(t)).sum();
    if positions > MAX_LOOPY_POSITIONS {
        return Err(SolveError::LoopyTooLarge { positions, limit: MAX_LOOPY_POSITIONS });
    }
    let stored: BTreeSet<TierId> = store.solved_tiers()?;
    let all_stored = tiers.iter().all(|t| stored.contains(t));
    progress.start(positions, if all_stored { positions } else { 0 });
    let mut report = SolveReport { positions, ..SolveReport::default() };
    if all_stored {
        report.seconds = started.elapsed().as_secs_f64();
        return Ok(report);
    }
    // Global index = offset of the tier + rank.
    let mut offset = HashMap::new();
    let mut at = 0u64;
    for &t in &tiers {
        offset.insert(t, at);
        at += space.size(t);
    }
    let n = positions as usize;
    // Options of every position, as global indices (children first, parents derived).
    let mut option_start = Vec::with_capacity(n + 1);
    let mut options: Vec<u32> = Vec::new();
    let (mut pos, mut buf) = (Vec::new(), Vec::new());
    for &tier in &tiers {
        if progress.interrupted() {
            return Err(SolveError::Interrupted { tiers: 0, positions: 0 });
        }
        for rank in 0..space.size(tier) {
            space.unrank(tier, rank, &mut pos);
            option_start.push(options.len());
            family.for_each_child(&pos, &mut buf, &mut |child| {
                let (t, r) = space.locate(child).expect("a move stays in the space");
                options.push((offset[&t] + r) as u32);
            });
        }
    }
    option_start.push(options.len());
    report.edges = options.len() as u64;
    // Parents, by counting sort on the option lists.
    let mut parent_start = vec![0usize; n + 1];
    for &o in &options {
        parent_start[o as usize + 1] += 1;
    }
    for i in 0..n {
        parent_start[i + 1] += parent_start[i];
    }
    let mut fill = parent_start.clone();
    let mut parents = vec![0u32; options.len()];
    for v in 0..n {
        for &o in &options[option_start[v]..option_start[v + 1]] {
            parents[fill[o as usize]] = v as u32;
            fill[o as usize] += 1;
        }
    }
    drop(fill);
    let mut undecided: Vec<u32> = (0..n).map(|v| (option_start[v + 1] - option_start[v]) as u32).collect();
    let mut value = vec![DRAW; n];
    let mut queue = VecDeque::new();
    for v in 0..n {
        if undecided[v] == 0 {
            value[v] = 0;
            queue.push_back(v);
        }
    }
    let mut settled = 0u32;
    while let Some(v) = queue.pop_front() {
        settled = settled.wrapping_add(1);
        if settled.is_multiple_of(1 << 16) && progress.interrupted() {
            return Err(SolveError::Interrupted { tiers: 0, positions: 0 });
        }
        let r = value[v];
        if r >= DRAW - 1 {
            return Err(SolveError::RemotenessOverflow(r as u32));
        }
        let v_wins = convention.is_win(r as u32);
        for &p in &parents[parent_start[v]..parent_start[v + 1]] {
            let p = p as usize;
            if value[p] != DRAW {
                continue;
            }
            if !v_wins {
                value[p] = r + 1;
                queue.push_back(p);
            } else {
                undecided[p] -= 1;
                if undecided[p] == 0 {
                    value[p] = r + 1;
                    queue.push_back(p);
                }
            }
        }
    }
    for &tier in &tiers {
        let start = offset[&tier] as usize;
        let size = space.size(tier) as usize;
        if stored.contains(&tier) {
            continue;
        }
        save(store, progress, &mut report, convention, tier, value[start..start + size].to_vec(), 0.0)?;
    }
    store.finish()?;
    report.peak_window_bytes = positions * LOOPY_BYTES_PER_POSITION + report.edges * LOOPY_BYTES_PER_EDGE;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The bytes of each stored record of a family's tier: its remoteness (a draw is
/// [`DRAW`]).
pub const RECORD_BYTES: u64 = 2;

/// What a generic solve will take, before it runs: the process itself (code, SQLite's
/// page cache, threads), the space's rank tables, every tier (2 bytes a position) and
/// [`BYTES_PER_TIER`] a tier, the tiers being stored ([`IN_FLIGHT_TIERS`] copies of the
/// largest) and SQLite's page cache; a loopy family's solve holds its whole graph instead of
/// the tiers' values ([`LOOPY_BYTES_PER_POSITION`] a position and [`LOOPY_BYTES_PER_EDGE`]
/// an edge, at most `moves_bound` edges a position).
pub fn estimate_family(space: &dyn PositionSpace, loopy: bool, moves_bound: u64) -> super::Estimate {
    let tiers = space.tiers();
    let sizes: Vec<u64> = tiers.iter().map(|&t| space.size(t)).collect();
    let positions: u64 = sizes.iter().sum();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let held = if loopy {
        let mut edges = positions * moves_bound;
        if let Some(cap) = space.bounds().max_heap {
            // The one loopy family, Nim with raising (raise:C), has a capped multiset space in
            // which heaps of one size move alike: a heap of v to each smaller size, or to
            // v + 1 below the cap.
            edges = edges.min(size_moves(space, &tiers, cap, |v| v as u64 + u64::from(v < cap)));
        }
        positions * LOOPY_BYTES_PER_POSITION + edges * LOOPY_BYTES_PER_EDGE
    } else {
        2 * positions
    };
    let (disk_bytes, log_bytes, roomy_log_bytes) =
        super::footprint(sizes.iter().map(|&size| (size, RECORD_BYTES)));
    let page_cache = super::page_cache_bytes(disk_bytes);
    let memory_bytes = super::PROCESS_BYTES
        + space.index_bytes()
        + held
        + BYTES_PER_TIER * tiers.len() as u64
        + IN_FLIGHT_TIERS * 2 * largest
        + page_cache;
    super::Estimate {
        tiers: tiers.len() as u64,
        positions,
        memory_bytes,
        window_bytes: 0,
        spill_reads_bytes: 0,
        whole_total_bytes: 0,
        disk_bytes,
        log_bytes,
        roomy_log_bytes,
        largest_tier: largest,
        record_bytes: 2,
    }
}

/// Σ over the positions of a multiset space capped at `cap` of `moves(v)` for each distinct
/// heap size v it holds (its moves, where equal heaps move alike): the positions of tier
/// (t, k) that hold a heap of v are, that heap taken away, the positions of tier
/// (t − v, k − 1), so the sum is over tiers and sizes alone.
fn size_moves(space: &dyn PositionSpace, tiers: &[TierId], cap: u32, moves: impl Fn(u32) -> u64) -> u64 {
    tiers
        .iter()
        .filter(|t| t.heaps > 0)
        .flat_map(|t| {
            (1..=cap.min(t.total)).map(move |v| (v, TierId { total: t.total - v, heaps: t.heaps - 1 }))
        })
        .map(|(v, below)| moves(v) * space.size(below))
        .sum()
}
