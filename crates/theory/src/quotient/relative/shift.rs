//! The ladder for every k at once: a *shift form* of the levels, proved by one finite check.
//!
//! Over one finite monoid the levels Tₖ are eventually periodic in k, so no finite M can
//! carry a pattern like Dawson's diagonal (34ᵏ + 30ᵐ + 25 is P iff m ≥ k, m ≡ k mod 2) for
//! every k. Counting one heap g exactly turns the pattern into a *shift*: write
//! R ↦ (x, c) with x = ψ(R) in a finite monoid M (heap g included) and c = the number of
//! copies of g in R, and claim, for every k ≥ k₀ and every position R of heaps below H,
//!
//! > o(Hᵏ + R) is P  ⟺  F(x, min(c, c*), c − k)
//!
//! for one function F and a threshold c* ≥ 0 (c* = 0: F(x, c − k) alone). F is a finite
//! table on e = d − min(c, c*) ∈ [lo, hi], d = c − k, periodic outside it with the counter's
//! period p (F at e equals F at e + p below lo, at e − p above hi). So with c* copies of g
//! or more the outcome depends on c − k alone; with fewer (c < c*, e = −k) it may depend
//! on c itself and on k, eventually through k mod p (few copies of g beside many of H).
//!
//! * **F is read off proved levels.** Level k of a [`Ladder`] over M × (g counted, index and
//!   period as the counter's) gives F(x, min(c, c*), c − k) for every image (x, c); levels
//!   k₀..K must agree, else the levels are not of this form at all
//!   ([`ShiftError::NotShifted`]). Agreeing with level k₀ everywhere is the base case, and
//!   the check tests it again whatever form it is given.
//! * **The step is one check for every k > k₀.** At Hᵏ + R with d = c(R) − k, the options are
//!   a move in a heap h of R (to count c + Δ and d + Δ, Δ = copies of g the move makes minus
//!   [h = g] ≥ −1), read from F at level k, or a move in one H (to c + #g, d + 1 + #g),
//!   read from F at level k − 1 ≥ k₀. So whether Hᵏ + R is a *failure* (F says P and an
//!   option is P, or F says N and no option is P) depends on k only through d, on c only
//!   through u = min(c, c* + 1) (then min(c + Δ, c*) is known), and on d only through its
//!   class: every d below a bottom dₗ behaves as d + p (all options read F below lo), every
//!   d above a top dₕ as d − p. The d that occur beside R are all d ≤ c(R) − k₀ − 1; the
//!   counter is exact far enough that this, and u, are known from R's image.
//! * **The check.** Failures "P with a P option" are found per image and heap (as for one
//!   level). Failures "N with every option N" by the walk over all positions of heaps below
//!   H, heap by heap, keeping per image the minimal signatures σ = {(m, u, t) : an option R'
//!   of the part walked, completed by a rest of image m to a position of count u and final
//!   d = t, reads P} (u and t are the whole position's, which adding heaps does not move): a
//!   monotone map per heap, a failure monotone in σ, and finitely many (u, class of t).
//!
//! When the check passes, o(Hᵏ + R) = F(ψ(R), min(c(R), c*), c(R) − k) holds for every
//! k ≥ k₀ and every R, by induction on k and then on R (the options of a position are
//! smaller, and a position with a copy of H has a move). Nothing is trusted of how M was
//! found.

use super::{Antichains, Bits, Ladder, Step, Stop, has, set};

/// ⌈a / b⌉ for a > 0, b > 0.
fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// Why a shift form could not be read or checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShiftError {
    /// The refinement must count exactly one heap.
    #[error("a shift form needs exactly one counted heap, the refinement counts {0}")]
    Counted(usize),
    /// Level k₀ is not proved yet.
    #[error("level {k0} is not proved (levels 0..{proved} are)")]
    Unproved {
        /// The base level asked for.
        k0: usize,
        /// Levels proved.
        proved: usize,
    },
    /// The window is narrower than the counter's period.
    #[error("the window {lo}..={hi} is narrower than the period {period}")]
    Window {
        /// Bottom of the window.
        lo: i64,
        /// Top of the window.
        hi: i64,
        /// The counter's period.
        period: i64,
    },
    /// The counter is not exact far enough to tell which d occur beside a position.
    #[error("the counter's cap {cap} is too small: the check needs at least {need}")]
    Cap {
        /// The refinement's cap.
        cap: u32,
        /// The cap needed.
        need: i64,
    },
    /// The form was read over another refinement (another monoid or counter period).
    #[error(
        "the form is over {qs} elements with period {period}, the ladder's refinement over {ladder_qs} with period {ladder_period}"
    )]
    Foreign {
        /// |M| of the form.
        qs: usize,
        /// The form's period.
        period: i64,
        /// |M| of the ladder's refinement.
        ladder_qs: usize,
        /// The ladder's counter period.
        ladder_period: i64,
    },
    /// Two proved levels disagree after the shift: the levels are not F(x, c − k).
    #[error(
        "levels are not shifted copies: level {level} at R = {position:?} gives F(x, {c}, {d}) = {got}, level {other_level} at {other:?} {want}"
    )]
    NotShifted {
        /// The level where the disagreement was met.
        level: usize,
        /// R (least position of the image).
        position: Vec<u32>,
        /// The level that set the entry first.
        other_level: usize,
        /// Its position (same part in M, same class of d).
        other: Vec<u32>,
        /// min(c(R), c*).
        c: i64,
        /// d = c(R) − k (a representative).
        d: i64,
        /// What this level says (true = P).
        got: bool,
        /// What an earlier level said.
        want: bool,
    },
}

/// A function F: M × [0, c*] × ℤ → {P, N} given on a window and extended (see the module's doc),
/// claimed to give o(Hᵏ + R) = F(ψ(R), min(c(R), c*), c(R) − k) for every k ≥ k₀.
///
/// Only [`Ladder::shift_form`] makes one (its fields are private); [`ShiftForm::flip`]
/// changes an entry, and [`Ladder::check_shift`] checks whatever form it is given in full,
/// its base level included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShiftForm {
    /// The base level.
    k0: usize,
    /// Bottom of the window.
    lo: i64,
    /// Top of the window.
    hi: i64,
    /// The counter's period.
    period: i64,
    /// c*: F reads the count c of g as min(c, c*) (0: not at all, F(x, c − k) alone).
    cstar: u32,
    /// |M|.
    qs: usize,
    /// F on M × [0, c*] × [lo, hi], row-major by element of M, then min(c, c*).
    table: Vec<bool>,
    /// Entries no proved level determined (set to N; the check decides them).
    unknown: usize,
}

impl ShiftForm {
    /// The base level k₀.
    pub fn k0(&self) -> usize {
        self.k0
    }

    /// The window [lo, hi] of e = d − min(c, c*) on which F is a table.
    pub fn window(&self) -> (i64, i64) {
        (self.lo, self.hi)
    }

    /// The period of F in e outside the window (the counter's).
    pub fn period(&self) -> i64 {
        self.period
    }

    /// c*: F reads the count c of g as min(c, c*).
    pub fn cstar(&self) -> u32 {
        self.cstar
    }

    /// |M|: F's first argument ranges over 0..size.
    pub fn monoid_size(&self) -> usize {
        self.qs
    }

    /// Entries no proved level determined (set to N; the check decides them).
    pub fn unknown(&self) -> usize {
        self.unknown
    }

    fn width(&self) -> i64 {
        self.hi - self.lo + 1
    }

    /// The window's representative of d: d moved by multiples of the period into the window.
    pub fn rep(&self, d: i64) -> i64 {
        if d < self.lo {
            d + self.period * ceil_div(self.lo - d, self.period)
        } else if d > self.hi {
            d - self.period * ceil_div(d - self.hi, self.period)
        } else {
            d
        }
    }

    /// The entry of F(x, c, d) in the table: c taken as c' = min(c, c*), d by the window's
    /// representative of e = d − c' (so e = −k below c*: the window moves with c').
    fn index(&self, x: u32, c: i64, d: i64) -> usize {
        let cc = c.clamp(0, self.cstar as i64);
        (x as usize * (self.cstar as usize + 1) + cc as usize) * self.width() as usize
            + (self.rep(d - cc) - self.lo) as usize
    }

    /// F(x, c, d): x an element of M, c the count of g (read as min(c, c*)), d = c − k.
    pub fn value(&self, x: u32, c: i64, d: i64) -> bool {
        self.table[self.index(x, c, d)]
    }

    /// Flips F at (x, c, d) (for tests: a wrong form, at the base level or above, must be
    /// refused by [`Ladder::check_shift`]).
    pub fn flip(&mut self, x: u32, c: i64, d: i64) {
        let i = self.index(x, c, d);
        self.table[i] = !self.table[i];
    }

    /// The predicted outcome of Hᵏ + R (true = P), for k ≥ k₀; `None` below k₀.
    pub fn is_p(&self, ladder: &Ladder, k: usize, heaps: &[u32]) -> Option<bool> {
        if k < self.k0 {
            return None;
        }
        let g = ladder.refinement.counted[0];
        let c = heaps.iter().filter(|&&h| h == g).count() as i64;
        let x = heaps.iter().fold(0, |acc, &h| {
            if h == 0 { acc } else { ladder.refinement.q.mul(acc, ladder.refinement.images[h as usize]) }
        });
        Some(self.value(x, c, c - k as i64))
    }
}

/// A proved shift form: o(Hᵏ + R) = F(ψ(R), min(c(R), c*), c(R) − k) for every k ≥ k₀ and
/// every R. Only [`Ladder::check_shift`] makes one.
#[derive(Clone, PartialEq, Eq)]
pub struct ShiftProof {
    form: ShiftForm,
    states: usize,
    classes: usize,
}

impl ShiftProof {
    /// The form proved.
    pub fn form(&self) -> &ShiftForm {
        &self.form
    }

    /// States the walk kept.
    pub fn states(&self) -> usize {
        self.states
    }

    /// Classes of d checked beside each position (dₗ..=dₕ).
    pub fn classes(&self) -> usize {
        self.classes
    }
}

impl std::fmt::Debug for ShiftProof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShiftProof")
            .field("k0", &self.form.k0)
            .field("window", &(self.form.lo, self.form.hi))
            .field("cstar", &self.form.cstar)
            .field("states", &self.states)
            .field("classes", &self.classes)
            .finish()
    }
}

/// What the check of a shift form found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShiftCheck {
    /// Proved, base level and every step above it (see [`ShiftProof`]).
    Proved(ShiftProof),
    /// A position where F is wrong: at the base level k₀ (F differs from the proved level
    /// there; `d` = c(R) − k₀), or where F contradicts itself above it, Hᵏ + R with
    /// c(R) − k = `d` (every k > k₀ with that d, or for the bottom class every d ≤ `d`).
    Fails {
        /// The heaps of R.
        position: Vec<u32>,
        /// d = c(R) − k (its class's representative).
        d: i64,
        /// "P with a P option", "N with every option N", or at the base level which
        /// outcome F gives and level k₀ proved.
        kind: String,
    },
    /// The walk met its state budget first.
    Budget {
        /// The budget.
        states: usize,
    },
}

/// Per dense element: its part in M, its counter value, whether that value is exact.
struct Parts {
    x: Vec<u32>,
    c: Vec<u32>,
    exact: Vec<bool>,
}

impl Ladder {
    fn parts(&self) -> Parts {
        let qs = self.refinement.q.size() as u64;
        let x = self.raw.iter().map(|&r| (r % qs) as u32).collect();
        let c: Vec<u32> = self.raw.iter().map(|&r| (r / qs) as u32).collect();
        let exact = c.iter().map(|&v| self.refinement.exact(v)).collect();
        Parts { x, c, exact }
    }

    /// Reads the shift form F (threshold `cstar` = c*) from levels k₀..(proved − 1) on the
    /// window [lo, hi] of e = c − k − min(c, c*): level k gives F(x, min(c, c*), c − k) for
    /// each image (x, c) (for a counter value in the cycle, at every
    /// count it stands for). Refused if two levels disagree.
    pub fn shift_form(&self, k0: usize, lo: i64, hi: i64, cstar: u32) -> Result<ShiftForm, ShiftError> {
        let r = &self.refinement;
        if r.counted.len() != 1 {
            return Err(ShiftError::Counted(r.counted.len()));
        }
        if k0 >= self.levels.len() {
            return Err(ShiftError::Unproved { k0, proved: self.levels.len() });
        }
        let period = r.period as i64;
        if hi - lo + 1 < period {
            return Err(ShiftError::Window { lo, hi, period });
        }
        // A counter value in the cycle stands for counts ≥ cap − p + 1: at least c*.
        if (r.cap as i64) < cstar as i64 + period - 1 {
            return Err(ShiftError::Cap { cap: r.cap, need: cstar as i64 + period - 1 });
        }
        let qs = r.q.size();
        let table = vec![false; qs * (cstar as usize + 1) * (hi - lo + 1) as usize];
        let mut form = ShiftForm { k0, lo, hi, period, cstar, qs, table, unknown: 0 };
        let mut known = vec![None::<(bool, usize, u32)>; form.table.len()];
        let parts = self.parts();
        for (k, t) in self.levels.iter().enumerate().skip(k0) {
            for (z, &tz) in t.iter().enumerate() {
                let (x, c) = (parts.x[z], parts.c[z] as i64);
                // The counts this counter value stands for: c, or c, c + p, c + 2p, … (enough
                // of them to meet every class of the window).
                let reps = if parts.exact[z] {
                    1
                } else {
                    ((hi + cstar as i64 - (c - k as i64)).max(0) / period + 2) as usize
                };
                for j in 0..reps {
                    let cj = c + j as i64 * period;
                    let d = cj - k as i64;
                    let i = form.index(x, cj, d);
                    match known[i] {
                        Some((v, k1, z1)) if v != tz => {
                            return Err(ShiftError::NotShifted {
                                level: k,
                                position: self.least_position(z as u32),
                                other_level: k1,
                                other: self.least_position(z1),
                                c: cj.min(cstar as i64),
                                d,
                                got: tz,
                                want: v,
                            });
                        }
                        Some(_) => {}
                        None => known[i] = Some((tz, k, z as u32)),
                    }
                }
            }
        }
        for (i, v) in known.iter().enumerate() {
            match v {
                Some((b, _, _)) => form.table[i] = *b,
                None => form.unknown += 1,
            }
        }
        Ok(form)
    }

    /// Checks a shift form: its base case (F agrees with the proved level k₀ at every image
    /// and every count the image's counter value stands for) and its step for every k > k₀
    /// (see the module's doc). A pass proves it for every k ≥ k₀.
    pub fn check_shift(&self, form: &ShiftForm, max_states: usize) -> Result<ShiftCheck, ShiftError> {
        let r = &self.refinement;
        if r.counted.len() != 1 {
            return Err(ShiftError::Counted(r.counted.len()));
        }
        if form.qs != r.q.size() || form.period != r.period as i64 {
            return Err(ShiftError::Foreign {
                qs: form.qs,
                period: form.period,
                ladder_qs: r.q.size(),
                ladder_period: r.period as i64,
            });
        }
        let Some(base) = self.levels.get(form.k0) else {
            return Err(ShiftError::Unproved { k0: form.k0, proved: self.levels.len() });
        };
        let g = r.counted[0];
        let q = &r.q;
        let qs = q.size();
        let p = form.period;
        let parts = self.parts();
        let k0 = form.k0 as i64;
        // Options of each heap below H as (part in M, shift of d); of H as (part, shift).
        let count_of = |o: u32| -> i64 { parts.c[o as usize] as i64 };
        let mut opts: Vec<Vec<(u32, i64)>> = vec![Vec::new(); self.heap as usize];
        for h in 1..self.heap {
            for &o in &self.opts[h as usize] {
                if !parts.exact[o as usize] {
                    return Err(ShiftError::Cap { cap: r.cap, need: count_of(o) + r.period as i64 });
                }
                opts[h as usize].push((parts.x[o as usize], count_of(o) - (h == g) as i64));
            }
        }
        // Options of H as (part in M, shift of d = 1 + copies of g made).
        let mut h_opts: Vec<(u32, i64)> = Vec::new();
        for &o in &self.opts[self.heap as usize] {
            if !parts.exact[o as usize] {
                return Err(ShiftError::Cap { cap: r.cap, need: count_of(o) + r.period as i64 });
            }
            h_opts.push((parts.x[o as usize], 1 + count_of(o)));
        }
        let all: Vec<i64> = opts.iter().flatten().map(|&(_, s)| s).collect();
        let (dmin, dmax) =
            (all.iter().copied().min().unwrap_or(0).min(0), all.iter().copied().max().unwrap_or(0).max(0));
        let emax = h_opts.iter().map(|&(_, e)| e).max().unwrap_or(1).max(1);
        // Classes of t (signatures) and of d (positions).
        // (F reads d − min(c, c*) on the window: above c* + hi − dmin every reading is above.)
        let (tlo, thi) = (form.lo - dmax, form.hi - dmin + form.cstar as i64);
        let t_rep = |t: i64| -> i64 {
            if t < tlo {
                t + p * ceil_div(tlo - t, p)
            } else if t > thi {
                t - p * ceil_div(t - thi, p)
            } else {
                t
            }
        };
        let (dlo, dhi) = (tlo.min(form.lo - emax), thi);
        // A counter value in the cycle stands for counts ≥ cap − p + 1; beside those every
        // class of d occurs when cap − p + 1 − k₀ − 1 ≥ dₕ.
        // Counts up to c* + 1 must be exact (u below).
        let need = (dhi + k0 + p).max(form.cstar as i64 + 1 + p);
        if (r.cap as i64) < need {
            return Err(ShiftError::Cap { cap: r.cap, need });
        }
        // The classes of d beside a position of image z: the p bottom ones always (they stand
        // for d − p, d − 2p, …), the others up to c − k₀ − 1 (every class when the counter is
        // in its cycle: cap ≥ need).
        let classes = |z: usize| -> Vec<i64> {
            let top = if parts.exact[z] { dhi.min(parts.c[z] as i64 - k0 - 1) } else { dhi };
            (dlo..dlo + p).chain((dlo + p)..=top).collect()
        };
        // u: the count of g read to the extent F needs it, min(c, c* + 1) (c* + 1 stands for
        // every larger count; an option changes c by its shift ≥ −1, so min(c', c*) is
        // known); a single value when c* = 0.
        let ulen = if form.cstar == 0 { 1 } else { form.cstar as usize + 2 };
        let u_of = |z: usize| -> i64 {
            if !parts.exact[z] { ulen as i64 - 1 } else { (parts.c[z] as i64).min(ulen as i64 - 1) }
        };
        // F at a position of count u (its own reading) and at an option shifted by s.
        let f = |x: u32, u: i64, d: i64| form.value(x, u, d);
        // The base case: F(x, c, c − k₀) is level k₀'s outcome at every image, at every
        // count c its counter value stands for (in the cycle: c, c + p, … until e = c − k₀ − c*
        // passes the window, after which F repeats with the counter's period).
        for (z, &proved) in base.iter().enumerate() {
            let (x, c) = (parts.x[z], parts.c[z] as i64);
            let mut cj = c;
            loop {
                let said = f(x, cj, cj - k0);
                if said != proved {
                    let mut position = self.least_position(z as u32);
                    position.extend(std::iter::repeat_n(g, (cj - c) as usize));
                    position.sort_unstable_by(|a, b| b.cmp(a));
                    let word = |p: bool| if p { "P" } else { "N" };
                    return Ok(ShiftCheck::Fails {
                        position,
                        d: cj - k0,
                        kind: format!("{} where level {k0} is proved {}", word(said), word(proved)),
                    });
                }
                if parts.exact[z] || cj - k0 - form.cstar as i64 > form.hi {
                    break;
                }
                cj += p;
            }
        }
        let p_through_h =
            |x: u32, u: i64, d: i64| h_opts.iter().any(|&(o, e)| f(q.mul(x, o), u + e - 1, d + e));
        // Failures "P with a P option", per element and heap, and through H.
        for z in 0..self.n {
            let (x, u) = (parts.x[z], u_of(z));
            for d in classes(z) {
                if f(x, u, d) && p_through_h(x, u, d) {
                    return Ok(ShiftCheck::Fails {
                        position: self.least_position(z as u32),
                        d,
                        kind: "P with a P option".into(),
                    });
                }
            }
        }
        for y in 0..self.n {
            for h in 1..self.heap {
                if self.rows[h as usize].is_empty() {
                    continue;
                }
                let z = self.rows[h as usize][y] as usize;
                let u = u_of(z);
                for d in classes(z) {
                    if f(parts.x[z], u, d)
                        && opts[h as usize].iter().any(|&(o, s)| f(q.mul(parts.x[y], o), u + s, d + s))
                    {
                        let mut position = self.least_position(y as u32);
                        position.push(h);
                        position.sort_unstable_by(|a, b| b.cmp(a));
                        return Ok(ShiftCheck::Fails { position, d, kind: "P with a P option".into() });
                    }
                }
            }
        }
        // Failures "N with every option N": the walk. Signature bit (m, u, t) at
        // (m·ulen + u)·tw + t − tlo: an option of the part walked, completed by a rest of
        // image m to a position of count u (as u_of reads it) and final d = t, is P.
        let tw = (thi - tlo + 1) as usize;
        let block = ulen * tw;
        let bits = qs * block;
        let words = bits.div_ceil(64);
        let mut pre: std::collections::HashMap<(u32, i64), Bits> = std::collections::HashMap::new();
        let mut pre_of = |x: u32, s: i64| -> Bits {
            pre.entry((x, s))
                .or_insert_with(|| {
                    let mut b = vec![0u64; words];
                    for m in 0..qs as u32 {
                        let xm = q.mul(x, m);
                        for u in 0..ulen {
                            for t in tlo..=thi {
                                if f(xm, u as i64 + s, t + s) {
                                    set(&mut b, (m as usize * block + u * tw + (t - tlo) as usize) as u32);
                                }
                            }
                        }
                    }
                    b
                })
                .clone()
        };
        let fails_at = |z: usize, sig: &Bits| -> Option<i64> {
            let (x, u) = (parts.x[z], u_of(z));
            classes(z).into_iter().find(|&d| {
                !f(x, u, d)
                    && !p_through_h(x, u, d)
                    && !has(sig, (u as usize * tw + (t_rep(d) - tlo) as usize) as u32)
            })
        };
        let empty = vec![0u64; words];
        if let Some(d) = fails_at(0, &empty) {
            return Ok(ShiftCheck::Fails { position: Vec::new(), d, kind: "N with every option N".into() });
        }
        let mut walk: Antichains<Step> = Antichains::new(self.n);
        walk.admit(0, Step { elem: 0, parent: u32::MAX, heap: 0 }, empty);
        let walked = self.walk_positions(walk, max_states, |walk, i, h, e2| {
            let hx = r.images[h as usize];
            let mut sig = vec![0u64; words];
            let old = &walk.sigs[i as usize];
            for m in 0..qs as u32 {
                let hm = q.mul(hx, m) as usize;
                for t in 0..block {
                    if has(old, (hm * block + t) as u32) {
                        set(&mut sig, (m as usize * block + t) as u32);
                    }
                }
            }
            for &(o, s) in &opts[h as usize] {
                let b = pre_of(q.mul(parts.x[walk.states[i as usize].elem as usize], o), s);
                for (a, x) in sig.iter_mut().zip(&b) {
                    *a |= x;
                }
            }
            if let Some(d) = fails_at(e2 as usize, &sig) {
                let position = walk.position_with(i, h);
                return Err(ShiftCheck::Fails { position, d, kind: "N with every option N".into() });
            }
            Ok((e2 as usize, sig))
        });
        let alive = match walked {
            Ok(alive) => alive,
            Err(Stop::Failure(v)) => return Ok(v),
            Err(Stop::Budget) => return Ok(ShiftCheck::Budget { states: max_states }),
        };
        Ok(ShiftCheck::Proved(ShiftProof {
            form: form.clone(),
            states: alive,
            classes: (dhi - dlo + 1) as usize,
        }))
    }
}
