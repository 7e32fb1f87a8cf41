//! The rare-pair engine: nim-value sequences of splitting games with a sparse space, in
//! compact storage, one heap at a time.
//!
//! The sparse space ([`SparseSpace`]) sorts heaps into a *common* and a *rare* class such that
//! a pair of parts of the same class adding to s can only be worth a value v of one parity
//! (`parity(v) = domain · (s mod 2)`, the "need" values here), and a mixed pair only values of
//! the other parity. For each heap the engine
//! 1. marks, in a bitset, the single-heap options and every split with a rare part: that
//!    settles every value of the other parity, because a mixed pair always has a rare part;
//!    let c₀ be the least value of that parity left unmarked;
//! 2. the answer is then c₀ unless some "need" value below c₀ is missing among all options.
//!    The "need" values below c₀ not yet marked must be found among the common–common
//!    pairs: one sequential scan over the splits' pairs (g(i) ⊕ g(s − i) for i = 1, 2, …)
//!    marks everything it meets and stops as soon as every one of them is marked. They are
//!    common values, so the scan usually stops after a few hundred pairs;
//! 3. only when the scan runs out is the answer a "need" value, the least one unmarked, and
//!    then the new heap is rare: the O(n) work happens exactly at rare heaps.
//!
//! This is the rare/common idea of Winning Ways ("sparse space spells speed"), with
//! Flammenkamp's parity-of-heap variant, organised as one stopping scan per heap (as in
//! Beling's R/C method) over values kept in the narrowest integer type that holds them
//! (u8, then u16, then u32: [`Nimber`]). Nim-values of octal games rarely pass 255, so 10⁷
//! heaps take 10 MB.

use super::cost::EngineStats;
use super::period::{CertificateRule, proven_period};
use super::shape::HeapShape;
use super::sparse_space::SparseSpace;
use super::stop::{STOP_EVERY, Stop};

/// An unsigned integer type that holds nim-values: `u8`, `u16` or `u32`.
pub trait Nimber: Copy + Default + PartialEq + Into<u32> + TryFrom<u32> + Send + Sync + 'static {
    /// The largest value the type holds.
    const MAX: u32;
}

impl Nimber for u8 {
    const MAX: u32 = u8::MAX as u32;
}
impl Nimber for u16 {
    const MAX: u32 = u16::MAX as u32;
}
impl Nimber for u32 {
    const MAX: u32 = u32::MAX;
}

/// A value too large for the engine's storage type met at heap `n` (which is not stored):
/// the caller widens the storage and goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// Pairs scanned between two checks of whether every needed value is marked.
const CHECK_EVERY: usize = 16;

/// The engine over values stored as `V`.
#[derive(Clone, Debug)]
pub struct RareEngine<V> {
    shape: HeapShape,
    space: SparseSpace,
    /// g(0..n).
    g: Vec<V>,
    /// The rare heaps so far, ascending, and their values.
    rare_pos: Vec<u32>,
    rare_val: Vec<V>,
    /// The option bitset of the current heap (`words` words in use).
    seen: Vec<u64>,
    /// The values g(a), 1 ≤ a ≤ n − take_one_from (a repeated digit that leaves one heap).
    ones: Vec<u64>,
    /// Every option value is below 2^bits.
    bits: u32,
    words: usize,
    /// `parity_mask[p]`: the values v < 64·words with parity(v) = p.
    parity_mask: [Vec<u64>; 2],
    rule: Option<CertificateRule>,
    next_check: u32,
    /// Once found: (period, preperiod), certified by `rule`.
    period: Option<(u32, u32)>,
    stats: EngineStats,
}

/// Whether the rare-pair engine applies to a shape: splits listed by removal (no repeated
/// splitting digit), no three-way splits.
pub fn applies(shape: &HeapShape) -> bool {
    !shape.split.is_empty() && shape.split_from.is_none() && !shape.three_way
}

impl<V: Nimber> RareEngine<V> {
    /// An engine that continues from `known = g(0..m)` (every value must fit `V`; g(0) is
    /// taken as 0 when `known` is empty). `rule`: look for a certified period at doubling
    /// heap counts, and stop there once one is found.
    pub fn new(
        shape: &HeapShape,
        space: SparseSpace,
        known: &[u32],
        rule: Option<CertificateRule>,
    ) -> Result<Self, Overflow> {
        debug_assert!(applies(shape));
        let mut e = RareEngine {
            shape: shape.clone(),
            space,
            g: Vec::with_capacity(known.len().max(1)),
            rare_pos: Vec::new(),
            rare_val: Vec::new(),
            seen: Vec::new(),
            ones: Vec::new(),
            bits: 0,
            words: 0,
            parity_mask: [Vec::new(), Vec::new()],
            rule,
            next_check: known.len().next_power_of_two().max(128) as u32,
            period: None,
            stats: EngineStats::default(),
        };
        e.widen_to(1);
        if known.is_empty() {
            e.push(0)?;
        }
        for &v in known {
            e.push(v)?;
        }
        Ok(e)
    }

    /// The same engine over a wider storage type.
    pub fn widen<W: Nimber>(self) -> Result<RareEngine<W>, Overflow> {
        let conv = |v: V| W::try_from(v.into()).map_err(|_| Overflow);
        Ok(RareEngine {
            g: self.g.into_iter().map(conv).collect::<Result<_, _>>()?,
            rare_val: self.rare_val.into_iter().map(conv).collect::<Result<_, _>>()?,
            shape: self.shape,
            space: self.space,
            rare_pos: self.rare_pos,
            seen: self.seen,
            ones: self.ones,
            bits: self.bits,
            words: self.words,
            parity_mask: self.parity_mask,
            rule: self.rule,
            next_check: self.next_check,
            period: self.period,
            stats: self.stats,
        })
    }

    /// g(0..len) as computed so far.
    pub fn values(&self) -> &[V] {
        &self.g
    }

    /// The certified (period, preperiod), once found.
    pub fn period(&self) -> Option<(u32, u32)> {
        self.period
    }

    /// Work counters.
    pub fn stats(&self) -> EngineStats {
        self.stats
    }

    /// Makes room for option values below 2^bits.
    fn widen_to(&mut self, bits: u32) {
        if bits <= self.bits && self.words > 0 {
            return;
        }
        self.bits = bits.max(self.bits);
        // One more word than 2^bits needs: the mex may be 2^bits itself.
        self.words = ((1usize << self.bits) / 64 + 1).max(2);
        self.seen.resize(self.words, 0);
        self.ones.resize(self.words, 0);
        for p in 0..2 {
            self.parity_mask[p] = (0..self.words)
                .map(|w| {
                    (0..64u32).fold(0u64, |m, b| {
                        let v = w as u32 * 64 + b;
                        if (v & self.space.mask).count_ones() & 1 == p as u32 { m | 1 << b } else { m }
                    })
                })
                .collect();
        }
    }

    /// Appends g(n) = v (n = the current length), keeping the rare list and sets current.
    fn push(&mut self, v: u32) -> Result<(), Overflow> {
        let stored = V::try_from(v).map_err(|_| Overflow)?;
        let n = self.g.len() as u32;
        let bits = 32 - v.leading_zeros();
        if bits > self.bits {
            self.widen_to(bits);
        }
        self.g.push(stored);
        if n >= 1 && self.space.is_rare(n, v) {
            self.rare_pos.push(n);
            self.rare_val.push(stored);
        }
        Ok(())
    }

    /// Computes heaps up to `target` (or stops early at a certified period: see
    /// [`period`](Self::period)). `Err(Overflow)` when a value does not fit `V`.
    pub fn run(&mut self, target: u32) -> Result<(), Overflow> {
        self.run_until(target, &Stop::never())
    }

    /// [`run`](Self::run), also returning when `stop` is set: it is looked at every
    /// [`STOP_EVERY`] heaps, and the heaps finished are kept.
    pub fn run_until(&mut self, target: u32, stop: &Stop) -> Result<(), Overflow> {
        while self.period.is_none() && (self.g.len() as u64) <= target as u64 {
            if (self.g.len() as u32).is_multiple_of(STOP_EVERY) && stop.is_stopped() {
                return Ok(());
            }
            if let Some(rule) = self.rule
                && self.g.len() as u32 >= self.next_check
            {
                self.next_check = self.next_check.saturating_mul(2);
                if let Some((p, e, _)) = proven_period(&self.g, rule) {
                    self.stats.certified_at = Some(self.g.len() as u32);
                    self.period = Some((p, e));
                    return Ok(());
                }
            }
            let n = self.g.len() as u32;
            if let Some(f) = self.shape.take_one_from
                && n > f
            {
                let x: u32 = self.g[(n - f) as usize].into();
                self.ones[(x >> 6) as usize] |= 1 << (x & 63);
            }
            let v = self.mex(n);
            self.push(v)?;
            self.stats.heaps += 1;
            if self.space.is_rare(n, v) {
                self.stats.rare += 1;
            }
        }
        Ok(())
    }

    fn mex(&mut self, n: u32) -> u32 {
        let words = self.words;
        let RareEngine { shape, space, g, rare_pos, rare_val, seen, ones, parity_mask, stats, .. } = self;
        let seen = &mut seen[..words];
        seen.copy_from_slice(&ones[..words]);
        let mut mark = |x: u32| seen[(x >> 6) as usize] |= 1 << (x & 63);
        if shape.vanishes(n) {
            mark(0);
        }
        for &k in &shape.take_one {
            if k >= n {
                break;
            }
            mark(g[(n - k) as usize].into());
        }
        let mut splits = 0;
        let mut marked = 0u64;
        for &k in &shape.split {
            if k + 2 > n {
                break;
            }
            splits += 1;
            let s = n - k;
            for (&r, &gr) in rare_pos.iter().zip(rare_val.iter()) {
                if r >= s {
                    break;
                }
                marked += 1;
                let b = s - r;
                if b != r || shape.equal_parts {
                    mark(gr.into() ^ g[b as usize].into());
                }
            }
        }
        stats.rare_marks += marked;
        if splits == 0 {
            return first_zero(seen);
        }
        // The parity of the values that same-class pairs make (the same for every split:
        // the space's domain variant is only chosen when every splitting removal has one
        // parity).
        let par = (space.domain as u32 & (n - shape.split[0]) & 1) as usize;
        // c0: the least unmarked value of the other parity (settled already).
        let other = &parity_mask[par ^ 1];
        let c0 = (0..words)
            .find_map(|w| {
                let free = !seen[w] & other[w];
                (free != 0).then(|| w as u32 * 64 + free.trailing_zeros())
            })
            // Every value of that parity in range is marked: the first one past the range
            // (the scan then runs to the end and the mex is exact all the same).
            .unwrap_or(words as u32 * 64);
        // The values of the same-class parity below c0 that are not marked yet.
        let mut need = [0u64; 4];
        let mut wide_need = Vec::new();
        let need: &mut [u64] = if words <= 4 {
            &mut need[..words]
        } else {
            wide_need.resize(words, 0);
            &mut wide_need
        };
        let mut any = false;
        for (w, slot) in need.iter_mut().enumerate() {
            let lo = w as u32 * 64;
            let below = if c0 >= lo + 64 {
                u64::MAX
            } else if c0 > lo {
                (1u64 << (c0 - lo)) - 1
            } else {
                0
            };
            *slot = parity_mask[par][w] & below & !seen[w];
            any |= *slot != 0;
        }
        if !any {
            return c0;
        }
        // One stopping scan over the splits' pairs.
        stats.scans += 1;
        let covered = |seen: &[u64]| need.iter().zip(seen.iter()).all(|(&nd, &s)| nd & !s == 0);
        // The splits are scanned in step (pair i of every split, then pair i + 1, …): a value
        // that one split cannot make (Kayles: by the residues of a period) is then met in
        // another as soon as it would be met there alone.
        let ranges: Vec<(usize, usize)> = shape.split[..splits]
            .iter()
            .map(|&k| {
                let s = (n - k) as usize;
                // Pairs (i, s − i) for 1 ≤ i ≤ last; an equal pair only when allowed.
                let last = if s.is_multiple_of(2) && !shape.equal_parts { s / 2 - 1 } else { s / 2 };
                (s, last)
            })
            .collect();
        let longest = ranges.iter().map(|&(_, last)| last).max().unwrap_or(0);
        let mut i = 1;
        while i <= longest {
            let end = (i + CHECK_EVERY - 1).min(longest);
            for &(s, last) in &ranges {
                let stop = end.min(last);
                if stop < i {
                    continue;
                }
                let lo = &g[i..=stop];
                let hi = &g[s - stop..=s - i];
                let len = stop - i + 1;
                for j in 0..len {
                    let x: u32 = lo[j].into() ^ hi[len - 1 - j].into();
                    seen[(x >> 6) as usize] |= 1 << (x & 63);
                }
                stats.scan_steps += len as u64;
            }
            i = end + 1;
            if covered(seen) {
                return c0;
            }
        }
        // Every pair seen: the answer is a "need" value, and the heap is rare.
        first_zero(seen)
    }
}

/// The least value whose bit is clear.
fn first_zero(seen: &[u64]) -> u32 {
    seen.iter()
        .enumerate()
        .find_map(|(w, &bits)| (bits != u64::MAX).then(|| w as u32 * 64 + bits.trailing_ones()))
        .unwrap_or(seen.len() as u32 * 64)
}

/// The rare-pair engine over the narrowest storage that holds the values met so far: it
/// starts with `u8` and widens to `u16`, then `u32`, when a value needs it.
#[derive(Clone, Debug)]
pub enum CompactEngine {
    /// Every value so far below 256.
    U8(RareEngine<u8>),
    /// Every value so far below 65,536.
    U16(RareEngine<u16>),
    /// Wider values.
    U32(RareEngine<u32>),
}

macro_rules! each {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            CompactEngine::U8($e) => $body,
            CompactEngine::U16($e) => $body,
            CompactEngine::U32($e) => $body,
        }
    };
}

impl CompactEngine {
    /// An engine continuing from `known = g(0..m)`, in the narrowest storage that holds it.
    pub fn new(shape: &HeapShape, space: SparseSpace, known: &[u32], rule: Option<CertificateRule>) -> Self {
        let max = known.iter().copied().max().unwrap_or(0);
        if max <= u8::MAX as u32 {
            CompactEngine::U8(RareEngine::new(shape, space, known, rule).expect("fits u8"))
        } else if max <= u16::MAX as u32 {
            CompactEngine::U16(RareEngine::new(shape, space, known, rule).expect("fits u16"))
        } else {
            CompactEngine::U32(RareEngine::new(shape, space, known, rule).expect("fits u32"))
        }
    }

    /// Computes heaps up to `target`, widening the storage when a value needs it (or stops
    /// early at a certified period).
    pub fn run(&mut self, target: u32) {
        self.run_until(target, &Stop::never());
    }

    /// [`run`](Self::run), also returning when `stop` is set (see [`RareEngine::run_until`]).
    pub fn run_until(&mut self, target: u32, stop: &Stop) {
        loop {
            let widened = match self {
                CompactEngine::U8(e) => match e.run_until(target, stop) {
                    Ok(()) => return,
                    Err(Overflow) => CompactEngine::U16(e.clone().widen().expect("u8 fits u16")),
                },
                CompactEngine::U16(e) => match e.run_until(target, stop) {
                    Ok(()) => return,
                    Err(Overflow) => CompactEngine::U32(e.clone().widen().expect("u16 fits u32")),
                },
                CompactEngine::U32(e) => {
                    e.run_until(target, stop).expect("every value fits u32");
                    return;
                }
            };
            *self = widened;
        }
    }

    /// The number of heaps computed (g(0..len)).
    pub fn len(&self) -> usize {
        each!(self, e => e.g.len())
    }

    /// Whether nothing is computed (never: g(0) is always there).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// g(n), for n below [`len`](Self::len).
    pub fn get(&self, n: usize) -> u32 {
        match self {
            CompactEngine::U8(e) => e.g[n].into(),
            CompactEngine::U16(e) => e.g[n].into(),
            CompactEngine::U32(e) => e.g[n],
        }
    }

    /// g(from..to) appended to `out`.
    pub fn extend_into(&self, from: usize, to: usize, out: &mut Vec<u32>) {
        each!(self, e => out.extend(e.g[from..to].iter().map(|&v| Into::<u32>::into(v))))
    }

    /// The certified (period, preperiod), once found.
    pub fn period(&self) -> Option<(u32, u32)> {
        each!(self, e => e.period)
    }

    /// Work counters.
    pub fn stats(&self) -> EngineStats {
        each!(self, e => e.stats)
    }

    /// Periodicity of the computed values g(0..len).
    pub fn analyse(&self, shape: &HeapShape) -> super::period::Periodicity {
        each!(self, e => super::period::analyse(&e.g, shape))
    }

    /// Bytes per stored value.
    pub fn value_bytes(&self) -> usize {
        match self {
            CompactEngine::U8(_) => 1,
            CompactEngine::U16(_) => 2,
            CompactEngine::U32(_) => 4,
        }
    }
}
