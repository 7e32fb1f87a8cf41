//! A second, independent check of a shift-form certificate ([`super::relative::ShiftForm`]
//! over a ladder's levels), written from the lemma, not from `relative::shift`: it shares
//! nothing with that code but the certificate it reads and the game's rules.
//!
//! **The claim.** For a heap H, a counted heap g below it, a finite commutative monoid M with
//! an image ψ(h) of every heap h below H, and c(R) the number of copies of g in R, a claimed
//! outcome of Hᵏ + R for every k ≥ 0 and every position R of heaps below H:
//!
//! * for k < k₀, a table Tₖ of (ψ(R), c(R) reduced by the levels' counter) — the ladder's
//!   levels, taken here as data, not as theorems;
//! * for k ≥ k₀, F(ψ(R), min(c, c*), c − k), F a table on e = (c − k) − min(c, c*) in a
//!   window [lo, hi], periodic in e with period p outside it.
//!
//! **The lemma.** The claim is the misère outcome for every k and R iff it is *consistent*
//! at every (k, R): a position with no move is claimed N (misère: k = 0 and R without a
//! move), and a position with a move is claimed P iff no option is claimed P. (Induction on
//! k, then on R: the options of Hᵏ + R are R′ + Hᵏ, R′ an option of R, and R + S + Hᵏ⁻¹, S an
//! option of H.) So the base level is no assumption here: level 0 is the rule itself.
//!
//! **The check.** Every inconsistency is one of three kinds, each checked over finitely
//! many cases:
//!
//! * *P with a P option.* Y + h claimed P and Y + o claimed P (o an option of heap h), or R
//!   claimed P at level k and R + S at level k − 1: a matter of (ψ, c) of Y or R only, so
//!   checked for every (ψ, c) that a position has (found by a breadth-first search over
//!   heaps), every heap and option.
//! * *N with no P option*, and *P without a move* (level 0). Checked by an explicit walk
//!   over states (ψ(R), c(R), S(R)), S(R) the set of the options' images (ψ(R′), c(R′) −
//!   c(R)) for the moves inside R, a bitset over M × shifts. Adding heap h sends S to
//!   S·ψ(h) ∪ ψ(R)·{options of h} (shifts relative to the count, which h moves with its
//!   options), monotone in S, and these failures are antitone in S (a larger S has more
//!   chances of a P option), so per (ψ, c, whether S is empty) only the inclusion-minimal
//!   S are kept. Every kept state is extended by every heap, first in first out, until no
//!   new minimal S appears: a position's state, or one with a smaller S, is always tested.
//! * *Levels.* k = 0..=k₀ one at a time; k > k₀ only through d = c − k, which ranges over
//!   d ≤ c − k₀ − 1 and enters through F alone, periodic in d below dₗ and above dₕ (every
//!   reading outside the window, on one side): a finite range of d per count.
//!
//! Counts are exact below a bound B, and from B on stand for their class mod p, with B so
//! large that every reading at a count ≥ B − 1 falls in the periodic part of the levels'
//! counter and of F (so one count of the class decides for all). M's table is checked to be
//! a commutative monoid with identity 0, associative by Light's test over the heaps' images.

use std::collections::VecDeque;

use super::relative::{Ladder, ShiftForm};
use crate::game::{TakeBreakCode as OctalCode, heap_results};

/// Why a claim could not be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecheckError {
    /// The table is not a commutative monoid with identity 0 (associative over the images).
    #[error("M is not a commutative monoid with identity 0: {0}")]
    NotMonoid(String),
    /// The claim's parts do not fit together.
    #[error("the claim is malformed: {0}")]
    Malformed(String),
}

/// A claimed outcome of Hᵏ + R for every k and every R (see the module's doc), as plain data.
#[derive(Clone, Debug)]
pub struct ShiftClaim {
    /// The game.
    pub code: OctalCode,
    /// The outside heap H.
    pub heap: u32,
    /// The counted heap g (below H).
    pub counted: u32,
    /// |M|.
    pub size: usize,
    /// M's table, row-major: `table[x * size + y]` = x·y.
    pub table: Vec<u32>,
    /// ψ of heaps 0..H−1 (heap 0's unused).
    pub images: Vec<u32>,
    /// The levels' counter: counts 0..=cap − period stand for themselves, a larger count is
    /// reduced by multiples of the period into cap − period + 1..=cap.
    pub cap: u32,
    /// The period of the levels' counter and of F outside its window.
    pub period: u32,
    /// Tₖ for k = 0..k₀ − 1, indexed by x · (cap + 1) + the counter's value (true = P).
    pub levels: Vec<Vec<bool>>,
    /// The bottom of the window of e.
    pub lo: i64,
    /// The top of the window of e.
    pub hi: i64,
    /// c*: F reads the count as min(c, c*).
    pub cstar: u32,
    /// F on the window, indexed by (x · (c* + 1) + min(c, c*)) · (hi − lo + 1) + e − lo.
    pub form: Vec<bool>,
}

impl ShiftClaim {
    /// The claim a ladder's levels 0..k₀ − 1 and a shift form make, read as data.
    pub fn of(code: &OctalCode, ladder: &Ladder, form: &ShiftForm) -> Result<Self, RecheckError> {
        let r = ladder.refinement();
        if r.counted.len() != 1 {
            return Err(RecheckError::Malformed(format!("{} counted heaps, not one", r.counted.len())));
        }
        let (size, cap, k0) = (r.q.size(), r.cap, form.k0());
        if form.monoid_size() != size || form.period() != r.period as i64 {
            return Err(RecheckError::Malformed("the form was read over another refinement".into()));
        }
        let mut table = Vec::with_capacity(size * size);
        for x in 0..size as u32 {
            table.extend((0..size as u32).map(|y| r.q.mul(x, y)));
        }
        let mut levels = Vec::with_capacity(k0);
        for k in 0..k0 {
            let t = ladder
                .level_set(k)
                .ok_or_else(|| RecheckError::Malformed(format!("level {k} is not in the ladder")))?;
            let mut out = vec![false; size * (cap as usize + 1)];
            for (z, &p) in t.iter().enumerate() {
                let (x, c) = ladder.parts_of(z as u32);
                out[x as usize * (cap as usize + 1) + c[0] as usize] = p;
            }
            levels.push(out);
        }
        let ((lo, hi), cstar) = (form.window(), form.cstar());
        let mut entries = Vec::new();
        for x in 0..size as u32 {
            for cc in 0..=cstar as i64 {
                // Inside the window F is its table: e = d − min(c, c*) read at d = e + cc.
                entries.extend((lo..=hi).map(|e| form.value(x, cc, e + cc)));
            }
        }
        Ok(ShiftClaim {
            code: code.clone(),
            heap: ladder.heap,
            counted: r.counted[0],
            size,
            table,
            images: r.images[..ladder.heap as usize].to_vec(),
            cap,
            period: r.period,
            levels,
            lo,
            hi,
            cstar,
            form: entries,
        })
    }

    /// k₀: the first level F gives.
    pub fn k0(&self) -> usize {
        self.levels.len()
    }

    /// The claimed outcome of Hᵏ + R (true = P), R given by its heaps (each below H).
    pub fn outcome(&self, k: usize, heaps: &[u32]) -> bool {
        let n = self.size;
        let x = heaps
            .iter()
            .fold(0u32, |acc, &h| self.table[acc as usize * n + self.images[h as usize] as usize]);
        self.claimed(k, x, heaps.iter().filter(|&&h| h == self.counted).count() as i64)
    }

    /// Tₖ(x, c), k < k₀.
    fn level(&self, k: usize, x: u32, c: i64) -> bool {
        let (cap, p) = (self.cap as i64, self.period as i64);
        let v = if c <= cap { c } else { c - p * ((c - cap + p - 1) / p) };
        self.levels[k][x as usize * (cap as usize + 1) + v as usize]
    }

    /// F(x, min(c, c*), d).
    fn shifted(&self, x: u32, c: i64, d: i64) -> bool {
        let (lo, hi, p) = (self.lo, self.hi, self.period as i64);
        let cc = c.min(self.cstar as i64);
        let mut e = d - cc;
        if e < lo {
            e += p * ((lo - e + p - 1) / p);
        } else if e > hi {
            e -= p * ((e - hi + p - 1) / p);
        }
        let w = (hi - lo + 1) as usize;
        self.form[(x as usize * (self.cstar as usize + 1) + cc as usize) * w + (e - lo) as usize]
    }

    /// The claimed outcome of Hᵏ + R, ψ(R) = x, c(R) = c (true = P).
    fn claimed(&self, k: usize, x: u32, c: i64) -> bool {
        if k < self.k0() { self.level(k, x, c) } else { self.shifted(x, c, c - k as i64) }
    }
}

/// Which claimed level an inconsistency is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rung {
    /// Level k (k ≤ k₀).
    Level(usize),
    /// Every level k > k₀ with c(R) − k = d (a representative of its class).
    Above(i64),
}

/// What the second check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recheck {
    /// Consistent everywhere: the claim is the outcome of Hᵏ + R for every k and R.
    Consistent {
        /// (ψ, c) pairs that positions have (counts past the bound by class).
        images: usize,
        /// States the walk admitted.
        states: usize,
    },
    /// Hᵏ + R is claimed wrongly (or its claim contradicts its options').
    Inconsistent {
        /// The heaps of R.
        position: Vec<u32>,
        /// Where.
        rung: Rung,
        /// "P with a P option", "N with no P option" or "P without a move".
        kind: &'static str,
    },
    /// The walk admitted more states than its budget.
    Budget {
        /// The budget.
        states: usize,
    },
}

/// The claim made ready to read: counts, shifts and the claimed outcome at any (k, x, c).
struct Reader<'a> {
    claim: &'a ShiftClaim,
    n: usize,
    k0: usize,
    p: i64,
    /// Counts below `bound` are exact; from it on, by class mod p.
    bound: i64,
    /// Below dbot the failure at d is the failure at d + p, above dtop the one at d − p.
    dbot: i64,
    dtop: i64,
    /// The least d tested.
    dfloor: i64,
}

impl Reader<'_> {
    fn mul(&self, x: u32, y: u32) -> u32 {
        self.claim.table[x as usize * self.n + y as usize]
    }

    /// A count as a state keeps it.
    fn keep(&self, c: i64) -> i64 {
        if c < self.bound + self.p { c } else { self.bound + (c - self.bound) % self.p }
    }

    fn shifted(&self, x: u32, c: i64, d: i64) -> bool {
        self.claim.shifted(x, c, d)
    }

    fn claimed(&self, k: usize, x: u32, c: i64) -> bool {
        self.claim.claimed(k, x, c)
    }

    /// The values of d = c − k (k > k₀) to test beside a count c: every d ≤ c − k₀ − 1, up to
    /// the periodicity below dbot and above dtop. (A count from the bound on stands for its
    /// class: the bound is past dtop + k₀, so every d tested occurs beside every count.)
    fn ds(&self, c: i64) -> std::ops::RangeInclusive<i64> {
        let top = c - self.k0 as i64 - 1;
        (top.min(self.dbot) - self.p)..=top.min(self.dtop)
    }

    /// The index of a test: levels 0..=k₀, then d from dfloor.
    fn test_of(&self, d: i64) -> usize {
        self.k0 + 1 + (d - self.dfloor) as usize
    }

    /// d of a test past the levels.
    fn d_of(&self, t: usize) -> i64 {
        self.dfloor + (t - self.k0 - 1) as i64
    }
}

/// A heap's options: (ψ of the option, copies of g in it).
type Options = Vec<(u32, i64)>;

/// Checks the claim (see the module's doc), admitting at most `max_states` walk states.
pub fn recheck(claim: &ShiftClaim, max_states: usize) -> Result<Recheck, RecheckError> {
    let (n, heap, g) = (claim.size, claim.heap, claim.counted);
    let k0 = claim.k0();
    let p = claim.period as i64;
    if n == 0 || claim.table.len() != n * n || claim.table.iter().any(|&v| v as usize >= n) {
        return Err(RecheckError::NotMonoid("the table's shape".into()));
    }
    if g == 0
        || g >= heap
        || claim.images.len() != heap as usize
        || claim.images.iter().any(|&v| v as usize >= n)
    {
        return Err(RecheckError::Malformed("the heaps' images or the counted heap".into()));
    }
    if p < 1 || claim.cap < claim.period || claim.hi - claim.lo + 1 < p || k0 == 0 {
        return Err(RecheckError::Malformed("the counter, the window or k₀".into()));
    }
    let width = (claim.cap as usize + 1) * n;
    if claim.levels.iter().any(|t| t.len() != width)
        || claim.form.len() != n * (claim.cstar as usize + 1) * (claim.hi - claim.lo + 1) as usize
    {
        return Err(RecheckError::Malformed("the tables' lengths".into()));
    }
    let at = |x: usize, y: usize| claim.table[x * n + y] as usize;
    for x in 0..n {
        if at(0, x) != x {
            return Err(RecheckError::NotMonoid(format!("0·{x} ≠ {x}")));
        }
        if let Some(y) = (0..x).find(|&y| at(x, y) != at(y, x)) {
            return Err(RecheckError::NotMonoid(format!("{x}·{y} ≠ {y}·{x}")));
        }
    }
    // Light's test over the images: the elements a with (x·a)·y = x·(a·y) for all x, y are
    // closed under products, so it holds on everything the images generate.
    let mut gens: Vec<usize> = claim.images[1..].iter().map(|&v| v as usize).collect();
    gens.sort_unstable();
    gens.dedup();
    for &a in &gens {
        for x in 0..n {
            let xa = at(x, a);
            if let Some(y) = (0..n).find(|&y| at(xa, y) != at(x, at(a, y))) {
                return Err(RecheckError::NotMonoid(format!("({x}·{a})·{y} ≠ {x}·({a}·{y})")));
            }
        }
    }
    // The rules: each heap's options as (image, copies of g).
    let option_list = |h: u32| -> Options {
        heap_results(&claim.code, h)
            .iter()
            .map(|res| {
                let parts = res.parts();
                let x = parts
                    .iter()
                    .filter(|&&a| a != 0)
                    .fold(0u32, |acc, &a| claim.table[acc as usize * n + claim.images[a as usize] as usize]);
                (x, parts.iter().filter(|&&a| a == g).count() as i64)
            })
            .collect()
    };
    if heap_results(&claim.code, heap).iter().any(|res| res.parts().iter().any(|&a| a >= heap)) {
        return Err(RecheckError::Malformed("an option of H holds a heap of H or more".into()));
    }
    let opts: Vec<Options> = (0..heap).map(|h| if h == 0 { Vec::new() } else { option_list(h) }).collect();
    let h_opts = option_list(heap);
    if h_opts.is_empty() {
        return Err(RecheckError::Malformed("H has no move".into()));
    }
    // Shifts of the count by a move inside R: copies of g made, minus one for g itself.
    let shifts: Vec<i64> =
        (1..heap).flat_map(|h| opts[h as usize].iter().map(move |&(_, m)| m - (h == g) as i64)).collect();
    let smin = shifts.iter().copied().min().unwrap_or(0).min(0);
    let smax = shifts.iter().copied().max().unwrap_or(0).max(0);
    // Through H, d moves by 1 + the copies of g made.
    let hmax = h_opts.iter().map(|&(_, m)| 1 + m).max().unwrap_or(1);
    let (lo, hi, cstar) = (claim.lo, claim.hi, claim.cstar as i64);
    // Below dbot every reading (e at most d + max(smax, hmax)) is under lo, and F(e) = F(e + p)
    // there; above dtop every reading at d − p (e at least d − p + smin − c*) is over hi, and
    // F(e) = F(e − p) there.
    let dbot = lo - smax.max(hmax);
    let dtop = hi + cstar - smin + p;
    let dfloor = dbot.min(-(k0 as i64) - 1) - p;
    // From the bound on, every count read (c + smin at the least) is past the levels' exact
    // counts, at least c*, and beyond the window at level k₀; and every d up to dtop occurs
    // beside it (d = c − k, k > k₀).
    let bound = [
        claim.cap as i64 - p + 1 - smin,
        cstar - smin,
        hi + k0 as i64 + cstar + 1 - smin,
        dtop + k0 as i64 + 1,
    ]
    .into_iter()
    .max()
    .unwrap_or(0);
    let rd = Reader { claim, n, k0, p, bound, dbot, dtop, dfloor };

    // The (ψ, c) pairs of positions, breadth first, each with the way back.
    let slots = (bound + p) as usize;
    let slot = |x: u32, c: i64| x as usize * slots + c as usize;
    let mut seen: Vec<u32> = vec![u32::MAX; n * slots];
    let mut images: Vec<(u32, i64, u32, u32)> = vec![(0, 0, u32::MAX, 0)];
    seen[slot(0, 0)] = 0;
    let mut i = 0;
    while i < images.len() {
        let (x, c, _, _) = images[i];
        for h in 1..heap {
            let (y, cy) = (rd.mul(x, claim.images[h as usize]), rd.keep(c + (h == g) as i64));
            if seen[slot(y, cy)] == u32::MAX {
                seen[slot(y, cy)] = images.len() as u32;
                images.push((y, cy, i as u32, h));
            }
        }
        i += 1;
    }
    let way_back = |mut i: u32, extra: Option<u32>| -> Vec<u32> {
        let mut out: Vec<u32> = extra.into_iter().collect();
        while images[i as usize].2 != u32::MAX {
            out.push(images[i as usize].3);
            i = images[i as usize].2;
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        out
    };

    // P with a P option: Y + h and Y + o, and R at level k with R + S at level k − 1.
    for (i, &(x, c, _, _)) in images.iter().enumerate() {
        let fail = |rung: Rung, extra: Option<u32>| Recheck::Inconsistent {
            position: way_back(i as u32, extra),
            rung,
            kind: "P with a P option",
        };
        for h in 1..heap {
            let (xh, ch) = (rd.mul(x, claim.images[h as usize]), c + (h == g) as i64);
            for &(xo, m) in &opts[h as usize] {
                let (xo, co) = (rd.mul(x, xo), c + m);
                if let Some(k) = (0..=k0).find(|&k| rd.claimed(k, xh, ch) && rd.claimed(k, xo, co)) {
                    return Ok(fail(Rung::Level(k), Some(h)));
                }
                if let Some(d) = rd.ds(ch).find(|&d| rd.shifted(xh, ch, d) && rd.shifted(xo, co, d + co - ch))
                {
                    return Ok(fail(Rung::Above(d), Some(h)));
                }
            }
        }
        for &(xs, m) in &h_opts {
            let (xs, cs) = (rd.mul(x, xs), c + m);
            if let Some(k) = (1..=k0).find(|&k| rd.claimed(k, x, c) && rd.claimed(k - 1, xs, cs)) {
                return Ok(fail(Rung::Level(k), None));
            }
            if let Some(d) = rd.ds(c).find(|&d| rd.shifted(x, c, d) && rd.shifted(xs, cs, d + 1 + m)) {
                return Ok(fail(Rung::Above(d), None));
            }
        }
    }

    // The walk. S is a bitset over (shift − smin) · n + ψ of the option.
    let kinds = (smax - smin + 1) as usize;
    let words = (kinds * n).div_ceil(64);
    let bit = |x: u32, s: i64| (s - smin) as usize * n + x as usize;
    // Per kept count and test (levels 0..=k₀, then d from dfloor to dtop): the options, as
    // bits, that are claimed P there.
    let tests = rd.test_of(dtop) + 1;
    let mut p_options: Vec<Vec<u64>> = Vec::with_capacity(slots * tests);
    for c in 0..slots as i64 {
        for t in 0..tests {
            let mut b = vec![0u64; words];
            // (No option of a position with count c has a count below 0.)
            for s in (smin..=smax).filter(|&s| c + s >= 0) {
                for x in 0..n as u32 {
                    let pp =
                        if t <= k0 { rd.claimed(t, x, c + s) } else { rd.shifted(x, c + s, rd.d_of(t) + s) };
                    if pp {
                        let i = bit(x, s);
                        b[i / 64] |= 1 << (i % 64);
                    }
                }
            }
            p_options.push(b);
        }
    }
    let meets = |sset: &[u64], c: i64, t: usize| {
        let b = &p_options[c as usize * tests + t];
        sset.iter().zip(b).any(|(a, b)| a & b != 0)
    };
    let through = |x: u32, c: i64, t: usize| {
        h_opts.iter().any(|&(xs, m)| {
            let (xs, cs) = (rd.mul(x, xs), c + m);
            if t <= k0 { t >= 1 && rd.claimed(t - 1, xs, cs) } else { rd.shifted(xs, cs, rd.d_of(t) + 1 + m) }
        })
    };
    // The failure at a state, if any.
    let failure = |x: u32, c: i64, sset: &[u64]| -> Option<(Rung, &'static str)> {
        let empty = sset.iter().all(|&w| w == 0);
        if empty && rd.claimed(0, x, c) {
            return Some((Rung::Level(0), "P without a move"));
        }
        let no_p = |t: usize| !meets(sset, c, t) && !through(x, c, t);
        let start = if empty { 1 } else { 0 };
        if let Some(k) = (start..=k0).find(|&k| !rd.claimed(k, x, c) && no_p(k)) {
            return Some((Rung::Level(k), "N with no P option"));
        }
        rd.ds(c)
            .find(|&d| !rd.shifted(x, c, d) && no_p(rd.test_of(d)))
            .map(|d| (Rung::Above(d), "N with no P option"))
    };
    struct State {
        x: u32,
        c: i64,
        parent: u32,
        heap: u32,
    }
    let mut states: Vec<State> = vec![State { x: 0, c: 0, parent: u32::MAX, heap: 0 }];
    let mut sets: Vec<Vec<u64>> = vec![vec![0u64; words]];
    let mut live = vec![true];
    let key = |x: u32, c: i64, sset: &[u64]| slot(x, c) * 2 + sset.iter().any(|&w| w != 0) as usize;
    let mut by_key: Vec<Vec<u32>> = vec![Vec::new(); n * slots * 2];
    by_key[key(0, 0, &sets[0])].push(0);
    let position = |states: &[State], mut i: u32, extra: u32| -> Vec<u32> {
        let mut out = vec![extra];
        while states[i as usize].parent != u32::MAX {
            out.push(states[i as usize].heap);
            i = states[i as usize].parent;
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        out
    };
    if let Some((rung, kind)) = failure(0, 0, &sets[0]) {
        return Ok(Recheck::Inconsistent { position: Vec::new(), rung, kind });
    }
    let mut queue: VecDeque<u32> = VecDeque::from([0]);
    while let Some(i) = queue.pop_front() {
        if !live[i as usize] {
            continue;
        }
        let (x, c) = (states[i as usize].x, states[i as usize].c);
        for h in 1..heap {
            let gh = claim.images[h as usize];
            let up = (h == g) as i64;
            let (x2, c2) = (rd.mul(x, gh), rd.keep(c + up));
            let mut s2 = vec![0u64; words];
            let old = &sets[i as usize];
            for (w, &word) in old.iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    let j = w * 64 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (s, xo) = (j / n, (j % n) as u32);
                    let t = s * n + rd.mul(xo, gh) as usize;
                    s2[t / 64] |= 1 << (t % 64);
                }
            }
            for &(xo, m) in &opts[h as usize] {
                let t = bit(rd.mul(x, xo), m - up);
                s2[t / 64] |= 1 << (t % 64);
            }
            if let Some((rung, kind)) = failure(x2, c2, &s2) {
                return Ok(Recheck::Inconsistent { position: position(&states, i, h), rung, kind });
            }
            let kk = key(x2, c2, &s2);
            let within = |a: &[u64], b: &[u64]| a.iter().zip(b).all(|(a, b)| a & !b == 0);
            if by_key[kk].iter().any(|&j| within(&sets[j as usize], &s2)) {
                continue;
            }
            let id = states.len() as u32;
            let mut kept = Vec::with_capacity(by_key[kk].len() + 1);
            for &j in &by_key[kk] {
                if within(&s2, &sets[j as usize]) {
                    live[j as usize] = false;
                } else {
                    kept.push(j);
                }
            }
            kept.push(id);
            by_key[kk] = kept;
            states.push(State { x: x2, c: c2, parent: i, heap: h });
            sets.push(s2);
            live.push(true);
            queue.push_back(id);
            if states.len() > max_states {
                return Ok(Recheck::Budget { states: max_states });
            }
        }
    }
    Ok(Recheck::Consistent { images: images.len(), states: states.len() })
}
