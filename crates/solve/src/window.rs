//! The solved tiers a solver holds while later tiers may still need them: in memory, or,
//! past a byte budget, in spill files mapped into memory.
//!
//! A spilled tier's arrays are written to a file beside the database, mapped read-only,
//! and the file is unlinked at once: the mapping keeps it readable, nothing is left behind
//! however the process ends, and its pages live in the kernel's page cache, which gives
//! them back under memory pressure instead of counting against the process's own heap.
//!
//! A mapped page the process has read counts in its resident set, though (`VmRSS`, and the
//! peak `VmHWM` that `/usr/bin/time` reports), as long as it stays mapped. So the window
//! notes which spilled tiers each tier's solve asked for ([`Window::get`]) and, once the
//! tier is solved ([`Window::put`]), lets go of the pages of those the next tier cannot
//! read (`madvise(MADV_DONTNEED)`: the pages leave the process's page tables and stay in
//! the page cache, so a later read faults them back in without touching the disk while
//! memory lasts). A tier of `h` heaps reads the tiers within reach below it with `h −
//! fewer` to `h + more` heaps (its children, and the losses that mark it), and a total's
//! tiers are solved from the most heaps down: so after the tier of `h` heaps, the spilled
//! tiers of fewer than `h` heaps that it read are kept for the next tier of its total (`h −
//! 1` heaps, which reads `h − 1 − fewer` heaps and up) and the rest let go; after a total's
//! last tier, all of them. The resident set then holds at most the spilled tiers one
//! tier's solve reads beside the window held in memory: what
//! [`Estimate::fit`](crate::Estimate::fit) sets aside for them; and a spilled tier's pages
//! are faulted back in once per total that reads them, and once more for each tier of more
//! heaps than its own that reads it (`more` times).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::Mmap;

use crate::game::HeapCountChange;
use crate::index::{TierId, Universe};

/// Where and past how many bytes a solve's window spills its tiers.
#[derive(Clone, Debug)]
pub struct Spill {
    /// Bytes of tier arrays held in memory before new tiers are spilled.
    pub budget: u64,
    /// The directory for the (immediately unlinked) spill files.
    pub dir: PathBuf,
    /// A prefix for the file names (e.g. the database's name and the process id).
    pub prefix: String,
}

impl Spill {
    /// Spilling past `budget` bytes to files beside the database file `db`, named after it
    /// and this process (`.NAME.spill-PID…`).
    pub fn beside(db: &Path, budget: u64) -> Spill {
        let name = db.file_name().map_or("nimdb".into(), |n| n.to_string_lossy().into_owned());
        Spill { budget, dir: Spill::dir_beside(db), prefix: format!(".{name}.spill-{}", std::process::id()) }
    }

    /// The name (without its kind) of `tier`'s spill files: the prefix, then the tier.
    pub(crate) fn file_stem(&self, tier: TierId) -> String {
        format!("{}-{}-{}", self.prefix, tier.total, tier.heaps)
    }

    /// The path of a spill file: the whole stem, then `.kind` (`values`, `losses`). The
    /// stem holds dots (the database's name), so the kind is appended, never put in place
    /// of an "extension": each tier's file has a name of its own.
    pub(crate) fn file(&self, stem: &str, kind: &str) -> PathBuf {
        self.dir.join(format!("{stem}.{kind}"))
    }

    /// The directory spill files beside the database file `db` go to: the database's.
    pub fn dir_beside(db: &Path) -> PathBuf {
        match db.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

/// One tier's remoteness values, indexed by rank: one byte each when every value the
/// universe can hold fits (remoteness is below twice the total), two otherwise.
#[derive(Debug)]
pub enum Column {
    /// Values below 255.
    Narrow(Vec<u8>),
    /// Any values.
    Wide(Vec<u16>),
    /// Values spilled to a mapped file: one byte each, or two (native order) when `wide`.
    Mapped {
        /// The mapping.
        map: Mmap,
        /// Two bytes a value.
        wide: bool,
    },
}

impl Column {
    /// Keeps `values` narrow when `narrow` is set (the caller knows they are below 255).
    pub fn new(values: Vec<u16>, narrow: bool) -> Self {
        if narrow {
            debug_assert!(values.iter().all(|&v| v < 255));
            Column::Narrow(values.into_iter().map(|v| v as u8).collect())
        } else {
            Column::Wide(values)
        }
    }

    /// The value at `rank`.
    #[inline]
    pub fn get(&self, rank: usize) -> u16 {
        match self {
            Column::Narrow(v) => v[rank] as u16,
            Column::Wide(v) => v[rank],
            Column::Mapped { map, wide: false } => map[rank] as u16,
            Column::Mapped { map, wide: true } => u16::from_ne_bytes([map[2 * rank], map[2 * rank + 1]]),
        }
    }

    /// Bytes held in memory (a mapped column holds none of its own).
    pub fn bytes(&self) -> u64 {
        match self {
            Column::Narrow(v) => v.len() as u64,
            Column::Wide(v) => 2 * v.len() as u64,
            Column::Mapped { .. } => 0,
        }
    }

    /// The column's bytes, as a spill file holds them (native order), without a copy.
    pub(crate) fn raw(&self) -> &[u8] {
        match self {
            Column::Narrow(v) => v,
            Column::Wide(v) => as_bytes(v),
            Column::Mapped { map, .. } => map,
        }
    }

    /// Lets go of the pages of a mapped column this process has read (see [`release`]).
    pub(crate) fn release(&self) {
        if let Column::Mapped { map, .. } = self {
            release(map);
        }
    }

    /// Bytes a value.
    fn width(&self) -> usize {
        match self {
            Column::Narrow(_) | Column::Mapped { wide: false, .. } => 1,
            Column::Wide(_) | Column::Mapped { wide: true, .. } => 2,
        }
    }

    /// Lets go of the pages that hold the bytes `range` of a mapped column (see
    /// [`release_bytes`]).
    fn release_bytes(&self, range: std::ops::Range<usize>) {
        if let Column::Mapped { map, .. } = self {
            release_bytes(map, range);
        }
    }
}

/// The bytes of `values` in native order (what a spill file holds), without a copy.
pub(crate) fn as_bytes<T: Copy + Into<u64>>(values: &[T]) -> &[u8] {
    // SAFETY: `T` is a plain unsigned integer (u16 or u32 here: `Into<u64>`, `Copy`, no
    // padding), so its bytes are initialized; u8 needs no alignment; the slice borrows
    // `values`.
    unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values)) }
}

/// Lets go of the pages of the read-only mapping of a spill file that this process has
/// read: they leave its resident set and stay in the page cache (`MADV_DONTNEED`), so the
/// next read faults them back in, from memory while the kernel keeps them. A failure is
/// only a hint not taken.
fn release(map: &Mmap) {
    if map.is_empty() {
        return;
    }
    // SAFETY: the mapping is a shared, read-only mapping of a file (the spill file, written
    // in full before it was mapped and never written since): dropping its pages discards
    // nothing, and a later read sees the file's same bytes again.
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
}

/// The most bytes one fault maps of a spill file: the largest folio the page cache may
/// hold it in (a huge page, 2 MiB on x86-64, mapped whole by one entry of the page table),
/// naturally aligned in the file.
const FOLIO: usize = 2 << 20;

/// Lets go of the pages of a spill file's mapping that hold its bytes `range` (clipped to
/// the mapping; see [`release`]). Letting go of part of a folio mapped whole lets go of all
/// of it: the next read faults it back in.
fn release_bytes(map: &Mmap, range: std::ops::Range<usize>) {
    let end = range.end.min(map.len());
    if range.start >= end {
        return;
    }
    // SAFETY: as in `release`: a shared, read-only mapping of a spill file never written
    // since it was mapped; the range lies inside the mapping.
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, end - range.start)
    };
}

/// A plain unsigned integer, as a spill file holds it (native order): any bit pattern is a
/// value, and it has no padding.
pub trait Plain: Copy + Into<u64> + 'static {}
impl Plain for u8 {}
impl Plain for u16 {}
impl Plain for u32 {}

/// One of a tier's arrays of plain values (the ranks of its losses, their decoded heaps,
/// rank terms or remoteness): held, or spilled to a mapped file.
#[derive(Debug)]
pub enum Array<T> {
    /// In memory.
    Held(Vec<T>),
    /// In a mapped file of native-order values.
    Mapped(Mmap),
}

/// The ranks of a tier's losses, ascending.
pub type Ranks = Array<u32>;

impl<T: Plain> Array<T> {
    /// The values.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match self {
            Array::Held(v) => v,
            Array::Mapped(map) => {
                // A mapping starts on a page boundary, so it is aligned for `T`, and a spill
                // file of `T`s holds whole ones.
                debug_assert_eq!(map.as_ptr() as usize % std::mem::align_of::<T>(), 0);
                // SAFETY: aligned (above), `len / size_of::<T>()` whole values inside the
                // mapping, any bit pattern is a valid `T` (`Plain`), and the mapping lives as
                // long as `self`.
                unsafe {
                    std::slice::from_raw_parts(map.as_ptr() as *const T, map.len() / std::mem::size_of::<T>())
                }
            }
        }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Bytes held in memory (a mapped array holds none of its own).
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Array::Held(v) => std::mem::size_of_val(&v[..]) as u64,
            Array::Mapped(_) => 0,
        }
    }

    /// Writes a held array to a new spill file at `path` and maps it instead (nothing for
    /// an empty or mapped one); returns the bytes written.
    pub(crate) fn spill(&mut self, path: PathBuf) -> std::io::Result<u64> {
        let Array::Held(values) = self else { return Ok(0) };
        if values.is_empty() {
            return Ok(0);
        }
        let raw = as_bytes(values);
        let written = raw.len() as u64;
        *self = Array::Mapped(map_spilled(path, raw)?);
        Ok(written)
    }

    /// Lets go of the pages of a mapped array this process has read (see [`release`]).
    pub(crate) fn release(&self) {
        if let Array::Mapped(map) = self {
            release(map);
        }
    }

    /// Lets go of the pages that hold the bytes `range` of a mapped array (see
    /// [`release_bytes`]).
    fn release_bytes(&self, range: std::ops::Range<usize>) {
        if let Array::Mapped(map) = self {
            release_bytes(map, range);
        }
    }
}

/// One tier's arrays, indexed by rank.
#[derive(Debug)]
pub struct TierValues {
    /// Remoteness by rank.
    pub remoteness: Column,
    /// Nim-values, for sweeps that compute them.
    pub nim_values: Option<Vec<u16>>,
    /// The greatest remoteness in the tier (the retrograde solver keeps the greatest of its
    /// wins': all that a loss's children can be).
    pub max_remoteness: u16,
    /// The ranks of the tier's losses, ascending (for the retrograde solver to mark their
    /// parents; a loss's heaps come back by unranking, and its remoteness from the column).
    pub losses: Option<Ranks>,
    /// The losses' heaps, one byte each and `heaps` per loss, when the solver keeps them
    /// decoded (see the retrograde solver); spilled with the tier.
    pub loss_heaps: Option<Array<u8>>,
    /// With `loss_heaps`: each loss's rank terms summed from each heap to the end
    /// (`tails[0..heaps]` of [`PartitionTable::tails_into`](crate::index::PartitionTable::tails_into),
    /// the last, 0, left out), so that marking loads a loss without reading the table.
    pub loss_tails: Option<Array<u32>>,
    /// With `loss_heaps`: each loss's remoteness, in loss order, so that marking reads it
    /// in sequence rather than from the column at the loss's rank.
    pub loss_remoteness: Option<Array<u16>>,
}

impl TierValues {
    /// A solved tier's values.
    pub fn solved(remoteness: Vec<u16>, nim_values: Option<Vec<u16>>, narrow: bool) -> Self {
        let max_remoteness = remoteness.iter().copied().max().unwrap_or(0);
        TierValues {
            remoteness: Column::new(remoteness, narrow),
            nim_values,
            max_remoteness,
            losses: None,
            loss_heaps: None,
            loss_tails: None,
            loss_remoteness: None,
        }
    }

    /// Lets go of the pages this process has read from the tier's spilled arrays (see
    /// [`release`]).
    fn release(&self) {
        self.remoteness.release();
        if let Some(ranks) = &self.losses {
            ranks.release();
        }
        if let Some(a) = &self.loss_heaps {
            a.release();
        }
        if let Some(a) = &self.loss_tails {
            a.release();
        }
        if let Some(a) = &self.loss_remoteness {
            a.release();
        }
    }

    /// Lets go of the pages of the tier's spilled arrays that marking from its losses
    /// `range` (by their place among the losses) leaves behind: those before the stretch of
    /// [`FOLIO`] bytes the range ends in, of each array (in the column, before the stretch
    /// of the last loss's rank), where marking, which reads the losses in order, does not
    /// come back; all of them after the last loss. Marking reads every loss of the tiers
    /// below once per total it marks, and a fault maps the whole folio of the page cache it
    /// falls in (up to [`FOLIO`] bytes): so the pages it holds are bounded by a few folios
    /// of each source being read, and a folio is let go of once, not once per stretch of
    /// losses read from it.
    pub(crate) fn release_losses(&self, range: std::ops::Range<usize>, heaps: usize) {
        let Some(ranks) = &self.losses else { return };
        let Some(&last) = ranks.as_slice().get(range.clone()).and_then(|r| r.last()) else { return };
        let end = if range.end == ranks.len() { usize::MAX } else { range.end };
        let before = |bytes: usize| 0..bytes / FOLIO * FOLIO;
        let column = if end == usize::MAX { usize::MAX } else { last as usize + 1 };
        self.remoteness.release_bytes(before(column.saturating_mul(self.remoteness.width())));
        ranks.release_bytes(before(end.saturating_mul(4)));
        if let Some(a) = &self.loss_heaps {
            a.release_bytes(before(end.saturating_mul(heaps)));
        }
        if let Some(a) = &self.loss_tails {
            a.release_bytes(before(end.saturating_mul(4 * heaps)));
        }
        if let Some(a) = &self.loss_remoteness {
            a.release_bytes(before(end.saturating_mul(2)));
        }
    }
}

/// Which spilled tiers the solve of the tier at hand read, so that their pages are let go
/// of once it is solved and the next tier cannot read them (see the module's text): the
/// window's, and the partitioned solver's blocks'. Tiers are addressed by slot (`total ×
/// stride + heaps`).
pub(crate) struct Reads {
    stride: usize,
    /// By slot: whether the tier was asked for since the last tier was solved.
    asked: Vec<AtomicBool>,
    /// The slots of the spilled tiers.
    spilled: Vec<usize>,
    /// By slot: whether the universe has the tier (to know a total's last).
    tiers: Vec<bool>,
}

impl Reads {
    /// No tier asked for or spilled yet, for the tiers of `universe`.
    pub(crate) fn new(universe: &Universe) -> Self {
        let stride = universe.heaps_cap() as usize + 1;
        let slots = (universe.max_total as usize + 1) * stride;
        let mut tiers = vec![false; slots];
        for tier in universe.tiers() {
            tiers[tier.total as usize * stride + tier.heaps as usize] = true;
        }
        Reads {
            stride,
            asked: (0..slots).map(|_| AtomicBool::new(false)).collect(),
            spilled: Vec::new(),
            tiers,
        }
    }

    /// Notes that the tier at `slot` was asked for.
    #[inline]
    pub(crate) fn note(&self, slot: usize) {
        if let Some(asked) = self.asked.get(slot)
            && !asked.load(Ordering::Relaxed)
        {
            asked.store(true, Ordering::Relaxed);
        }
    }

    /// Notes that the tier at `slot` is spilled: its pages are let go of once read.
    pub(crate) fn spilled(&mut self, slot: usize) {
        self.spilled.push(slot);
    }

    /// Once `solved` is: lets go of every spilled tier asked for that the next tier may not
    /// read (`visit(slot, true)`), and forgets that they were asked for; the others are
    /// visited with `false`, and `visit` answers whether the slot still holds the tier (a
    /// tier no longer held is forgotten). The next tier of the same total, of one heap fewer
    /// ([`Universe::tiers`]' order), reads every tier of fewer heaps than `solved` among
    /// those `solved` read; the first tier of the next total reads none that need be kept.
    pub(crate) fn release_after(&mut self, solved: TierId, mut visit: impl FnMut(usize, bool) -> bool) {
        let stride = self.stride;
        let next = solved.total as usize * stride + (solved.heaps as usize).wrapping_sub(1);
        let same_total = solved.heaps > 0 && self.tiers.get(next) == Some(&true);
        let asked = &self.asked;
        self.spilled.retain(|&slot| {
            let read_next = same_total && ((slot % stride) as u32) < solved.heaps;
            visit(slot, !read_next && asked[slot].swap(false, Ordering::Relaxed))
        });
    }
}

/// Tier arrays by tier, with a byte count and its peak.
pub struct Window {
    slots: Vec<Option<Box<TierValues>>>,
    stride: usize,
    bytes: u64,
    peak: u64,
    spill: Option<Spill>,
    spilled: u64,
    /// When spilling, which spilled tiers were read (see [`Reads`]).
    reads: Option<Reads>,
    /// When spilling, by slot: whether the tier held there is spilled.
    is_spilled: Vec<bool>,
    /// When spilling, the first slot that may hold a tier not spilled: every slot below it
    /// is empty or spilled, and of a total below the last tier put.
    first_held: usize,
    /// When spilling, bytes set aside in the budget for arrays the solver holds beside the
    /// window (a whole total's marks: see [`reserve`](Self::reserve)).
    reserved: u64,
}

impl Window {
    /// An empty window for `universe`.
    pub fn new(universe: &Universe) -> Self {
        let stride = universe.heaps_cap() as usize + 1;
        let slots = (0..(universe.max_total as usize + 1) * stride).map(|_| None).collect();
        Window {
            slots,
            stride,
            bytes: 0,
            peak: 0,
            spill: None,
            spilled: 0,
            reads: None,
            is_spilled: Vec::new(),
            first_held: 0,
            reserved: 0,
        }
    }

    /// An empty window for `universe` that spills tiers past `spill`'s budget: the tiers of
    /// the lowest totals first, which the tiers still to solve read least (a tier's
    /// children are read fewest tokens taken first, and no further down than a longer one
    /// can be). The pages of the spilled tiers that a tier's solve reads are let go of once
    /// it is put (see the module's text), so the process's resident set holds at most the
    /// window's bytes in memory and the spilled tiers of one tier's reads.
    pub fn spilling(universe: &Universe, spill: Option<Spill>) -> Self {
        let mut window = Window::new(universe);
        if spill.is_some() {
            window.reads = Some(Reads::new(universe));
            window.is_spilled = vec![false; window.slots.len()];
        }
        Window { spill, ..window }
    }

    /// Bytes written to spill files so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    /// Whether every remoteness in `universe` fits one byte: remoteness is below twice
    /// the total.
    pub fn narrow(universe: &Universe) -> bool {
        2 * universe.max_total < 255
    }

    #[inline]
    fn slot(&self, tier: TierId) -> usize {
        tier.total as usize * self.stride + tier.heaps as usize
    }

    /// The arrays of `tier`, if held. When spilling, notes that it was asked for: the pages
    /// read from a spilled tier are let go of at the next [`put`](Self::put).
    #[inline]
    pub fn get(&self, tier: TierId) -> Option<&TierValues> {
        if tier.heaps as usize >= self.stride {
            return None;
        }
        let slot = self.slot(tier);
        let values = self.slots.get(slot)?.as_deref()?;
        if let Some(reads) = &self.reads {
            reads.note(slot);
        }
        Some(values)
    }

    /// Puts `tier`'s arrays in, and then, past the budget, spills held tiers, those of the
    /// lowest totals first (`tier` itself last). First lets go of the pages read from the
    /// spilled tiers asked for since then that the next tier cannot read (the solve of
    /// `tier` is done with them: see the module's text).
    pub fn put(&mut self, tier: TierId, values: TierValues) -> std::io::Result<()> {
        self.release_asked(tier);
        self.hold(tier, values);
        self.make_room(0, tier.total)?;
        self.peak = self.peak.max(self.bytes);
        Ok(())
    }

    /// Sets `bytes` aside in the budget for arrays held beside the window until
    /// [`unreserve`](Self::unreserve) (a whole total's marks), spilling held tiers, the
    /// lowest totals first, to make room below `total`. False, and nothing set aside, when
    /// they do not fit the budget even with every tier spilled. Not spilling, always true.
    pub fn reserve(&mut self, bytes: u64, total: u32) -> std::io::Result<bool> {
        let Some(spill) = &self.spill else { return Ok(true) };
        if self.reserved + bytes > spill.budget {
            return Ok(false);
        }
        self.make_room(bytes, total)?;
        self.reserved += bytes;
        Ok(true)
    }

    /// Gives back what [`reserve`](Self::reserve) set aside.
    pub fn unreserve(&mut self) {
        self.reserved = 0;
    }

    /// Spills held tiers, the lowest totals first, until `room` bytes more than those held
    /// and reserved fit the budget (or every tier is spilled). `total` is the total of the
    /// tier last put or about to be solved: no tier is put below it from now on.
    fn make_room(&mut self, room: u64, total: u32) -> std::io::Result<()> {
        let Some(budget) = self.spill.as_ref().map(|s| s.budget) else { return Ok(()) };
        let below = total as usize * self.stride;
        let mut slot = self.first_held;
        while self.bytes + self.reserved + room > budget && slot < self.slots.len() {
            if self.slots[slot].is_some() && !self.is_spilled[slot] {
                self.spill_slot(slot)?;
            }
            slot += 1;
            if slot <= below {
                self.first_held = slot;
            }
        }
        Ok(())
    }

    /// Writes every array of the tier held at `slot` to its own spill file and maps it
    /// instead.
    fn spill_slot(&mut self, slot: usize) -> std::io::Result<()> {
        let Some(spill) = &self.spill else { return Ok(()) };
        let Some(values) = self.slots[slot].as_deref_mut() else { return Ok(()) };
        let before = Self::size_of(values);
        let tier = TierId { total: (slot / self.stride) as u32, heaps: (slot % self.stride) as u32 };
        let stem = spill.file_stem(tier);
        let raw = values.remoteness.raw();
        if !raw.is_empty() && !matches!(values.remoteness, Column::Mapped { .. }) {
            self.spilled += raw.len() as u64;
            let map = map_spilled(spill.file(&stem, "values"), raw)?;
            values.remoteness = Column::Mapped { map, wide: matches!(values.remoteness, Column::Wide(_)) };
        }
        if let Some(ranks) = &mut values.losses {
            self.spilled += ranks.spill(spill.file(&stem, "losses"))?;
        }
        if let Some(heaps) = &mut values.loss_heaps {
            self.spilled += heaps.spill(spill.file(&stem, "loss-heaps"))?;
        }
        if let Some(tails) = &mut values.loss_tails {
            self.spilled += tails.spill(spill.file(&stem, "loss-tails"))?;
        }
        if let Some(remoteness) = &mut values.loss_remoteness {
            self.spilled += remoteness.spill(spill.file(&stem, "loss-remoteness"))?;
        }
        let after = Self::size_of(values);
        self.bytes -= before - after;
        self.is_spilled[slot] = true;
        if let Some(reads) = &mut self.reads {
            reads.spilled(slot);
        }
        Ok(())
    }

    /// Once `solved` is: lets go of the pages of every spilled tier it read that the next
    /// tier may not read (see [`Reads::release_after`]).
    fn release_asked(&mut self, solved: TierId) {
        let (Some(reads), slots) = (&mut self.reads, &self.slots) else { return };
        reads.release_after(solved, |slot, let_go| {
            let Some(values) = slots[slot].as_deref() else { return false };
            if let_go {
                values.release();
            }
            true
        });
    }

    fn hold(&mut self, tier: TierId, values: TierValues) {
        let slot = self.slot(tier);
        self.note_bytes(Self::size_of(&values) as i64);
        if let Some(old) = self.slots[slot].replace(Box::new(values)) {
            self.note_bytes(-(Self::size_of(&old) as i64));
        }
        if let Some(spilled) = self.is_spilled.get_mut(slot) {
            *spilled = false;
        }
    }

    /// Drops every tier with total below `total`.
    pub fn evict_below(&mut self, total: u32) {
        let end = (total as usize * self.stride).min(self.slots.len());
        for slot in 0..end {
            if let Some(v) = self.slots[slot].take() {
                self.note_bytes(-(Self::size_of(&v) as i64));
            }
        }
    }

    /// Drops the loss ranks (and decoded losses) of every tier with its total in `totals`,
    /// once nothing marks from them.
    pub fn forget_losses(&mut self, totals: std::ops::Range<u32>) {
        let start = (totals.start as usize * self.stride).min(self.slots.len());
        let end = (totals.end as usize * self.stride).min(self.slots.len());
        for slot in start..end {
            let Some(v) = self.slots[slot].as_mut() else { continue };
            let before = Self::size_of(v);
            v.losses = None;
            v.loss_heaps = None;
            v.loss_tails = None;
            v.loss_remoteness = None;
            let after = Self::size_of(v);
            self.bytes -= before - after;
        }
    }

    /// The most bytes of tier arrays held at once.
    pub fn peak_bytes(&self) -> u64 {
        self.peak
    }

    fn size_of(v: &TierValues) -> u64 {
        let losses = v.losses.as_ref().map_or(0, Array::bytes)
            + v.loss_heaps.as_ref().map_or(0, Array::bytes)
            + v.loss_tails.as_ref().map_or(0, Array::bytes)
            + v.loss_remoteness.as_ref().map_or(0, Array::bytes);
        v.remoteness.bytes() + 2 * v.nim_values.as_ref().map_or(0, |n| n.len()) as u64 + losses
    }

    /// Counts `delta` more bytes held (the peak is taken once a tier is put and the window
    /// has spilled what it must).
    fn note_bytes(&mut self, delta: i64) {
        self.bytes = (self.bytes as i64 + delta) as u64;
    }
}

/// Writes `bytes` to a new file at `path`, maps it read-only and unlinks it.
pub(crate) fn map_spilled(path: PathBuf, bytes: &[u8]) -> std::io::Result<Mmap> {
    let mut file = File::options().read(true).write(true).create_new(true).open(&path)?;
    let written = file.write_all(bytes).and_then(|()| {
        // SAFETY: the file is this process's own, just written, and unlinked below, so no
        // one else can change it while it is mapped.
        unsafe { Mmap::map(&file) }
    });
    let removed = std::fs::remove_file(&path);
    let map = written?;
    removed?;
    Ok(map)
}

/// `bounds[d]`: the greatest remoteness among the child tiers of `tier` that lie `d` or more
/// tokens down (for `d` up to `reach`), given each lower tier's greatest remoteness
/// (`max_remoteness`, `None` for a tier not held). What settling a loss stops on: no child
/// further down can be longer.
pub(crate) fn remoteness_bounds(
    tier: TierId,
    reach: u32,
    change: HeapCountChange,
    max_remoteness: impl Fn(TierId) -> Option<u16>,
) -> Vec<u16> {
    let steps = reach.min(tier.total) as usize + 1;
    let mut bounds = vec![0u16; steps];
    let mut running = 0;
    for taken in (0..steps).rev() {
        let total = tier.total - taken as u32;
        for heaps in tier.heaps.saturating_sub(change.fewer)..=tier.heaps + change.more {
            if let Some(m) = max_remoteness(TierId { total, heaps }) {
                running = running.max(m);
            }
        }
        bounds[taken] = running;
    }
    bounds
}

/// Asks the processor to bring `value`'s cache line in (a hint: no effect on the result).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; the pointer is a
    // live reference besides.
    unsafe {
        std::arch::x86_64::_mm_prefetch(value as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past its budget the window spills the tiers of the lowest totals first (they are read
    /// least), the tier just put last, and a spilled tier reads back the same values.
    #[test]
    fn the_lowest_totals_spill_first() {
        let universe = Universe { max_total: 6, max_heap: None, max_heaps: None };
        let dir = tempfile_dir();
        let spill =
            Spill { budget: 100, dir: dir.clone(), prefix: format!(".window-test-{}", std::process::id()) };
        let mut window = Window::spilling(&universe, Some(spill));
        let tier = |total| TierId { total, heaps: 1 };
        for total in 1..=3 {
            let values: Vec<u16> = (0..40).map(|i| (i + total as u16) % 7).collect();
            window.put(tier(total), TierValues::solved(values, None, true)).unwrap();
        }
        // 40 bytes a tier against 100: the third put spills the first.
        let spilled = |w: &Window, t| w.is_spilled[w.slot(tier(t))];
        assert!(spilled(&window, 1) && !spilled(&window, 2) && !spilled(&window, 3));
        assert_eq!(window.get(tier(1)).unwrap().remoteness.get(5), 6, "rank 5 of total 1 holds (5 + 1) % 7");
        // 60 bytes set aside: the second goes too, the last put stays.
        assert!(window.reserve(60, 4).unwrap());
        assert!(spilled(&window, 1) && spilled(&window, 2) && !spilled(&window, 3));
        assert!(!window.reserve(60, 4).unwrap(), "120 bytes set aside against 100");
        let _ = std::fs::remove_dir(&dir);
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nimdb-window-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
