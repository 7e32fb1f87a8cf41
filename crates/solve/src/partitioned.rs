//! Retrograde solving with every tier's positions partitioned over the members of a team
//! (the ranks of an MPI job): memory and traffic divide over the members.
//!
//! Member `i` of `n` owns the contiguous block `len·i/n .. len·(i+1)/n` of every tier's
//! ranks ([`block`], [`owner`]). It holds only its blocks: of the solved tiers that later
//! tiers read (its window) and of the tiers being solved.
//!
//! - **Marking.** Each member reads the losses in its own blocks, computes their parents
//!   (as the single-process solver does, from rank terms), and gives each offer, a
//!   parent's rank and `1 +` the loss's remoteness, to the parent's owner: an offer to its
//!   own block is kept at once ([`Outbox`]), as one process keeps it, so a member alone
//!   does the single-process solver's work. Offers to other members are sent
//!   in rounds of at most [`OFFER_BATCH`] per member, so the buffers stay bounded; each
//!   round sends only the least offer to each cell, sorted (so that [`encode_words`](super::encode_words)
//!   packs it in about 2 bytes), and the owner keeps the least offer, which does not
//!   depend on the order offers arrive in.
//! - **Settling.** Each member settles the unmarked positions of its own block. Their
//!   children lie in other members' blocks, so it asks for them: in rounds of tokens taken
//!   (0, 1, 2–3, 4–7, …; alone, all in one), it reads those held here and sends each other
//!   child's rank to the child's owner and gets its remoteness back, and a position stops
//!   reading and asking once no child further down can last longer than the longest found
//!   (the bound of the single-process solver, from the greatest remoteness of each child
//!   tier's wins).
//! - **Storing.** Rank 0 gathers the blocks of each finished tier and gives the whole tier
//!   to its store; the other members' stores drop theirs. One process writes the database.
//!
//! The traffic is proportional to the losses' parents and children that cross blocks, not
//! to the positions. The solved tiers are the single-process solver's, whatever the team
//! size: the same offers reach the same cells, and each loss reads the same children.

use std::ops::{Range, RangeInclusive};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::game::{Convention, ParentBounds, TierRules};
use crate::index::{PartitionTable, TierId, Universe};

use super::retrograde::DECODED_LOSSES_MIN_REACH;
use super::shape::{ParentKinds, ParentQuery, Shape, Terms};
use super::window::{Column, Ranks, Reads, Spill, Window, as_bytes, map_spilled, prefetch};
use super::wire::{MAX_BLOCK, pack, sort_pairs, sort_words, unpack};
use super::{
    Alone, PartSink, Plan, Progress, SinkError, SolveError, SolveOptions, SolveReport, TierHead, TierStore,
    UNKNOWN, WholeTier, reach,
};

/// The most offers (or child requests) a member queues before a round of exchange: 8 bytes
/// each, so the outgoing buffer stays near 2 MiB, whatever the tier's size.
pub const OFFER_BATCH: usize = 1 << 14;

/// Losses per parallel work unit when marking.
const MARK_CHUNK: usize = 256;

/// Unmarked positions per parallel work unit when settling.
const PULL_CHUNK: usize = 128;

/// The fewest losses (or open positions, when settling) a member hands to its threads: below
/// it, the hand-off and the atomics cost more than they save (the single-process solver's
/// threshold).
const PARALLEL_MIN: usize = 1 << 13;

/// The members that solve each tier together, each owning one block of every tier
/// ([`block`]). Every member calls each method at the same point of the solve.
pub trait Partners: Sync {
    /// This member's index, from 0.
    fn index(&self) -> usize;
    /// How many members there are.
    fn size(&self) -> usize;
    /// Sends `outbox[m]` to member `m` (this member's own box included) and returns what
    /// each member sent to this one, in member order, and the bitwise or of every member's
    /// `flags` (see [`MORE`], [`ASKED`], [`OPEN`]).
    fn exchange(&self, outbox: Vec<Vec<u64>>, flags: u64) -> Result<(Vec<Vec<u64>>, u64), String>;
    /// Answers the requests of the last [`exchange`](Partners::exchange): `answers[m]`
    /// goes back to member `m`, and the returned `Vec` holds, for each member, its answers
    /// to this member's requests (`asked[m]` of them). Every member passes the same
    /// `most`, and no answer is greater (so the answers may travel narrower).
    fn answer(&self, answers: Vec<Vec<u16>>, asked: &[usize], most: u16) -> Result<Vec<Vec<u16>>, String>;
    /// Hands a finished tier of `len` positions to member 0 in parts (of at most
    /// [`GATHER_PART`] values, unless the partners agreed on another size): member 0 passes
    /// every part of the tier to `take`, in rank order (its own block's, then each member's
    /// in turn), so it never holds more than a part of another member's block; the others
    /// send their block and never call `take`.
    /// `most` is the tier's greatest value, as [`agree`](Partners::agree) gave it to every
    /// member. When `take` fails, member 0 still receives every part (no member is left
    /// waiting) and returns `take`'s error.
    fn gather_parts(
        &self,
        block: &[u16],
        len: u64,
        most: u16,
        take: &mut dyn FnMut(&[u16]) -> Result<(), String>,
    ) -> Result<(), String>;
    /// Agrees at the end of a tier: the greatest of every member's `max` and of every
    /// member's `longest_win`, and whether any member was asked to `stop`.
    fn agree(&self, max: u16, longest_win: u16, stop: bool) -> Result<(u16, u16, bool), String>;
    /// Hands out a stored tier of `len` positions as member 0 reads it: member 0 calls
    /// `load` with a sink that sends each member its [`block`] as the values come (after
    /// the tier's head) and then closes it; the others receive their block, then call
    /// `load` with a sink that takes nothing (so their store hears how member 0's load
    /// went). Every member gets its own block and the tier's greatest remoteness, so no
    /// member holds a whole tier; every member gets `None` when member 0's load gave no
    /// head. A load that fails after its head still leaves every member its full block
    /// (what is missing is zeros): the load's own error says it failed.
    fn scatter_parts(
        &self,
        len: u64,
        load: &mut dyn FnMut(&mut dyn PartSink),
    ) -> Result<Option<(Vec<u16>, u16)>, String>;
}

impl Partners for Alone {
    fn index(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn exchange(&self, outbox: Vec<Vec<u64>>, flags: u64) -> Result<(Vec<Vec<u64>>, u64), String> {
        Ok((outbox, flags))
    }
    fn answer(&self, answers: Vec<Vec<u16>>, _asked: &[usize], _most: u16) -> Result<Vec<Vec<u16>>, String> {
        Ok(answers)
    }
    fn gather_parts(
        &self,
        block: &[u16],
        _len: u64,
        _most: u16,
        take: &mut dyn FnMut(&[u16]) -> Result<(), String>,
    ) -> Result<(), String> {
        take_all(block.chunks(GATHER_PART), take)
    }
    fn agree(&self, max: u16, longest_win: u16, stop: bool) -> Result<(u16, u16, bool), String> {
        Ok((max, longest_win, stop))
    }
    fn scatter_parts(
        &self,
        _len: u64,
        load: &mut dyn FnMut(&mut dyn PartSink),
    ) -> Result<Option<(Vec<u16>, u16)>, String> {
        let mut whole = WholeTier::default();
        load(&mut whole);
        Ok(whole.head.map(|(_, most)| (whole.values, most)))
    }
}

/// The most values of a tier that travel to member 0 in one part ([`Partners::gather_parts`]):
/// 128 KiB as `u16`s, so member 0's store holds a bounded piece of each tier, not all of it.
pub const GATHER_PART: usize = 1 << 16;

/// Gives each of `parts` to `take` in turn; after a failure the rest are still walked (a
/// member's parts are received whatever the store does with them), and the first error
/// is returned.
pub fn take_all<'p>(
    parts: impl IntoIterator<Item = &'p [u16]>,
    take: &mut dyn FnMut(&[u16]) -> Result<(), String>,
) -> Result<(), String> {
    let mut failed = None;
    for part in parts {
        if failed.is_none() {
            failed = take(part).err();
        }
    }
    failed.map_or(Ok(()), Err)
}

/// A flag of [`Partners::exchange`]: this member has more to send after this round.
pub const MORE: u64 = 1;
/// A flag of [`Partners::exchange`]: this member's outbox holds requests to answer.
pub const ASKED: u64 = 2;
/// A flag of [`Partners::exchange`]: this member still has positions to settle.
pub const OPEN: u64 = 4;

/// Member `member` of `members`'s block of a tier of `len` positions.
pub fn block(len: u64, member: usize, members: usize) -> Range<u64> {
    let (len, i, n) = (len as u128, member as u128, members as u128);
    (len * i / n) as u64..(len * (i + 1) / n) as u64
}

/// The member whose [`block`] holds `rank` of a tier of `len` positions.
#[inline]
pub fn owner(rank: u64, len: u64, members: usize) -> usize {
    // The last member whose block starts at or before `rank`: len·i/n ≤ rank ⇔ len·i < (rank+1)·n.
    // In 64 bits when the product fits (always, for the tiers a solve partitions), since a
    // 128-bit division is a call.
    match rank.checked_add(1).and_then(|r| r.checked_mul(members as u64)) {
        Some(product) => ((product - 1) / len) as usize,
        None => (((rank as u128 + 1) * members as u128 - 1) / len as u128) as usize,
    }
}

/// One solved tier's block, as a member keeps it for later tiers.
struct Held {
    /// The tier's positions (all members').
    len: u64,
    /// The block's first rank.
    start: u64,
    /// The block's positions.
    count: u64,
    /// The block's remoteness values.
    values: Column,
    /// The ranks (in the whole tier) of the block's losses, ascending.
    losses: Ranks,
    /// Their remoteness.
    loss_values: Vec<u16>,
    /// Their heaps, a byte each, where the solver keeps them decoded (as the single-process
    /// window does, see [`Partitioned::decode_losses`]); dropped when the block spills.
    loss_heaps: Option<Vec<u8>>,
    /// The greatest remoteness of the whole tier's wins (of any position, for a tier loaded
    /// on a resume): a bound on a loss's children there.
    max_remoteness: u16,
}

impl Held {
    fn bytes(&self) -> u64 {
        self.values.bytes()
            + self.losses.bytes()
            + 2 * self.loss_values.len() as u64
            + self.loss_heaps.as_ref().map_or(0, |h| h.len() as u64)
    }

    /// The remoteness at `rank` if this block holds it.
    #[inline]
    fn local(&self, rank: u64) -> Option<u16> {
        let at = rank.checked_sub(self.start).filter(|&at| at < self.count)?;
        Some(self.values.get(at as usize))
    }
}

/// A member's blocks of the solved tiers, by tier, with a byte count and its peak; past
/// `spill`'s budget, a new block's values and loss ranks go to mapped files in this
/// member's own spill directory, and the pages read from them are let go of once the tier
/// that read them is solved, as the single-process window does.
struct Blocks {
    slots: Vec<Option<Held>>,
    stride: usize,
    bytes: u64,
    peak: u64,
    spill: Option<Spill>,
    spilled: u64,
    /// When spilling, which spilled blocks were read (see [`Reads`]).
    reads: Option<Reads>,
}

impl Blocks {
    fn new(universe: &Universe, spill: Option<Spill>) -> Self {
        let stride = universe.heaps_cap() as usize + 1;
        let slots = (0..(universe.max_total as usize + 1) * stride).map(|_| None).collect();
        let reads = spill.is_some().then(|| Reads::new(universe));
        Blocks { slots, stride, bytes: 0, peak: 0, spill, spilled: 0, reads }
    }

    /// Puts `tier`'s block in: held in memory, or spilled if that would pass the budget.
    /// First lets go of the pages read from the spilled blocks that the next tier cannot
    /// read (see [`Reads::release_after`]).
    fn put_or_spill(&mut self, tier: TierId, mut held: Held) -> Result<(), SolveError> {
        if let (Some(reads), slots) = (&mut self.reads, &self.slots) {
            reads.release_after(tier, |slot, let_go| {
                let Some(held) = &slots[slot] else { return false };
                if let_go {
                    held.values.release();
                    held.losses.release();
                }
                true
            });
        }
        if let Some(spill) = &self.spill
            && self.bytes + held.bytes() > spill.budget
        {
            held.loss_heaps = None;
            let stem = spill.file_stem(tier);
            let raw = held.values.raw();
            if !raw.is_empty() {
                self.spilled += raw.len() as u64;
                let map = map_spilled(spill.file(&stem, "values"), raw).map_err(SolveError::Spill)?;
                held.values = Column::Mapped { map, wide: matches!(held.values, Column::Wide(_)) };
            }
            if let Ranks::Held(ranks) = &held.losses
                && !ranks.is_empty()
            {
                let raw = as_bytes(ranks);
                self.spilled += raw.len() as u64;
                held.losses =
                    Ranks::Mapped(map_spilled(spill.file(&stem, "losses"), raw).map_err(SolveError::Spill)?);
            }
            let slot = tier.total as usize * self.stride + tier.heaps as usize;
            if let Some(reads) = &mut self.reads {
                reads.spilled(slot);
            }
        }
        self.put(tier, held);
        Ok(())
    }

    /// The block of `tier`, if held; when spilling, notes that it was asked for.
    #[inline]
    fn get(&self, tier: TierId) -> Option<&Held> {
        if tier.heaps as usize >= self.stride {
            return None;
        }
        let slot = tier.total as usize * self.stride + tier.heaps as usize;
        let held = self.slots.get(slot)?.as_ref()?;
        if let Some(reads) = &self.reads {
            reads.note(slot);
        }
        Some(held)
    }

    fn put(&mut self, tier: TierId, held: Held) {
        let slot = tier.total as usize * self.stride + tier.heaps as usize;
        self.bytes += held.bytes();
        if let Some(old) = self.slots[slot].replace(held) {
            self.bytes -= old.bytes();
        }
        self.peak = self.peak.max(self.bytes);
    }

    fn evict_below(&mut self, total: u32) {
        let end = (total as usize * self.stride).min(self.slots.len());
        for slot in &mut self.slots[..end] {
            if let Some(old) = slot.take() {
                self.bytes -= old.bytes();
            }
        }
    }
}

/// One tier being marked: this member's block of it.
struct Target<'v> {
    heaps: u32,
    len: u64,
    block: &'v mut [u16],
}

/// How the units of a round of marking keep the least offer in this member's own cells.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cells {
    /// One unit at a time, on this thread: a plain minimum.
    Alone,
    /// In parallel: an atomic minimum, paid only when the offer improves.
    Shared,
}

/// A tier being marked, as the units of marking see it: its positions, this member's block
/// (first rank and count) and the block's cells.
struct Landing<'t> {
    len: u64,
    own: u64,
    count: u64,
    cells: &'t [AtomicU16],
}

/// Where a unit of marking puts its offers: into this member's own cells at once (the least
/// offer kept), or into the box of the member that owns the cell, packed ([`pack`]). An
/// offer to an own cell prefetches it and takes it [`LAG`] offers later, so that the cache
/// misses of a total of megabytes overlap (as the single-process solver's marking does);
/// [`flush`](Outbox::flush) gives the offers still in flight.
struct Outbox<'l, 't> {
    /// The tiers being marked, by heap count.
    landings: &'l [Option<Landing<'t>>],
    n: usize,
    cells: Cells,
    /// The offers to each other member (empty until the first).
    boxes: Vec<Vec<u64>>,
    /// Offers to own cells in flight, and the slot of the next.
    pending: [Option<(&'t AtomicU16, u16)>; LAG],
    at: usize,
}

/// Offers to own cells in flight at once (see [`Outbox`]).
const LAG: usize = 16;

impl<'l, 't> Outbox<'l, 't> {
    fn new(landings: &'l [Option<Landing<'t>>], n: usize, cells: Cells) -> Self {
        Outbox { landings, n, cells, boxes: Vec::new(), pending: [None; LAG], at: 0 }
    }

    /// Offers `value` to `rank` of the tier of `heaps` heaps being marked.
    #[inline]
    fn offer(&mut self, heaps: u32, rank: u64, value: u16) {
        let landing = self.landings[heaps as usize].as_ref().expect("an offer to a tier being marked");
        let at = rank.wrapping_sub(landing.own);
        if at < landing.count {
            let cell = &landing.cells[at as usize];
            prefetch(cell);
            if let Some((old, value)) = self.pending[self.at].replace((cell, value)) {
                self.take(old, value);
            }
            self.at = (self.at + 1) % LAG;
        } else {
            let to = owner(rank, landing.len, self.n);
            let start = block(landing.len, to, self.n).start;
            if self.boxes.is_empty() {
                self.boxes = vec![Vec::new(); self.n];
            }
            self.boxes[to].push(pack(heaps, rank - start, value));
        }
    }

    /// Keeps the least of `cell` and `value` in `cell`.
    #[inline(always)]
    fn take(&self, cell: &AtomicU16, value: u16) {
        let old = cell.load(Ordering::Relaxed);
        match self.cells {
            // Branch-free: whether an offer improves is unpredictable.
            Cells::Alone => cell.store(old.min(value), Ordering::Relaxed),
            // Most offers do not improve: only then pay for the atomic.
            Cells::Shared => {
                if value < old {
                    cell.fetch_min(value, Ordering::Relaxed);
                }
            }
        }
    }

    /// Gives every offer still in flight to its cell, and returns the boxes.
    fn flush(mut self) -> Vec<Vec<u64>> {
        for slot in 0..LAG {
            if let Some((cell, value)) = self.pending[slot].take() {
                self.take(cell, value);
            }
        }
        self.boxes
    }
}

/// Solves `options.universe` as one member of `partners`. Rank 0's `store` gets each whole
/// tier; every member's store sees the same calls in the same order.
pub(super) fn run<R: TierRules>(
    rules: &R,
    options: &SolveOptions,
    table: &PartitionTable,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    partners: &dyn Partners,
    spill: Option<&Spill>,
) -> Result<SolveReport, SolveError> {
    let universe = &options.universe;
    let size = |t: TierId| table.tier_size(t.total, t.heaps);
    let (Plan { tiers, stored, first }, mut report) = Plan::new(options, table, store, progress)?;
    if first == tiers.len() {
        return Ok(report);
    }
    let (me, n) = (partners.index(), partners.size());
    // A block's cells are addressed in 32 bits, and the losses kept by their rank in the
    // tier, also 32 bits.
    if let Some(&tier) = tiers.iter().find(|&&t| size(t).div_ceil(n as u64) > MAX_BLOCK || size(t) > 1 << 32)
    {
        return Err(SolveError::Team(format!(
            "tier {tier} holds {} positions: too many to partition (at most 2^32 a tier and {MAX_BLOCK} a rank)",
            size(tier)
        )));
    }
    if universe.max_total > u16::MAX as u32 || universe.heaps_cap() > u16::MAX as u32 {
        return Err(SolveError::Team("a universe this wide cannot be partitioned".into()));
    }
    let solver = Partitioned {
        rules,
        table,
        terms: Terms::new(table),
        universe,
        convention: options.convention,
        reach: reach(rules, universe),
        narrow: Window::narrow(universe),
        decode_losses: reach(rules, universe) >= DECODED_LOSSES_MIN_REACH
            && universe.part_cap() <= u8::MAX as u32
            && spill.is_none()
            && n == 1,
        me,
        n,
        partners,
    };
    let team = |e: String| SolveError::Team(e);
    let mut window = Blocks::new(universe, spill.cloned());
    let resume_total = tiers[first].total;
    for &tier in &tiers[..first] {
        if tier.total + solver.reach >= resume_total {
            let held = solver.load_block(store, tier, size(tier))?;
            window.put_or_spill(tier, held)?;
        }
    }

    let mut current_total = resume_total;
    let whole_totals = R::ONE_HEAP_MOVES;
    let mut pending: Vec<(TierId, Vec<u16>)> = Vec::new();
    let mut marked_total = None;
    let mut stop = false;
    for &tier in &tiers[first..] {
        if stop {
            store.finish()?;
            return Err(SolveError::Interrupted { tiers: report.tiers_now, positions: report.solved_now });
        }
        if tier.total != current_total {
            current_total = tier.total;
            window.evict_below(current_total.saturating_sub(solver.reach));
        }
        if stored.contains(&tier) {
            let held = solver.load_block(store, tier, size(tier))?;
            window.put_or_spill(tier, held)?;
            progress.tier_done(tier, size(tier));
            continue;
        }
        let started = Instant::now();
        let own = block(size(tier), me, n);
        let mut values = if whole_totals {
            if marked_total != Some(tier.total) {
                pending = tiers[first..]
                    .iter()
                    .filter(|t| t.total == tier.total && !stored.contains(t))
                    .map(|&t| {
                        let b = block(size(t), me, n);
                        (t, vec![UNKNOWN; (b.end - b.start) as usize])
                    })
                    .collect();
                let mut targets: Vec<Target> = pending
                    .iter_mut()
                    .map(|(t, v)| Target { heaps: t.heaps, len: size(*t), block: &mut v[..] })
                    .collect();
                report.edges += solver.mark_heaps(tier.total, &mut targets, 1..=solver.reach, &window)?;
                marked_total = Some(tier.total);
            }
            let at =
                pending.iter().position(|(t, _)| *t == tier).expect("the tier was marked with its total");
            pending.swap_remove(at).1
        } else {
            vec![UNKNOWN; (own.end - own.start) as usize]
        };
        let target = Target { heaps: tier.heaps, len: size(tier), block: &mut values[..] };
        report.edges += if R::ONE_HEAP_MOVES {
            solver.mark_heaps(tier.total, &mut [target], 0..=0, &window)?
        } else {
            solver.mark(tier, target, &window)?
        };
        report.edges += solver.settle(tier, own.start, &mut values, &window)?;
        // The tier's greatest remoteness (what its head says), and its wins' (all that a
        // loss's children can be: the bound a later tier's losses settle by).
        let longest_win =
            values.iter().copied().filter(|&r| solver.convention.is_win(r as u32)).max().unwrap_or(0);
        let (max_remoteness, longest_win, stopping) = partners
            .agree(values.iter().copied().max().unwrap_or(0), longest_win, progress.interrupted())
            .map_err(team)?;
        stop = stopping;
        let head = TierHead {
            tier,
            positions: size(tier),
            max_remoteness,
            seconds: started.elapsed().as_secs_f64(),
        };
        report.losses_now += solver.store_tier(store, &head, &values)?;
        report.solved_now += size(tier);
        report.tiers_now += 1;
        progress.tier_done(tier, size(tier));
        window.put_or_spill(tier, solver.keep(tier, own.start, values, longest_win))?;
    }
    report.peak_window_bytes = window.peak;
    report.spilled_bytes = window.spilled;
    Ok(report)
}

struct Partitioned<'a, R> {
    rules: &'a R,
    table: &'a PartitionTable,
    /// The table's counts, addressed from each heap's place by [`Shape`].
    terms: Terms<'a>,
    universe: &'a Universe,
    convention: Convention,
    reach: u32,
    narrow: bool,
    /// Whether the window keeps each loss's heaps decoded, as the single process's does (a
    /// long reach, heaps below 256, no spilling): each loss is then read by many later
    /// totals, and unranking it each time costs more than its bytes. Only for a member
    /// alone: with several, the memory is what the partition is for, and the losses (so
    /// their bytes) do not spread evenly over the blocks (misère lines to 50 on 4 ranks:
    /// rank 0's window 0.34 of one rank's with them, against 0.25 of the positions).
    decode_losses: bool,
    me: usize,
    n: usize,
    partners: &'a dyn Partners,
}

impl<R: TierRules> Partitioned<'_, R> {
    /// Stores a finished tier, this member's block of it in `values`: member 0's store
    /// takes it in parts as the members send their blocks ([`Partners::gather_parts`]), so
    /// no member holds the whole tier. Returns the tier's losses as member 0 counts them
    /// (0 on the others).
    fn store_tier(
        &self,
        store: &mut dyn TierStore,
        head: &TierHead,
        values: &[u16],
    ) -> Result<u64, SolveError> {
        let convention = self.convention;
        let (mut losses, gathered, mut team_failed) = (0u64, std::cell::Cell::new(false), None);
        let mut gather = |sink: &mut dyn FnMut(&[u16]) -> Result<(), SinkError>| -> Result<(), SinkError> {
            gathered.set(true);
            let mut stored = Ok(());
            let moved =
                self.partners.gather_parts(values, head.positions, head.max_remoteness, &mut |part| {
                    losses += part.iter().filter(|&&r| convention.loses(r)).count() as u64;
                    sink(part).map_err(|e| {
                        let words = e.to_string();
                        stored = Err(e);
                        words
                    })
                });
            stored?;
            moved.map_err(|e| {
                team_failed = Some(e.clone());
                SinkError::new(e)
            })
        };
        let saved = store.save_in_parts(head, &mut gather);
        // A store that failed before taking the parts still lets the members send them.
        if !gathered.get() {
            gather(&mut |_| Ok(())).ok();
        }
        if let Some(e) = team_failed {
            return Err(SolveError::Team(e));
        }
        saved?;
        Ok(losses)
    }
}

/// A sink that refuses a tier whose head gives other than `len` positions (a row that is
/// not the tier's), remembering what it held.
struct SizeChecked<'s> {
    inner: &'s mut dyn PartSink,
    len: u64,
    held: Option<u64>,
}

impl PartSink for SizeChecked<'_> {
    fn head(&mut self, positions: u64, max_remoteness: u16) -> Result<(), SinkError> {
        if positions != self.len {
            self.held = Some(positions);
            return Err(SinkError::new(format!(
                "the stored tier holds {positions} positions, not {}",
                self.len
            )));
        }
        self.inner.head(positions, max_remoteness)
    }
    fn part(&mut self, values: &[u16]) -> Result<(), SinkError> {
        self.inner.part(values)
    }
    fn close(&mut self) -> Result<(), SinkError> {
        self.inner.close()
    }
}

impl<R: TierRules> Partitioned<'_, R> {
    /// A solved tier's block as this member keeps it.
    fn keep(&self, tier: TierId, start: u64, values: Vec<u16>, max_remoteness: u16) -> Held {
        let mut losses = Vec::new();
        let mut loss_values = Vec::new();
        for (at, &r) in values.iter().enumerate() {
            if !self.convention.is_win(r as u32) {
                losses.push((start + at as u64) as u32);
                loss_values.push(r);
            }
        }
        let count = values.len() as u64;
        let loss_heaps = self.decode_losses.then(|| {
            let mut cursor = self.table.cursor(tier.total, tier.heaps);
            let mut bytes = Vec::with_capacity(losses.len() * tier.heaps as usize);
            for &rank in &losses {
                bytes.extend(cursor.seek(rank as u64).iter().map(|&h| h as u8));
            }
            bytes
        });
        Held {
            len: self.table.size(tier),
            start,
            count,
            values: Column::new(values, self.narrow),
            losses: Ranks::Held(losses),
            loss_values,
            loss_heaps,
            max_remoteness,
        }
    }

    /// This member's block of a stored tier of `len` positions (on a resume): member 0's
    /// store reads the tier in parts and member 0 hands each member its block as the parts
    /// come ([`Partners::scatter_parts`]); the others' stores only hear whether it could.
    fn load_block(&self, store: &mut dyn TierStore, tier: TierId, len: u64) -> Result<Held, SolveError> {
        let (mut loaded, mut held) = (Ok(()), None);
        let got = self
            .partners
            .scatter_parts(len, &mut |sink| {
                let mut checked = SizeChecked { inner: sink, len, held: None };
                loaded = store.load_in_parts(tier, &mut checked);
                held = checked.held;
            })
            .map_err(SolveError::Team)?;
        if let Some(held) = held {
            return Err(SolveError::CorruptTier { tier, held, expected: len });
        }
        loaded?;
        let Some((values, max)) = got else {
            return Err(SolveError::Team(format!("rank 0 could not load tier {tier}")));
        };
        Ok(self.keep(tier, block(len, self.me, self.n).start, values, max))
    }

    fn bounds(&self) -> ParentBounds {
        ParentBounds { max_heap: self.universe.part_cap(), max_heaps: self.universe.heaps_cap() }
    }

    /// Sends the offers of the work `units` in rounds of at most [`OFFER_BATCH`], and
    /// keeps the least offer in each cell of this member's `targets`. `mark_unit` marks one
    /// unit into an [`Outbox`] (which keeps the offers to this member's own cells at once
    /// and boxes the others by owner) and returns the links it followed.
    fn offer_rounds<U: Sync>(
        &self,
        units: &[U],
        targets: &mut [Target],
        mark_unit: impl Fn(&U, &mut Outbox) -> u64 + Sync,
    ) -> Result<u64, SolveError> {
        let mut landings: Vec<Option<Landing>> =
            (0..targets.iter().map(|t| t.heaps as usize + 1).max().unwrap_or(0)).map(|_| None).collect();
        // With several threads the units mark this member's own cells at once, so each cell
        // keeps the least offer through an atomic minimum; alone, through a plain one.
        let threads = rayon::current_num_threads().max(1);
        let losses = units.len() * MARK_CHUNK;
        let cells = if threads > 1
            && losses >= PARALLEL_MIN
            && std::mem::align_of::<AtomicU16>() == std::mem::align_of::<u16>()
        {
            Cells::Shared
        } else {
            Cells::Alone
        };
        for t in targets.iter_mut() {
            let own = block(t.len, self.me, self.n);
            // SAFETY: `t.block` is borrowed exclusively for this call, and `AtomicU16` has the
            // size and bit validity of `u16` (and, checked above where it is used, its
            // alignment); the plain view is only used from one thread at a time.
            let cells = unsafe { &*(&mut *t.block as *mut [u16] as *const [AtomicU16]) };
            landings[t.heaps as usize] =
                Some(Landing { len: t.len, own: own.start, count: own.end - own.start, cells });
        }
        let mut step = threads * 2;
        let mut at = 0;
        let mut edges = 0;
        loop {
            let mut outbox = vec![Vec::new(); self.n];
            let mut queued = 0;
            while at < units.len() && queued < OFFER_BATCH {
                let end = (at + step).min(units.len());
                let mark = |unit: &U| {
                    let mut out = Outbox::new(&landings, self.n, cells);
                    let e = mark_unit(unit, &mut out);
                    (out.flush(), e)
                };
                let marked: Vec<(Vec<Vec<u64>>, u64)> = if cells == Cells::Shared {
                    units[at..end].par_iter().map(mark).collect()
                } else {
                    units[at..end].iter().map(mark).collect()
                };
                let before = queued;
                for (boxes, e) in marked {
                    edges += e;
                    for (to, mut b) in boxes.into_iter().enumerate() {
                        queued += b.len();
                        outbox[to].append(&mut b);
                    }
                }
                // Few offers for other members (none alone): larger steps, fewer hand-offs.
                if (queued - before) * 4 < OFFER_BATCH {
                    step *= 2;
                }
                at = end;
            }
            // Only the least offer to each cell counts: send each once, in order (which
            // also makes the batch compress well, see `encode_words`).
            for offers in &mut outbox {
                sort_words(offers);
                offers.dedup_by_key(|x| *x >> 16);
            }
            let flags = if at < units.len() { MORE } else { 0 };
            let (inbox, flags) = self.partners.exchange(outbox, flags).map_err(SolveError::Team)?;
            for offers in inbox {
                for x in offers {
                    let (heaps, cell, value) = unpack(x);
                    let landing = landings[heaps as usize].as_ref().expect("an offer to a tier being marked");
                    let cell = &landing.cells[cell];
                    cell.store(cell.load(Ordering::Relaxed).min(value), Ordering::Relaxed);
                }
            }
            if flags & MORE == 0 {
                return Ok(edges);
            }
        }
    }

    /// Marks the wins of `targets` (this member's blocks of tiers of `total`) for a family
    /// that moves one heap at a time, from this member's losses `adds` tokens below (the
    /// single-process solver's `mark_heaps`, its offers routed to their owners).
    fn mark_heaps(
        &self,
        total: u32,
        targets: &mut [Target],
        adds: RangeInclusive<u32>,
        window: &Blocks,
    ) -> Result<u64, SolveError> {
        let wanted = |heaps: u32| targets.iter().any(|t| t.heaps == heaps);
        let fewest = targets.iter().map(|t| t.heaps.saturating_sub(1)).min().unwrap_or(0);
        let most = targets.iter().map(|t| t.heaps + 2).max().unwrap_or(0);
        let mut sources = Vec::new();
        for added in *adds.start()..=(*adds.end()).min(self.reach).min(total) {
            for heaps in fewest..=most {
                let kinds = ParentKinds {
                    vanished: added >= 1 && self.rules.heap_vanishes(added) && wanted(heaps + 1),
                    grown: added >= 1 && wanted(heaps),
                    joined: heaps >= 1 && self.rules.may_split(added) && wanted(heaps - 1),
                };
                let three = heaps >= 2 && self.rules.may_split_three(added) && wanted(heaps - 2);
                if !(kinds.vanished || kinds.grown || kinds.joined || three) {
                    continue;
                }
                if let Some(held) = window.get(TierId { total: total - added, heaps }) {
                    sources.push((held, heaps, added, kinds, three));
                }
            }
        }
        let units = chunks(sources.iter().map(|s| s.0.losses.len()));
        let bounds = self.bounds();
        self.offer_rounds(&units, targets, |&(s, ref range), out| {
            let (held, k, added, kinds, three) = sources[s];
            let source_total = total - added;
            let mut shape = Shape::default();
            let mut buf = Vec::new();
            let mut edges = 0;
            let top = bounds.max_heap;
            let always = three || (kinds.vanished && k < bounds.max_heaps);
            let ku = k as usize;
            let ranks = held.losses.as_slice();
            for i in range.clone() {
                // A loss with no parent here (its smallest heaps too large to grow or join
                // within the heap cap) is passed over before its rank terms are computed.
                let (smallest, second) = match &held.loss_heaps {
                    Some(bytes) => {
                        let loss = &bytes[i * ku..(i + 1) * ku];
                        (loss.last().map_or(0, |&h| h as u32), if ku >= 2 { loss[ku - 2] as u32 } else { 0 })
                    }
                    None => {
                        shape.seek(&self.terms, source_total, k, ranks[i] as u64);
                        let heaps = shape.heaps();
                        (heaps.last().copied().unwrap_or(0), if ku >= 2 { heaps[ku - 2] } else { 0 })
                    }
                };
                let some_parent = always
                    || (kinds.grown && smallest + added <= top)
                    || (kinds.joined && k >= 2 && smallest + second + added <= top);
                if !some_parent {
                    continue;
                }
                if let Some(bytes) = &held.loss_heaps {
                    shape.load_bytes(&self.terms, &bytes[i * ku..(i + 1) * ku]);
                }
                let value = held.loss_values[i] + 1;
                if three {
                    let h = k - 2;
                    edges += self.rules.parents_adding(shape.heaps(), added, h, bounds, &mut buf, |parent| {
                        out.offer(h, self.table.rank(parent), value)
                    });
                }
                let query = ParentQuery { added, bounds, kinds };
                edges += shape.parents(self.rules, &self.terms, query, |change, rank| {
                    out.offer(k.wrapping_add_signed(change), rank as u64, value)
                });
            }
            edges
        })
    }

    /// Marks the wins of `target` (this member's block of `tier`) for a family whose moves
    /// may change several heaps, from this member's losses within the reach below.
    fn mark(&self, tier: TierId, target: Target, window: &Blocks) -> Result<u64, SolveError> {
        let change = self.rules.heap_change();
        let mut sources = Vec::new();
        for added in 0..=self.reach.min(tier.total) {
            for heaps in tier.heaps.saturating_sub(change.fewer)..=tier.heaps + change.more {
                let source = TierId { total: tier.total - added, heaps };
                if source == tier {
                    continue;
                }
                if let Some(held) = window.get(source) {
                    sources.push((held, heaps, added));
                }
            }
        }
        let units = chunks(sources.iter().map(|s| s.0.losses.len()));
        let bounds = self.bounds();
        let heaps = target.heaps;
        self.offer_rounds(&units, &mut [target], |&(s, ref range), out| {
            let (held, k, added) = sources[s];
            let mut cursor = self.table.cursor(tier.total - added, k);
            let mut buf = Vec::new();
            let mut edges = 0;
            for i in range.clone() {
                let value = held.loss_values[i] + 1;
                let loss = cursor.seek(held.losses.as_slice()[i] as u64);
                edges += self.rules.parents_adding(loss, added, tier.heaps, bounds, &mut buf, |parent| {
                    out.offer(heaps, self.table.rank(parent), value)
                });
            }
            edges
        })
    }

    /// `bounds[d]`: the greatest remoteness among the child tiers of `tier` that lie `d` or
    /// more tokens down (see [`window::remoteness_bounds`](super::window::remoteness_bounds)).
    fn remoteness_bounds(&self, tier: TierId, window: &Blocks) -> Vec<u16> {
        super::window::remoteness_bounds(tier, self.reach, self.rules.heap_change(), |t| {
            window.get(t).map(|held| held.max_remoteness)
        })
    }

    /// Settles the unmarked positions of this member's block `values` of `tier` (starting
    /// at rank `start`): a loss lasts one move longer than its longest child. Children held
    /// by other members are asked for in rounds of tokens taken (0, 1, 2–3, 4–7, …; a
    /// member alone reads them all in one round), each in batches of at most about
    /// [`OFFER_BATCH`] requests. Within a round a position stops reading its children once
    /// none further down can last longer than the longest found here (the bound of the
    /// single-process solver; answers still to come can only raise the longest). Returns
    /// the links read.
    fn settle(
        &self,
        tier: TierId,
        start: u64,
        values: &mut [u16],
        window: &Blocks,
    ) -> Result<u64, SolveError> {
        let unmarked: Vec<u64> =
            (0..values.len() as u64).filter(|&at| values[at as usize] == UNKNOWN).collect();
        let mut longest: Vec<Option<u16>> = vec![None; unmarked.len()];
        let mut open: Vec<u32> = (0..unmarked.len() as u32).collect();
        let max_taken = self.reach.min(tier.total);
        let bounds = self.remoteness_bounds(tier, window);
        // No child's remoteness passes the greatest of its tier's.
        let most = bounds.first().copied().unwrap_or(0);
        let held =
            |total: u32, heaps: u32| window.get(TierId { total, heaps }).expect("child tier in memory");
        // The child tier of each step of a family that moves one heap: `taken` tokens fewer,
        // `parts − 1` heaps more.
        let steps: Vec<Option<&Held>> = (0..=max_taken)
            .flat_map(|taken| {
                (0..4u32).map(move |parts| {
                    (tier.heaps + parts)
                        .checked_sub(1)
                        .and_then(|heaps| window.get(TierId { total: tier.total - taken, heaps }))
                })
            })
            .collect();
        let threads = rayon::current_num_threads().max(1);
        let mut step = threads * PULL_CHUNK;
        let mut edges = 0;
        let mut from = 0u32;
        'ranges: while from <= max_taken {
            let to = if self.n == 1 {
                max_taken + 1
            } else if from == 0 {
                1
            } else {
                (2 * from).min(max_taken + 1)
            };
            let mut next = 0;
            let mut first = true;
            loop {
                // A batch of open positions: their children taking `from..to` tokens held
                // here are read at once, the others asked of their owners.
                let mut asks = vec![Vec::new(); self.n];
                let mut origins = vec![Vec::new(); self.n];
                let mut queued = 0;
                while next < open.len() && queued < OFFER_BATCH {
                    let end = (next + step).min(open.len());
                    let read = |chunk: &[u32]| {
                        self.children(
                            tier,
                            start,
                            &unmarked,
                            &longest,
                            chunk,
                            from..to,
                            &bounds,
                            &steps,
                            &held,
                        )
                    };
                    let found: Vec<_> = if threads > 1 && open.len() >= PARALLEL_MIN {
                        open[next..end].par_chunks(PULL_CHUNK).map(read).collect()
                    } else {
                        vec![read(&open[next..end])]
                    };
                    let before = queued;
                    for (local, mut a, mut o, e) in found {
                        edges += e;
                        for (o, best) in local {
                            longest[o as usize] = best;
                        }
                        for m in 0..a.len() {
                            queued += a[m].len();
                            asks[m].append(&mut a[m]);
                            origins[m].append(&mut o[m]);
                        }
                    }
                    // Few requests (none alone): larger steps, fewer hand-offs.
                    if (queued - before) * 4 < OFFER_BATCH {
                        step *= 2;
                    }
                    next = end;
                }
                // Each child once per owner, in order; `fans[m]` takes each answer back to the
                // positions that asked for it.
                let fans: Vec<Vec<(u32, u32)>> = asks
                    .iter_mut()
                    .zip(&mut origins)
                    .map(|(asks, origins)| {
                        let mut pairs: Vec<(u64, u32)> = asks.drain(..).zip(origins.drain(..)).collect();
                        sort_pairs(&mut pairs);
                        let mut fan = Vec::with_capacity(pairs.len());
                        for (ask, o) in pairs {
                            if asks.last() != Some(&ask) {
                                asks.push(ask);
                            }
                            fan.push((o, asks.len() as u32 - 1));
                        }
                        fan
                    })
                    .collect();
                let asked: Vec<usize> = asks.iter().map(Vec::len).collect();
                let flag = |on: bool, flag: u64| if on { flag } else { 0 };
                let flags = flag(asked.iter().any(|&a| a > 0), ASKED)
                    | flag(next < open.len(), MORE)
                    | flag(!open.is_empty(), OPEN);
                let (requests, flags) = self.partners.exchange(asks, flags).map_err(SolveError::Team)?;
                if first && flags & OPEN == 0 {
                    // No member has a position left to settle.
                    break 'ranges;
                }
                first = false;
                if flags & ASKED != 0 {
                    let answers: Vec<Vec<u16>> = requests
                        .into_iter()
                        .map(|reqs| {
                            reqs.into_iter()
                                .map(|x| {
                                    let (heaps, cell, taken) = unpack(x);
                                    held(tier.total - taken as u32, heaps).values.get(cell)
                                })
                                .collect()
                        })
                        .collect();
                    let replies = self.partners.answer(answers, &asked, most).map_err(SolveError::Team)?;
                    for (fan, reply) in fans.iter().zip(replies) {
                        for &(o, u) in fan {
                            let r = reply[u as usize];
                            let slot = &mut longest[o as usize];
                            *slot = Some(slot.map_or(r, |l| l.max(r)));
                        }
                    }
                }
                if flags & MORE == 0 {
                    break;
                }
            }
            from = to;
            open.retain(|&o| {
                from <= max_taken && longest[o as usize].is_none_or(|l| l < bounds[from as usize])
            });
        }
        for (at, l) in unmarked.iter().zip(longest) {
            values[*at as usize] = l.map_or(0, |l| l + 1);
        }
        Ok(edges)
    }

    /// The children taking `taken` tokens of the open positions `chunk` (indices into
    /// `unmarked`), fewest tokens first, until none further down can last longer than the
    /// longest found (`bounds`): the longest held here for each, and the requests (with the
    /// position each is for) for those held by each other member, and the links read.
    /// `steps` are the child tiers of a family that moves one heap (by tokens taken and
    /// parts left), `held` any child tier.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn children<'w>(
        &self,
        tier: TierId,
        start: u64,
        unmarked: &[u64],
        longest: &[Option<u16>],
        chunk: &[u32],
        taken: Range<u32>,
        bounds: &[u16],
        steps: &[Option<&'w Held>],
        held: &(impl Fn(u32, u32) -> &'w Held + Sync),
    ) -> (Vec<(u32, Option<u16>)>, Vec<Vec<u64>>, Vec<Vec<u32>>, u64) {
        let mut asks: Vec<Vec<u64>> = Vec::new();
        let mut origins: Vec<Vec<u32>> = Vec::new();
        let mut local = Vec::with_capacity(chunk.len());
        let mut edges = 0;
        let mut shape = Shape::default();
        let mut cursor = self.table.cursor(tier.total, tier.heaps);
        let mut buf = Vec::new();
        // The child columns held a byte a value, by step: each block's first rank and values
        // (empty where a step's tier is not held, or held wider).
        let narrow: Vec<(u64, &[u8])> = steps
            .iter()
            .map(|h| match h {
                Some(h) => match &h.values {
                    Column::Narrow(v) => (h.start, &v[..]),
                    _ => (0, &[][..]),
                },
                None => (0, &[][..]),
            })
            .collect();
        for &o in chunk {
            let best = std::cell::Cell::new(longest[o as usize]);
            let rank = start + unmarked[o as usize];
            let mut child = |taken: u32, heaps: u32, h: &Held, child: u64| match h.local(child) {
                Some(r) => best.set(Some(best.get().map_or(r, |l| l.max(r)))),
                None => {
                    let owner = owner(child, h.len, self.n);
                    let cell = child - block(h.len, owner, self.n).start;
                    if asks.is_empty() {
                        asks = vec![Vec::new(); self.n];
                        origins = vec![Vec::new(); self.n];
                    }
                    asks[owner].push(pack(heaps, cell, taken as u16));
                    origins[owner].push(o);
                }
            };
            let ends = |best: Option<u16>, t: u32| {
                best.is_some_and(|l| bounds.get(t as usize).is_none_or(|&b| l >= b))
            };
            if R::ONE_HEAP_MOVES {
                shape.seek(&self.terms, tier.total, tier.heaps, rank);
                for t in taken.clone() {
                    // No child from here on can last longer than the best found.
                    if ends(best.get(), t) {
                        break;
                    }
                    edges += shape.children_taking(self.rules, &self.terms, t, &mut buf, |s, r| {
                        let at = (s.taken * 4 + s.parts) as usize;
                        // A child in this member's block of a column held a byte a value:
                        // one load.
                        if let Some(&(start, values)) = narrow.get(at)
                            && let Some(&r) = values.get((r as u64).wrapping_sub(start) as usize)
                        {
                            best.set(Some(best.get().map_or(r as u16, |l| l.max(r as u16))));
                            return;
                        }
                        let h = steps[at].expect("child tier in memory");
                        child(s.taken, (tier.heaps + s.parts) - 1, h, r as u64)
                    });
                }
            } else {
                let position = cursor.seek(rank).to_vec();
                for t in taken.clone() {
                    if ends(best.get(), t) {
                        break;
                    }
                    edges += self.rules.children_taking(&position, t, &mut buf, |c| {
                        let heaps = c.len() as u32;
                        child(t, heaps, held(tier.total - t, heaps), self.table.rank(c))
                    });
                }
            }
            local.push((o, best.get()));
        }
        (local, asks, origins, edges)
    }
}

/// The marking work units: chunks of [`MARK_CHUNK`] of each source's losses, as (source
/// index, range of its losses).
fn chunks(losses: impl Iterator<Item = usize>) -> Vec<(usize, Range<usize>)> {
    losses
        .enumerate()
        .flat_map(|(s, n)| {
            (0..n.div_ceil(MARK_CHUNK)).map(move |c| (s, c * MARK_CHUNK..n.min((c + 1) * MARK_CHUNK)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_rank_once_and_owner_finds_its_block() {
        for n in 1..9 {
            for len in [1u64, 2, 5, 7, 64, 1001] {
                let mut next = 0;
                for i in 0..n {
                    let b = block(len, i, n);
                    assert_eq!(b.start, next);
                    for r in b.clone() {
                        assert_eq!(owner(r, len, n), i, "rank {r} of {len}, {n} members");
                    }
                    next = b.end;
                }
                assert_eq!(next, len);
            }
        }
        // Where (rank + 1)·n passes 64 bits the owner is found in 128.
        let len = u64::MAX - 5;
        for n in [2usize, 3, 7] {
            for i in 0..n {
                let b = block(len, i, n);
                for r in [b.start, b.end - 1] {
                    assert_eq!(owner(r, len, n), i, "rank {r} of {len}, {n} members");
                }
            }
        }
    }
}

/// What each rank of a partitioned solve holds at its peak, before it runs
/// (`nimdb solve --dry-run --mpi-ranks N`).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct RankEstimate {
    /// Ranks.
    pub ranks: u64,
    /// Rank 0's peak: the others' plus the database's writer and the parts of tiers it
    /// writes and reads.
    pub leader_bytes: u64,
    /// Every other rank's peak.
    pub rank_bytes: u64,
    /// Each rank's share of the window (its blocks of the solved tiers) held in memory.
    pub window_bytes: u64,
    /// Each rank's share of the window before any spilling.
    pub whole_window_bytes: u64,
    /// What every rank holds whatever the solve: the process with Open MPI
    /// ([`RANK_PROCESS_BYTES`]) and the rank table, which each rank builds whole.
    pub fixed_bytes: u64,
}

/// The memory of a rank before any tier: code, libraries, Open MPI's buffers (measured with
/// Open MPI 4.1 over shared memory: 17–18 MiB for a solve of misère lines to total 4).
pub const RANK_PROCESS_BYTES: u64 = 18 << 20;

/// What rank 0 holds beyond the others: Open MPI's root buffers and SQLite's page cache
/// (measured: 3 MiB more than the other ranks on a tiny solve, 2 MiB of page cache).
pub const LEADER_EXTRA_BYTES: u64 = 5 << 20;

/// The parts of a tier rank 0 holds at once at most: those queued for the database's
/// writer (8), the one it encodes and the one it receives.
const LEADER_PARTS: u64 = 10;

/// Estimates each rank's peak memory in a partitioned solve over `ranks` ranks: the fixed
/// part, a `1/ranks` share of the window (a byte a position, two where remoteness needs
/// them, and 6 bytes a loss, a generous 15% of positions), of the total being marked (2
/// bytes a position) and the exchange buffers; rank 0 adds the database's writer and the
/// parts of tiers in flight to and from it (it never holds a whole tier). With
/// `window_cap` (each rank's `--window-limit`, or what `--memory-limit` leaves), a rank
/// holds at most that and spills the rest, keeping 2 bytes for each spilled loss.
pub fn estimate_ranks(
    game: &crate::game::GameSpec,
    options: &SolveOptions,
    table: &PartitionTable,
    ranks: usize,
    window_cap: Option<u64>,
) -> RankEstimate {
    let universe = &options.universe;
    let reach = reach(game.rules(), universe) as usize;
    let n = ranks.max(1) as u64;
    let mut per_total = vec![0u64; universe.max_total as usize + 1];
    for t in universe.tiers() {
        per_total[t.total as usize] += table.size(t);
    }
    let (mut held, mut peak) = (0u64, 0u64);
    for t in 0..per_total.len() {
        held += per_total[t];
        if t > reach {
            held -= per_total[t - reach - 1];
        }
        peak = peak.max(held);
    }
    let value_tenths = if Window::narrow(universe) { 10 } else { 20 };
    let whole_window = (peak * (value_tenths + 9) / 10).div_ceil(n);
    // Spilled blocks keep their losses' values in memory: 2 bytes a loss.
    let spilled_losses = (peak * 3 / 10).div_ceil(n);
    let window = window_cap.map_or(whole_window, |cap| whole_window.min(cap + spilled_losses));
    let largest_total = per_total.iter().copied().max().unwrap_or(0);
    // The table, and its counts copied for the shapes that rank neighbours ([`Terms`]).
    let entries = PartitionTable::entries(universe.max_total, universe.heaps_cap(), universe.part_cap());
    let table_bytes = 4 * entries + Terms::bytes(entries);
    // Offers or requests queued, sent and received (8 bytes each), and their origins.
    let buffers = 4 * 8 * OFFER_BATCH as u64;
    let fixed = RANK_PROCESS_BYTES + table_bytes;
    let rank_bytes = fixed + window + (2 * largest_total).div_ceil(n) + buffers;
    RankEstimate {
        ranks: n,
        leader_bytes: rank_bytes + LEADER_EXTRA_BYTES + LEADER_PARTS * 2 * GATHER_PART as u64,
        rank_bytes,
        window_bytes: window,
        whole_window_bytes: whole_window,
        fixed_bytes: fixed,
    }
}
