//! Retrograde solving driven by the losses.
//!
//! Tiers are finished in solve order (children first). A position is a win as soon as one
//! child is a loss, and losses are rare, so when a tier comes up it is first *marked*: every
//! loss in the tiers below it offers each of its parents in this tier a win one move longer
//! than itself, and each position keeps the least offer. The unmarked positions are the
//! losses (or terminals); only they read their children, to find the longest. The work is
//! proportional to the losses' parents and children, not to all edges.
//!
//! Marking gathers into one total at a time (rather than scattering each loss's parents
//! over the many totals above it), so the arrays written are few. For heap games every tier
//! of a total is marked in one pass: each loss is unranked once per total it marks, its
//! rank terms loaded into a [`Shape`], and each parent ranked from them in a few table
//! reads, whatever tier of that total it falls in (a solve that spills marks tier by tier,
//! to hold one tier's array, not a total's). Families whose moves change several heaps
//! mark tier by tier, building each parent and ranking it. Where the window keeps each
//! loss's rank terms (heaps capped, a long reach), a batch of several totals is marked in
//! one pass, each loss's parents for every total of the batch summed together
//! ([`Shape::parents_in_lanes`]).
//!
//! Reading children goes fewest tokens taken first, and stops once no child tier further
//! down holds a remoteness above the longest found. Because marks come from stored
//! losses, a killed solve resumes with nothing to replay.

use std::cell::Cell;
use std::ops::{Range, RangeInclusive};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::game::{Convention, ParentBounds, TierRules};
use crate::index::{PartitionTable, TierId, Universe};

use super::copies::{COPIES_MAX_BYTES, Copies, Mark as CopyMark};
use super::shape::{ParentKinds, ParentQuery, Shape, Terms};
use super::totals::{CountsByTotal, LANES};
use super::window::{Array, Column, Spill, TierValues, Window, prefetch};
use super::{
    Plan, Progress, SolveError, SolveOptions, SolveReport, SolvedTier, Team, TierStore, UNKNOWN,
    load_checked, reach,
};

/// Unmarked positions per parallel work unit when reading children.
const PULL_CHUNK: usize = 512;

/// The most tokens a move may take for a loss to mark the totals above it as soon as it is
/// settled (see [`Above`]): that many totals' one-byte marking arrays are held beside the
/// one being settled (Kayles, Dawson's Kayles: two).
const EARLY_REACH_MAX: u32 = 2;

/// Whether a solve of a heap game (with `batch` totals marked together and `reach`, in
/// `universe`, not spilling) has each loss mark the totals above it as soon as it is
/// settled (see [`Above`]): remoteness fits a byte, moves take at most [`EARLY_REACH_MAX`].
pub(super) fn marks_above_as_settled(batch: u32, reach: u32, universe: &Universe) -> bool {
    batch == 1 && Window::narrow(universe) && reach <= EARLY_REACH_MAX
}

/// Losses per parallel work unit when marking.
const MARK_CHUNK: usize = 1024;

/// Positions (and losses) per parallel work unit when a solved tier is kept (see
/// [`Retrograde::keep`]).
#[cfg(not(test))]
const KEEP_CHUNK: usize = 1 << 14;
/// In tests, few, so that the small tiers tested are kept in several chunks.
#[cfg(test)]
const KEEP_CHUNK: usize = 64;

/// The fewest positions of a tier kept in parallel: below it the hand-off to the pool
/// costs more than it saves.
const KEEP_PARALLEL_MIN: usize = 1 << 16;

/// Losses per parallel work unit when a solved tier's losses are decoded (see
/// [`Retrograde::keep`]): a loss's unranking costs a few hundred times a position's scan,
/// so the units are smaller than [`KEEP_CHUNK`], to share a tier's losses evenly.
#[cfg(not(test))]
const DECODE_CHUNK: usize = 512;
/// In tests, few, so that the small tiers tested are decoded in several chunks.
#[cfg(test)]
const DECODE_CHUNK: usize = 16;

/// The fewest losses of a tier decoded in parallel.
const DECODE_PARALLEL_MIN: usize = 2 * DECODE_CHUNK;

#[cfg(test)]
thread_local! {
    /// Tests lower [`KEEP_PARALLEL_MIN`] and [`DECODE_PARALLEL_MIN`] to keep small tiers
    /// through the parallel path.
    static KEEP_MIN: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Whether `len` items of a tier (positions, or losses to decode) are kept (and gathered,
/// and set up) in parallel: on a pool of several threads, from `min` (in tests, or from
/// what the test set on the solving thread).
fn in_parallel(len: usize, min: usize) -> bool {
    #[cfg(test)]
    let min = min.min(KEEP_MIN.with(|m| m.get()));
    rayon::current_num_threads() > 1 && len >= min && !SOLVING_THREAD_KEEPS.load(Ordering::Relaxed)
}

/// [`in_parallel`] for a tier's `len` positions.
fn keep_in_parallel(len: usize) -> bool {
    in_parallel(len, KEEP_PARALLEL_MIN)
}

/// Set by [`keep_on_the_solving_thread`].
static SOLVING_THREAD_KEEPS: AtomicBool = AtomicBool::new(false);

/// With `true`, every solve in this process keeps each solved tier (and gathers its
/// unmarked positions, and sets up its arrays) on the solving thread alone, as the solver
/// did before branch `threads5`; with `false` (the default), in parallel where a tier is
/// large.
/// The tiers are the same either way. For the benchmark that compares the two in the same
/// run (`benches/threads.rs`); not part of the solver's interface.
#[doc(hidden)]
pub fn keep_on_the_solving_thread(alone: bool) {
    SOLVING_THREAD_KEEPS.store(alone, Ordering::Relaxed);
}

/// The least reach (most tokens a move takes) at which the window keeps the losses' heaps
/// decoded: each loss is then read by about `reach` later totals, and unranking it each
/// time costs more than its bytes. Below it (Kayles, Dawson's Kayles) a loss is unranked
/// again each time, and the window holds only its rank (keeping Kayles's heaps decoded was
/// measured: no faster, and a third more memory).
pub(super) const DECODED_LOSSES_MIN_REACH: u32 = 4;

/// The most heaps a position may have for the window to keep each decoded loss's rank
/// terms and remoteness beside its heaps (4 bytes a heap and 2 more a loss): each loss is
/// then loaded once per total it marks without reading the rank table or its tier's column
/// (misère Nim 8×32: 0.89× the CPU, 29 MB more window). Where heaps are not capped (a
/// splitting game's positions have up to a total's heaps), the terms would cost more
/// memory than the heaps themselves.
const LOSS_TERMS_MAX_HEAPS: u32 = 16;

/// Totals marked together in one pass over the lower totals' losses where the window
/// keeps each loss's rank terms (see [`marked_totals`]).
const MARKED_TOTALS: u32 = LANES as u32;

/// The most totals marked together in one pass over the lower totals' losses where the
/// window keeps each loss's heaps decoded but not their rank terms (lines: heaps not
/// capped), within [`batch_last`]'s bound on their arrays. Lines misère 78, paired whole
/// processes against one total a pass: 0.93× the CPU with two totals, 0.84× with four,
/// 0.91× with eight (see `docs/performance.md`, issue 33's seventh round).
const DECODED_MARKED_TOTALS: u32 = 4;

/// How many totals the retrograde solver marks together (at most) from the lower totals'
/// losses, for a family that moves one heap at a time (`one_heap_moves`) with `reach` in
/// `universe`: [`MARKED_TOTALS`] where the window keeps each decoded
/// loss's rank terms (a loss is then loaded once for several totals instead of once for
/// each, and the arrays of that many totals are held, a few megabytes where heaps are
/// capped), [`DECODED_MARKED_TOTALS`] where it keeps the losses' heaps decoded (each loss
/// loaded into its shape once for the batch, its grown and joined parents walked for every
/// total of the batch at once), else one.
pub(super) fn marked_totals(one_heap_moves: bool, reach: u32, universe: &Universe) -> u32 {
    let decoded =
        one_heap_moves && reach >= DECODED_LOSSES_MIN_REACH && universe.part_cap() <= u8::MAX as u32;
    if decoded && universe.max_heaps.is_some_and(|h| h <= LOSS_TERMS_MAX_HEAPS) {
        MARKED_TOTALS
    } else if decoded {
        DECODED_MARKED_TOTALS
    } else {
        1
    }
}

/// The last total of the batch marked together from total `start`, of at most `batch`
/// totals (`per_total[t]`: the positions of total `t`). Where the solver sums the parents
/// in lanes (`lanes`, heaps capped: small totals) every batch has `batch` totals; else a
/// batch holds only the totals whose marking arrays come to at most twice those of the
/// largest total (which the solve holds alone at its end anyway), so that batching costs
/// at most one more largest total's arrays: lines to total 100 marks two totals a pass at
/// the top, 381 MB of arrays more than one.
pub(super) fn batch_last(start: u32, batch: u32, lanes: bool, per_total: &[u64]) -> u32 {
    if lanes {
        return start + (batch - 1);
    }
    let bound = 2 * per_total.iter().copied().max().unwrap_or(0);
    let at = |t: u32| per_total.get(t as usize).copied().unwrap_or(0);
    let (mut end, mut sum) = (start, at(start));
    while end + 1 < start + batch && (end as usize + 1) < per_total.len() && sum + at(end + 1) <= bound {
        end += 1;
        sum += at(end);
    }
    end
}

/// Whether the retrograde solver sums the parents of several totals in lanes
/// ([`Shape::parents_in_lanes`]): where the window keeps each decoded loss's rank terms.
pub(super) fn marks_in_lanes(one_heap_moves: bool, reach: u32, universe: &Universe) -> bool {
    one_heap_moves
        && reach >= DECODED_LOSSES_MIN_REACH
        && universe.part_cap() <= u8::MAX as u32
        && universe.max_heaps.is_some_and(|h| h <= LOSS_TERMS_MAX_HEAPS)
}

/// The fewest losses (over every source tier) marked in parallel: below it, the copies
/// (or atomics) and the thread hand-off cost more than they save.
const PARALLEL_MARK_MIN: usize = 1 << 13;

#[cfg(test)]
thread_local! {
    /// Tests lower [`PARALLEL_MARK_MIN`] and set the bound on the threads' copies (0: mark
    /// with atomics) to mark small universes through each parallel path.
    static MARK_LIMITS: Cell<(usize, u64)> = const { Cell::new((PARALLEL_MARK_MIN, COPIES_MAX_BYTES)) };
}

/// [`PARALLEL_MARK_MIN`] and [`COPIES_MAX_BYTES`] (in tests, what the test set on the
/// solving thread).
fn mark_limits() -> (usize, u64) {
    #[cfg(test)]
    return MARK_LIMITS.with(|m| m.get());
    #[cfg(not(test))]
    (PARALLEL_MARK_MIN, COPIES_MAX_BYTES)
}

pub(super) fn run<R: TierRules>(
    rules: &R,
    options: &SolveOptions,
    table: &PartitionTable,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    team: &dyn Team,
    spill: Option<&Spill>,
) -> Result<SolveReport, SolveError> {
    let universe = &options.universe;
    let convention = options.convention;
    let size = |t: TierId| table.tier_size(t.total, t.heaps);
    let (Plan { tiers, stored, first }, mut report) = Plan::new(options, table, store, progress)?;
    if first == tiers.len() {
        return Ok(report);
    }

    let solver = Retrograde {
        rules,
        table,
        terms: Terms::new(table),
        universe,
        convention,
        reach: reach(rules, universe),
        narrow: Window::narrow(universe),
        decode_losses: reach(rules, universe) >= DECODED_LOSSES_MIN_REACH
            && universe.part_cap() <= u8::MAX as u32,
        loss_terms: R::ONE_HEAP_MOVES && universe.max_heaps.is_some_and(|h| h <= LOSS_TERMS_MAX_HEAPS),
        by_total: marks_in_lanes(R::ONE_HEAP_MOVES, reach(rules, universe), universe)
            .then(|| CountsByTotal::new(table)),
        copies: Default::default(),
    };
    let mut window = Window::spilling(universe, spill.cloned());
    // Resume: reload the stored tiers that later tiers read as children or are marked from.
    let resume_total = tiers[first].total;
    for &tier in &tiers[..first] {
        if tier.total + solver.reach >= resume_total {
            let values = load_checked(store, tier, size(tier))?;
            window
                .put(tier, solver.keep(tier, solver.column(values.remoteness)))
                .map_err(SolveError::Spill)?;
        }
    }

    let mut current_total = resume_total;
    // Heap games mark the current total's unsolved tiers at once from the lower totals
    // (each loss is read once per total it marks, not once per tier). Where the window
    // keeps the losses' rank terms, a batch of several totals is marked at once from the
    // totals below the batch, and each later total of the batch then from the batch's
    // totals solved before it. A window that spills sets the batch's arrays aside in its
    // budget, spilling lower tiers to make room; where they do not fit even so, the batch
    // is marked tier by tier (`whole` false).
    let whole_totals = R::ONE_HEAP_MOVES;
    let batch = marked_totals(R::ONE_HEAP_MOVES, solver.reach, universe);
    let lanes = solver.by_total.is_some();
    let mut per_total = vec![0u64; tiers.iter().map(|t| t.total as usize + 1).max().unwrap_or(0)];
    for t in &tiers {
        per_total[t.total as usize] += size(*t);
    }
    // The tiers marked so far, the batch's first total, the last total marked from below
    // the batch and the last marked whole, and the seconds that marking took per position
    // (the batch's marking, and its current total's own).
    let mut pending: Vec<(TierId, Vec<u16>)> = Vec::new();
    let (mut batch_start, mut batch_end, mut marked_total) = (0, None::<u32>, None);
    let mut whole = false;
    let (mut mark_seconds_each, mut own_seconds_each) = (0.0, 0.0);
    // Where the remoteness fits a byte and moves take few tokens, a loss marks the totals
    // above it as soon as it is settled (see [`Above`]): `early` holds the one-byte marking
    // arrays of the unsolved tiers of the current total and the `reach` totals above it,
    // and `early_total` the total they were set up for.
    let early = whole_totals && spill.is_none() && marks_above_as_settled(batch, solver.reach, universe);
    let mut early_arrays: Vec<(TierId, Vec<u8>)> = Vec::new();
    let mut early_total = None::<u32>;
    for &tier in &tiers[first..] {
        if progress.interrupted() {
            store.finish()?;
            return Err(SolveError::Interrupted { tiers: report.tiers_now, positions: report.solved_now });
        }
        if tier.total != current_total {
            current_total = tier.total;
            window.evict_below(current_total.saturating_sub(solver.reach));
        }
        if early && early_total != Some(tier.total) {
            let started = Instant::now();
            let total = tier.total;
            // The losses of the totals from the resume on have marked the totals above them
            // (settled here, or loaded and marked from below); only tiers of this total mark
            // within it (splits that take nothing), so the rest of their ranks can go.
            window.forget_losses(resume_total..total);
            let end = total + solver.reach;
            for &t in &tiers[first..] {
                if (total..=end).contains(&t.total)
                    && !stored.contains(&t)
                    && !early_arrays.iter().any(|(held, _)| *held == t)
                {
                    early_arrays.push((t, unmarked(UNKNOWN_NARROW, size(t) as usize)));
                }
            }
            // What the totals below the resume offer: they were stored before this run.
            let from_stored = (total + 1).saturating_sub(resume_total).max(1);
            let mut targets: Vec<(TierId, &mut [u8])> = early_arrays
                .iter_mut()
                .filter(|(t, _)| t.total == total)
                .map(|(t, v)| (*t, &mut v[..]))
                .collect();
            if from_stored <= solver.reach {
                report.edges += solver.mark_totals(&mut targets, from_stored..=solver.reach, &window, team);
            }
            let positions: usize = targets.iter().map(|(_, v)| v.len()).sum();
            mark_seconds_each = started.elapsed().as_secs_f64() / positions.max(1) as f64;
            if total == resume_total {
                // The tiers of the resumed total stored before this run offer to the
                // totals above.
                report.edges +=
                    solver.mark_above_from(total, &mut early_arrays, &window, team, |t| t.total == total);
            }
            early_total = Some(total);
        }
        if stored.contains(&tier) {
            // Stored by another run after a gap (or concurrently): reuse it.
            let values = load_checked(store, tier, size(tier))?;
            window
                .put(tier, solver.keep(tier, solver.column(values.remoteness)))
                .map_err(SolveError::Spill)?;
            if early {
                // Its losses offer to the totals above, as a settled tier's do.
                report.edges +=
                    solver.mark_above_from(tier.total, &mut early_arrays, &window, team, |t| t == tier);
            }
            progress.tier_done(tier, size(tier));
            continue;
        }
        if !early && whole_totals && batch_end.is_none_or(|end| tier.total > end) {
            // A new batch, marked whole where its arrays fit (see `whole`): of fewer totals
            // where those of the whole batch do not (a spilling window near its top).
            let mut end = batch_last(tier.total, batch, lanes, &per_total);
            let marked_to = |end: u32| -> Vec<TierId> {
                tiers[first..]
                    .iter()
                    .filter(|t| (tier.total..=end).contains(&t.total) && !stored.contains(t))
                    .copied()
                    .collect()
            };
            window.unreserve();
            let mut marked = marked_to(end);
            loop {
                let bytes = marked.iter().map(|&t| 2 * size(t)).sum();
                whole = window.reserve(bytes, tier.total).map_err(SolveError::Spill)?;
                if whole || end == tier.total {
                    break;
                }
                end -= 1;
                marked = marked_to(end);
            }
            if whole {
                let started = Instant::now();
                pending = marked.into_iter().map(|t| (t, unmarked(UNKNOWN, size(t) as usize))).collect();
                let mut targets: Vec<(TierId, &mut [u16])> =
                    pending.iter_mut().map(|(t, v)| (*t, &mut v[..])).collect();
                report.edges += solver.mark_totals(&mut targets, 1..=solver.reach, &window, team);
                let positions: usize = pending.iter().map(|(_, v)| v.len()).sum();
                mark_seconds_each = started.elapsed().as_secs_f64() / positions.max(1) as f64;
                own_seconds_each = 0.0;
            }
            (batch_start, batch_end, marked_total) = (tier.total, Some(end), Some(tier.total));
        }
        let (remoteness, kept, seconds) = if early {
            // One byte a position from marking to the window's column: the store alone is
            // given two.
            let at = early_arrays
                .iter()
                .position(|(t, _)| *t == tier)
                .expect("the tier's marks were set up with its total");
            let mut marks = early_arrays.swap_remove(at).1;
            let started = Instant::now();
            // What the tiers of this total solved so far offer (splits that take nothing).
            report.edges += solver.mark_totals(&mut [(tier, &mut marks[..])], 0..=0, &window, team);
            min_all_narrow(team, &mut marks).map_err(SolveError::Team)?;
            let mut above: Vec<(TierId, &mut [u8])> = early_arrays
                .iter_mut()
                .filter(|(t, _)| t.total > tier.total)
                .map(|(t, v)| (*t, &mut v[..]))
                .collect();
            let above = Above::new(&mut above);
            report.edges += solver.settle_unmarked(tier, &mut marks, &window, team, Some(&above));
            drop(above);
            min_all_narrow(team, &mut marks).map_err(SolveError::Team)?;
            let remoteness = settled_wide(&marks);
            // This tier's share of its total's marking, by its positions.
            let seconds = started.elapsed().as_secs_f64() + mark_seconds_each * marks.len() as f64;
            (remoteness, solver.keep(tier, Column::Narrow(marks)), seconds)
        } else {
            let mut values = if whole {
                if marked_total != Some(tier.total) {
                    // A later total of the batch: the losses of the batch's totals below it,
                    // solved since, offer to it.
                    let started = Instant::now();
                    let mut targets: Vec<(TierId, &mut [u16])> = pending
                        .iter_mut()
                        .filter(|(t, _)| t.total == tier.total)
                        .map(|(t, v)| (*t, &mut v[..]))
                        .collect();
                    let adds = 1..=tier.total - batch_start;
                    report.edges += solver.mark_totals(&mut targets, adds, &window, team);
                    let positions: usize = targets.iter().map(|(_, v)| v.len()).sum();
                    own_seconds_each = started.elapsed().as_secs_f64() / positions.max(1) as f64;
                    marked_total = Some(tier.total);
                }
                let at =
                    pending.iter().position(|(t, _)| *t == tier).expect("the tier was marked with its total");
                pending.swap_remove(at).1
            } else {
                unmarked(UNKNOWN, size(tier) as usize)
            };
            let started = Instant::now();
            if R::ONE_HEAP_MOVES {
                // What the tiers of this total solved so far offer (splits that take nothing),
                // and, tier by tier, what the lower totals offer.
                let adds = if whole { 0..=0 } else { 0..=solver.reach };
                report.edges +=
                    solver.mark_heaps(tier.total, &mut [(tier.heaps, &mut values[..])], adds, &window, team);
            } else {
                report.edges += solver.mark(tier, &mut values, &window, team);
            }
            team.min_all(&mut values).map_err(SolveError::Team)?;
            report.edges += solver.settle_unmarked(tier, &mut values, &window, team, None);
            team.min_all(&mut values).map_err(SolveError::Team)?;
            // This tier's share of its total's marking, by its positions.
            let seconds = started.elapsed().as_secs_f64()
                + (mark_seconds_each + own_seconds_each) * values.len() as f64;
            // The window's column first: the store takes the values.
            let kept = solver.keep(tier, solver.column_of(&values));
            (values, kept, seconds)
        };
        let solved = SolvedTier { tier, remoteness, nim_values: None, seconds };
        let positions = solved.remoteness.len() as u64;
        store.save(solved)?;
        // Every position is settled and none is a draw: the losses are those kept.
        let losses = kept.losses.as_ref().map_or(0, |l| l.len()) as u64;
        report.solved_now += positions;
        report.losses_now += losses;
        report.tiers_now += 1;
        progress.tier_done(tier, positions);
        window.put(tier, kept).map_err(SolveError::Spill)?;
    }
    report.peak_window_bytes = window.peak_bytes();
    report.spilled_bytes = window.spilled_bytes();
    Ok(report)
}

struct Retrograde<'a, R> {
    rules: &'a R,
    table: &'a PartitionTable,
    /// The table's counts, addressed from each heap's place by [`Shape`].
    terms: Terms<'a>,
    universe: &'a Universe,
    convention: Convention,
    reach: u32,
    narrow: bool,
    decode_losses: bool,
    /// Whether the window also keeps each decoded loss's rank terms and remoteness.
    loss_terms: bool,
    /// The table's counts by total, where several totals are marked together.
    by_total: Option<CountsByTotal>,
    /// The threads' own copies of the arrays marked in parallel: a byte a cell where every
    /// remoteness fits one (`narrow`), else two.
    copies: (Copies<u8>, Copies<u16>),
}

/// Where [`Retrograde::mark_totals`] finds the array of a target tier: by total (from the
/// first) and heap count.
#[derive(Clone, Copy, Debug)]
struct Slots {
    first: u32,
    last: u32,
    /// Slots a total (the most heaps of a target, plus one).
    per_total: usize,
}

impl Slots {
    /// The slot of the tier of `total` and `heaps`, if it may be a target.
    #[inline(always)]
    fn of(&self, total: u32, heaps: u32) -> Option<usize> {
        ((self.first..=self.last).contains(&total) && (heaps as usize) < self.per_total)
            .then(|| (total - self.first) as usize * self.per_total + heaps as usize)
    }

    fn len(&self) -> usize {
        (self.last - self.first + 1) as usize * self.per_total
    }
}

/// Each marking work unit: a source's index and a range of its losses.
type Unit = (usize, Range<usize>);

/// The least offer, branch-free (whether an offer improves is unpredictable).
#[inline(always)]
fn lower<T: CopyMark>(cell: &Cell<T>, offer: u16) {
    cell.set(cell.get().min(T::from_offer(offer)));
}

impl<R: TierRules> Retrograde<'_, R> {
    /// A solved tier as the window keeps it: its values, the ranks of its losses, and as its
    /// greatest remoteness that of its wins, the only positions a loss's children can be (a
    /// tighter bound for settling than the tier's greatest: more losses stop reading their
    /// children a token earlier).
    ///
    /// A large tier is read in parallel, in chunks of [`KEEP_CHUNK`] positions, and its
    /// losses, where there are many, decoded in chunks of [`DECODE_CHUNK`], each with its own
    /// cursor: on two threads this was the largest part of the solving thread's own work
    /// while the pool sat idle.
    /// The chunks are joined in rank order, so what is kept does not depend on the threads.
    ///
    /// `remoteness` is the tier's column as the window will hold it (see
    /// [`column`](Self::column)): the losses are found in it, so that a tier settled in
    /// one-byte marks is scanned and kept as it is, without a copy.
    fn keep(&self, tier: TierId, remoteness: Column) -> TierValues {
        let (losses, longest_win) = match &remoteness {
            Column::Narrow(values) => self.losses_in(values),
            Column::Wide(values) => self.losses_in(values),
            Column::Mapped { .. } => unreachable!("a tier is kept from values in memory"),
        };
        let (mut loss_heaps, mut loss_tails, mut loss_remoteness) = (None, None, None);
        if self.decode_losses {
            let k = tier.heaps as usize;
            let terms = self.loss_terms;
            let mut bytes = vec![0u8; losses.len() * k];
            let mut tails = vec![0u32; if terms { losses.len() * k } else { 0 }];
            let mut of_losses = vec![0u16; if terms { losses.len() } else { 0 }];
            // Each chunk of losses decoded by its own cursor, in rank order (`tails` and
            // `of_losses`, the losses' remoteness, empty where the terms are not kept).
            let decode = |ranks: &[u32], bytes: &mut [u8], tails: &mut [u32], of_losses: &mut [u16]| {
                let mut cursor = self.table.cursor(tier.total, tier.heaps);
                for (i, &rank) in ranks.iter().enumerate() {
                    let heaps = cursor.seek(rank as u64);
                    for (b, &h) in bytes[i * k..(i + 1) * k].iter_mut().zip(heaps) {
                        *b = h as u8;
                    }
                    if terms {
                        tails[i * k..(i + 1) * k].copy_from_slice(&cursor.tails()[..k]);
                        of_losses[i] = remoteness.get(rank as usize);
                    }
                }
            };
            let span = DECODE_CHUNK * k.max(1);
            match (in_parallel(losses.len(), DECODE_PARALLEL_MIN), terms) {
                (true, true) => losses
                    .par_chunks(DECODE_CHUNK)
                    .zip(bytes.par_chunks_mut(span))
                    .zip(tails.par_chunks_mut(span))
                    .zip(of_losses.par_chunks_mut(DECODE_CHUNK))
                    .for_each(|(((r, b), t), o)| decode(r, b, t, o)),
                (true, false) => losses
                    .par_chunks(DECODE_CHUNK)
                    .zip(bytes.par_chunks_mut(span))
                    .for_each(|(r, b)| decode(r, b, &mut [], &mut [])),
                (false, true) => losses
                    .chunks(DECODE_CHUNK)
                    .zip(bytes.chunks_mut(span))
                    .zip(tails.chunks_mut(span))
                    .zip(of_losses.chunks_mut(DECODE_CHUNK))
                    .for_each(|(((r, b), t), o)| decode(r, b, t, o)),
                (false, false) => losses
                    .chunks(DECODE_CHUNK)
                    .zip(bytes.chunks_mut(span))
                    .for_each(|(r, b)| decode(r, b, &mut [], &mut [])),
            }
            loss_heaps = Some(Array::Held(bytes));
            if terms {
                loss_tails = Some(Array::Held(tails));
                loss_remoteness = Some(Array::Held(of_losses));
            }
        }
        TierValues {
            remoteness,
            nim_values: None,
            losses: Some(Array::Held(losses)),
            loss_heaps,
            loss_tails,
            loss_remoteness,
            max_remoteness: longest_win,
        }
    }

    /// The ranks of the losses among `values` (a tier's remoteness by rank), ascending,
    /// and the greatest remoteness of its wins: scanned in parallel, in chunks of
    /// [`KEEP_CHUNK`], where the tier is large.
    fn losses_in<T: Copy + Into<u16> + Sync>(&self, values: &[T]) -> (Vec<u32>, u16) {
        // Each chunk's losses (ranks) and longest win.
        let scan = |(c, chunk): (usize, &[T])| {
            let mut longest_win = 0;
            let mut losses = Vec::new();
            for (i, &r) in chunk.iter().enumerate() {
                let r: u16 = r.into();
                if self.convention.is_win(r as u32) {
                    longest_win = longest_win.max(r);
                } else {
                    losses.push((c * KEEP_CHUNK + i) as u32);
                }
            }
            (losses, longest_win)
        };
        let parts: Vec<(Vec<u32>, u16)> = if keep_in_parallel(values.len()) {
            values.par_chunks(KEEP_CHUNK).enumerate().map(scan).collect()
        } else {
            values.chunks(KEEP_CHUNK).enumerate().map(scan).collect()
        };
        let longest_win = parts.iter().map(|(_, w)| *w).max().unwrap_or(0);
        let mut losses = Vec::with_capacity(parts.iter().map(|(l, _)| l.len()).sum());
        for (part, _) in &parts {
            losses.extend_from_slice(part);
        }
        (losses, longest_win)
    }

    /// A solved tier's `values` as the window's column: a byte each where every remoteness
    /// fits one (`narrow`), else the values themselves.
    fn column(&self, values: Vec<u16>) -> Column {
        if self.narrow { self.column_of(&values) } else { Column::Wide(values) }
    }

    /// [`column`](Self::column) of `values` left with the caller (the store takes them):
    /// narrowed (in parallel where the tier is large), or copied.
    fn column_of(&self, values: &[u16]) -> Column {
        if !self.narrow {
            return Column::Wide(values.to_vec());
        }
        debug_assert!(values.iter().all(|&v| v < 255));
        let narrow = |&v: &u16| v as u8;
        Column::Narrow(if keep_in_parallel(values.len()) {
            values.par_iter().map(narrow).collect()
        } else {
            values.iter().map(narrow).collect()
        })
    }

    /// Marks the wins of `tier` (for families whose moves may change several heaps): each
    /// loss in the tiers `added` tokens below whose parents can fall in `tier` offers them
    /// `1 + its remoteness`; a position keeps the least offer. Returns the number of parent
    /// links followed.
    ///
    /// Each source tier's losses are split into chunks; this member of `team` marks the
    /// chunks it owns, in parallel (through atomic minimums) when there are several threads.
    /// The least offer does not depend on the order the offers arrive in, so the tier is the
    /// same for any thread count and, once the team combines it, for any team size.
    fn mark(&self, tier: TierId, values: &mut [u16], window: &Window, team: &dyn Team) -> u64 {
        let change = self.rules.heap_change();
        // Every source tier of losses: (its values, heaps per loss, tokens added).
        let mut sources = Vec::new();
        for added in 0..=self.reach.min(tier.total) {
            let total = tier.total - added;
            // Children with up to `fewer` heaps fewer (heaps vanished) to `more` heaps more
            // (heaps split) than this tier's positions.
            for heaps in tier.heaps.saturating_sub(change.fewer)..=tier.heaps + change.more {
                let source = TierId { total, heaps };
                if source == tier {
                    continue;
                }
                if let Some(values) = window.get(source).filter(|v| v.losses.is_some()) {
                    sources.push((values, heaps as usize, added));
                }
            }
        }
        // The work units, numbered the same way by every member of the team: chunks of
        // every source's losses.
        let work = work_units(sources.iter().map(|(values, ..)| *values), team);
        let offers: usize = work.iter().map(|(_, r)| r.len()).sum();
        let (parallel_min, copies_max) = mark_limits();
        let parallel = rayon::current_num_threads() > 1 && offers >= parallel_min;
        let mut work = work;
        if parallel {
            // Each thread marks its own copy (see [`Copies`]), where they fit.
            let marked = if self.narrow {
                self.mark_in_copies(&self.copies.0, values, work, &sources, tier, copies_max)
            } else {
                self.mark_in_copies(&self.copies.1, values, work, &sources, tier, copies_max)
            };
            match marked {
                Ok(edges) => return edges,
                Err(back) => work = back,
            }
        }
        if parallel && std::mem::align_of::<AtomicU16>() == std::mem::align_of::<u16>() {
            // SAFETY: `values` is borrowed exclusively for this call, and `AtomicU16` has the
            // size and bit validity of `u16` (and, checked above, its alignment).
            let cells: &[AtomicU16] = unsafe { &*(values as *mut [u16] as *const [AtomicU16]) };
            let offer = |rank: usize, offer: u16| {
                let cell = &cells[rank];
                // Most offers do not improve: read first, and only then pay for the atomic.
                if offer < cell.load(Ordering::Relaxed) {
                    cell.fetch_min(offer, Ordering::Relaxed);
                }
            };
            work.into_par_iter()
                .map(|(s, range)| {
                    let (values, k, added) = sources[s];
                    self.mark_from(tier, values, k, added, range, &offer)
                })
                .sum()
        } else {
            let cells = Cell::from_mut(values).as_slice_of_cells();
            let offer = |rank: usize, offer: u16| {
                // Branch-free: whether an offer improves is unpredictable.
                let cell = &cells[rank];
                cell.set(cell.get().min(offer));
            };
            work.into_iter()
                .map(|(s, range)| {
                    let (values, k, added) = sources[s];
                    self.mark_from(tier, values, k, added, range, &offer)
                })
                .sum()
        }
    }

    /// Marks the arrays `early` of the totals above `total` from the losses of the tiers of
    /// `total` that `from` accepts (tiers loaded from the store, which were not settled here).
    fn mark_above_from(
        &self,
        total: u32,
        early: &mut [(TierId, Vec<u8>)],
        window: &Window,
        team: &dyn Team,
        from: impl Fn(TierId) -> bool + Copy,
    ) -> u64 {
        let mut edges = 0;
        for added in 1..=self.reach {
            let mut targets: Vec<(TierId, &mut [u8])> = early
                .iter_mut()
                .filter(|(t, _)| t.total == total + added)
                .map(|(t, v)| (*t, &mut v[..]))
                .collect();
            edges += self.mark_totals_from(&mut targets, added..=added, window, team, from);
        }
        edges
    }

    /// [`mark`](Self::mark)'s work units `work` in parallel, each thread into its own copy
    /// of `values` (see [`Copies`]); gives `work` back when the copies would take more than
    /// `max_bytes`.
    fn mark_in_copies<T: CopyMark>(
        &self,
        copies: &Copies<T>,
        values: &mut [u16],
        work: Vec<Unit>,
        sources: &[(&TierValues, usize, u32)],
        tier: TierId,
        max_bytes: u64,
    ) -> Result<u64, Vec<Unit>> {
        copies.mark(&mut [values], work, max_bytes, |(s, range), arrays| {
            let (values, k, added) = sources[s];
            let cells = arrays[0];
            self.mark_from(tier, values, k, added, range, &|rank, offer| lower(&cells[rank], offer))
        })
    }

    /// Marks the parents in `tier` of the losses `range` of one source tier (`k` heaps a
    /// loss, `added` tokens below), giving each offer to `offer(rank, value)`.
    fn mark_from(
        &self,
        tier: TierId,
        source: &TierValues,
        k: usize,
        added: u32,
        range: Range<usize>,
        offer: &impl Fn(usize, u16),
    ) -> u64 {
        let total = tier.total - added;
        let mut losses = LossReader::new(&self.terms, source, TierId { total, heaps: k as u32 }, range);
        let bounds = self.bounds();
        let mut buf = Vec::new();
        let mut edges = 0;
        while let Some((value, loss)) = losses.next_heaps() {
            edges += self.rules.parents_adding(loss, added, tier.heaps, bounds, &mut buf, |parent| {
                offer(self.table.rank(parent) as usize, value);
            });
        }
        edges
    }

    /// The universe's bounds on parents.
    fn bounds(&self) -> ParentBounds {
        ParentBounds { max_heap: self.universe.part_cap(), max_heaps: self.universe.heaps_cap() }
    }

    /// Marks the wins of the tiers `targets` (heap count, values), all of `total`, for a
    /// family that moves one heap at a time: every loss `added ∈ adds` tokens below (and
    /// within the reach) whose parents can fall in a target offers them `1 + its
    /// remoteness`; a position keeps the least offer. See [`mark_totals`](Self::mark_totals).
    /// Returns the number of parent links followed.
    fn mark_heaps(
        &self,
        total: u32,
        targets: &mut [(u32, &mut [u16])],
        adds: RangeInclusive<u32>,
        window: &Window,
        team: &dyn Team,
    ) -> u64 {
        let mut targets: Vec<(TierId, &mut [u16])> = targets
            .iter_mut()
            .map(|(heaps, values)| (TierId { total, heaps: *heaps }, &mut **values))
            .collect();
        self.mark_totals(&mut targets, adds, window, team)
    }

    /// Marks the wins of the tiers `targets` (tier, values), of one total or of several,
    /// for a family that moves one heap at a time: every loss `added ∈ adds` tokens below a
    /// target's total (and within the reach) whose parents can fall in that target offers
    /// them `1 + its remoteness`; a position keeps the least offer. Each loss is read once,
    /// its rank terms loaded into a [`Shape`], and its parents in every target of every
    /// total it reaches ranked from them (those that join three heaps, rare, are built and
    /// ranked whole). Returns the number of parent links followed.
    ///
    /// The work units are chunks of every source tier's losses, numbered the same way by
    /// every member of `team`; this member marks the ones it owns, in parallel (through
    /// atomic minimums) when there are several threads. The least offer does not depend
    /// on the order the offers arrive in, so the tiers are the same for any thread count
    /// and, once the team combines them, for any team size.
    fn mark_totals<M: Mark>(
        &self,
        targets: &mut [(TierId, &mut [M])],
        adds: RangeInclusive<u32>,
        window: &Window,
        team: &dyn Team,
    ) -> u64 {
        self.mark_totals_from(targets, adds, window, team, |_| true)
    }

    /// [`mark_totals`](Self::mark_totals) from the source tiers that `from` accepts only.
    fn mark_totals_from<M: Mark>(
        &self,
        targets: &mut [(TierId, &mut [M])],
        adds: RangeInclusive<u32>,
        window: &Window,
        team: &dyn Team,
        from: impl Fn(TierId) -> bool,
    ) -> u64 {
        let (Some(first), Some(last)) =
            (targets.iter().map(|(t, _)| t.total).min(), targets.iter().map(|(t, _)| t.total).max())
        else {
            return 0;
        };
        let wanted = |tier: TierId| targets.iter().any(|(t, _)| *t == tier);
        // A loss's parents have one heap more (a vanished heap added back) to two fewer
        // (three heaps joined).
        let fewest = targets.iter().map(|(t, _)| t.heaps.saturating_sub(1)).min().unwrap_or(0);
        let most = targets.iter().map(|(t, _)| t.heaps + 2).max().unwrap_or(0);
        let (least_added, most_added) = (*adds.start(), (*adds.end()).min(self.reach));
        // Every source tier of losses: (its values, the tier, its steps), where its steps
        // (`steps[range]`) are the tokens added to reach each target total, with the kinds
        // of parents wanted there.
        let mut sources = Vec::new();
        let mut steps = Vec::new();
        for source_total in first.saturating_sub(most_added)..=last.saturating_sub(least_added) {
            for heaps in fewest..=most {
                let source = TierId { total: source_total, heaps };
                if !from(source) {
                    continue;
                }
                let start = steps.len();
                let adds =
                    (least_added..=most_added).filter(|&a| (first..=last).contains(&(source_total + a)));
                self.mark_steps(source, adds, &wanted, &mut steps);
                match window.get(source).filter(|v| v.losses.is_some()) {
                    Some(values) if steps.len() > start => sources.push((values, source, start..steps.len())),
                    _ => steps.truncate(start),
                }
            }
        }
        // The work units, numbered the same way by every member of the team.
        let work = work_units(sources.iter().map(|(values, ..)| *values), team);
        let offers: usize = work.iter().map(|(_, r)| r.len()).sum();
        // The target arrays by total (from the first) and heap count.
        let slots = targets.iter().map(|(t, _)| t.heaps as usize + 1).max().unwrap_or(0);
        let layout = Slots { first, last, per_total: slots };
        let slot = |total: u32, heaps: u32| (total - first) as usize * slots + heaps as usize;
        let n_slots = layout.len();
        let (parallel_min, copies_max) = mark_limits();
        let parallel = rayon::current_num_threads() > 1 && offers >= parallel_min;
        let mut work = work;
        if parallel && let Some(mut arrays) = M::wide(targets, n_slots, &slot) {
            // Each thread marks its own copy of the targets (see [`Copies`]), where they fit.
            let (sources, steps) = (&sources[..], &steps[..]);
            let marked = if self.narrow {
                self.copies.0.mark(&mut arrays, work, copies_max, self.marker(sources, steps, layout))
            } else {
                self.copies.1.mark(&mut arrays, work, copies_max, self.marker(sources, steps, layout))
            };
            match marked {
                Ok(edges) => return edges,
                Err(back) => work = back,
            }
        }
        if parallel && M::ATOMIC_ALIGNED {
            let mut cells: Vec<&[M::Atomic]> = vec![&[]; n_slots];
            for (t, values) in targets.iter_mut() {
                cells[slot(t.total, t.heaps)] = M::atomics(values);
            }
            let take = |cell: &M::Atomic, offer: u16| M::take_atomic(cell, offer);
            let target = |total: u32, heaps: u32| -> &[M::Atomic] {
                if (first..=last).contains(&total) && (heaps as usize) < slots {
                    cells[slot(total, heaps)]
                } else {
                    &[]
                }
            };
            let dummy = M::atomic_zero();
            work.into_par_iter()
                .map(|(s, range)| {
                    let (values, source, ref at) = sources[s];
                    let mut lag = Lagged::new(take, &dummy);
                    let edges =
                        self.mark_heaps_from(values, source, &steps[at.clone()], range, &target, &mut lag);
                    lag.flush();
                    edges
                })
                .sum()
        } else {
            let mut cells: Vec<&[Cell<M>]> = vec![&[]; n_slots];
            for (t, values) in targets.iter_mut() {
                cells[slot(t.total, t.heaps)] = Cell::from_mut(&mut **values).as_slice_of_cells();
            }
            let dummy = Cell::new(M::ZERO);
            let mut lag = Lagged::new(|cell: &Cell<M>, offer: u16| M::take(cell, offer), &dummy);
            let target = |total: u32, heaps: u32| -> &[Cell<M>] {
                if (first..=last).contains(&total) && (heaps as usize) < slots {
                    cells[slot(total, heaps)]
                } else {
                    &[]
                }
            };
            let edges = work
                .into_iter()
                .map(|(s, range)| {
                    let (values, source, ref at) = sources[s];
                    self.mark_heaps_from(values, source, &steps[at.clone()], range, &target, &mut lag)
                })
                .sum();
            lag.flush();
            edges
        }
    }

    /// [`mark_totals`](Self::mark_totals)'s marking of one work unit into a thread's own
    /// copy of the targets (their arrays in the slots of `layout`), for [`Copies::mark`].
    fn marker<'s, T: CopyMark>(
        &'s self,
        sources: &'s [(&'s TierValues, TierId, Range<usize>)],
        steps: &'s [MarkStep],
        layout: Slots,
    ) -> impl Fn(Unit, &[&[Cell<T>]]) -> u64 + Sync + 's {
        move |(s, range), arrays| {
            let target = |total: u32, heaps: u32| layout.of(total, heaps).map_or(&[][..], |i| arrays[i]);
            let (values, source, ref at) = sources[s];
            let dummy = Cell::new(T::NONE);
            let mut lag = Lagged::new(lower::<T>, &dummy);
            let edges = self.mark_heaps_from(values, source, &steps[at.clone()], range, &target, &mut lag);
            lag.flush();
            edges
        }
    }

    /// Marks the parents of the losses `range` of the tier `source`, for each of `steps`
    /// (tokens added, ascending, and the kinds of parents wanted, and those that join three
    /// heaps when its `three` is set), giving each offer to `lag`, at the cell of its rank in
    /// the cells `target(parent total, parent heaps)` (empty for a tier not marked). The
    /// cells of each step's tiers are found once for every loss.
    fn mark_heaps_from<'c, C, F: Fn(&C, u16)>(
        &self,
        values: &TierValues,
        source: TierId,
        steps: &[MarkStep],
        range: Range<usize>,
        target: &impl Fn(u32, u32) -> &'c [C],
        lag: &mut Lagged<'c, C, F>,
    ) -> u64 {
        let mut offer =
            |total: u32, heaps: u32, rank: usize, value: u16| lag.offer(&target(total, heaps)[rank], value);
        let offer = &mut offer;
        let k = source.heaps;
        let mut losses = LossReader::new(&self.terms, values, source, range);
        let bounds = self.bounds();
        let mut shape = Shape::default();
        let mut buf = Vec::new();
        let mut edges = 0;
        // A loss has no parent here when no heap can be added back, and its smallest heap
        // (and two smallest) are too large to grow (or join) within the heap cap by the
        // fewest tokens added: passed over on its smallest heaps, before its rank terms are
        // computed.
        let top = bounds.max_heap;
        let least = steps.first().map_or(0, |s| s.added);
        let any = |kind: fn(&MarkStep) -> bool| steps.iter().any(kind);
        let (grown, joined) = (any(|s| s.kinds.grown), any(|s| s.kinds.joined));
        let always = any(|s| s.three) || (any(|s| s.kinds.vanished) && k < bounds.max_heaps);
        let skip = |smallest: u32, second: u32| {
            let some_parent = always
                || (grown && smallest + least <= top)
                || (joined && k >= 2 && smallest + second + least <= top);
            !some_parent
        };
        // Where the steps fit the lanes of the counts by total and ask only for grown and
        // vanished parents, their terms are summed for every step at once (see
        // [`Shape::parents_in_lanes`]).
        let first = steps.first().map_or(0, |s| s.added);
        if let Some(by_total) = &self.by_total
            && steps.iter().all(|s| !s.three && !s.kinds.joined && s.added - first < LANES as u32)
        {
            let mask = |kind: fn(&MarkStep) -> bool| {
                steps.iter().filter(|&s| kind(s)).fold(0u8, |m, s| m | 1 << (s.added - first))
            };
            let wanted = (mask(|s| s.kinds.grown), mask(|s| s.kinds.vanished));
            let base = source.total + first;
            while let Some(value) = losses.next_shape(&mut shape, skip) {
                edges += shape.parents_in_lanes(
                    self.rules,
                    &self.terms,
                    by_total,
                    first,
                    wanted,
                    bounds,
                    |i, change, rank| offer(base + i, k.wrapping_add_signed(change), rank as usize, value),
                );
            }
            return edges;
        }
        let parents = ParentCells::new(source, steps, target);
        while let Some(value) = losses.next_shape(&mut shape, skip) {
            edges += parents.offer(self, &mut shape, value, &mut buf, lag);
        }
        edges
    }

    /// Appends to `steps` the steps of marking from the losses of `source` for each number
    /// of tokens in `adds` (ascending): the kinds of parents that some move adding that
    /// many tokens can have in the tiers `wanted`, where there are any.
    fn mark_steps(
        &self,
        source: TierId,
        adds: impl Iterator<Item = u32>,
        wanted: &impl Fn(TierId) -> bool,
        steps: &mut Vec<MarkStep>,
    ) {
        let heaps = source.heaps;
        for added in adds {
            let total = source.total + added;
            let kinds = ParentKinds {
                vanished: added >= 1
                    && self.rules.heap_vanishes(added)
                    && wanted(TierId { total, heaps: heaps + 1 }),
                grown: added >= 1 && wanted(TierId { total, heaps }),
                joined: heaps >= 1
                    && self.rules.may_split(added)
                    && wanted(TierId { total, heaps: heaps - 1 }),
            };
            let three =
                heaps >= 2 && self.rules.may_split_three(added) && wanted(TierId { total, heaps: heaps - 2 });
            if kinds.vanished || kinds.grown || kinds.joined || three {
                steps.push(MarkStep { added, kinds, three });
            }
        }
    }

    /// Gives every unmarked position of `tier` its value: a terminal has remoteness 0; any
    /// other unmarked position has only winning children and is a loss that lasts one move
    /// longer than its longest child. This member of `team` settles only its share of the
    /// ranks, and leaves the rest unknown. Where `above` is given (a heap game), each loss,
    /// once settled, offers its parents in the totals above as well, while its shape is
    /// loaded (see [`Above`]). `values` are two bytes a position, or one where every
    /// remoteness fits one (the marks of a tier that `above` is given for). Returns the
    /// number of child and parent links read.
    fn settle_unmarked<M: Mark>(
        &self,
        tier: TierId,
        values: &mut [M],
        window: &Window,
        team: &dyn Team,
        above: Option<&Above>,
    ) -> u64 {
        let share = team.share(values.len());
        let unmarked = unmarked_ranks(&values[share.clone()], share.start);
        // Two bytes an unmarked position beside its rank: the largest tiers' losses are
        // millions, so nothing more is kept per position while they settle.
        let mut settled = vec![0u16; unmarked.len()];
        let edges = if R::ONE_HEAP_MOVES {
            self.settle_heaps(tier, &unmarked, &mut settled, window, above)
        } else {
            debug_assert!(above.is_none(), "only heap games mark the totals above as they settle");
            self.settle_by_children(tier, &unmarked, &mut settled, window)
        };
        for (&rank, &r) in unmarked.iter().zip(&settled) {
            values[rank as usize] = M::settled(r);
        }
        edges
    }

    /// Settles the `unmarked` ranks of `tier` (ascending) for a family that moves one heap
    /// at a time: each loss is unranked by a cursor and its children ranked from its rank
    /// terms ([`Shape`]), fewest tokens taken first, until no child further down can last
    /// longer than the longest found; then, where `above` is given and it is a loss, its
    /// parents in the totals above are offered its remoteness plus one. Writes each one's
    /// remoteness to `settled` (by its place in `unmarked`) and returns the child and parent
    /// links read.
    fn settle_heaps(
        &self,
        tier: TierId,
        unmarked: &[u64],
        settled: &mut [u16],
        window: &Window,
        above: Option<&Above>,
    ) -> u64 {
        let max_taken = self.reach.min(tier.total);
        // The child tier of each step: `taken` tokens fewer, `parts − 1` heaps more.
        let columns: Vec<Option<&Column>> = (0..=max_taken)
            .flat_map(|taken| {
                (0..4u32).map(move |parts| {
                    (tier.heaps + parts).checked_sub(1).and_then(|heaps| {
                        window.get(TierId { total: tier.total - taken, heaps }).map(|v| &v.remoteness)
                    })
                })
            })
            .collect();
        let bounds = self.remoteness_bounds(tier, window);
        // Every child is read as it is ranked, with no prefetch: the core keeps the misses
        // of large child tiers in flight by itself (see the performance guide's ninth round:
        // prefetching them through a buffer cost 1.09–1.15× the CPU at total 100).
        // Where every child column is held a byte a value (remoteness below 255), the
        // columns as plain bytes, so that a child's read is one load (a tier not held is
        // empty here, where the general path would stop on it alike).
        let narrow: Option<Vec<&[u8]>> = columns
            .iter()
            .map(|c| match c {
                Some(Column::Narrow(v)) => Some(&v[..]),
                None => Some(&[][..]),
                Some(_) => None,
            })
            .collect();
        // The parents in the totals above that a settled loss offers to, by step.
        let mut steps = Vec::new();
        if let Some(above) = above {
            self.mark_steps(tier, 1..=self.reach, &|t| above.wants(t), &mut steps);
        }
        let target = |total: u32, heaps: u32| above.map_or(&[][..], |a| a.target(total, heaps));
        let parents = above.map(|_| ParentCells::new(tier, &steps, &target));
        let parents = &parents;
        let dummy = AtomicU8::new(0);
        unmarked
            .par_chunks(PULL_CHUNK)
            .zip(settled.par_chunks_mut(PULL_CHUNK))
            .map(|(chunk, out)| {
                let mut shape = Shape::default();
                let mut buf = Vec::new();
                let mut parent_buf = Vec::new();
                let mut lag = Lagged::new(|cell: &AtomicU8, offer: u16| u8::take_atomic(cell, offer), &dummy);
                let (columns, bounds, narrow) = (&columns, &bounds, &narrow);
                let mut edges = 0;
                for (&rank, out) in chunk.iter().zip(out) {
                    shape.seek(&self.terms, tier.total, tier.heaps, rank);
                    // The longest child's remoteness plus one, 0 before any child: the
                    // position's remoteness once every child that can matter is read.
                    let mut longest = 0u16;
                    for (taken, &bound) in bounds.iter().enumerate() {
                        // No child from here on can last longer than the best found.
                        if longest > bound {
                            break;
                        }
                        let taken = taken as u32;
                        let column = |at: usize| columns[at].expect("child tier in memory");
                        let mut take = |r: u16| {
                            debug_assert!(self.convention.is_win(r as u32), "a loss has a losing child");
                            longest = longest.max(r + 1);
                        };
                        if let Some(narrow) = narrow {
                            // The child tiers of this number of tokens, by the heaps a move leaves.
                            let at = taken as usize * 4;
                            let tiers = [narrow[at], narrow[at + 1], narrow[at + 2], narrow[at + 3]];
                            edges += shape.children_taking(
                                self.rules,
                                &self.terms,
                                taken,
                                &mut buf,
                                |step, child| take(tiers[step.parts as usize][child as usize] as u16),
                            );
                        } else {
                            edges += shape.children_taking(
                                self.rules,
                                &self.terms,
                                taken,
                                &mut buf,
                                |step, child| {
                                    take(column((step.taken * 4 + step.parts) as usize).get(child as usize));
                                },
                            );
                        }
                    }
                    let remoteness = longest;
                    if let Some(parents) = parents
                        && !self.convention.is_win(remoteness as u32)
                    {
                        edges += parents.offer(self, &mut shape, remoteness + 1, &mut parent_buf, &mut lag);
                    }
                    *out = remoteness;
                }
                lag.flush();
                edges
            })
            .sum()
    }

    /// `bounds[d]`: the greatest remoteness among the child tiers of `tier` that lie `d` or
    /// more tokens down (see [`window::remoteness_bounds`](super::window::remoteness_bounds)).
    fn remoteness_bounds(&self, tier: TierId, window: &Window) -> Vec<u16> {
        super::window::remoteness_bounds(tier, self.reach, self.rules.heap_change(), |t| {
            window.get(t).map(|v| v.max_remoteness)
        })
    }

    /// Settles the `unmarked` ranks of `tier` by building each child and ranking it, one
    /// number of tokens taken at a time, skipping child tiers whose greatest remoteness
    /// cannot beat the longest found. Writes each one's remoteness to `settled` (by its place
    /// in `unmarked`) and returns the links read.
    fn settle_by_children(
        &self,
        tier: TierId,
        unmarked: &[u64],
        settled: &mut [u16],
        window: &Window,
    ) -> u64 {
        let k = tier.heaps as usize;
        let bounds = self.remoteness_bounds(tier, window);
        unmarked
            .par_chunks(PULL_CHUNK)
            .zip(settled.par_chunks_mut(PULL_CHUNK))
            .map(|(chunk, out)| {
                let mut heaps = Vec::with_capacity(chunk.len() * k);
                let mut one = Vec::new();
                for &rank in chunk {
                    self.table.unrank(tier.total, tier.heaps, rank, &mut one);
                    heaps.extend_from_slice(&one);
                }
                let mut longest = vec![None::<u16>; chunk.len()];
                let mut edges = 0;
                let mut buf = Vec::new();
                for (taken, &bound) in bounds.iter().enumerate() {
                    let taken = taken as u32;
                    let total = tier.total - taken;
                    for (i, slot) in longest.iter_mut().enumerate() {
                        // No child from here on can last longer than the best found.
                        if slot.is_some_and(|l| l >= bound) {
                            continue;
                        }
                        let position = &heaps[i * k..(i + 1) * k];
                        edges += self.rules.children_taking(position, taken, &mut buf, |child| {
                            let child_tier = TierId { total, heaps: child.len() as u32 };
                            let values = &window.get(child_tier).expect("child tier in memory").remoteness;
                            let r = values.get(self.table.rank(child) as usize);
                            debug_assert!(
                                self.convention.is_win(r as u32),
                                "{position:?} has a losing child {child:?}"
                            );
                            *slot = Some(slot.map_or(r, |l| l.max(r)));
                        });
                    }
                }
                for (out, l) in out.iter_mut().zip(longest) {
                    *out = l.map_or(0, |l| l + 1);
                }
                edges
            })
            .sum()
    }
}

/// One number of tokens a pass of marking adds to a source tier's losses, with the parents
/// wanted there.
#[derive(Clone, Copy, Debug)]
struct MarkStep {
    /// Tokens the parents have beyond the loss.
    added: u32,
    /// The kinds of parents wanted (in the targets of the loss's total plus `added`).
    kinds: ParentKinds,
    /// Whether parents that join three heaps are wanted.
    three: bool,
}

/// The marking arrays of the totals above a tier being settled, one byte a position, seen as
/// atomics: a heap game whose moves take at most [`EARLY_REACH_MAX`] tokens marks them from
/// each loss as soon as it is settled, its shape still loaded, instead of unranking it again
/// for each total above (see [`run`]).
struct Above<'a> {
    /// The first total held and the heap slots a total.
    first: u32,
    slots: usize,
    /// The cells of each (total, heaps), empty where not held.
    cells: Vec<&'a [AtomicU8]>,
}

impl<'a> Above<'a> {
    /// The arrays `targets` (tier, values), borrowed for as long as this lives.
    fn new(targets: &'a mut [(TierId, &mut [u8])]) -> Self {
        let first = targets.iter().map(|(t, _)| t.total).min().unwrap_or(0);
        let last = targets.iter().map(|(t, _)| t.total).max().unwrap_or(0);
        let slots = targets.iter().map(|(t, _)| t.heaps as usize + 1).max().unwrap_or(0);
        let mut cells: Vec<&[AtomicU8]> = vec![&[]; (last - first + 1) as usize * slots];
        for (t, values) in targets.iter_mut() {
            cells[(t.total - first) as usize * slots + t.heaps as usize] = u8::atomics(values);
        }
        Above { first, slots, cells }
    }

    /// The cells of `tier` (empty where not held).
    #[inline]
    fn target(&self, total: u32, heaps: u32) -> &'a [AtomicU8] {
        let slot =
            (total.wrapping_sub(self.first) as usize).wrapping_mul(self.slots).wrapping_add(heaps as usize);
        if total >= self.first && (heaps as usize) < self.slots {
            self.cells.get(slot).copied().unwrap_or(&[])
        } else {
            &[]
        }
    }

    /// Whether `tier` is held.
    fn wants(&self, tier: TierId) -> bool {
        !self.target(tier.total, tier.heaps).is_empty()
    }
}

/// The cells a source tier's losses offer to, for each of its steps, found once for every
/// loss (see [`Retrograde::mark_heaps_from`]).
struct ParentCells<'s, 'c, C> {
    source: TierId,
    steps: &'s [MarkStep],
    /// Whether grown and joined parents are walked for every step at once (see
    /// [`Shape::grown_parents`], [`Shape::joined_parents`]): with several steps; with one,
    /// every kind in one walk.
    together: bool,
    /// With `together`: the tokens added of the steps that want grown parents, and their
    /// cells; and of those that want joined parents, and theirs.
    grown_adds: Vec<u32>,
    grown_cells: Vec<&'c [C]>,
    joined_adds: Vec<u32>,
    joined_cells: Vec<&'c [C]>,
    /// Each step's tiers of one heap fewer, as many and one more than the loss's (the
    /// parents' heaps less the loss's, plus one), and of two fewer.
    step_cells: Vec<([&'c [C]; 3], &'c [C])>,
}

impl<'s, 'c, C> ParentCells<'s, 'c, C> {
    /// The cells of the losses of `source` for `steps`, from `target(parent total, parent
    /// heaps)` (empty for a tier not marked).
    fn new(source: TierId, steps: &'s [MarkStep], target: &impl Fn(u32, u32) -> &'c [C]) -> Self {
        let k = source.heaps;
        let together = steps.len() > 1;
        let grown_adds: Vec<u32> =
            steps.iter().filter(|s| together && s.kinds.grown).map(|s| s.added).collect();
        let grown_cells = grown_adds.iter().map(|&a| target(source.total + a, k)).collect();
        let joined_adds: Vec<u32> =
            steps.iter().filter(|s| together && s.kinds.joined).map(|s| s.added).collect();
        let joined_cells = joined_adds.iter().map(|&a| target(source.total + a, k.wrapping_sub(1))).collect();
        let step_cells = steps
            .iter()
            .map(|s| {
                let total = source.total + s.added;
                let tiers = [target(total, k.wrapping_sub(1)), target(total, k), target(total, k + 1)];
                (tiers, target(total, k.wrapping_sub(2)))
            })
            .collect();
        ParentCells {
            source,
            steps,
            together,
            grown_adds,
            grown_cells,
            joined_adds,
            joined_cells,
            step_cells,
        }
    }

    /// Offers `value` to every parent of the loss loaded in `shape` (a position of the
    /// source tier) for every step, through `lag`. Returns the number of parents.
    #[inline]
    fn offer<R: TierRules, F: Fn(&C, u16)>(
        &self,
        solver: &Retrograde<R>,
        shape: &mut Shape,
        value: u16,
        buf: &mut Vec<u32>,
        lag: &mut Lagged<'c, C, F>,
    ) -> u64 {
        let k = self.source.heaps;
        let bounds = solver.bounds();
        let mut edges = 0;
        if self.together {
            edges += shape.grown_parents(
                solver.rules,
                &solver.terms,
                &self.grown_adds,
                bounds.max_heap,
                |i, rank| lag.offer(&self.grown_cells[i][rank as usize], value),
            );
            edges +=
                shape.joined_parents(solver.rules, &solver.terms, &self.joined_adds, bounds, |i, rank| {
                    lag.offer(&self.joined_cells[i][rank as usize], value)
                });
        }
        for (step, (tiers, three_joined)) in self.steps.iter().zip(&self.step_cells) {
            let added = step.added;
            if step.three {
                edges += solver.rules.parents_adding(shape.heaps(), added, k - 2, bounds, buf, |parent| {
                    lag.offer(&three_joined[solver.table.rank(parent) as usize], value);
                });
            }
            let kinds = ParentKinds {
                grown: step.kinds.grown && !self.together,
                joined: step.kinds.joined && !self.together,
                ..step.kinds
            };
            if kinds.vanished || kinds.grown || kinds.joined {
                let query = ParentQuery { added, bounds, kinds };
                edges += shape.parents(solver.rules, &solver.terms, query, |change, rank| {
                    lag.offer(&tiers[(change + 1) as usize][rank as usize], value)
                });
            }
        }
        edges
    }
}

/// A value marks are kept in: two bytes, or one where every remoteness is below 255
/// ([`Window::narrow`]); its atomic twin for marking from several threads.
trait Mark: Copy + PartialEq + Send + Sync {
    /// The atomic of the same size.
    type Atomic: Sync;
    /// The value 0 (what a dummy cell holds, see [`Lagged`]).
    const ZERO: Self;
    /// A cell not marked yet ([`UNKNOWN`], [`UNKNOWN_NARROW`]).
    const UNMARKED: Self;
    /// A settled remoteness as a value.
    fn settled(remoteness: u16) -> Self;
    /// An atomic holding 0.
    fn atomic_zero() -> Self::Atomic;
    /// Whether the atomic has the value's alignment (then [`atomics`](Mark::atomics) may view
    /// the values as atomics).
    const ATOMIC_ALIGNED: bool;
    /// `values`, borrowed exclusively, seen as atomics (only where [`ATOMIC_ALIGNED`](Mark::ATOMIC_ALIGNED)).
    fn atomics(values: &mut [Self]) -> &[Self::Atomic];
    /// Keeps the least of `cell` and `offer`, branch-free (whether an offer improves is
    /// unpredictable).
    fn take(cell: &Cell<Self>, offer: u16);
    /// Keeps the least of `cell` and `offer`; most offers do not improve, so the cell is read
    /// first, and only an improving offer pays for the atomic.
    fn take_atomic(cell: &Self::Atomic, offer: u16);
    /// The arrays of `targets` at their slots (`slot(total, heaps)` of `n_slots`; empty
    /// elsewhere) as two-byte arrays, for the threads' own copies ([`Copies`]); `None` for
    /// one-byte arrays, which are marked with atomics.
    fn wide<'t>(
        targets: &'t mut [(TierId, &mut [Self])],
        n_slots: usize,
        slot: &impl Fn(u32, u32) -> usize,
    ) -> Option<Vec<&'t mut [u16]>>;
}

impl Mark for u16 {
    type Atomic = AtomicU16;
    const ZERO: u16 = 0;
    const UNMARKED: u16 = UNKNOWN;
    #[inline(always)]
    fn settled(remoteness: u16) -> u16 {
        remoteness
    }
    fn atomic_zero() -> AtomicU16 {
        AtomicU16::new(0)
    }
    const ATOMIC_ALIGNED: bool = std::mem::align_of::<AtomicU16>() == std::mem::align_of::<u16>();
    fn atomics(values: &mut [u16]) -> &[AtomicU16] {
        assert!(values.as_ptr().cast::<AtomicU16>().is_aligned(), "values aligned for AtomicU16");
        // SAFETY: `values` is borrowed exclusively for the atomics' lifetime, and `AtomicU16`
        // has the size and bit validity of `u16` (and, checked above, the values are aligned
        // for it).
        unsafe { &*(values as *mut [u16] as *const [AtomicU16]) }
    }
    #[inline(always)]
    fn take(cell: &Cell<u16>, offer: u16) {
        cell.set(cell.get().min(offer));
    }
    #[inline(always)]
    fn take_atomic(cell: &AtomicU16, offer: u16) {
        if offer < cell.load(Ordering::Relaxed) {
            cell.fetch_min(offer, Ordering::Relaxed);
        }
    }
    fn wide<'t>(
        targets: &'t mut [(TierId, &mut [u16])],
        n_slots: usize,
        slot: &impl Fn(u32, u32) -> usize,
    ) -> Option<Vec<&'t mut [u16]>> {
        let mut arrays: Vec<&mut [u16]> = (0..n_slots).map(|_| &mut [][..]).collect();
        for (t, values) in targets.iter_mut() {
            arrays[slot(t.total, t.heaps)] = &mut **values;
        }
        Some(arrays)
    }
}

/// An unmarked cell of one byte (the narrow twin of [`UNKNOWN`]).
const UNKNOWN_NARROW: u8 = u8::MAX;

impl Mark for u8 {
    type Atomic = AtomicU8;
    const ZERO: u8 = 0;
    const UNMARKED: u8 = UNKNOWN_NARROW;
    #[inline(always)]
    fn settled(remoteness: u16) -> u8 {
        debug_assert!(remoteness < UNKNOWN_NARROW as u16);
        remoteness as u8
    }
    fn atomic_zero() -> AtomicU8 {
        AtomicU8::new(0)
    }
    const ATOMIC_ALIGNED: bool = true;
    fn atomics(values: &mut [u8]) -> &[AtomicU8] {
        // SAFETY: `values` is borrowed exclusively for the atomics' lifetime, and `AtomicU8`
        // has the size, alignment and bit validity of `u8`.
        unsafe { &*(values as *mut [u8] as *const [AtomicU8]) }
    }
    #[inline(always)]
    fn take(cell: &Cell<u8>, offer: u16) {
        debug_assert!(offer < UNKNOWN_NARROW as u16);
        cell.set(cell.get().min(offer as u8));
    }
    #[inline(always)]
    fn take_atomic(cell: &AtomicU8, offer: u16) {
        debug_assert!(offer < UNKNOWN_NARROW as u16);
        let offer = offer as u8;
        if offer < cell.load(Ordering::Relaxed) {
            cell.fetch_min(offer, Ordering::Relaxed);
        }
    }
    fn wide<'t>(
        _: &'t mut [(TierId, &mut [u8])],
        _: usize,
        _: &impl Fn(u32, u32) -> usize,
    ) -> Option<Vec<&'t mut [u16]>> {
        None
    }
}

/// Offers in flight: each offer's cell is prefetched when it is made and takes the offer
/// [`LAG`] offers later, so that the cache misses of a tier of megabytes (an offer's target
/// is far from the last one's) overlap instead of stalling one after the other. The least
/// offer does not depend on the order offers are taken in.
///
/// A slot with no offer in flight points at a dummy cell with the offer 0, which a dummy
/// cell holding 0 takes without change: every slot is a plain pair, taken without a check.
struct Lagged<'a, C, F: Fn(&C, u16)> {
    pending: [(&'a C, u16); LAG],
    at: usize,
    dummy: &'a C,
    take: F,
}

/// Offers in flight at once (see [`Lagged`]); a power of two, so that the ring's index is
/// masked. Eight, not sixteen: paired at misère Kayles 90, eight took 0.97× the CPU (six
/// pairs, 0.952–1.003) and 32 more (see the performance guide's ninth round).
const LAG: usize = 8;

impl<'a, C, F: Fn(&C, u16)> Lagged<'a, C, F> {
    /// An empty ring, its slots pointing at `dummy` (a cell holding 0, which no offer of 0
    /// changes), giving offers to `take`.
    fn new(take: F, dummy: &'a C) -> Self {
        Lagged { pending: [(dummy, 0); LAG], at: 0, dummy, take }
    }

    /// Prefetches `cell` and gives the offer made [`LAG`] offers ago to its cell.
    #[inline(always)]
    fn offer(&mut self, cell: &'a C, offer: u16) {
        prefetch(cell);
        let slot = &mut self.pending[self.at & (LAG - 1)];
        let (old, value) = std::mem::replace(slot, (cell, offer));
        (self.take)(old, value);
        self.at = self.at.wrapping_add(1);
    }

    /// Gives every offer still in flight to its cell.
    fn flush(&mut self) {
        for slot in &mut self.pending {
            let (cell, value) = std::mem::replace(slot, (self.dummy, 0));
            (self.take)(cell, value);
        }
    }
}

/// The marking work units of this member of `team`: chunks of [`MARK_CHUNK`] losses of each
/// source in turn, as (source index, range of its losses), numbered the same way by every
/// member and kept where the member owns the number.
fn work_units<'a>(
    sources: impl Iterator<Item = &'a TierValues>,
    team: &dyn Team,
) -> Vec<(usize, Range<usize>)> {
    sources
        .enumerate()
        .flat_map(|(s, values)| {
            let n = values.losses.as_ref().map_or(0, |l| l.len());
            (0..n.div_ceil(MARK_CHUNK)).map(move |c| (s, c * MARK_CHUNK..n.min((c + 1) * MARK_CHUNK)))
        })
        .enumerate()
        .filter(|&(unit, _)| team.owns(unit))
        .map(|(_, w)| w)
        .collect()
}

/// `len` positions, every one `value` (not yet marked): written in parallel where there
/// are many, so that the pool rather than the solving thread takes the new pages' faults.
fn unmarked<T: Copy + Send + Sync>(value: T, len: usize) -> Vec<T> {
    if keep_in_parallel(len) {
        let mut values = Vec::with_capacity(len);
        values.par_extend(rayon::iter::repeat_n(value, len));
        values
    } else {
        vec![value; len]
    }
}

/// A settled tier's one-byte values as the two-byte values a store is given: in parallel
/// where there are many.
fn settled_wide(values: &[u8]) -> Vec<u16> {
    debug_assert!(!values.contains(&UNKNOWN_NARROW), "every position settled");
    if keep_in_parallel(values.len()) {
        values.par_iter().map(|&v| v as u16).collect()
    } else {
        values.iter().map(|&v| v as u16).collect()
    }
}

/// [`Team::min_all`] of one-byte marks (seen as two-byte values, [`UNKNOWN_NARROW`] as
/// [`UNKNOWN`]: the order is the same); nothing to combine for a team of one.
fn min_all_narrow(team: &dyn Team, marks: &mut [u8]) -> Result<(), String> {
    if team.size() == 1 {
        return Ok(());
    }
    let mut wide: Vec<u16> =
        marks.iter().map(|&v| if v == UNKNOWN_NARROW { UNKNOWN } else { v as u16 }).collect();
    team.min_all(&mut wide)?;
    for (mark, &v) in marks.iter_mut().zip(&wide) {
        *mark = if v == UNKNOWN { UNKNOWN_NARROW } else { v as u8 };
    }
    Ok(())
}

/// The ranks (from `first`, that of `values[0]`) of the positions of `values` not marked
/// yet ([`Mark::UNMARKED`]), ascending: gathered in parallel, in chunks of [`KEEP_CHUNK`],
/// where there are many.
fn unmarked_ranks<M: Mark>(values: &[M], first: usize) -> Vec<u64> {
    fn unknown_in<M: Mark>(start: usize, chunk: &[M]) -> impl Iterator<Item = u64> + '_ {
        chunk.iter().enumerate().filter(|&(_, &v)| v == M::UNMARKED).map(move |(i, _)| (start + i) as u64)
    }
    if keep_in_parallel(values.len()) {
        // A parallel iterator collected into a vector keeps the order of its items.
        values
            .par_chunks(KEEP_CHUNK)
            .enumerate()
            .flat_map_iter(|(c, chunk)| unknown_in(first + c * KEEP_CHUNK, chunk))
            .collect()
    } else {
        values
            .chunks(KEEP_CHUNK)
            .enumerate()
            .flat_map(|(c, chunk)| unknown_in(first + c * KEEP_CHUNK, chunk))
            .collect()
    }
}

/// Reads the losses of a range of one source tier in rank order: each one's offer (one more
/// than its remoteness) and heaps, or its [`Shape`] (heaps and rank terms). From the
/// window's decoded heaps when it keeps them, else by unranking with a cursor.
struct LossReader<'a> {
    terms: &'a Terms<'a>,
    source: &'a TierValues,
    ranks: &'a [u32],
    decoded: Option<&'a [u8]>,
    decoded_tails: Option<&'a [u32]>,
    decoded_remoteness: Option<&'a [u16]>,
    cursor: crate::index::RankCursor<'a>,
    /// The source tier's total.
    total: u32,
    k: usize,
    /// The first loss read, the next and the end.
    start: usize,
    next: usize,
    end: usize,
    heaps: Vec<u32>,
}

impl<'a> LossReader<'a> {
    fn new(terms: &'a Terms<'a>, source: &'a TierValues, tier: TierId, range: Range<usize>) -> Self {
        LossReader {
            terms,
            source,
            ranks: source.losses.as_ref().expect("a source of losses").as_slice(),
            decoded: source.loss_heaps.as_ref().map(Array::as_slice),
            decoded_tails: source.loss_tails.as_ref().map(Array::as_slice),
            decoded_remoteness: source.loss_remoteness.as_ref().map(Array::as_slice),
            cursor: terms.table.cursor(tier.total, tier.heaps),
            total: tier.total,
            k: tier.heaps as usize,
            start: range.start,
            next: range.start,
            end: range.end,
            heaps: Vec::with_capacity(tier.heaps as usize),
        }
    }

    /// The next loss's offer and heaps.
    #[inline]
    fn next_heaps(&mut self) -> Option<(u16, &[u32])> {
        let n = self.next;
        if n == self.end {
            return None;
        }
        self.next += 1;
        let rank = self.ranks[n];
        let value = match self.decoded_remoteness {
            Some(remoteness) => remoteness[n],
            None => self.source.remoteness.get(rank as usize),
        } + 1;
        match self.decoded {
            Some(bytes) => {
                self.heaps.clear();
                self.heaps.extend(bytes[n * self.k..(n + 1) * self.k].iter().map(|&h| h as u32));
                Some((value, &self.heaps))
            }
            None => Some((value, self.cursor.seek(rank as u64))),
        }
    }

    /// Loads the next loss not passed over by `skip` (given its smallest and second
    /// smallest heaps, 0 where it has none) into `shape`, and returns its offer.
    #[inline]
    fn next_shape(&mut self, shape: &mut Shape, skip: impl Fn(u32, u32) -> bool) -> Option<u16> {
        let k = self.k;
        let last_two =
            |heaps: &[u32]| (heaps.last().copied().unwrap_or(0), if k >= 2 { heaps[k - 2] } else { 0 });
        let skip = |(smallest, second): (u32, u32)| skip(smallest, second);
        loop {
            let n = self.next;
            if n == self.end {
                return None;
            }
            self.next += 1;
            let rank = self.ranks[n];
            match self.decoded {
                Some(bytes) => {
                    let loss = &bytes[n * k..(n + 1) * k];
                    let smallest = loss.last().map_or(0, |&h| h as u32);
                    let second = if k >= 2 { loss[k - 2] as u32 } else { 0 };
                    if skip((smallest, second)) {
                        continue;
                    }
                    match self.decoded_tails {
                        Some(tails) => shape.load_terms(self.terms, loss, &tails[n * k..(n + 1) * k]),
                        None => shape.load_bytes(self.terms, loss),
                    }
                    if let Some(remoteness) = self.decoded_remoteness {
                        return Some(remoteness[n] + 1);
                    }
                }
                None => {
                    shape.seek(self.terms, self.total, k as u32, rank as u64);
                    if skip(last_two(shape.heaps())) {
                        continue;
                    }
                }
            }
            return Some(self.source.remoteness.get(rank as usize) + 1);
        }
    }
}

impl Drop for LossReader<'_> {
    /// Lets go of the pages of a spilled source that its losses read here were read from:
    /// marking reads every loss below once per total it marks, so the pages it read are let
    /// go of stretch by stretch rather than held for the whole total.
    fn drop(&mut self) {
        self.source.release_losses(self.start..self.next, self.k);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::game::GameSpec;
    use crate::{MemoryStore, Silent, SolveOptions, Strategy, solve};

    /// The tiers of `spec` to `total` under `convention`.
    fn tiers(spec: &str, total: u32, convention: Convention) -> BTreeMap<TierId, Vec<u16>> {
        let game: GameSpec = spec.parse().unwrap();
        let universe = Universe::new(game.rules(), spec, Some(total), None, None).unwrap();
        let options =
            SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
        let mut store = MemoryStore::default();
        solve(&game, &options, &mut store, &Silent).unwrap();
        store.tiers.into_iter().map(|(tier, solved)| (tier, solved.remoteness)).collect()
    }

    /// The tiers of `spec` to `total` under `convention`, solved into a store that already
    /// holds those of `kept` that `held` accepts (as a resumed solve, or one that finds tiers
    /// another run stored).
    fn resumed(
        spec: &str,
        total: u32,
        convention: Convention,
        kept: &BTreeMap<TierId, Vec<u16>>,
        held: impl Fn(TierId) -> bool,
    ) -> BTreeMap<TierId, Vec<u16>> {
        let game: GameSpec = spec.parse().unwrap();
        let universe = Universe::new(game.rules(), spec, Some(total), None, None).unwrap();
        let options =
            SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
        let mut store = MemoryStore::default();
        for (&tier, remoteness) in kept.iter().filter(|(t, _)| held(**t)) {
            let solved =
                crate::SolvedTier { tier, remoteness: remoteness.clone(), nim_values: None, seconds: 0.0 };
            store.tiers.insert(tier, solved);
        }
        solve(&game, &options, &mut store, &Silent).unwrap();
        store.tiers.into_iter().map(|(tier, solved)| (tier, solved.remoteness)).collect()
    }

    #[test]
    fn a_solve_that_finds_tiers_stored_gives_the_same_tiers() {
        // Kayles and Dawson's Kayles mark the totals above a loss as it is settled; lines
        // does not. Stored: every tier below a total, some of that total, and a few later
        // ones (found in the middle of the solve, as another run's).
        for spec in ["kayles", "dawson", "lines"] {
            for convention in [Convention::Misere, Convention::Normal] {
                let whole = tiers(spec, 24, convention);
                for cut in [0, 1, 2, 9, 14] {
                    let held = |t: TierId| {
                        t.total < cut
                            || (t.total == cut && t.heaps % 3 == 1)
                            || (t.total == cut + 3 && t.heaps.is_multiple_of(2))
                            || (t.total == cut + 4 && t.heaps == 3)
                    };
                    let again = resumed(spec, 24, convention, &whole, held);
                    assert_eq!(again, whole, "{spec} {convention} from {cut}");
                }
            }
        }
    }

    /// The tiers of `spec` (in `universe`) under `convention`, solved on a pool of `threads`
    /// threads after `tune` has set that pool's thread-local thresholds.
    fn tiers_on_pool(
        spec: &str,
        universe: Universe,
        convention: Convention,
        threads: usize,
        tune: impl Fn() + Send + Sync,
    ) -> BTreeMap<TierId, Vec<u16>> {
        let game: GameSpec = spec.parse().unwrap();
        let options =
            SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let store = pool.install(|| {
            tune();
            let mut store = MemoryStore::default();
            solve(&game, &options, &mut store, &Silent).unwrap();
            store
        });
        store.tiers.into_iter().map(|(tier, solved)| (tier, solved.remoteness)).collect()
    }

    /// The tiers of `spec` (in `universe`) under `convention`, solved on a pool of `threads`
    /// threads, marked in parallel from `parallel_min` losses with copies of up to
    /// `copies_max` bytes (0: atomics).
    fn tiers_on(
        spec: &str,
        universe: Universe,
        convention: Convention,
        threads: usize,
        (parallel_min, copies_max): (usize, u64),
    ) -> BTreeMap<TierId, Vec<u16>> {
        tiers_on_pool(spec, universe, convention, threads, || {
            MARK_LIMITS.with(|m| m.set((parallel_min, copies_max)))
        })
    }

    #[test]
    fn marking_in_copies_or_atomics_on_any_thread_count_gives_the_same_tiers() {
        // Heap games marked a total at a time (narrow: a byte a copy's cell), capped Nim
        // marked a batch of totals at a time with remoteness past a byte (the first thread
        // marks in place), and families that change several heaps (tier by tier).
        let universe = |spec: &str, total, heap, heaps| {
            let game: GameSpec = spec.parse().unwrap();
            Universe::new(game.rules(), spec, total, heap, heaps).unwrap()
        };
        let cases = [
            ("kayles", universe("kayles", Some(24), None, None)),
            ("lines", universe("lines", Some(20), None, None)),
            ("nim", universe("nim", None, Some(45), Some(3))),
            ("moore:2", universe("moore:2", Some(14), None, None)),
        ];
        for (spec, universe) in cases {
            for convention in [Convention::Misere, Convention::Normal] {
                let one = tiers_on(spec, universe, convention, 1, (PARALLEL_MARK_MIN, COPIES_MAX_BYTES));
                assert!(one.len() > 30, "{spec}: {} tiers", one.len());
                for threads in [2, 3] {
                    for copies_max in [COPIES_MAX_BYTES, 0] {
                        let many = tiers_on(spec, universe, convention, threads, (1, copies_max));
                        assert!(
                            many == one,
                            "{spec} {convention}: {threads} threads, copies up to {copies_max} bytes"
                        );
                    }
                }
            }
        }
    }

    /// The tiers of `spec` (in `universe`) under `convention`, solved on a pool of `threads`
    /// threads, each tier kept (and its unmarked positions gathered) in parallel from
    /// `keep_min` positions.
    fn tiers_kept_on(
        spec: &str,
        universe: Universe,
        convention: Convention,
        threads: usize,
        keep_min: usize,
    ) -> BTreeMap<TierId, Vec<u16>> {
        tiers_on_pool(spec, universe, convention, threads, || KEEP_MIN.with(|m| m.set(keep_min)))
    }

    #[test]
    fn keeping_tiers_in_parallel_agrees_with_the_forward_search() {
        // Capped Nim keeps each loss decoded with its rank terms, Kayles and lines a byte a
        // value (in tests a chunk is 64 positions or losses, so that most tiers have
        // several): each is checked against one thread and the forward search.
        let universe = |spec: &str, total, heap, heaps| {
            let game: GameSpec = spec.parse().unwrap();
            Universe::new(game.rules(), spec, total, heap, heaps).unwrap()
        };
        let cases = [
            ("nim", universe("nim", None, Some(24), Some(5))),
            ("kayles", universe("kayles", Some(22), None, None)),
            ("lines", universe("lines", Some(16), None, None)),
        ];
        for (spec, universe) in cases {
            let game: GameSpec = spec.parse().unwrap();
            let table = universe.table().unwrap();
            for convention in [Convention::Misere, Convention::Normal] {
                let one = tiers_kept_on(spec, universe, convention, 1, usize::MAX);
                for threads in [2, 3] {
                    let many = tiers_kept_on(spec, universe, convention, threads, 1);
                    assert!(many == one, "{spec} {convention}: {threads} threads");
                }
                let mut reference = crate::reference::ReferenceSearch::new(game.rules(), convention);
                let mut checked = 0;
                for (&tier, values) in &one {
                    for (rank, position) in table.positions(tier).enumerate() {
                        let (win, remoteness) = reference.solve(&position);
                        let r = values[rank] as u32;
                        assert_eq!(
                            (convention.is_win(r), r),
                            (win, remoteness),
                            "{spec} {convention} {position}"
                        );
                        checked += 1;
                    }
                }
                assert_eq!(checked, universe.positions(&table), "{spec}");
            }
        }
    }
}
