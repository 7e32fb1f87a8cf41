//! The rare/common ("sparse space") method for nim-value sequences of splitting games.
//!
//! A split option of a heap of size n is worth g(a) ⊕ g(b) for each pair of parts a + b = s
//! (s = n − k for each splitting removal k): O(n) pairs per heap, O(n²) in all. Berlekamp,
//! Conway and Guy (Winning Ways, "Sparse space spells speed") observed that for most octal
//! games the values split into two classes by the parity of the bits under a fixed mask
//! `m`: write P(v) = popcount(v & m) mod 2. Then P(x ⊕ y) = P(x) ⊕ P(y). Flammenkamp
//! generalised the classes to positions: class(n) = P(g(n)) ⊕ δ·(n mod 2) for δ ∈ {0, 1}.
//! One class, the *rare* one, turns out to hold only finitely many (or very few) heaps.
//!
//! For a pair a + b = s: P(g(a) ⊕ g(b)) = class(a) ⊕ class(b) ⊕ δ·(s mod 2). So a value v with
//! P(v) = 1 ⊕ δ·(s mod 2) can only come from a pair with exactly one rare part; a value with
//! P(v) = δ·(s mod 2) comes from two parts of the same class. For each heap the engine
//! 1. marks every single-heap option and every pair with a rare part: O(#rare) per split;
//! 2. runs the mex: a candidate not yet marked whose parity allows a same-class pair is looked
//!    up by scanning pairs until a witness turns up (these are common, so the scan stops
//!    early); a candidate whose parity needs a rare part is absent at once.
//!
//! Only when the mex itself needs a full scan is the work O(n), and that happens exactly when
//! the new heap is rare. For codes whose splits are listed by removal (no repeated splitting
//! digit) the work past the probe is done by the rare-pair engine of [`rare`],
//! which organises step 2 as one stopping scan and keeps the values in one byte each. The answer never depends on the mask (a bad mask is only slower),
//! so the engine picks the mask and δ that make the fewest rare heaps on a plainly computed
//! probe prefix, and falls back to the plain method when no mask makes them rare.
//!
//! Repeated digits (`0.[3]`, `0.[7]`) add options for every removal from some point on;
//! those are kept in insert-only sets that grow with n. A repeated
//! splitting digit costs O(n²) in all; [`HeapShape::quadratic`] says so.

use super::mex::{GrowingSet, StampSet};
use super::period::{CertificateRule, certificate_rule, proven_period};
use super::rare::{self, CompactEngine};
use super::shape::HeapShape;
use super::stop::{Stop, Stopped};

pub use super::cost::EngineStats;
pub use super::sparse_space::SparseSpace;

/// Heaps computed by the plain method before the sparse space is chosen.
pub const PROBE: u32 = 2048;

/// The largest share of rare heaps in the probe's second half for which the sparse method is
/// used (beyond it, the plain method is as fast).
const MAX_RARE_SHARE: f64 = 0.25;

/// Which method computed the splitting moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitMethod {
    /// The game has no finite splitting moves: every heap's options are listed directly.
    Direct,
    /// Every pair of parts of every heap (O(n²)).
    Plain,
    /// The rare/common method with this space.
    Sparse(SparseSpace),
}

impl std::fmt::Display for SplitMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitMethod::Direct => f.write_str("direct mex"),
            SplitMethod::Plain => f.write_str("plain mex over all splits"),
            SplitMethod::Sparse(s) => write!(
                f,
                "sparse space (mask {}{}, rare class {})",
                s.bitstring(),
                if s.domain { ", by heap parity" } else { "" },
                s.rare_class
            ),
        }
    }
}

/// Which method to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodChoice {
    /// The fastest that applies.
    Auto,
    /// The plain method (the benchmark baseline).
    Plain,
    /// The sparse method even where it does not pay (for tests).
    Sparse,
}

/// g(0..=up_to) by the plain method: every option of every heap.
pub fn plain_values(shape: &HeapShape, up_to: u32) -> Vec<u32> {
    compute_with(shape, up_to, &[], MethodChoice::Plain).0
}

/// g(0..=up_to) by the sparse method (after a plain probe prefix), and the space used.
pub fn sparse_values(shape: &HeapShape, up_to: u32) -> (Vec<u32>, SplitMethod) {
    let (g, method, _) = compute_with(shape, up_to, &[], MethodChoice::Sparse);
    (g, method)
}

/// g(0..=up_to) by the chosen method, continuing from `known = g(0..=m)` (truncated if longer
/// than needed), with the method used and work counters.
///
/// [`MethodChoice::Auto`] also takes the periodicity shortcut for finite codes: at heap
/// counts 128, 256, 512, … it looks for a period certified by Guy–Smith (or the window rule
/// for codes that never split) and, once one is found, copies every later value from one
/// period earlier ([`EngineStats::certified_at`] says where). The certificate is a theorem,
/// so the copied values are exact.
pub fn compute_with(
    shape: &HeapShape,
    up_to: u32,
    known: &[u32],
    choice: MethodChoice,
) -> (Vec<u32>, SplitMethod, EngineStats) {
    match compute_until(shape, up_to, known, choice, &Stop::never()) {
        Ok(done) => done,
        Err(stopped) => unreachable!("a computation nobody can stop stopped: {stopped}"),
    }
}

/// [`compute_with`], stopping when `stop` is set: every engine here (the plain probe and
/// method, the direct mex, the sparse and rare-pair engines) looks at it every
/// [`STOP_EVERY`](super::stop::STOP_EVERY) heaps, and a stop gives back the values finished
/// ([`Stopped::values`], each exact) for a later computation to continue from.
pub fn compute_until(
    shape: &HeapShape,
    up_to: u32,
    known: &[u32],
    choice: MethodChoice,
    stop: &Stop,
) -> Result<(Vec<u32>, SplitMethod, EngineStats), Stopped> {
    let mut prepared = prepare_until(shape, up_to, known, choice, stop)?;
    prepared.run_until(up_to, stop)?;
    let (method, stats) = (prepared.method, prepared.stats());
    let mut g = Vec::with_capacity(up_to as usize + 1);
    prepared.extend_into(0, prepared.computed().min(up_to as usize + 1), &mut g);
    if let Some((p, _)) = prepared.period() {
        while g.len() <= up_to as usize {
            g.push(g[g.len() - p as usize]);
        }
    }
    Ok((g, method, stats))
}

/// A sequence under way: the values computed so far, the method, and the engine that
/// computes more on demand ([`run`](Prepared::run)). Once a certified period is found the
/// engine stops; later values are read from the period ([`value`](Prepared::value)).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The method used for the splitting moves.
    pub method: SplitMethod,
    /// Work counters of the plain part (the probe, or everything for the plain method).
    base: EngineStats,
    state: State,
}

#[derive(Clone, Debug)]
enum State {
    /// Computed by the plain, direct or probing engine (up to what was asked).
    Plain { g: Vec<u32>, period: Option<u32>, target: u32 },
    /// The rare-pair engine in compact storage.
    Fast(Box<CompactEngine>),
}

impl Prepared {
    /// Computes every heap up to `target` (nothing beyond a certified period). The plain
    /// method computes everything at once when prepared; later calls do nothing for it.
    pub fn run(&mut self, target: u32) {
        if let State::Fast(e) = &mut self.state {
            e.run(target);
        }
    }

    /// [`run`](Self::run), stopping when `stop` is set (looked at every
    /// [`STOP_EVERY`](super::stop::STOP_EVERY) heaps): a stop before `target` (or a
    /// certified period) is reached gives back the values finished.
    pub fn run_until(&mut self, target: u32, stop: &Stop) -> Result<(), Stopped> {
        if let State::Fast(e) = &mut self.state {
            e.run_until(target, stop);
            if stop.is_stopped() && e.period().is_none() && e.len() <= target as usize {
                return Err(Stopped { values: self.finished() });
            }
        }
        Ok(())
    }

    /// g(0..computed), the values computed so far.
    pub fn finished(&self) -> Vec<u32> {
        let mut g = Vec::with_capacity(self.computed());
        self.extend_into(0, self.computed(), &mut g);
        g
    }

    /// How many heaps are computed and stored (g(0..computed)).
    pub fn computed(&self) -> usize {
        match &self.state {
            State::Plain { g, .. } => g.len(),
            State::Fast(e) => e.len(),
        }
    }

    /// Whether g(n) is known (computed, or given by a certified period).
    pub fn knows(&self, n: u32) -> bool {
        (n as usize) < self.computed()
            || self.period().is_some()
            || matches!(self.state, State::Plain { target, .. } if n <= target)
    }

    /// g(n): computed, or from the certified period. Panics when not [`knows`](Self::knows).
    pub fn value(&self, n: u32) -> u32 {
        let len = self.computed();
        let n = n as usize;
        let at = |i: usize| match &self.state {
            State::Plain { g, .. } => g[i],
            State::Fast(e) => e.get(i),
        };
        if n < len {
            return at(n);
        }
        let (p, _) = self.period().expect("a value past the computed ones needs a period");
        let p = p as usize;
        at(len - p + (n - len) % p)
    }

    /// g(from..to) of the computed values, appended to `out`.
    pub fn extend_into(&self, from: usize, to: usize, out: &mut Vec<u32>) {
        match &self.state {
            State::Plain { g, .. } => out.extend_from_slice(&g[from..to]),
            State::Fast(e) => e.extend_into(from, to, out),
        }
    }

    /// The certified (period, preperiod) the engine stopped at, if it did.
    pub fn period(&self) -> Option<(u32, u32)> {
        match &self.state {
            State::Plain { g, period, .. } => period.map(|p| (p, super::period::preperiod_for(g, p))),
            State::Fast(e) => e.period(),
        }
    }

    /// Work counters so far.
    pub fn stats(&self) -> EngineStats {
        match &self.state {
            State::Plain { .. } => self.base,
            State::Fast(e) => {
                let mut s = e.stats();
                s.heaps += self.base.heaps;
                s.certified_at = s.certified_at.or(self.base.certified_at);
                s
            }
        }
    }

    /// Periodicity of the computed values (see [`analyse`](super::period::analyse)).
    pub fn analyse(&self, shape: &HeapShape) -> super::period::Periodicity {
        match &self.state {
            State::Plain { g, .. } => super::period::analyse(g, shape),
            State::Fast(e) => e.analyse(shape),
        }
    }

    /// The values `values`, computed elsewhere, as a finished sequence.
    pub fn from_values(values: Vec<u32>, method: SplitMethod) -> Prepared {
        let target = values.len().saturating_sub(1) as u32;
        Prepared {
            method,
            base: EngineStats::default(),
            state: State::Plain { g: values, period: None, target },
        }
    }

    /// Bytes per stored value (1, 2 or 4).
    pub fn value_bytes(&self) -> usize {
        match &self.state {
            State::Plain { .. } => 4,
            State::Fast(e) => e.value_bytes(),
        }
    }
}

/// Sets up the computation of g(0..=up_to) by the chosen method, continuing from
/// `known = g(0..=m)` (truncated if longer than needed): runs the plain probe (and, for the
/// plain and direct methods, everything), chooses the sparse space, and hands the rest to
/// the rare-pair engine where it applies ([`Prepared::run`] computes on).
///
/// [`MethodChoice::Auto`] also takes the periodicity shortcut for finite codes (see
/// [`compute_with`]).
pub fn prepare(shape: &HeapShape, up_to: u32, known: &[u32], choice: MethodChoice) -> Prepared {
    match prepare_until(shape, up_to, known, choice, &Stop::never()) {
        Ok(prepared) => prepared,
        Err(stopped) => unreachable!("a computation nobody can stop stopped: {stopped}"),
    }
}

/// [`prepare`], stopping when `stop` is set (looked at every
/// [`STOP_EVERY`](super::stop::STOP_EVERY) heaps of the probe or of the plain method),
/// with the values finished.
pub fn prepare_until(
    shape: &HeapShape,
    up_to: u32,
    known: &[u32],
    choice: MethodChoice,
    stop: &Stop,
) -> Result<Prepared, Stopped> {
    let mut e = Engine::new(shape, up_to, known);
    e.rule = if choice == MethodChoice::Auto { certificate_rule(shape) } else { None };
    let plain = |e: Engine, method| {
        let stats = e.stats;
        Prepared { method, base: stats, state: State::Plain { g: e.g, period: e.period, target: up_to } }
    };
    // The engine left off before `target` because of a stop: its values so far.
    let stopped = |e: &Engine, target: u32| e.period.is_none() && !e.done(target) && stop.is_stopped();
    if shape.split.is_empty() || choice == MethodChoice::Plain {
        e.run(up_to, None, stop);
        if stopped(&e, up_to) {
            return Err(Stopped { values: e.g });
        }
        return Ok(plain(e, if shape.split.is_empty() { SplitMethod::Direct } else { SplitMethod::Plain }));
    }
    let probe_to = up_to.min(PROBE);
    e.run(probe_to, None, stop);
    if stopped(&e, probe_to) {
        return Err(Stopped { values: e.g });
    }
    if e.done(up_to) || e.period.is_some() || (choice == MethodChoice::Auto && up_to <= probe_to) {
        return Ok(plain(e, SplitMethod::Plain));
    }
    let space = match space_chosen(&e.g, shape, choice) {
        Some(space) => space,
        None => {
            e.run(up_to, None, stop);
            if stopped(&e, up_to) {
                return Err(Stopped { values: e.g });
            }
            return Ok(plain(e, SplitMethod::Plain));
        }
    };
    if rare::applies(shape) {
        let fast = CompactEngine::new(shape, space, &e.g, e.rule);
        return Ok(Prepared {
            method: SplitMethod::Sparse(space),
            base: e.stats,
            state: State::Fast(Box::new(fast)),
        });
    }
    e.rare = (1..e.g.len() as u32).filter(|&n| space.is_rare(n, e.g[n as usize])).collect();
    e.run(up_to, Some(space), stop);
    if stopped(&e, up_to) {
        return Err(Stopped { values: e.g });
    }
    Ok(plain(e, SplitMethod::Sparse(space)))
}

/// The sparse space `choice` computes with past the probe `g` = g(0..) (its first
/// [`PROBE`] + 1 values; a long cached prefix adds cost, not information): the one
/// [`choose_space`] finds, when it makes the rare heaps rare enough (or the sparse method is
/// asked for); `None`: the plain method.
fn space_chosen(g: &[u32], shape: &HeapShape, choice: MethodChoice) -> Option<SparseSpace> {
    let probe = &g[..g.len().min(PROBE as usize + 1)];
    choose_space(probe, shape)
        .filter(|&(_, share)| share <= MAX_RARE_SHARE || choice == MethodChoice::Sparse)
        .map(|(space, _)| space)
}

/// The method [`MethodChoice::Auto`] computes heaps past `probe` = g(0..len) with, up to
/// `up_to`, where `probe` holds the values up to [`PROBE`] (or up to `up_to`, if less) and
/// no certified period: the direct mex when nothing splits; the plain method when the
/// probe reaches `up_to` or no sparse space makes the rare heaps rare; else the sparse
/// space. What [`prepare`] decides, without computing past the probe: a caller predicts
/// the cost from it ([`cost`](super::cost)).
pub fn planned_method(shape: &HeapShape, up_to: u32, probe: &[u32]) -> SplitMethod {
    if shape.split.is_empty() {
        return SplitMethod::Direct;
    }
    if probe.len() > up_to as usize || up_to <= PROBE {
        return SplitMethod::Plain;
    }
    space_chosen(probe, shape, MethodChoice::Auto).map_or(SplitMethod::Plain, SplitMethod::Sparse)
}

/// The space with the fewest rare heaps in the second half of `g` (ties: fewest overall,
/// then no domain variant, then the smaller mask), with that share; `None` if `g` is too
/// short to judge.
pub fn choose_space(g: &[u32], shape: &HeapShape) -> Option<(SparseSpace, f64)> {
    if g.len() < 16 || shape.split.is_empty() {
        return None;
    }
    let ks = &shape.split;
    let same_parity = ks.iter().all(|k| k & 1 == ks[0] & 1);
    let max = g.iter().copied().max().unwrap_or(0);
    let bits = (32 - max.leading_zeros()).clamp(1, 12);
    let half = g.len() / 2;
    let mut best: Option<((usize, usize), SparseSpace)> = None;
    for domain in [false, true] {
        if domain && !same_parity {
            continue;
        }
        let rare_class = if domain { (ks[0] & 1) as u8 } else { 0 };
        for low in 1..(1u32 << bits) {
            // The bits above those seen in the probe are set, as in Winning Ways' infinite
            // bitstrings ...1110 (values met later are classed by all their bits).
            let mask = low | (u32::MAX << bits);
            let space = SparseSpace { mask, domain, rare_class };
            let mut late = 0;
            let mut all = 0;
            for (n, &v) in g.iter().enumerate().skip(1) {
                if space.is_rare(n as u32, v) {
                    all += 1;
                    if n >= half {
                        late += 1;
                    }
                }
            }
            if best.is_none_or(|(score, _)| (late, all) < score) {
                best = Some(((late, all), space));
            }
        }
    }
    best.map(|((late, _), space)| (space, late as f64 / (g.len() - half) as f64))
}

struct Engine<'s> {
    shape: &'s HeapShape,
    g: Vec<u32>,
    seen: StampSet,
    /// g(a) for 1 ≤ a ≤ n − take_one_from.
    ones: GrowingSet,
    /// g(a) ⊕ g(b) for a + b ≤ n − split_from.
    pairs: GrowingSet,
    /// The rare heaps so far, ascending (sparse method only).
    rare: Vec<u32>,
    /// The certificate rule for the periodicity shortcut, when it is taken.
    rule: Option<CertificateRule>,
    /// The next heap count at which to look for a certified period.
    next_check: u32,
    /// The certified period, once found (the engine then stops).
    period: Option<u32>,
    stats: EngineStats,
}

impl<'s> Engine<'s> {
    fn new(shape: &'s HeapShape, up_to: u32, known: &[u32]) -> Self {
        let keep = known.len().min(up_to as usize + 1).max(1);
        let mut g = Vec::with_capacity((up_to as usize + 1).min(1 << 16));
        g.extend_from_slice(&known[..keep.min(known.len())]);
        if g.is_empty() {
            g.push(0);
        }
        let mut e = Engine {
            shape,
            g,
            seen: StampSet::new(),
            ones: GrowingSet::new(),
            pairs: GrowingSet::new(),
            rare: Vec::new(),
            rule: None,
            next_check: 128,
            period: None,
            stats: EngineStats::default(),
        };
        for n in 1..e.g.len() as u32 {
            e.advance_sets(n);
        }
        e
    }

    /// Brings the repeated-digit sets up to date for heap `n` (g must be known below n).
    fn advance_sets(&mut self, n: u32) {
        let g = &self.g;
        if let Some(f) = self.shape.take_one_from
            && n > f
        {
            self.ones.insert(g[(n - f) as usize]);
        }
        if let Some(f) = self.shape.split_from
            && n >= f + 2
        {
            let s = n - f;
            for b in 1..=s / 2 {
                let a = s - b;
                if a != b || self.shape.equal_parts {
                    self.pairs.insert(g[a as usize] ^ g[b as usize]);
                }
            }
        }
    }

    /// Whether every heap up to `up_to` is known.
    fn done(&self, up_to: u32) -> bool {
        self.g.len() as u32 > up_to
    }

    /// Computes every heap up to `target`, by the sparse method when `space` is given. With a
    /// certificate rule, looks for a certified period at doubling heap counts and, once one
    /// is found, stops there (every later value follows from the period).
    /// Returns early, leaving the heaps finished, when `stop` is set (looked at every
    /// [`STOP_EVERY`](super::stop::STOP_EVERY) heaps).
    fn run(&mut self, target: u32, space: Option<SparseSpace>, stop: &Stop) {
        while self.period.is_none() && !self.done(target) {
            if (self.g.len() as u32).is_multiple_of(super::stop::STOP_EVERY) && stop.is_stopped() {
                return;
            }
            if let Some(rule) = self.rule
                && self.g.len() as u32 >= self.next_check
            {
                self.next_check = self.next_check.saturating_mul(2);
                if let Some((p, _, _)) = proven_period(&self.g, rule) {
                    self.stats.certified_at = Some(self.g.len() as u32);
                    self.period = Some(p);
                    return;
                }
            }
            let n = self.g.len() as u32;
            self.advance_sets(n);
            let v = self.mex(n, space);
            self.g.push(v);
            self.stats.heaps += 1;
            if let Some(space) = space
                && space.is_rare(n, v)
            {
                self.rare.push(n);
                self.stats.rare += 1;
            }
        }
    }

    fn mex(&mut self, n: u32, space: Option<SparseSpace>) -> u32 {
        let Engine { shape, g, seen, ones, pairs, rare, stats, .. } = self;
        seen.clear();
        if shape.vanishes(n) {
            seen.insert(0);
        }
        for &k in &shape.take_one {
            if k >= n {
                break;
            }
            seen.insert(g[(n - k) as usize]);
        }
        for &k in &shape.split {
            if k + 2 > n {
                break;
            }
            let s = n - k;
            match space {
                None => {
                    for b in 1..=s / 2 {
                        let a = s - b;
                        if a != b || shape.equal_parts {
                            seen.insert(g[a as usize] ^ g[b as usize]);
                        }
                    }
                }
                Some(_) => {
                    let mut marked = 0u64;
                    for &r in rare.iter() {
                        if r >= s {
                            break;
                        }
                        marked += 1;
                        let b = s - r;
                        if b != r || shape.equal_parts {
                            seen.insert(g[r as usize] ^ g[b as usize]);
                        }
                    }
                    stats.rare_marks += marked;
                }
            }
        }
        let mut v = 0;
        loop {
            if seen.contains(v) {
                v += 1;
            } else if ones.contains(v) {
                v = ones.next_absent(v);
            } else if pairs.contains(v) {
                v = pairs.next_absent(v);
            } else if let Some(space) = space
                && witness(shape, g, space, n, v, stats)
            {
                v += 1;
            } else {
                return v;
            }
        }
    }
}

/// Whether some pair of same-class parts of a split of heap `n` is worth `v`.
///
/// The scans of the different splits are interleaved, so that a value made by only one of
/// them is found as fast as if that split were scanned alone.
fn witness(
    shape: &HeapShape,
    g: &[u32],
    space: SparseSpace,
    n: u32,
    v: u32,
    stats: &mut EngineStats,
) -> bool {
    let mut sums = [0u32; 8];
    let mut count = 0;
    let mut longest = 0;
    for &k in &shape.split {
        if k + 2 > n {
            break;
        }
        let s = n - k;
        if space.same_class_pair(v, s) {
            if count == sums.len() {
                // More splits than the fast path holds: scan the rest one by one.
                if scan(shape, g, s, v, stats) {
                    return true;
                }
                continue;
            }
            sums[count] = s;
            count += 1;
            longest = longest.max(s / 2);
        }
    }
    if count == 0 {
        return false;
    }
    stats.scans += 1;
    let sums = &sums[..count];
    // Scan each split from both ends at once: small parts reach the preperiod's exceptional
    // values, parts near the middle are large heaps whose values are spread like the
    // candidate's. Whichever end holds a witness first, it is found within twice the steps.
    for step in 0..longest.div_ceil(2) {
        for &s in sums {
            let half = s / 2;
            let low = 1 + step;
            if low + step > half {
                continue; // this split's two ends have met
            }
            for b in [low, half - step] {
                let a = s - b;
                if g[a as usize] ^ g[b as usize] == v && (a != b || shape.equal_parts) {
                    stats.scan_steps += 2 * step as u64 + 1;
                    return true;
                }
            }
        }
    }
    stats.scan_steps += longest as u64;
    false
}

fn scan(shape: &HeapShape, g: &[u32], s: u32, v: u32, stats: &mut EngineStats) -> bool {
    stats.scans += 1;
    for b in (1..=s / 2).rev() {
        let a = s - b;
        if g[a as usize] ^ g[b as usize] == v && (a != b || shape.equal_parts) {
            stats.scan_steps += (s / 2 - b + 1) as u64;
            return true;
        }
    }
    stats.scan_steps += (s / 2) as u64;
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;
    use crate::sequence::mex_values;

    fn shape(game: &str) -> HeapShape {
        HeapShape::of(game.parse::<GameSpec>().unwrap().heap_rules().unwrap())
    }

    #[test]
    fn sparse_equals_plain_past_the_probe() {
        for game in ["kayles", "dawson", "octal:0.137", "octal:4.7", "grundy", "octal:0.16"] {
            let s = shape(game);
            let plain = plain_values(&s, 4000);
            let (sparse, method) = sparse_values(&s, 4000);
            assert!(matches!(method, SplitMethod::Sparse(_)), "{game}");
            assert_eq!(plain, sparse, "{game}");
        }
    }

    #[test]
    fn resumes_from_a_known_prefix() {
        for game in ["kayles", "nim", "lines", "grundy", "subtraction:2,3,7"] {
            let s = shape(game);
            let full = compute_with(&s, 3000, &[], MethodChoice::Auto).0;
            for cut in [0usize, 1, 7, 500, 2500] {
                let again = compute_with(&s, 3000, &full[..=cut], MethodChoice::Auto).0;
                assert_eq!(again, full, "{game} from {cut}");
            }
            assert_eq!(compute_with(&s, 100, &full, MethodChoice::Auto).0, full[..=100].to_vec());
        }
    }

    #[test]
    fn kayles_rare_heaps_are_finite() {
        let (g, method, stats) = compute_with(&shape("kayles"), 100_000, &[], MethodChoice::Sparse);
        let SplitMethod::Sparse(space) = method else { panic!("{method:?}") };
        assert_eq!(stats.certified_at, None);
        assert_eq!(stats.rare, 0, "no rare Kayles heap after the probe");
        assert!(g[2049..].iter().enumerate().all(|(i, &v)| !space.is_rare(2049 + i as u32, v)));
        assert_eq!(space.bitstring(), "...1");
        assert_eq!(&g[..12], mex_values(&crate::game::TakeBreakCode::new(0, &[7, 7], None).unwrap(), 11));
    }

    #[test]
    fn certified_shortcut_is_exact() {
        for game in ["kayles", "dawson", "octal:0.137", "subtraction:2,3,7", "octal:0.51", "octal:4.7"] {
            let s = shape(game);
            let (auto, _, stats) = compute_with(&s, 6000, &[], MethodChoice::Auto);
            assert!(stats.certified_at.is_some(), "{game}");
            assert_eq!(auto, plain_values(&s, 6000), "{game}");
        }
    }

    /// Codes whose only splitting digit lacks bit 2 start with a run of zeros that looks
    /// periodic from 0; Guy–Smith needs e ≥ 1 there (0.04: g = 0,0,0,0,1,…).
    #[test]
    fn zero_preperiod_is_not_certified_too_early() {
        let long_zero_run = format!("octal:0.{}4", "0".repeat(125));
        for game in ["octal:0.04", "octal:0.004", "octal:0.05", "octal:0.0045", "octal:4.04", &long_zero_run]
        {
            let s = shape(game);
            let (auto, _, _) = compute_with(&s, 3000, &[], MethodChoice::Auto);
            assert_eq!(auto, plain_values(&s, 3000), "{game}");
        }
        // g(0..=3) of 0.04 is 0,0,0,0: no period may be proven from it (g(4) = 1).
        let s = shape("octal:0.04");
        let (g, _, _) = compute_with(&s, 3, &[], MethodChoice::Auto);
        assert!(!crate::analyse(&g, &s).proven, "0.04 proven periodic from g(0..=3)");
    }

    /// Every engine (the plain probe, the plain method, the rare-pair engine after the probe)
    /// hears a stop within 64 heaps and gives back exact values, from which a later run
    /// computes the same sequence.
    #[test]
    fn a_stop_keeps_exact_values_and_a_later_run_goes_on_from_them() {
        let stop = Stop::new();
        stop.stop();
        for game in ["kayles", "grundy", "octal:0.74", "octal:0.[7]", "subtraction:2,3,7", "octal:0.16"] {
            let s = shape(game);
            let whole = compute_with(&s, 6000, &[], MethodChoice::Auto).0;
            for from in [0, 100, 3000] {
                match compute_until(&s, 6000, &whole[..from], MethodChoice::Auto, &stop) {
                    Ok((g, _, stats)) => {
                        // Only a period certified before the first look may finish it.
                        assert!(stats.certified_at.is_some(), "{game} from {from} did not stop");
                        assert_eq!(g, whole, "{game}");
                    }
                    Err(stopped) => {
                        let kept = stopped.values.len();
                        assert!(kept >= from.max(1) && kept < from.max(1) + 64, "{game} from {from}: {kept}");
                        assert_eq!(stopped.values, whole[..kept], "{game} from {from}");
                        let again =
                            compute_until(&s, 6000, &stopped.values, MethodChoice::Auto, &Stop::never());
                        assert_eq!(again.unwrap().0, whole, "{game} from {from}");
                    }
                }
            }
        }
    }

    #[test]
    fn grundy_sparse_space_is_winning_ways_bitstring() {
        let (_, method, stats) = compute_with(&shape("grundy"), 5000, &[], MethodChoice::Auto);
        let SplitMethod::Sparse(space) = method else { panic!("{method:?}") };
        assert_eq!(space.bitstring(), "...10");
        assert!(stats.rare < 500, "{stats:?}");
    }
}
