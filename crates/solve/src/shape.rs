//! Ranks of the positions one heap move away from a position, from its rank terms.
//!
//! A position's rank is a sum of one term per heap (see [`PartitionTable`]): heap `x` of
//! `k`, sorted largest first, adds `count(suf[x], k − x, heap[x] − 1)`, where `suf[x]` is
//! the tokens in heaps `x..`. A move that replaces one heap `h` by smaller parts leaves the
//! terms of the heaps after the last new part alone, and shifts the terms of the heaps
//! before `h` by the same tokens and heap count for every move that takes as many tokens
//! and leaves as many parts. So a child's rank is a few table reads, not a sorted copy and
//! `k` reads: [`Shape`] holds the terms, and [`Shape::children`] walks the children of a
//! heap game (a family with [`TierRules::ONE_HEAP_MOVES`]) with their ranks.
//!
//! A run of `m` equal heaps `v` is summed in two reads, by
//! `Σ_{r<m} count(s − r·v, j − r, v − 1) = count(s, j, v) − count(s − m·v, j − m, v)`
//! (a partition into `j` parts at most `v` either has no part `v`, or drops one).
//!
//! The counts are read from a copy laid out for this ([`Terms`]): a shape keeps each heap's
//! place in it, and a term shifted by some tokens and heaps is one read at the place plus
//! a shift computed once for every heap shifted alike. A loss is unranked straight into its
//! shape ([`Shape::seek`]), keeping the heaps it shares with the loss before it.

use crate::game::{ParentBounds, TierRules};
use crate::index::PartitionTable;

use super::totals::{self, CountsByTotal, LANES};

/// Which parents [`Shape::parents`] walks: those adding `added` tokens, within `bounds`, of
/// the `kinds` wanted.
#[derive(Clone, Copy, Debug)]
pub(super) struct ParentQuery {
    /// Tokens the parents have beyond the position.
    pub added: u32,
    /// The universe's caps on parents.
    pub bounds: ParentBounds,
    /// The kinds wanted.
    pub kinds: ParentKinds,
}

/// Which kinds of parents [`Shape::parents`] walks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ParentKinds {
    /// A heap that vanished, added back (one heap more).
    pub vanished: bool,
    /// One heap grown (as many heaps).
    pub grown: bool,
    /// Two heaps joined (one heap fewer).
    pub joined: bool,
}

#[cfg(test)]
impl ParentKinds {
    /// Every kind.
    pub const ALL: ParentKinds = ParentKinds { vanished: true, grown: true, joined: true };
}

/// A [`PartitionTable`]'s counts, copied so that a [`Shape`] can address them from each
/// heap's place: `count(s, j, p)` is at `j · part + s · token + p`, so the count a heap's
/// term reads is at its place ([`Shape`] keeps `place[x] = (k − x) · part + suf[x] · token`),
/// moved by the same offset for every heap a move shifts alike, plus the heap's bound.
#[derive(Debug)]
pub(super) struct Terms<'a> {
    /// The table (positions that a shape does not rank are ranked whole through it).
    pub table: &'a PartitionTable,
    /// Index stride of one more part.
    part: usize,
    /// Index stride of one more token.
    token: usize,
    counts: Vec<u32>,
}

impl<'a> Terms<'a> {
    /// The counts of `table`, copied.
    pub fn new(table: &'a PartitionTable) -> Self {
        let (max_total, max_parts, max_part) = (table.max_total(), table.max_parts(), table.max_part());
        let token = max_part as usize + 1;
        let part = (max_total as usize + 1) * token;
        let mut counts = Vec::with_capacity((max_parts as usize + 1) * part);
        for j in 0..=max_parts {
            for s in 0..=max_total {
                counts.extend((0..=max_part).map(|p| table.count_within(s, j, p)));
            }
        }
        Terms { table, part, token, counts }
    }

    /// Bytes the copy holds: as many as the table's counts.
    pub fn bytes(table_entries: u64) -> u64 {
        4 * table_entries
    }

    /// `count(s, j, p)` of the table.
    #[inline(always)]
    pub fn count_within(&self, s: u32, j: u32, p: u32) -> u32 {
        self.counts[j as usize * self.part + s as usize * self.token + p as usize]
    }

    /// The table's rank of `heaps` (sorted largest first).
    #[inline]
    pub fn rank(&self, heaps: &[u32]) -> u64 {
        self.table.rank(heaps)
    }

    /// The table's largest part.
    pub fn max_part(&self) -> u32 {
        self.table.max_part()
    }

    /// `count(s, j, p)` for `p` in `0..n`.
    #[inline(always)]
    fn row(&self, s: u32, j: u32, n: u32) -> &[u32] {
        let place = self.place(s, j);
        &self.counts[place..place + n as usize]
    }

    /// The place of `s` tokens in `j` parts (`count(s, j, p)` is at the place plus `p`).
    #[inline(always)]
    fn place(&self, s: u32, j: u32) -> usize {
        j as usize * self.part + s as usize * self.token
    }

    /// How far a place moves with `ds` more tokens and `dj` more parts (wrapping: added to
    /// a place, it gives the place of the shifted count, which the caller knows is in the
    /// table).
    #[inline(always)]
    fn shift(&self, ds: i32, dj: i32) -> usize {
        (dj as isize * self.part as isize + ds as isize * self.token as isize) as usize
    }

    /// The count at `place` moved by `shift`, bounded by `p`.
    #[inline(always)]
    fn at(&self, place: usize, shift: usize, p: u32) -> u32 {
        self.counts[place.wrapping_add(shift) + p as usize]
    }

    /// Whether every count of at most `s` tokens in at most `j` parts is in the copy: then
    /// the run routines read without a bounds check the counts of a position and of its
    /// neighbours within those bounds (see [`at_within`](Terms::at_within)).
    #[inline(always)]
    fn holds(&self, s: u32, j: u32) -> bool {
        s <= self.table.max_total() && j <= self.table.max_parts()
    }

    /// [`at`](Terms::at) without the bounds check, for a count of at most `s` tokens in at
    /// most `j` parts for which [`holds`](Terms::holds)`(s, j)` was checked by the caller
    /// (checked again in debug builds).
    #[inline(always)]
    fn at_within(&self, place: usize, shift: usize, p: u32) -> u32 {
        let at = place.wrapping_add(shift) + p as usize;
        debug_assert!(at < self.counts.len(), "a count outside the table");
        // SAFETY: the callers read counts of at most `s` tokens in at most `j` parts (and
        // parts at most the table's largest) after `holds(s, j)`, and every such count's
        // index is below `(max_parts + 1) · part`, the copy's length.
        unsafe { *self.counts.get_unchecked(at) }
    }

    /// `count(s, j, v) − count(s − m·v, j − m, v)` for a run of `m` heaps `v` starting at
    /// `start` and ending at `end` (their places), both moved by `shift`: the run's terms.
    #[inline(always)]
    fn run_within(&self, start: usize, end: usize, shift: usize, v: u32) -> u32 {
        self.at_within(start, shift, v).wrapping_sub(self.at_within(end, shift, v))
    }
}

/// A position's runs of equal heaps, largest first, each with what the run routines
/// read of it, and one entry more after the last run (start `k`, heap 0, the place and
/// terms after the last heap).
#[derive(Debug, Default)]
struct Runs {
    /// Each run's first heap's index.
    start: Vec<u32>,
    /// Each run's heap.
    value: Vec<u32>,
    /// Each run's first heap's place.
    place: Vec<usize>,
    /// The rank terms of the heaps from each run's first on.
    tails: Vec<u32>,
    /// How many runs (the arrays hold one entry more).
    count: usize,
}

/// One position's heaps and rank terms, ready to rank its neighbours.
#[derive(Debug, Default)]
pub(super) struct Shape {
    /// The heaps, largest first.
    heaps: Vec<u32>,
    /// `suf[x]`: tokens in heaps `x..` (`k + 1` values).
    suf: Vec<u32>,
    /// `tails[x]`: the rank terms of heaps `x..` (`k + 1` values; `tails[0]` is the rank).
    tails: Vec<u32>,
    /// `run_end[x]`: the first index after `x` holding a smaller heap.
    run_end: Vec<u32>,
    /// `place[x]`: where the counts of `suf[x]` tokens in `k − x` parts start in the
    /// [`Terms`] (`k + 1` values).
    place: Vec<usize>,
    /// Scratch for [`parents`](Shape::parents): terms of the heaps before each run.
    pre: Vec<u32>,
    /// Scratch for [`parents_in_lanes`](Shape::parents_in_lanes): the same, a lane a total.
    lanes: Vec<[u32; LANES]>,
    /// The tier and rank [`seek`](Shape::seek) last unranked, while the arrays still hold
    /// that position (any `load` forgets it).
    sought: Option<(u32, u64)>,
    /// With `sought`: where the trailing 1s start (`k` where the last heap is larger).
    ones: usize,
    /// The runs of equal heaps (kept with the arrays above).
    runs: Runs,
}

/// Where a child lies relative to its parent's tier: `taken` tokens fewer and `heaps`
/// heaps more (−1 when a heap vanished, 0 when it shrank, 1 or 2 when it split).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Step {
    /// Tokens the move takes.
    pub taken: u32,
    /// Heaps the move adds, plus one: 0 vanished, 1 shrank, 2 split in two, 3 in three.
    pub parts: u32,
}

impl Shape {
    /// Loads `heaps` (sorted largest first) with their rank terms `tails` (as
    /// [`PartitionTable::tails_into`] or a rank cursor gives them).
    /// (The solvers load their shapes by seeking or from decoded bytes; the tests check those
    /// against this.)
    #[cfg(test)]
    pub fn load(&mut self, table: &Terms, heaps: &[u32], tails: &[u32]) {
        self.sought = None;
        let k = heaps.len();
        debug_assert_eq!(tails.len(), k + 1);
        self.heaps.clear();
        self.heaps.extend_from_slice(heaps);
        self.tails.clear();
        self.tails.extend_from_slice(tails);
        self.suf.clear();
        self.suf.resize(k + 1, 0);
        self.run_end.clear();
        self.run_end.resize(k, 0);
        let mut end = k;
        for x in (0..k).rev() {
            self.suf[x] = self.suf[x + 1] + heaps[x];
            if x + 1 < k && heaps[x + 1] != heaps[x] {
                end = x + 1;
            }
            self.run_end[x] = end as u32;
        }
        self.place_all(table);
    }

    /// Computes every heap's place from the tokens after it, and the runs.
    #[inline(always)]
    fn place_all(&mut self, table: &Terms) {
        let k = self.heaps.len();
        self.place.clear();
        self.place.extend(self.suf[..k + 1].iter().enumerate().map(|(x, &s)| table.place(s, (k - x) as u32)));
        self.index_runs();
    }

    /// Lists the runs of equal heaps from the heaps, places, terms and run ends.
    #[inline(always)]
    fn index_runs(&mut self) {
        let k = self.heaps.len();
        let runs = &mut self.runs;
        runs.start.resize(k + 1, 0);
        runs.value.resize(k + 1, 0);
        runs.place.resize(k + 1, 0);
        runs.tails.resize(k + 1, 0);
        let (start, value, rplace, rtails) =
            (&mut runs.start[..=k], &mut runs.value[..=k], &mut runs.place[..=k], &mut runs.tails[..=k]);
        let (heaps, place, tails, run_end) =
            (&self.heaps[..k], &self.place[..=k], &self.tails[..=k], &self.run_end[..k]);
        let (mut x, mut r) = (0, 0);
        while x < k {
            start[r] = x as u32;
            value[r] = heaps[x];
            rplace[r] = place[x];
            rtails[r] = tails[x];
            x = run_end[x] as usize;
            r += 1;
        }
        start[r] = k as u32;
        value[r] = 0;
        rplace[r] = place[k];
        rtails[r] = tails[k];
        runs.count = r;
    }

    /// Loads the heaps `bytes` (one byte each, sorted largest first), computing their rank
    /// terms with `table` in the same pass.
    #[inline]
    pub fn load_bytes(&mut self, table: &Terms, bytes: &[u8]) {
        self.sought = None;
        let k = bytes.len();
        self.heaps.clear();
        self.heaps.extend(bytes.iter().map(|&h| h as u32));
        self.tails.resize(k + 1, 0);
        self.suf.resize(k + 1, 0);
        self.run_end.resize(k, 0);
        // Running values in locals, not read back from the arrays just written.
        let (tails, suf, run_end) =
            (&mut self.tails[..k + 1], &mut self.suf[..k + 1], &mut self.run_end[..k]);
        tails[k] = 0;
        suf[k] = 0;
        let (mut sum, mut terms, mut end, mut after) = (0u32, 0u32, k, 0u8);
        for x in (0..k).rev() {
            let h = bytes[x];
            sum += h as u32;
            suf[x] = sum;
            terms += table.count_within(sum, (k - x) as u32, h as u32 - 1);
            tails[x] = terms;
            if x + 1 < k && after != h {
                end = x + 1;
            }
            run_end[x] = end as u32;
            after = h;
        }
        self.place_all(table);
    }

    /// Loads the heaps `bytes` (one byte each, sorted largest first) with their rank terms
    /// `tails` (summed from each heap to the end, the last 0 left out), as
    /// [`load_bytes`](Shape::load_bytes) would compute them.
    #[inline(always)]
    pub fn load_terms(&mut self, table: &Terms, bytes: &[u8], tails: &[u32]) {
        self.sought = None;
        let k = bytes.len();
        debug_assert_eq!(tails.len(), k);
        self.heaps.clear();
        self.heaps.extend(bytes.iter().map(|&h| h as u32));
        self.tails.clear();
        self.tails.extend_from_slice(tails);
        self.tails.push(0);
        self.suf.resize(k + 1, 0);
        self.run_end.resize(k, 0);
        // Running values in locals, not read back from the arrays just written.
        let (suf, run_end) = (&mut self.suf[..k + 1], &mut self.run_end[..k]);
        suf[k] = 0;
        let (mut sum, mut end, mut after) = (0u32, k, 0u8);
        for x in (0..k).rev() {
            let h = bytes[x];
            sum += h as u32;
            suf[x] = sum;
            if x + 1 < k && after != h {
                end = x + 1;
            }
            run_end[x] = end as u32;
            after = h;
        }
        self.place_all(table);
    }

    /// Unranks the position of rank `rank` in tier (`total`, `k` heaps) into the shape, its
    /// rank terms with it, as a rank cursor and [`load`](Shape::load) would, but in place:
    /// when the last position was sought in the same tier, the leading heaps the two share
    /// (the block of ranks holding both) stay with their tokens and runs, their terms move
    /// with the rank, and only the heaps after them are searched for again, the trailing
    /// ones (as many tokens as heaps left) and a last single heap without a search. Losses
    /// come in ascending rank, and share most of their heaps with the one before.
    #[inline]
    pub fn seek(&mut self, table: &Terms, total: u32, k: u32, rank: u64) {
        let k = k as usize;
        // How many leading heaps stay, and where their block of ranks starts.
        let (mut keep, mut base) = (0, 0u64);
        match self.sought {
            Some((t, last)) if t == total && self.heaps.len() == k => {
                // The positions that share heaps past the first trailing 1 with the last
                // one are that one alone.
                keep = if rank == last { k } else { self.ones };
                while keep > 0 {
                    base = last - self.tails[keep] as u64;
                    let size = if keep == k {
                        1
                    } else {
                        table.count_within(self.suf[keep], (k - keep) as u32, self.heaps[keep - 1]) as u64
                    };
                    if rank >= base && rank < base + size {
                        break;
                    }
                    keep -= 1;
                    base = 0;
                }
            }
            _ => {
                self.heaps.clear();
                self.heaps.resize(k, 0);
                self.tails.clear();
                self.tails.resize(k + 1, 0);
                self.suf.clear();
                self.suf.resize(k + 1, 0);
                self.run_end.clear();
                self.run_end.resize(k, 0);
                self.place.clear();
                self.place.resize(k + 1, 0);
                self.suf[0] = total;
                self.place[0] = table.place(total, k as u32);
            }
        }
        let (heaps, tails, suf) = (&mut self.heaps[..k], &mut self.tails[..k + 1], &mut self.suf[..k + 1]);
        let place = &mut self.place[..k + 1];
        // The kept heaps' terms stay; the rank left before each of them moves with the rank.
        let left_at_keep = (rank - base) as u32;
        let old = tails[keep];
        for tail in &mut tails[..keep] {
            *tail = tail.wrapping_sub(old).wrapping_add(left_at_keep);
        }
        let mut left = left_at_keep;
        let mut s = suf[keep];
        let mut cap = if keep == 0 { table.max_part().min(total) } else { heaps[keep - 1] };
        let mut i = keep;
        // Unchanged if every heap is kept (the same rank again).
        let mut ones = if keep == k { self.ones.min(k) } else { k };
        while i < k {
            let j = (k - i) as u32;
            tails[i] = left;
            if s == j {
                // Every heap left is 1, and adds no term.
                debug_assert_eq!(left, 0);
                for x in i..k {
                    heaps[x] = 1;
                    tails[x] = 0;
                    suf[x] = (k - x) as u32;
                    place[x] = table.place((k - x) as u32, (k - x) as u32);
                }
                // The kept heaps may end in 1s too.
                ones = i;
                while ones > 0 && heaps[ones - 1] == 1 {
                    ones -= 1;
                }
                s = 0;
                break;
            }
            let p = if j == 1 {
                // One heap left: all the tokens, and no term.
                s
            } else {
                // The largest p ≤ cap with count(s, j, p − 1) ≤ left (and p ≤ s − j + 1:
                // the other heaps hold a token each): the counts rise with p, and
                // count(s, j, 0) = 0, so p is how many of count(s, j, 0..cap) are ≤ left.
                let row = table.row(s, j, cap.min(s - j + 1));
                let p = row.partition_point(|&c| c <= left);
                left -= row[p - 1];
                p as u32
            };
            heaps[i] = p;
            s -= p;
            suf[i + 1] = s;
            place[i + 1] = table.place(s, (k - i - 1) as u32);
            cap = p;
            i += 1;
        }
        debug_assert_eq!((s, left), (0, 0));
        tails[k] = 0;
        suf[k] = 0;
        place[k] = 0;
        // Runs: recomputed from the end down to the run the kept heaps end in (those before
        // it are unchanged).
        let run_end = &mut self.run_end[..k];
        let mut end = k;
        for x in (0..k).rev() {
            if x + 1 < k && heaps[x + 1] != heaps[x] {
                if x + 1 < keep {
                    break;
                }
                end = x + 1;
            }
            run_end[x] = end as u32;
        }
        self.sought = Some((total, rank));
        self.ones = ones;
        self.index_runs();
    }

    /// The heaps.
    pub fn heaps(&self) -> &[u32] {
        &self.heaps
    }

    /// `Σ_{x ∈ [x0, x1)} count(suf[x] + ds, k − x + dj, heap[x] − 1)`: the terms of heaps
    /// `x0..x1` in a position where `ds` more tokens and `dj` more heaps follow each of them.
    #[inline(always)]
    fn shifted(&self, table: &Terms, x0: usize, x1: usize, ds: i32, dj: i32) -> u32 {
        self.shifted_by(table, x0, x1, table.shift(ds, dj))
    }

    /// [`shifted`](Shape::shifted), the tokens and heaps following given as their `shift`
    /// of a place ([`Terms::shift`]).
    #[inline(always)]
    fn shifted_by(&self, table: &Terms, x0: usize, x1: usize, shift: usize) -> u32 {
        if x0 >= x1 {
            return 0;
        }
        // Cut to the range once, so that the reads in the loop need no bounds checks.
        let (heaps, run_end, place) = (&self.heaps[..x1], &self.run_end[..x1], &self.place[..=x1]);
        let mut sum = 0u32;
        let mut x = x0;
        while x < x1 {
            let v = heaps[x];
            let end = (run_end[x] as usize).min(x1);
            if end == x + 1 {
                sum = sum.wrapping_add(table.at(place[x], shift, v - 1));
            } else {
                sum = sum
                    .wrapping_add(table.at(place[x], shift, v))
                    .wrapping_sub(table.at(place[end], shift, v));
            }
            x = end;
        }
        sum
    }

    /// Calls `visit(change, rank)` for every parent of this position under `rules` that
    /// `query` asks for (`added` more tokens, within `bounds`, of the `kinds` wanted), with
    /// its rank in its own tier, where `change` is the parent's heap count less this
    /// position's: `+1` a heap of `added` that vanished, `0` a heap grown by `added` that
    /// shrank back, `−1` two heaps joined with `added` more tokens that split apart. `rules` must move one heap at a time ([`TierRules::ONE_HEAP_MOVES`]);
    /// parents that join three heaps are not walked here. Returns the number of parents
    /// visited.
    ///
    /// Growing the first heap of a run of `a`s to `h` moves it left to the first index `q`
    /// holding a heap below `h`: the heaps before `q` see `added` more tokens after them,
    /// those between `q` and the run see `a` fewer tokens and one heap fewer, and the terms
    /// after the grown heap stay. Joining the first `a` and the first `b` of their runs is
    /// the same with three stretches, and adding a heap with one.
    #[inline]
    pub fn parents<R: TierRules>(
        &mut self,
        rules: &R,
        table: &Terms,
        query: ParentQuery,
        visit: impl FnMut(i32, u32),
    ) -> u64 {
        self.parents_via(rules, table, query, Routine::Runs, visit)
    }

    /// [`parents`](Shape::parents), the joined parents ranked by `routine` where the table
    /// holds them (the benchmark compares the two).
    #[inline]
    fn parents_via<R: TierRules>(
        &mut self,
        rules: &R,
        table: &Terms,
        query: ParentQuery,
        routine: Routine,
        mut visit: impl FnMut(i32, u32),
    ) -> u64 {
        let ParentQuery { added, bounds, kinds: want } = query;
        let mut pre = std::mem::take(&mut self.pre);
        debug_assert!(R::ONE_HEAP_MOVES);
        let l = &self.heaps;
        let k = l.len();
        let suf = &self.suf;
        let tails = &self.tails;
        let top = bounds.max_heap;
        let mut n_parents = 0;
        if want.vanished
            && added >= 1
            && added <= top
            && (k as u32) < bounds.max_heaps
            && rules.heap_vanishes(added)
        {
            let q = l.partition_point(|&v| v >= added);
            let rank = self
                .shifted(table, 0, q, added as i32, 1)
                .wrapping_add(table.count_within(suf[q] + added, (k + 1 - q) as u32, added - 1))
                .wrapping_add(tails[q]);
            visit(1, rank);
            n_parents += 1;
        }
        if want.grown && added >= 1 {
            // q only moves right as the runs' heaps (and so h) get smaller; `above` is the
            // terms of the heaps before q.
            let mut q = 0;
            let mut above = 0u32;
            // Heaps above `top − added` cannot grow: start at the first that can (a run's
            // first heap, since heaps come largest first), counted without a branch.
            let mut x = l.iter().map(|&v| usize::from(v + added > top)).sum::<usize>();
            while x < k {
                let a = l[x];
                let h = a + added;
                if h <= top && rules.shrinks_to(h, a) {
                    let mut q_new = q;
                    while l[q_new] >= h {
                        q_new += 1;
                    }
                    above = above.wrapping_add(self.shifted(table, q, q_new, added as i32, 0));
                    q = q_new;
                    let rank = above
                        .wrapping_add(table.count_within(suf[q] + added, (k - q) as u32, h - 1))
                        .wrapping_add(self.shifted(table, q, x, -(a as i32), -1))
                        .wrapping_add(tails[x + 1]);
                    visit(0, rank);
                    n_parents += 1;
                }
                x = self.run_end[x] as usize;
            }
        }
        if want.joined
            && k >= 2
            && rules.may_split(added)
            && routine == Routine::Runs
            && table.holds(suf[0] + added, k as u32)
        {
            n_parents +=
                self.joined_by_runs(rules, table, &[added], top, &mut pre, &mut |_, rank| visit(-1, rank));
        } else if want.joined && k >= 2 && rules.may_split(added) {
            // pre[x] at each run start x: the terms of the heaps before x in a parent with
            // `added` more tokens after them and one heap fewer.
            pre.clear();
            pre.resize(k + 1, 0);
            let mut acc = 0u32;
            let mut x = 0;
            while x < k {
                pre[x] = acc;
                let end = self.run_end[x] as usize;
                if end == k {
                    // A joined heap never goes after the last run's first heap.
                    break;
                }
                acc = acc.wrapping_add(self.shifted(table, x, end, added as i32, -1));
                x = end;
            }
            let mut xa = 0;
            while xa < k {
                let a = l[xa];
                let end_a = self.run_end[xa] as usize;
                let mut q = 0;
                // b: a itself when the run holds two, then the first heap of each later run.
                let mut xb = if end_a - xa >= 2 { xa + 1 } else { end_a };
                while xb < k {
                    let b = l[xb];
                    let h = a + b + added;
                    if h <= top && rules.splits_to(h, a, b) {
                        while l[q] >= h {
                            q += 1;
                        }
                        let rank = pre[q]
                            .wrapping_add(table.count_within(suf[q] + added, (k - 1 - q) as u32, h - 1))
                            .wrapping_add(self.shifted(table, q, xa, -((a + b) as i32), -2))
                            .wrapping_add(self.shifted(table, xa + 1, xb, -(b as i32), -1))
                            .wrapping_add(tails[xb + 1]);
                        visit(-1, rank);
                        n_parents += 1;
                    }
                    xb = self.run_end[xb] as usize;
                }
                xa = end_a;
            }
        }
        self.pre = pre;
        n_parents
    }

    /// The parents that join two heaps `a ≥ b` with `adds[i]` more tokens into one heap
    /// `h = a + b + adds[i]` of at most `top` ([`parents`](Shape::parents)' joined kind, for
    /// several numbers of tokens added at once, `adds` ascending), run by run, for a position
    /// whose parents' counts the table holds (for the largest of `adds`): calls `visit(i,
    /// rank)` for each, and returns how many. `rules` must split with every one of `adds`
    /// ([`TierRules::may_split`]).
    ///
    /// A parent's rank adds: the runs before `h`'s place (`added` more tokens and a heap
    /// fewer after each, summed once for every run and number added as `pre`), `h`'s term,
    /// the runs from `h`'s place down to `a` (`a + b` tokens and two heaps fewer after them,
    /// whatever the tokens added), the heaps after `a`'s first down to `b` (`b` and a heap
    /// fewer) and the terms after `b`. For each `b`, `a` walks up from `b`'s run, so the
    /// heaps between the two are summed a run at a time as `a` passes them; for each pair,
    /// the runs between `h`'s place and `a` are summed for the fewest tokens added, and
    /// each larger number adds only the runs its larger `h` passes.
    #[inline(always)]
    fn joined_by_runs<R: TierRules>(
        &self,
        rules: &R,
        table: &Terms,
        adds: &[u32],
        top: u32,
        pre: &mut Vec<u32>,
        visit: &mut impl FnMut(usize, u32),
    ) -> u64 {
        let k = self.heaps.len();
        let nr = self.runs.count;
        let (Some(&least), Some(&most)) = (adds.first(), adds.last()) else {
            return 0;
        };
        debug_assert!(k >= 2 && nr >= 1 && table.holds(self.suf[0] + most, k as u32));
        debug_assert!(adds.is_sorted());
        let (start, value, rplace) =
            (&self.runs.start[..=nr], &self.runs.value[..=nr], &self.runs.place[..=nr]);
        let (place, tails) = (&self.place[..=k], &self.tails[..=k]);
        // pre[i · nr + r]: the terms of the runs before r, `adds[i]` more tokens and a heap
        // fewer after each (a joined heap never goes after the last run's first heap).
        pre.clear();
        pre.resize(adds.len() * nr, 0);
        for (row, &added) in pre.chunks_exact_mut(nr).zip(adds) {
            let joined = table.shift(added as i32, -1);
            let mut acc = 0u32;
            for r in 0..nr - 1 {
                row[r] = acc;
                acc = acc.wrapping_add(table.run_within(rplace[r], rplace[r + 1], joined, value[r]));
            }
            row[nr - 1] = acc;
        }
        let pre = &pre[..];
        // `h`'s term with the runs before its place, `rq` (the first run below `h`), for
        // `adds[i]`.
        let head = |i: usize, rq: usize, h: u32| {
            let joined = table.shift(adds[i] as i32, -1);
            pre[i * nr + rq].wrapping_add(table.at_within(rplace[rq], joined, h - 1))
        };
        let mut n_parents = 0;
        for rb in 0..nr {
            let b = value[rb];
            let xb = start[rb] as usize;
            if start[rb + 1] as usize - xb >= 2 && 2 * b + least <= top {
                // Two heaps of b's run. rq: the first run below h, moving left as h grows
                // with the tokens added; `passed`: the runs from rq to b's, two heaps and
                // 2b tokens fewer after each.
                let pair = table.shift(-2 * b as i32, -2);
                let (mut rq, mut passed) = (rb, 0u32);
                for (i, &added) in adds.iter().enumerate() {
                    let h = 2 * b + added;
                    if h > top {
                        break;
                    }
                    while rq > 0 && value[rq - 1] < h {
                        rq -= 1;
                        passed = passed.wrapping_add(table.run_within(
                            rplace[rq],
                            rplace[rq + 1],
                            pair,
                            value[rq],
                        ));
                    }
                    if rules.splits_to(h, b, b) {
                        visit(i, head(i, rq, h).wrapping_add(passed).wrapping_add(tails[xb + 2]));
                        n_parents += 1;
                    }
                }
            }
            // The heaps between a and b have b and a heap fewer after them.
            let beside = table.shift(-(b as i32), -1);
            // a: the first heap of each run before b's, nearest first; `between`: the terms of
            // the heaps after a's first and before b. `first_rq`: the first run below h for
            // the fewest tokens added, moving left as h grows with a.
            let mut between = 0u32;
            let mut first_rq = rb;
            let mut ra = rb;
            while ra > 0 {
                ra -= 1;
                let a = value[ra];
                let xa = start[ra] as usize;
                between = between.wrapping_add(table.run_within(place[xa + 1], rplace[ra + 1], beside, a));
                if ra + 1 < rb {
                    between =
                        between.wrapping_add(table.at_within(rplace[ra + 1], beside, value[ra + 1] - 1));
                }
                if a + b + least > top {
                    break;
                }
                let after = between.wrapping_add(tails[xb + 1]);
                let pair = table.shift(-((a + b) as i32), -2);
                while first_rq > 0 && value[first_rq - 1] < a + b + least {
                    first_rq -= 1;
                }
                // `passed`: the runs from rq to a's, two heaps and a + b tokens fewer after each.
                let mut rq = first_rq;
                let mut passed = 0u32;
                for y in rq..ra {
                    passed = passed.wrapping_add(table.run_within(rplace[y], rplace[y + 1], pair, value[y]));
                }
                for (i, &added) in adds.iter().enumerate() {
                    let h = a + b + added;
                    if h > top {
                        break;
                    }
                    while rq > 0 && value[rq - 1] < h {
                        rq -= 1;
                        passed = passed.wrapping_add(table.run_within(
                            rplace[rq],
                            rplace[rq + 1],
                            pair,
                            value[rq],
                        ));
                    }
                    if rules.splits_to(h, a, b) {
                        visit(i, head(i, rq, h).wrapping_add(passed).wrapping_add(after));
                        n_parents += 1;
                    }
                }
            }
        }
        n_parents
    }

    /// Calls `visit(i, change, rank)` for every parent of this position under `rules` that
    /// adds `first + i` tokens (`i < LANES`) and is wanted: a heap grown (`change` 0) where
    /// bit `i` of `grown` is set, a heap of `first + i` added back (`change` 1) where bit
    /// `i` of `vanished` is set, within `bounds`, with its rank in its own tier. The terms of
    /// the heaps before the changed one are summed for every lane at once from `by_total`
    /// (they differ only in the tokens after each heap), and those of the heaps a grown
    /// heap passes once per run (as [`grown_parents`](Shape::grown_parents) does). Returns
    /// the number of parents visited.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn parents_in_lanes<R: TierRules>(
        &mut self,
        rules: &R,
        table: &Terms,
        by_total: &CountsByTotal,
        first: u32,
        (grown, vanished): (u8, u8),
        bounds: ParentBounds,
        mut visit: impl FnMut(u32, i32, u32),
    ) -> u64 {
        let l = &self.heaps;
        let k = l.len();
        let (suf, tails, run_end) = (&self.suf, &self.tails, &self.run_end);
        let top = bounds.max_heap;
        let mut rows = std::mem::take(&mut self.lanes);
        rows.resize(k + 1, [0; LANES]);
        // rows[q] at each run start q holding a heap ≥ `least` (and at the end of the
        // last): the terms of the heaps before q in a parent with `first + i` more tokens
        // and `dj` more heaps after each, in lane i.
        let prefix = |rows: &mut [[u32; LANES]], least: u32, dj: usize| -> usize {
            let (mut acc, mut y) = ([0u32; LANES], 0);
            rows[0] = acc;
            while y < k && l[y] >= least {
                let end = run_end[y] as usize;
                let (s, j, v) = (suf[y] + first, (k - y + dj) as u32, l[y]);
                let term = if end == y + 1 {
                    by_total.lanes(s, j, v - 1)
                } else {
                    totals::sub(
                        by_total.lanes(s, j, v),
                        by_total.lanes(suf[end] + first, (k - end + dj) as u32, v),
                    )
                };
                acc = totals::add(acc, term);
                y = end;
                rows[y] = acc;
            }
            y
        };
        let mut n_parents = 0;
        if grown != 0 && k > 0 {
            let least = first + grown.trailing_zeros();
            prefix(&mut rows, l[k - 1] + least, 0);
            // Heaps above `top − least` cannot grow: start at the first that can.
            let mut x = l.iter().map(|&v| usize::from(v + least > top)).sum::<usize>();
            while x < k {
                let a = l[x];
                // q: the first heap below h, moving left as h grows; `passed`: the terms of
                // the heaps q..x with one heap and `a` tokens fewer after each.
                let (mut q, mut passed) = (x, 0u32);
                let mut bits = grown;
                while bits != 0 {
                    let i = bits.trailing_zeros();
                    bits &= bits - 1;
                    let (added, h) = (first + i, a + first + i);
                    if h > top {
                        break;
                    }
                    if !rules.shrinks_to(h, a) {
                        continue;
                    }
                    while q > 0 && l[q - 1] < h {
                        q -= 1;
                        passed =
                            passed.wrapping_add(table.count_within(suf[q] - a, (k - q - 1) as u32, l[q] - 1));
                    }
                    let rank = rows[q][i as usize]
                        .wrapping_add(table.count_within(suf[q] + added, (k - q) as u32, h - 1))
                        .wrapping_add(passed)
                        .wrapping_add(tails[x + 1]);
                    visit(i, 0, rank);
                    n_parents += 1;
                }
                x = run_end[x] as usize;
            }
        }
        if vanished != 0 && (k as u32) < bounds.max_heaps {
            let least = first + vanished.trailing_zeros();
            // q: the heaps ≥ the heap added back, fewer as it grows.
            let mut q = prefix(&mut rows, least, 1);
            let mut bits = vanished;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                let added = first + i;
                if added > top {
                    break;
                }
                if !rules.heap_vanishes(added) {
                    continue;
                }
                while q > 0 && l[q - 1] < added {
                    q -= 1;
                }
                let rank = rows[q][i as usize]
                    .wrapping_add(table.count_within(suf[q] + added, (k + 1 - q) as u32, added - 1))
                    .wrapping_add(tails[q]);
                visit(i, 1, rank);
                n_parents += 1;
            }
        }
        self.lanes = rows;
        n_parents
    }

    /// Calls `visit(i, rank)` for every parent of this position under `rules` that grows
    /// one heap by `adds[i]` tokens (`adds` ascending, each at least 1) to at most `top`,
    /// with its rank in its own tier: the grown parents of [`parents`](Shape::parents), for
    /// several numbers of tokens added at once. Returns the number of parents visited.
    ///
    /// Growing the first heap `a` of a run to `h` moves it left past the heaps in `[a, h)`:
    /// their terms (one heap and `a` tokens fewer after each) do not depend on the tokens
    /// added, so they are summed once per run for every step, each step adding only the
    /// heaps its larger `h` passes. The terms of the heaps before the new place depend on
    /// the tokens added; they are summed once per step for every run.
    #[inline]
    pub fn grown_parents<R: TierRules>(
        &mut self,
        rules: &R,
        table: &Terms,
        adds: &[u32],
        top: u32,
        mut visit: impl FnMut(usize, u32),
    ) -> u64 {
        let l = &self.heaps;
        let k = l.len();
        let (Some(&least), Some(&smallest)) = (adds.first(), l.last()) else {
            return 0;
        };
        debug_assert!(least >= 1 && adds.is_sorted());
        let (suf, tails) = (&self.suf, &self.tails);
        // above[i * (k + 1) + q] at each run start q a grown heap may land on (before the
        // heaps ≥ smallest + adds[i]): the terms of the heaps before q, `adds[i]` more tokens
        // after each.
        let mut above = std::mem::take(&mut self.pre);
        above.resize(adds.len() * (k + 1), 0);
        for (i, &added) in adds.iter().enumerate() {
            let row = &mut above[i * (k + 1)..(i + 1) * (k + 1)];
            let (mut acc, mut y) = (0u32, 0);
            row[0] = 0;
            while y < k && l[y] >= smallest + added {
                let end = self.run_end[y] as usize;
                acc = acc.wrapping_add(self.shifted(table, y, end, added as i32, 0));
                y = end;
                row[y] = acc;
            }
        }
        let mut n_parents = 0;
        // Heaps above `top − least` cannot grow: start at the first that can.
        let mut x = l.iter().map(|&v| usize::from(v + least > top)).sum::<usize>();
        while x < k {
            let a = l[x];
            // q: the first heap below h, moving left as h grows; `passed`: the terms of the
            // heaps q..x with one heap and `a` tokens fewer after each.
            let (mut q, mut passed) = (x, 0u32);
            for (i, &added) in adds.iter().enumerate() {
                let h = a + added;
                if h > top {
                    break;
                }
                if !rules.shrinks_to(h, a) {
                    continue;
                }
                while q > 0 && l[q - 1] < h {
                    q -= 1;
                    passed =
                        passed.wrapping_add(table.count_within(suf[q] - a, (k - q - 1) as u32, l[q] - 1));
                }
                let rank = above[i * (k + 1) + q]
                    .wrapping_add(table.count_within(suf[q] + added, (k - q) as u32, h - 1))
                    .wrapping_add(passed)
                    .wrapping_add(tails[x + 1]);
                visit(i, rank);
                n_parents += 1;
            }
            x = self.run_end[x] as usize;
        }
        self.pre = above;
        n_parents
    }

    /// Calls `visit(i, rank)` for every parent of this position under `rules` that joins two
    /// heaps with `adds[i]` more tokens (`adds` ascending, `rules` splitting with each,
    /// [`TierRules::may_split`]) into one heap within `bounds`, with its rank in its own
    /// tier: the joined parents of [`parents`](Shape::parents), for several numbers of
    /// tokens added in one walk of the pairs of heaps joined (each pair's terms summed once
    /// for every number). Returns the number of parents visited.
    #[inline]
    pub fn joined_parents<R: TierRules>(
        &mut self,
        rules: &R,
        table: &Terms,
        adds: &[u32],
        bounds: ParentBounds,
        mut visit: impl FnMut(usize, u32),
    ) -> u64 {
        let k = self.heaps.len();
        let Some(&most) = adds.last() else {
            return 0;
        };
        if k < 2 {
            return 0;
        }
        debug_assert!(adds.iter().all(|&a| rules.may_split(a)));
        if table.holds(self.suf[0] + most, k as u32) {
            let mut pre = std::mem::take(&mut self.pre);
            let n = self.joined_by_runs(rules, table, adds, bounds.max_heap, &mut pre, &mut visit);
            self.pre = pre;
            n
        } else {
            let kinds = ParentKinds { joined: true, ..ParentKinds::default() };
            let mut n = 0;
            for (i, &added) in adds.iter().enumerate() {
                let query = ParentQuery { added, bounds, kinds };
                n += self.parents(rules, table, query, |_, rank| visit(i, rank));
            }
            n
        }
    }

    /// Calls `visit(step, rank)` for every child of this position under `rules` that takes
    /// at most `max_taken` tokens, with its rank in its own tier, fewest tokens taken first
    /// (see [`children_taking`](Shape::children_taking)). Returns the number of children
    /// visited.
    #[cfg(test)]
    pub fn children<R: TierRules>(
        &self,
        rules: &R,
        table: &Terms,
        max_taken: u32,
        buf: &mut Vec<u32>,
        mut visit: impl FnMut(Step, u32),
    ) -> u64 {
        (0..=max_taken).map(|taken| self.children_taking(rules, table, taken, buf, &mut visit)).sum()
    }

    /// Calls `visit(step, rank)` for every child of this position under `rules` that takes
    /// exactly `taken` tokens, with its rank in its own tier. `rules` must move one heap at
    /// a time ([`TierRules::ONE_HEAP_MOVES`]). `buf` is scratch for three-way splits, which
    /// are ranked whole. Returns the number of children visited.
    ///
    /// The children are ranked run by run ([`children_by_runs`](Shape::children_by_runs))
    /// where the table holds every count they read, else heap by heap
    /// ([`children_by_heaps`](Shape::children_by_heaps)); both give the same ranks.
    #[inline]
    pub fn children_taking<R: TierRules>(
        &self,
        rules: &R,
        table: &Terms,
        taken: u32,
        buf: &mut Vec<u32>,
        visit: impl FnMut(Step, u32),
    ) -> u64 {
        self.children_via(rules, table, taken, buf, Routine::Runs, visit)
    }

    /// [`children_taking`](Shape::children_taking) by `routine` where the table holds the
    /// children (the benchmark compares the two).
    #[inline]
    fn children_via<R: TierRules>(
        &self,
        rules: &R,
        table: &Terms,
        taken: u32,
        buf: &mut Vec<u32>,
        routine: Routine,
        visit: impl FnMut(Step, u32),
    ) -> u64 {
        let k = self.heaps.len() as u32;
        let more = u32::from(rules.may_split(taken));
        if routine == Routine::Runs && table.holds(self.suf[0], k + more) && !rules.may_split_three(taken) {
            self.children_by_runs(rules, table, taken, visit)
        } else {
            self.children_by_heaps(rules, table, taken, buf, visit)
        }
    }

    /// [`children_taking`](Shape::children_taking) run by run, for a position whose
    /// children's counts the table holds and rules that split in two at most with `taken`:
    /// the terms of the runs before the heap taken from are summed as the walk passes them
    /// (one sum for shrunk children, one for split ones), and each child's rank is a few
    /// reads, without a bounds check, at the runs' places.
    ///
    /// A split of `h` into `a ≥ b` adds: the runs before `h`'s run (`taken` tokens fewer
    /// and one heap more after each), the rest of `h`'s run and the runs down to `a` (with
    /// `a` and `b` after them: `h − taken` tokens and two heaps more), `a`'s term, the runs
    /// in `[b, a)` (`b` and one heap more after them), `b`'s term and the terms after `b`.
    /// `a` walks down from `h − taken − 1`, so the runs down to `a` are summed once for every
    /// split of a heap; those in `[b, a)` are few, and summed for each.
    #[inline]
    pub fn children_by_runs<R: TierRules>(
        &self,
        rules: &R,
        table: &Terms,
        taken: u32,
        mut visit: impl FnMut(Step, u32),
    ) -> u64 {
        debug_assert!(R::ONE_HEAP_MOVES);
        let k = self.heaps.len();
        debug_assert!(table.holds(self.suf[0], k as u32 + u32::from(rules.may_split(taken))));
        if taken == 0 && !rules.may_split(0) {
            return 0;
        }
        let nr = self.runs.count;
        let (start, value, rplace, rtails) = (
            &self.runs.start[..=nr],
            &self.runs.value[..=nr],
            &self.runs.place[..=nr],
            &self.runs.tails[..=nr],
        );
        let (place, tails) = (&self.place[..=k], &self.tails[..=k]);
        let t = taken as i32;
        let (shrunk, split) = (table.shift(-t, 0), table.shift(-t, 1));
        let splits = rules.may_split(taken);
        // The terms of the runs before the current one, in a child with a heap of a later
        // run shrunk (as many heaps), split (one heap more).
        let (mut above_shrunk, mut above_split) = (0u32, 0u32);
        let mut n_children = 0;
        let mut r = 0;
        while r < nr {
            let h = value[r];
            // Runs come largest first: once a heap is smaller than `taken`, so are the rest.
            if h < taken {
                break;
            }
            let (i, e) = (start[r] as usize, start[r + 1] as usize);
            let n = h - taken;
            if n == 0 {
                if rules.heap_vanishes(h) {
                    // The runs before lose `taken` tokens and a heap after them.
                    let vanished = table.shift(-t, -1);
                    let mut above = 0u32;
                    for y in 0..r {
                        above = above.wrapping_add(table.run_within(
                            rplace[y],
                            rplace[y + 1],
                            vanished,
                            value[y],
                        ));
                    }
                    visit(Step { taken, parts: 0 }, above.wrapping_add(tails[i + 1]));
                    n_children += 1;
                }
                break;
            }
            if taken > 0 && rules.shrinks_to(h, n) {
                // The rest of h's run and the runs down to n see n and a heap more after
                // them; n goes before the first run below it.
                let after = table.shift(n as i32, 1);
                let mut rank = above_shrunk.wrapping_add(table.run_within(place[i + 1], place[e], after, h));
                let mut q = r + 1;
                while value[q] >= n {
                    rank = rank.wrapping_add(table.run_within(rplace[q], rplace[q + 1], after, value[q]));
                    q += 1;
                }
                let rank =
                    rank.wrapping_add(table.at_within(rplace[q], after, n - 1)).wrapping_add(rtails[q]);
                visit(Step { taken, parts: 1 }, rank);
                n_children += 1;
            }
            if splits && n >= 2 {
                // The heaps ≥ a after h have a and b after them: n tokens and two heaps more.
                let both = table.shift(n as i32, 2);
                let mut upper = above_split.wrapping_add(table.run_within(place[i + 1], place[e], both, h));
                // qa: the first run below a; qb: the first run below b (never before qa).
                let (mut qa, mut qb) = (r + 1, nr);
                for a in (n.div_ceil(2)..n).rev() {
                    let b = n - a;
                    while value[qa] >= a {
                        upper =
                            upper.wrapping_add(table.run_within(rplace[qa], rplace[qa + 1], both, value[qa]));
                        qa += 1;
                    }
                    while qb > qa && value[qb - 1] < b {
                        qb -= 1;
                    }
                    if !rules.splits_to(h, a, b) {
                        continue;
                    }
                    let after_b = table.shift(b as i32, 1);
                    let mut rank = upper.wrapping_add(table.at_within(rplace[qa], both, a - 1));
                    for y in qa..qb {
                        rank =
                            rank.wrapping_add(table.run_within(rplace[y], rplace[y + 1], after_b, value[y]));
                    }
                    let rank = rank
                        .wrapping_add(table.at_within(rplace[qb], after_b, b - 1))
                        .wrapping_add(rtails[qb]);
                    visit(Step { taken, parts: 2 }, rank);
                    n_children += 1;
                }
            }
            r += 1;
            // The run's terms, for the runs after it that are taken from (their heaps hold
            // the `taken` tokens the run's terms lose).
            if r < nr && value[r] >= taken {
                let (from, to) = (rplace[r - 1], rplace[r]);
                above_shrunk = above_shrunk.wrapping_add(table.run_within(from, to, shrunk, h));
                if splits {
                    above_split = above_split.wrapping_add(table.run_within(from, to, split, h));
                }
            }
        }
        n_children
    }

    /// [`children_taking`](Shape::children_taking) heap by heap, through the checked table:
    /// for any position and rules (three-way splits built and ranked whole in `buf`).
    #[inline]
    pub fn children_by_heaps<R: TierRules>(
        &self,
        rules: &R,
        table: &Terms,
        taken: u32,
        buf: &mut Vec<u32>,
        mut visit: impl FnMut(Step, u32),
    ) -> u64 {
        debug_assert!(R::ONE_HEAP_MOVES);
        let l = &self.heaps;
        let k = l.len();
        let suf = &self.suf;
        let tails = &self.tails;
        let mut n_children = 0;
        if taken == 0 && !rules.may_split(0) && !rules.may_split_three(0) {
            return 0;
        }
        // Where the trailing 1s start (k if the smallest heap is larger).
        let ones = l.iter().rposition(|&v| v != 1).map_or(0, |x| x + 1);
        let mut i = 0;
        // Runs come largest first: once a heap is smaller than `taken`, so are the rest.
        while i < k && l[i] >= taken {
            let h = l[i];
            let e = self.run_end[i] as usize;
            let n = h - taken;
            if n == 0 {
                if rules.heap_vanishes(h) {
                    let rank = self.shifted(table, 0, i, -(h as i32), -1).wrapping_add(tails[i + 1]);
                    visit(Step { taken, parts: 0 }, rank);
                    n_children += 1;
                }
                i = e;
                continue;
            }
            // Heaps before `h` lose `taken` tokens after them and gain `parts − 1` heaps.
            if taken > 0 && rules.shrinks_to(h, n) {
                // The new heap n goes after every heap ≥ n.
                let mut q = e;
                while q < k && l[q] >= n {
                    q += 1;
                }
                let rank = self
                    .shifted(table, 0, i, -(taken as i32), 0)
                    .wrapping_add(self.shifted(table, i + 1, q, n as i32, 1))
                    .wrapping_add(table.count_within(suf[q] + n, (k - q + 1) as u32, n - 1))
                    .wrapping_add(tails[q]);
                visit(Step { taken, parts: 1 }, rank);
                n_children += 1;
            }
            if rules.may_split(taken) && n >= 2 {
                let above = self.shifted(table, 0, i, -(taken as i32), 1);
                // a from n − 1 down to ⌈n/2⌉, b = n − a up: the heaps ≥ a (between h and
                // a) see a and b after them; those in [b, a) see only b.
                let mut qa = i + 1;
                let mut upper = 0u32;
                let mut qb = k;
                // The heaps ≥ a have a and b after them: n tokens and two heaps more.
                let both = table.shift(n as i32, 2);
                for a in (n.div_ceil(2)..n).rev() {
                    let b = n - a;
                    // A stretch of equal heaps at a time (the rest of h's run, then runs).
                    while qa < k && l[qa] >= a {
                        let end = self.run_end[qa] as usize;
                        upper = upper.wrapping_add(self.shifted_by(table, qa, end, both));
                        qa = end;
                    }
                    // Past the heaps below b, the trailing 1s at once.
                    while qb > qa && l[qb - 1] < b {
                        qb = if l[qb - 1] == 1 { ones.max(qa) } else { qb - 1 };
                    }
                    if qb < qa {
                        qb = qa;
                    }
                    if !rules.splits_to(h, a, b) {
                        continue;
                    }
                    let after_b = table.shift(b as i32, 1);
                    let rank = above
                        .wrapping_add(upper)
                        .wrapping_add(table.at(self.place[qa], both, a - 1))
                        .wrapping_add(self.shifted_by(table, qa, qb, after_b))
                        .wrapping_add(table.at(self.place[qb], after_b, b - 1))
                        .wrapping_add(tails[qb]);
                    visit(Step { taken, parts: 2 }, rank);
                    n_children += 1;
                }
            }
            if rules.may_split_three(taken) && n >= 3 {
                crate::game::for_each_three(n, |a, b, c| {
                    if rules.splits_three_to(h, a, b, c) {
                        buf.clear();
                        let mut pending = [a, b, c].into_iter().peekable();
                        for (x, &v) in l.iter().enumerate() {
                            if x == i {
                                continue;
                            }
                            while let Some(&p) = pending.peek().filter(|&&p| p > v) {
                                buf.push(p);
                                pending.next();
                            }
                            buf.push(v);
                        }
                        buf.extend(pending);
                        visit(Step { taken, parts: 3 }, table.rank(buf) as u32);
                        n_children += 1;
                    }
                });
            }
            i = e;
        }
        n_children
    }
}

/// Which routine ranks a position's children and joined parents: run by run (the
/// solver's, where the table holds them) or heap by heap (the one before it, kept for
/// positions the table does not hold and for the benchmark that compares the two).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    /// [`Shape::children_by_runs`] and [`Shape::joined_by_runs`].
    Runs,
    /// [`Shape::children_by_heaps`] and the heap-by-heap walk of [`Shape::parents`].
    Heaps,
}

/// Ranks, through `routine`, every child (each number of tokens up to `reach`) and every
/// joined parent (each number of tokens added up to `reach`, heaps up to the table's
/// largest part) of every position of `tier` of `spec` in `table`, and returns the sum of
/// the ranks and their number: the work of settling and marking a tier's positions without
/// reading or writing a value. For the benchmark that compares the routines
/// (`crates/solve/benches/ranks.rs`); not part of the solver's interface.
#[doc(hidden)]
pub fn neighbour_ranks(
    spec: &crate::game::GameSpec,
    table: &PartitionTable,
    tier: crate::index::TierId,
    reach: u32,
    routine: Routine,
) -> (u64, u64) {
    spec.rules().with(Ranks { table, tier, reach, walk: Walk::Tier(routine) })
}

/// Ranks the children (each number of tokens up to `reach`) and every parent (each kind,
/// each number of tokens added up to `reach` within the table) of every `stride`-th
/// position of `tier` of `spec` in `table`, as the retrograde solver settles a loss and
/// marks the totals above it, and returns the sum of the ranks and their number. With
/// `once`, each position is unranked once and its parents are ranked from the shape its
/// children were ranked from (the solver since issue 33's fourth round); without, the
/// parents of each number of tokens added are ranked from a shape of their own, unranked
/// again (as marking one total at a time did). For the benchmark that compares the two
/// (`crates/solve/benches/ranks.rs`); not part of the solver's interface.
#[doc(hidden)]
pub fn loss_neighbour_ranks(
    spec: &crate::game::GameSpec,
    table: &PartitionTable,
    tier: crate::index::TierId,
    reach: u32,
    stride: usize,
    once: bool,
) -> (u64, u64) {
    spec.rules().with(Ranks { table, tier, reach, walk: Walk::Losses { stride, once } })
}

/// Ranks every parent (each kind, each number of tokens added up to the table's largest
/// total) of every `stride`-th position of `tier` of `spec` in `table`, as the retrograde
/// solver marks the totals above a loss whose heaps the window keeps decoded (lines), and
/// returns the sum of the ranks and their number. The numbers added go in batches of
/// `batch` (the totals marked in one pass): each loss is loaded from its bytes once for a
/// batch, and with more than one its grown and joined parents are walked for every number
/// of the batch at once (the solver since issue 33's seventh round); with one, it is loaded
/// again for each number and every kind walked for it (marking one total at a time, before).
/// For the benchmark that compares the two (`crates/solve/benches/ranks.rs`); not part of
/// the solver's interface.
#[doc(hidden)]
pub fn marking_ranks(
    spec: &crate::game::GameSpec,
    table: &PartitionTable,
    tier: crate::index::TierId,
    stride: usize,
    batch: usize,
) -> (u64, u64) {
    spec.rules().with(Marking { table, tier, stride, batch })
}

/// The visitor of [`marking_ranks`].
struct Marking<'a> {
    table: &'a PartitionTable,
    tier: crate::index::TierId,
    stride: usize,
    batch: usize,
}

impl crate::game::RulesVisitor for Marking<'_> {
    type Output = (u64, u64);
    fn visit<R: TierRules>(self, rules: &R) -> (u64, u64) {
        if !R::ONE_HEAP_MOVES {
            return (0, 0);
        }
        let terms = Terms::new(self.table);
        let bounds = ParentBounds { max_heap: self.table.max_part(), max_heaps: self.table.max_parts() };
        let (total, heaps) = (self.tier.total, self.tier.heaps);
        let adds: Vec<u32> = (1..=self.table.max_total() - total).collect();
        let mut cursor = self.table.cursor(total, heaps);
        let (mut shape, mut bytes) = (Shape::default(), Vec::new());
        let (mut sum, mut count) = (0u64, 0u64);
        let vanished = ParentKinds { vanished: true, ..ParentKinds::default() };
        let all = ParentKinds { vanished: true, grown: true, joined: true };
        for rank in (0..self.table.tier_size(total, heaps)).step_by(self.stride.max(1)) {
            bytes.clear();
            bytes.extend(cursor.seek(rank).iter().map(|&h| h as u8));
            for chunk in adds.chunks(self.batch.max(1)) {
                shape.load_bytes(&terms, &bytes);
                if chunk.len() == 1 {
                    let query = ParentQuery { added: chunk[0], bounds, kinds: all };
                    count += shape.parents(rules, &terms, query, |_, r| sum += r as u64);
                    continue;
                }
                count += shape.grown_parents(rules, &terms, chunk, bounds.max_heap, |_, r| sum += r as u64);
                let joined: Vec<u32> = chunk.iter().copied().filter(|&a| rules.may_split(a)).collect();
                count += shape.joined_parents(rules, &terms, &joined, bounds, |_, r| sum += r as u64);
                for &added in chunk {
                    let query = ParentQuery { added, bounds, kinds: vanished };
                    count += shape.parents(rules, &terms, query, |_, r| sum += r as u64);
                }
            }
        }
        (sum, count)
    }
}

/// What [`Ranks`] ranks of each position it visits.
#[derive(Clone, Copy)]
enum Walk {
    /// Every position's children and joined parents, through the routine
    /// ([`neighbour_ranks`]).
    Tier(Routine),
    /// Every `stride`-th position's children and parents of every kind, unranked `once` or
    /// again for each number of tokens added ([`loss_neighbour_ranks`]).
    Losses { stride: usize, once: bool },
}

/// The benchmarks' visitor: ranks the neighbours of the positions of one tier (see
/// [`Walk`]) and gives the sum of the ranks and their number.
struct Ranks<'a> {
    table: &'a PartitionTable,
    tier: crate::index::TierId,
    reach: u32,
    walk: Walk,
}

impl crate::game::RulesVisitor for Ranks<'_> {
    type Output = (u64, u64);
    fn visit<R: TierRules>(self, rules: &R) -> (u64, u64) {
        if !R::ONE_HEAP_MOVES {
            return (0, 0);
        }
        let terms = Terms::new(self.table);
        let bounds = ParentBounds { max_heap: self.table.max_part(), max_heaps: self.table.max_parts() };
        let (total, heaps) = (self.tier.total, self.tier.heaps);
        let adds = 1..=self.reach.min(self.table.max_total() - total);
        let (mut shape, mut buf) = (Shape::default(), Vec::new());
        let (mut sum, mut count) = (0u64, 0u64);
        let size = self.table.tier_size(total, heaps);
        let (routine, stride, once, kinds) = match self.walk {
            Walk::Tier(routine) => (routine, 1, true, ParentKinds { joined: true, ..ParentKinds::default() }),
            Walk::Losses { stride, once } => {
                (Routine::Runs, stride, once, ParentKinds { vanished: true, grown: true, joined: true })
            }
        };
        // Without `once`: a shape for each number of tokens added, each seeking the same
        // ascending ranks (as each total's marking did).
        let mut marking: Vec<Shape> =
            if once { Vec::new() } else { adds.clone().map(|_| Shape::default()).collect() };
        for rank in (0..size).step_by(stride.max(1)) {
            shape.seek(&terms, total, heaps, rank);
            for taken in 0..=self.reach.min(total) {
                count += shape.children_via(rules, &terms, taken, &mut buf, routine, |_, r| sum += r as u64);
            }
            for (i, added) in adds.clone().enumerate() {
                let query = ParentQuery { added, bounds, kinds };
                let from = if once {
                    &mut shape
                } else {
                    let other = &mut marking[i];
                    other.seek(&terms, total, heaps, rank);
                    other
                };
                count += from.parents_via(rules, &terms, query, routine, |_, r| sum += r as u64);
            }
        }
        (sum, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameSpec, RulesVisitor};
    use crate::index::TierId;

    /// Collects every (child tier, rank) of every position of small universes both ways:
    /// through the shape, and by building each child and ranking it.
    struct Agree {
        max_total: u32,
        max_part: u32,
    }

    impl RulesVisitor for Agree {
        type Output = usize;
        fn visit<R: TierRules>(self, rules: &R) -> usize {
            if !R::ONE_HEAP_MOVES {
                return 0;
            }
            let table = PartitionTable::new(self.max_total, self.max_total, self.max_part).unwrap();
            let terms = Terms::new(&table);
            let mut shape = Shape::default();
            let mut tails = Vec::new();
            let mut buf = Vec::new();
            let mut checked = 0;
            for total in 0..=self.max_total {
                for heaps in 0..=total {
                    let tier = TierId { total, heaps };
                    for position in table.positions(tier) {
                        let p = position.heaps();
                        table.tails_into(p, &mut tails);
                        shape.load(&terms, p, &tails);
                        let mut fast = Vec::new();
                        shape.children(rules, &terms, total, &mut buf, |step, rank| {
                            fast.push((step.taken, heaps + step.parts - 1, rank));
                        });
                        let mut slow = Vec::new();
                        for taken in 0..=total {
                            rules.children_taking(p, taken, &mut buf, |c| {
                                slow.push((taken, c.len() as u32, table.rank(c) as u32));
                            });
                        }
                        fast.sort_unstable();
                        slow.sort_unstable();
                        assert_eq!(fast, slow, "children of {p:?}");
                        checked += fast.len();
                    }
                }
            }
            checked
        }
    }

    /// Collects every (parent tier, rank) of every position of small universes both ways:
    /// through the shape, and from the rules' parents ranked whole.
    struct ParentsAgree {
        max_total: u32,
        max_part: u32,
        max_heaps: u32,
    }

    impl RulesVisitor for ParentsAgree {
        type Output = usize;
        fn visit<R: TierRules>(self, rules: &R) -> usize {
            if !R::ONE_HEAP_MOVES {
                return 0;
            }
            let table = PartitionTable::new(self.max_total, self.max_heaps, self.max_part).unwrap();
            let terms = Terms::new(&table);
            let bounds = ParentBounds { max_heap: self.max_part, max_heaps: self.max_heaps };
            let mut shape = Shape::default();
            let (mut tails, mut buf) = (Vec::new(), Vec::new());
            let mut checked = 0;
            for total in 0..=self.max_total {
                for heaps in 0..=total.min(self.max_heaps) {
                    for position in table.positions(TierId { total, heaps }) {
                        let p = position.heaps();
                        table.tails_into(p, &mut tails);
                        shape.load(&terms, p, &tails);
                        for added in 0..=self.max_total - total {
                            let mut fast = Vec::new();
                            let query = ParentQuery { added, bounds, kinds: ParentKinds::ALL };
                            shape.parents(rules, &terms, query, |change, rank| {
                                fast.push(((heaps as i32 + change) as u32, rank));
                            });
                            let mut slow = Vec::new();
                            for parent_heaps in heaps.saturating_sub(1)..=heaps + 1 {
                                rules.parents_adding(p, added, parent_heaps, bounds, &mut buf, |parent| {
                                    slow.push((parent_heaps, table.rank(parent) as u32));
                                });
                            }
                            fast.sort_unstable();
                            slow.sort_unstable();
                            slow.dedup();
                            assert_eq!(fast, slow, "parents of {p:?} adding {added}");
                            checked += fast.len();
                        }
                    }
                }
            }
            checked
        }
    }

    /// Compares the grown parents (or, with `joined`, the joined parents) walked for several
    /// numbers of tokens at once with those walked one number at a time, on every position of
    /// a small universe.
    struct ManyAgree {
        max_total: u32,
        max_part: u32,
        joined: bool,
    }

    impl RulesVisitor for ManyAgree {
        type Output = usize;
        fn visit<R: TierRules>(self, rules: &R) -> usize {
            if !R::ONE_HEAP_MOVES {
                return 0;
            }
            let table = PartitionTable::new(self.max_total, self.max_total, self.max_part).unwrap();
            let terms = Terms::new(&table);
            let bounds = ParentBounds { max_heap: self.max_part, max_heaps: self.max_total };
            let (kinds, change, name) = if self.joined {
                (ParentKinds { joined: true, ..ParentKinds::default() }, -1, "joined")
            } else {
                (ParentKinds { grown: true, ..ParentKinds::default() }, 0, "grown")
            };
            let (mut shape, mut tails) = (Shape::default(), Vec::new());
            let mut checked = 0;
            for total in 0..=self.max_total {
                for heaps in 0..=total {
                    for position in table.positions(TierId { total, heaps }) {
                        let p = position.heaps();
                        table.tails_into(p, &mut tails);
                        shape.load(&terms, p, &tails);
                        let room = self.max_total - total;
                        // Every number of tokens from the first up, every other one, and four
                        // from the third (a batch of totals above the loss's next); a join
                        // only of the numbers a move may split off.
                        for adds in [
                            (1..=room).collect::<Vec<u32>>(),
                            (2..=room).step_by(2).collect(),
                            (3..=room.min(6)).collect(),
                        ] {
                            let adds: Vec<u32> =
                                adds.into_iter().filter(|&a| !self.joined || rules.may_split(a)).collect();
                            let mut many = Vec::new();
                            let each = |i: usize, rank| many.push((adds[i], rank));
                            if self.joined {
                                shape.joined_parents(rules, &terms, &adds, bounds, each);
                            } else {
                                shape.grown_parents(rules, &terms, &adds, self.max_part, each);
                            }
                            let mut one = Vec::new();
                            for &added in &adds {
                                let query = ParentQuery { added, bounds, kinds };
                                shape.parents(rules, &terms, query, |moved, rank| {
                                    assert_eq!(moved, change);
                                    one.push((added, rank));
                                });
                            }
                            many.sort_unstable();
                            one.sort_unstable();
                            assert_eq!(many, one, "{name} parents of {p:?} adding {adds:?}");
                            checked += many.len();
                        }
                    }
                }
            }
            checked
        }
    }

    /// Compares the parents walked in lanes (several numbers of tokens added at once, each
    /// kind where its mask asks) with those walked one number at a time, on every position
    /// of a small universe.
    struct LanesAgree {
        max_total: u32,
        max_part: u32,
        max_heaps: u32,
    }

    impl RulesVisitor for LanesAgree {
        type Output = usize;
        fn visit<R: TierRules>(self, rules: &R) -> usize {
            if !R::ONE_HEAP_MOVES {
                return 0;
            }
            let table = PartitionTable::new(self.max_total, self.max_heaps, self.max_part).unwrap();
            let terms = Terms::new(&table);
            let by_total = CountsByTotal::new(&table);
            let bounds = ParentBounds { max_heap: self.max_part, max_heaps: self.max_heaps };
            let (mut shape, mut tails) = (Shape::default(), Vec::new());
            let mut checked = 0;
            for total in 0..=self.max_total {
                for heaps in 0..=total.min(self.max_heaps) {
                    for position in table.positions(TierId { total, heaps }) {
                        let p = position.heaps();
                        table.tails_into(p, &mut tails);
                        shape.load(&terms, p, &tails);
                        for first in 1..=self.max_total - total {
                            // Lanes past the universe's totals are left out, as a solve does.
                            let room = (self.max_total - total - first + 1).min(LANES as u32);
                            let fit = (((1u32 << room) - 1) & 0xff) as u8;
                            for (grown, vanished) in
                                [(0xff, 0xff), (0b0101_0110, 0b1010_1001), (0, 0b11), (0b1100, 0)]
                            {
                                let (grown, vanished) = (grown & fit, vanished & fit);
                                let mut lanes = Vec::new();
                                shape.parents_in_lanes(
                                    rules,
                                    &terms,
                                    &by_total,
                                    first,
                                    (grown, vanished),
                                    bounds,
                                    |i, change, rank| lanes.push((first + i, change, rank)),
                                );
                                let mut one = Vec::new();
                                for i in 0..LANES as u32 {
                                    let kinds = ParentKinds {
                                        grown: grown & (1 << i) != 0,
                                        vanished: vanished & (1 << i) != 0,
                                        joined: false,
                                    };
                                    let query = ParentQuery { added: first + i, bounds, kinds };
                                    shape.parents(rules, &terms, query, |change, rank| {
                                        one.push((first + i, change, rank));
                                    });
                                }
                                lanes.sort_unstable();
                                one.sort_unstable();
                                assert_eq!(
                                    lanes, one,
                                    "parents of {p:?} from {first} ({grown:b}, {vanished:b})"
                                );
                                checked += lanes.len();
                            }
                        }
                    }
                }
            }
            checked
        }
    }

    #[test]
    fn parents_in_lanes_are_those_of_each_step() {
        for spec in ["nim", "kayles", "lines", "subtraction:1,3,4", "octal:0.161", "octal:0.137", "hex:0.F"] {
            let game: GameSpec = spec.parse().unwrap();
            for (max_part, max_heaps) in [(16, 16), (7, 16), (9, 4)] {
                let checked = game.rules().with(LanesAgree { max_total: 16, max_part, max_heaps });
                assert!(checked > 0, "{spec}: no parents checked");
            }
        }
    }

    #[test]
    fn grown_parents_of_several_steps_are_those_of_each_step() {
        for spec in ["nim", "kayles", "lines", "subtraction:1,3,4", "octal:0.161", "octal:0.137", "hex:0.F"] {
            let game: GameSpec = spec.parse().unwrap();
            for max_part in [16, 7] {
                let checked = game.rules().with(ManyAgree { max_total: 16, max_part, joined: false });
                assert!(checked > 0, "{spec}: no parents checked");
            }
        }
    }

    #[test]
    fn joined_parents_of_several_steps_are_those_of_each_step() {
        for spec in ["kayles", "dawson", "lines", "octal:0.161", "octal:0.137", "hex:0.F"] {
            let game: GameSpec = spec.parse().unwrap();
            for max_part in [16, 7] {
                let checked = game.rules().with(ManyAgree { max_total: 16, max_part, joined: true });
                assert!(checked > 0, "{spec}: no parents checked");
            }
        }
    }

    #[test]
    fn shape_ranks_every_parent_as_the_table_does() {
        for spec in [
            "kayles",
            "dawson",
            "lines",
            "nim",
            "grundy",
            "subtraction:1,3,4",
            "octal:0.161",
            "octal:4.07",
            "octal:0.137",
            "octal:0.6",
            "hex:0.F",
            "hex:4.9",
            "hex:C.1",
        ] {
            let game: GameSpec = spec.parse().unwrap();
            for (max_part, max_heaps) in [(16, 16), (7, 16), (9, 4)] {
                let checked = game.rules().with(ParentsAgree { max_total: 16, max_part, max_heaps });
                assert!(checked > 0, "{spec}: no parents checked");
            }
        }
    }

    #[test]
    fn seeking_gives_what_a_cursor_and_load_give() {
        let table = PartitionTable::new(30, 30, 30).unwrap();
        let capped = PartitionTable::new(30, 12, 7).unwrap();
        for table in [&table, &capped] {
            let terms = Terms::new(table);
            let (mut sought, mut loaded) = (Shape::default(), Shape::default());
            for total in 0..=30 {
                for heaps in 0..=total.min(table.max_parts()) {
                    let size = table.tier_size(total, heaps);
                    if size == 0 {
                        continue;
                    }
                    // Every rank ascending, then strides, then ranks going down and jumping.
                    let ranks = (0..size)
                        .flat_map(|r| [r, r])
                        .chain((0..size).step_by(7))
                        .chain((0..size).rev().step_by(3))
                        .chain((0..size).map(|r| (r * 7919) % size));
                    let mut cursor = table.cursor(total, heaps);
                    for rank in ranks {
                        sought.seek(&terms, total, heaps, rank);
                        cursor.seek(rank);
                        loaded.load(&terms, cursor.heaps(), cursor.tails());
                        assert_eq!(
                            (&sought.heaps, &sought.suf, &sought.tails, &sought.run_end, &sought.place),
                            (&loaded.heaps, &loaded.suf, &loaded.tails, &loaded.run_end, &loaded.place),
                            "rank {rank} of ({total}, {heaps})"
                        );
                    }
                }
            }
            // A load in between is not taken for the last position sought.
            let tier = TierId { total: 20, heaps: 6 };
            sought.seek(&terms, tier.total, tier.heaps, 3);
            let mut tails = Vec::new();
            let other = table.position(TierId { total: 20, heaps: 6 }, 40);
            table.tails_into(other.heaps(), &mut tails);
            sought.load(&terms, other.heaps(), &tails);
            sought.seek(&terms, tier.total, tier.heaps, 4);
            assert_eq!(sought.heaps, table.position(tier, 4).heaps());
        }
    }

    #[test]
    fn loading_bytes_or_terms_gives_the_rank_terms() {
        let table = PartitionTable::new(40, 12, 20).unwrap();
        let terms = Terms::new(&table);
        let (mut a, mut b, mut tails) = (Shape::default(), Shape::default(), Vec::new());
        for tier in
            [TierId { total: 40, heaps: 12 }, TierId { total: 23, heaps: 4 }, TierId { total: 0, heaps: 0 }]
        {
            for position in table.positions(tier).step_by(7) {
                let p = position.heaps();
                table.tails_into(p, &mut tails);
                a.load(&terms, p, &tails);
                let bytes: Vec<u8> = p.iter().map(|&h| h as u8).collect();
                b.load_bytes(&terms, &bytes);
                assert_eq!(
                    (&a.heaps, &a.suf, &a.tails, &a.run_end, &a.place),
                    (&b.heaps, &b.suf, &b.tails, &b.run_end, &b.place)
                );
                b.load_terms(&terms, &bytes, &tails[..p.len()]);
                assert_eq!(
                    (&a.heaps, &a.suf, &a.tails, &a.run_end, &a.place),
                    (&b.heaps, &b.suf, &b.tails, &b.run_end, &b.place)
                );
            }
        }
    }

    #[test]
    fn shape_ranks_every_child_as_the_table_does() {
        for spec in [
            "kayles",
            "dawson",
            "lines",
            "nim",
            "grundy",
            "subtraction:1,3,4",
            "octal:0.161",
            "octal:4.07",
            "octal:0.137",
            "hex:0.F",
            "hex:0.8F",
            "hex:4.9",
            "hex:0.[B]",
            "hex:C.1",
        ] {
            let game: GameSpec = spec.parse().unwrap();
            let checked = game.rules().with(Agree { max_total: 16, max_part: 9 });
            assert!(checked > 0, "{spec}: no children checked");
        }
    }
}
