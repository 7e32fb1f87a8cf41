//! Relative outcomes: the misère outcome of Hᵏ + R for a heap H outside a quotient, k copies
//! of it, and **every** position R of the closure A of the heaps below H.
//!
//! A quotient Q of A predicts the outcome of positions of A only: two positions of A with
//! the same image may differ once copies of a larger heap H stand beside them (Dawson's
//! Kayles: heap 34 tells apart powers of heap 30 that Q₃₃ identifies). So the outcome
//! fₖ(R) = o(Hᵏ + R) is read here from a finite monoid image ψ: A → M that may be finer than
//! Q (a [`Refinement`]: Q's table times capped counters of chosen heaps), and the reading is
//! *proved*, level by level, or shown impossible:
//!
//! * **The guess.** If fₖ(R) = [ψ(R) ∈ Tₖ] for every R, then Tₖ is forced: each element z of
//!   M has a least position R_z (fewest tokens), whose options have images with smaller least
//!   positions, and R_z is a P-position exactly when it has an option and none of its
//!   options, nor any position Hᵏ⁻¹ + S + R_z with S an option of H (read from Tₖ₋₁), is in
//!   P. So Tₖ is computed element by element.
//! * **The check.** The guess holds for every R (by induction on R) iff no position is a
//!   *failure*: predicted P with an option predicted P, or predicted N with every option
//!   predicted N. The first kind is found per element and heap (every element is the image
//!   of a position, so y·ψ(h) ∈ Tₖ and y·ψ(o) ∈ Tₖ for an option o of h is a failure at
//!   R_y + h, and Tₖ meets no element with an option through H in Tₖ₋₁ by construction).
//!   The second kind is found by an exact walk over the positions of A, heap by heap, where
//!   a position carries its image z and its *signature* σ = {w ∈ M : S·w meets Tₖ} (S its
//!   option images); adding heap h maps σ to {w : σ ∋ ψ(h)·w} ∪ {w : z·ψ(o)·w ∈ Tₖ for an
//!   option o of h}, a monotone map, and the failure "z ∉ Tₖ, no option through H in Tₖ₋₁,
//!   1 ∉ σ" is antitone (a failure at σ is one at every smaller σ), so only the minimal
//!   signatures of each image are kept.
//!
//! When level k passes, fₖ(R) = [ψ(R) ∈ Tₖ] is a theorem for every R in A, with no trust in
//! how Q was built (its table is used only as a monoid; level 0 re-derives its P-set). When
//! it fails at R, fₖ does not factor through ψ at all (a factoring set would equal the
//! forced guess), so a finer ψ is needed; the levels above cannot be read from this one.

use std::fmt;

mod shift;
pub use shift::{ShiftCheck, ShiftError, ShiftForm, ShiftProof};

use serde::{Deserialize, Serialize};

use super::candidate::Submonoid;
use super::monoid::BipartiteMonoid;
use crate::game::{TakeBreakCode as OctalCode, heap_results};

/// Why a [`Ladder`] could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelativeError {
    /// The heap images do not cover every heap below the outside heap.
    #[error("the quotient covers heaps 1..{covered}, and heap {heap} needs 1..{}", heap - 1)]
    Coverage {
        /// The largest heap the images cover.
        covered: u32,
        /// The outside heap.
        heap: u32,
    },
    /// A counted heap is not below the outside heap, or the cap or period is out of range.
    #[error("counted heaps must lie in 1..{} and the counters need 1 <= period <= cap", heap - 1)]
    Counted {
        /// The outside heap.
        heap: u32,
    },
    /// The refinement would have more elements than allowed.
    #[error("the refinement would have {size} elements, more than {limit}")]
    TooLarge {
        /// Elements of Q times the counters' ranges.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A heap with no move has an image other than the identity.
    #[error("heap {0} has no move but its image is not the identity")]
    DeadHeap(u32),
}

/// A finite commutative monoid image of the closure of heaps 1..H−1: a quotient's
/// multiplication table (its P-set unused) times, for each counted heap, the number of
/// copies of that heap in the cyclic monoid of index `cap + 1 − period` and period `period`:
/// counts 0..=cap − period are exact, and a larger count is reduced by multiples of
/// `period` into cap − period + 1..=cap (with period 1, min(a + b, cap)). A cyclic monoid
/// is commutative, so the product is a homomorphic image of the closure.
#[derive(Clone, Debug)]
pub struct Refinement {
    /// The quotient's monoid.
    pub q: BipartiteMonoid,
    /// The images of heaps 0..H−1 in `q`.
    pub images: Vec<u32>,
    /// The heaps counted exactly (up to the cap).
    pub counted: Vec<u32>,
    /// The cap of every counter.
    pub cap: u32,
    /// The period of every counter (1: saturating at `cap`; 2: exact below cap − 1, then
    /// the parity); at least 1 and at most `cap`.
    pub period: u32,
}

impl Refinement {
    /// The refinement given by the submonoid of `q` that `images` (heaps 0..H−1) generate,
    /// renumbered, with no counters: any monoid the heaps map into will do, since every
    /// level is checked, so a candidate quotient built for a larger heap can serve.
    pub fn generated(q: &BipartiteMonoid, images: &[u32]) -> Self {
        let sub = Submonoid::generated(q, images);
        let index = &sub.id;
        let s = sub.size();
        let mut table = vec![0u32; s * s];
        for a in 0..s as u32 {
            for b in 0..s as u32 {
                table[(a as usize) * s + b as usize] = sub.mul(a, b);
            }
        }
        let q = BipartiteMonoid::from_table(s, table, vec![false; s]).expect("a submonoid with identity 0");
        Refinement {
            q,
            images: images.iter().map(|&x| index[x as usize]).collect(),
            counted: Vec::new(),
            cap: 1,
            period: 1,
        }
    }

    /// A count reduced into the counter's range 0..=cap.
    fn reduce(&self, c: u64) -> u64 {
        let (cap, p) = (self.cap as u64, self.period as u64);
        if c <= cap { c } else { c - p * (c - cap).div_ceil(p) }
    }

    /// Whether a counter value stands for one count only (below the counter's cycle).
    pub fn exact(&self, c: u32) -> bool {
        c + self.period <= self.cap
    }

    /// The raw number of elements: |Q| · (cap + 1)^counted.
    fn raw_size(&self) -> u64 {
        (self.q.size() as u64)
            .saturating_mul(((self.cap + 1) as u64).saturating_pow(self.counted.len() as u32))
    }

    fn raw_mul(&self, a: u64, b: u64) -> u64 {
        let qs = self.q.size() as u64;
        let r = (self.cap + 1) as u64;
        let x = self.q.mul((a % qs) as u32, (b % qs) as u32) as u64;
        let (mut ca, mut cb) = (a / qs, b / qs);
        let (mut out, mut place) = (0u64, 1u64);
        for _ in 0..self.counted.len() {
            let c = self.reduce(ca % r + cb % r);
            out += c * place;
            place *= r;
            ca /= r;
            cb /= r;
        }
        x + qs * out
    }

    fn raw_heap(&self, h: u32) -> u64 {
        let qs = self.q.size() as u64;
        let r = (self.cap + 1) as u64;
        let x = self.images[h as usize] as u64;
        let mut place = 1u64;
        for &c in &self.counted {
            if c == h {
                return x + qs * place;
            }
            place *= r;
        }
        x
    }
}

/// A set of elements of M as a bitset.
type Bits = Vec<u64>;

fn has(b: &Bits, i: u32) -> bool {
    b[(i >> 6) as usize] >> (i & 63) & 1 == 1
}

fn set(b: &mut Bits, i: u32) {
    b[(i >> 6) as usize] |= 1 << (i & 63);
}

fn subset(a: &Bits, b: &Bits) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

/// What level k of the ladder found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Level {
    /// Proved: o(Hᵏ + R) is P exactly when ψ(R) is in this level's set, for every R.
    Factors {
        /// |Tₖ|, over the elements that are images of positions.
        p_count: usize,
        /// The states the walk kept.
        states: usize,
    },
    /// No set of M gives o(Hᵏ + R): the position R (its heaps) is a failure of the forced
    /// guess.
    Splits {
        /// The heaps of R.
        position: Vec<u32>,
        /// "P with a P option" or "N with every option N".
        kind: String,
    },
    /// The walk met its state budget first.
    Budget {
        /// The budget.
        states: usize,
    },
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Factors { p_count, states } => {
                write!(f, "factors: |T| = {p_count}, proved by a walk of {states} states")
            }
            Level::Splits { position, kind } => {
                write!(f, "does not factor: R = {position:?} would be {kind}")
            }
            Level::Budget { states } => write!(f, "undecided: the walk passed {states} states"),
        }
    }
}

/// A position a walk reached: its image, and the way back (the state it came from and the
/// heap added; the empty position's parent is `u32::MAX`).
#[derive(Clone, Copy)]
struct Step {
    elem: u32,
    parent: u32,
    heap: u32,
}

/// The states a walk keeps: per key, an antichain of minimal signatures. A state is
/// admitted unless a live state of its key has a signature inside its own (every failure
/// the newcomer could lead to, that one leads to as well: the maps and the failure are
/// monotone), and it retires the live states of its key whose signatures contain its own.
struct Antichains<S> {
    states: Vec<S>,
    sigs: Vec<Bits>,
    live: Vec<bool>,
    by_key: Vec<Vec<u32>>,
    alive: usize,
}

impl<S> Antichains<S> {
    /// No states, `keys` keys.
    fn new(keys: usize) -> Self {
        Antichains {
            states: Vec::new(),
            sigs: Vec::new(),
            live: Vec::new(),
            by_key: vec![Vec::new(); keys],
            alive: 0,
        }
    }

    /// Admits `state` with signature `sig` under `key`; its id, or `None` when a live state
    /// of the key has a signature inside `sig`.
    fn admit(&mut self, key: usize, state: S, sig: Bits) -> Option<u32> {
        let sigs = &self.sigs;
        if self.by_key[key].iter().any(|&j| subset(&sigs[j as usize], &sig)) {
            return None;
        }
        let mut kept = Vec::with_capacity(self.by_key[key].len() + 1);
        for &j in &self.by_key[key] {
            if subset(&sig, &self.sigs[j as usize]) {
                self.live[j as usize] = false;
                self.alive -= 1;
            } else {
                kept.push(j);
            }
        }
        let id = self.states.len() as u32;
        kept.push(id);
        self.by_key[key] = kept;
        self.states.push(state);
        self.sigs.push(sig);
        self.live.push(true);
        self.alive += 1;
        Some(id)
    }

    /// The ids of the live states.
    fn live_ids(&self) -> Vec<u32> {
        (0..self.states.len() as u32).filter(|&i| self.live[i as usize]).collect()
    }

    /// States admitted so far (live or retired).
    fn len(&self) -> usize {
        self.states.len()
    }
}

/// Why a walk stopped early.
enum Stop<E> {
    /// `extend` reported a failure.
    Failure(E),
    /// More states than the budget.
    Budget,
}

impl Antichains<Step> {
    /// The heaps of the position state `i` stands for, largest first.
    fn position(&self, mut i: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while self.states[i as usize].parent != u32::MAX {
            out.push(self.states[i as usize].heap);
            i = self.states[i as usize].parent;
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        out
    }

    /// The heaps of state `i`'s position with heap `h` added, largest first.
    fn position_with(&self, i: u32, h: u32) -> Vec<u32> {
        let mut out = self.position(i);
        out.push(h);
        out.sort_unstable_by(|a, b| b.cmp(a));
        out
    }
}

/// The levels k = 0, 1, 2, … of o(Hᵏ + R) over one refinement (see the module's doc).
pub struct Ladder {
    /// The outside heap H.
    pub heap: u32,
    n: usize,
    raw: Vec<u64>,
    dense: Vec<u32>,
    refinement: Refinement,
    /// Dense image of each heap 0..H (H's entry unused).
    heap_elem: Vec<u32>,
    /// Option images (dense) of each heap 0..=H.
    opts: Vec<Vec<u32>>,
    /// rows[h][w] = ψ(h)·w, for heaps with a move.
    rows: Vec<Vec<u32>>,
    /// Least positions: parent element and heap added (the identity's parent is itself).
    parent: Vec<(u32, u32)>,
    total: Vec<u32>,
    /// Elements in order of their least positions' totals.
    order: Vec<u32>,
    /// The sets Tₖ proved so far, one per level.
    levels: Vec<Vec<bool>>,
}

impl Ladder {
    /// The ladder of `code`'s heap `heap` over `refinement` (whose images cover heaps
    /// 1..heap−1); refused past `max_elements` raw elements.
    pub fn new(
        code: &OctalCode,
        heap: u32,
        refinement: Refinement,
        max_elements: u64,
    ) -> Result<Self, RelativeError> {
        let covered = refinement.images.len().saturating_sub(1) as u32;
        if covered + 1 < heap {
            return Err(RelativeError::Coverage { covered, heap });
        }
        if refinement.cap == 0
            || refinement.period == 0
            || refinement.period > refinement.cap
            || refinement.counted.iter().any(|&c| c == 0 || c >= heap)
        {
            return Err(RelativeError::Counted { heap });
        }
        let raw_size = refinement.raw_size();
        if raw_size > max_elements {
            return Err(RelativeError::TooLarge { size: raw_size, limit: max_elements });
        }
        let parts: Vec<Vec<Vec<u32>>> =
            (0..=heap).map(|h| heap_results(code, h).iter().map(|r| r.parts().to_vec()).collect()).collect();
        for h in 1..heap {
            if parts[h as usize].is_empty() && refinement.raw_heap(h) != 0 {
                return Err(RelativeError::DeadHeap(h));
            }
        }
        // Least positions by total, bucket by bucket (Dijkstra with integer weights).
        let mut dist: Vec<u32> = vec![u32::MAX; raw_size as usize];
        let mut rparent: Vec<(u64, u32)> = vec![(0, 0); raw_size as usize];
        let mut buckets: Vec<Vec<u64>> = vec![vec![0]];
        dist[0] = 0;
        let mut raw = Vec::new();
        let live_heaps: Vec<u32> = (1..heap).filter(|&h| !parts[h as usize].is_empty()).collect();
        let heap_raw: Vec<u64> = (0..heap).map(|h| refinement.raw_heap(h)).collect();
        let mut t = 0usize;
        while t < buckets.len() {
            let bucket = std::mem::take(&mut buckets[t]);
            for y in bucket {
                if dist[y as usize] != t as u32 {
                    continue;
                }
                raw.push(y);
                for &h in &live_heaps {
                    let z = refinement.raw_mul(y, heap_raw[h as usize]);
                    let d = t as u32 + h;
                    if d < dist[z as usize] {
                        dist[z as usize] = d;
                        rparent[z as usize] = (y, h);
                        if buckets.len() <= d as usize {
                            buckets.resize(d as usize + 1, Vec::new());
                        }
                        buckets[d as usize].push(z);
                    }
                }
            }
            t += 1;
        }
        let n = raw.len();
        let mut dense = vec![u32::MAX; raw_size as usize];
        for (i, &r) in raw.iter().enumerate() {
            dense[r as usize] = i as u32;
        }
        let parent: Vec<(u32, u32)> = raw
            .iter()
            .map(|&r| {
                let (p, h) = rparent[r as usize];
                (dense[p as usize], h)
            })
            .collect();
        let total: Vec<u32> = raw.iter().map(|&r| dist[r as usize]).collect();
        let order: Vec<u32> = (0..n as u32).collect();
        let heap_elem: Vec<u32> = (0..heap).map(|h| dense[heap_raw[h as usize] as usize]).collect();
        let opts: Vec<Vec<u32>> = parts
            .iter()
            .map(|ps| {
                let mut v: Vec<u32> = ps
                    .iter()
                    .map(|p| {
                        let r = p.iter().fold(0u64, |acc, &a| refinement.raw_mul(acc, heap_raw[a as usize]));
                        dense[r as usize]
                    })
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let rows: Vec<Vec<u32>> = (0..heap)
            .map(|h| {
                if parts[h as usize].is_empty() {
                    Vec::new()
                } else {
                    raw.iter().map(|&w| dense[refinement.raw_mul(heap_raw[h as usize], w) as usize]).collect()
                }
            })
            .collect();
        Ok(Ladder {
            heap,
            n,
            raw,
            dense,
            refinement,
            heap_elem,
            opts,
            rows,
            parent,
            total,
            order,
            levels: Vec::new(),
        })
    }

    /// The elements of M that are images of positions.
    pub fn size(&self) -> usize {
        self.n
    }

    /// The refinement read.
    pub fn refinement(&self) -> &Refinement {
        &self.refinement
    }

    /// The levels proved so far (level k proves o(Hᵏ + R) for every R).
    pub fn proved(&self) -> usize {
        self.levels.len()
    }

    fn mul(&self, a: u32, b: u32) -> u32 {
        self.dense[self.refinement.raw_mul(self.raw[a as usize], self.raw[b as usize]) as usize]
    }

    /// ψ(R) for a position R of heaps below H.
    pub fn element(&self, heaps: &[u32]) -> u32 {
        heaps.iter().fold(0, |acc, &h| if h == 0 { acc } else { self.mul(acc, self.heap_elem[h as usize]) })
    }

    /// The least position of element z (heaps, largest first).
    pub fn least_position(&self, mut z: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while z != 0 {
            let (p, h) = self.parent[z as usize];
            out.push(h);
            z = p;
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        out
    }

    /// The proved outcome of Hᵏ + R: `Some(true)` for a P-position, `None` when level k is
    /// not proved.
    pub fn is_p(&self, k: usize, heaps: &[u32]) -> Option<bool> {
        let t = self.levels.get(k)?;
        Some(t[self.element(heaps) as usize])
    }

    /// Elements with an option through H into the level below (none at level 0).
    fn through_heap(&self, below: Option<&Vec<bool>>) -> Vec<bool> {
        match below {
            None => vec![false; self.n],
            Some(t) => (0..self.n as u32)
                .map(|z| self.opts[self.heap as usize].iter().any(|&o| t[self.mul(z, o) as usize]))
                .collect(),
        }
    }

    /// The forced guess Tₖ, element by element in order of least positions.
    fn guess(&self, k: usize, d: &[bool]) -> Vec<bool> {
        let mut t = vec![false; self.n];
        for &z in &self.order {
            if d[z as usize] {
                continue;
            }
            let rep = self.least_position(z);
            if rep.is_empty() && k == 0 {
                continue; // the empty position: no move, a misère win
            }
            let mut p_option = false;
            let mut last = u32::MAX;
            'heaps: for (i, &h) in rep.iter().enumerate() {
                if h == last {
                    continue;
                }
                last = h;
                let rest = rep
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .fold(0, |acc, (_, &g)| self.mul(acc, self.heap_elem[g as usize]));
                for &o in &self.opts[h as usize] {
                    if t[self.mul(rest, o) as usize] {
                        p_option = true;
                        break 'heaps;
                    }
                }
            }
            t[z as usize] = !p_option;
        }
        t
    }

    /// Decides the next level (k = the number proved so far), walking at most `max_states`
    /// states. A level that factors is kept, and the next call decides the one above.
    pub fn climb(&mut self, max_states: usize) -> Level {
        let k = self.levels.len();
        let d = self.through_heap(self.levels.last());
        let t = self.guess(k, &d);
        // Failures of the first kind: P with a P option.
        for y in 0..self.n as u32 {
            for h in 1..self.heap {
                if self.rows[h as usize].is_empty() || !t[self.rows[h as usize][y as usize] as usize] {
                    continue;
                }
                if self.opts[h as usize].iter().any(|&o| t[self.mul(y, o) as usize]) {
                    let mut position = self.least_position(y);
                    position.push(h);
                    position.sort_unstable_by(|a, b| b.cmp(a));
                    return Level::Splits { position, kind: "P with a P option".into() };
                }
            }
        }
        if (0..self.n).any(|z| t[z] && d[z]) {
            unreachable!("the guess never puts an element with an option through H in T");
        }
        match self.walk(k, &t, &d, max_states) {
            Ok(states) => {
                let p_count = t.iter().filter(|&&b| b).count();
                self.levels.push(t);
                Level::Factors { p_count, states }
            }
            Err(l) => l,
        }
    }

    /// The walk for failures of the second kind; `Ok(states kept)`.
    fn walk(&self, k: usize, t: &[bool], d: &[bool], max_states: usize) -> Result<usize, Level> {
        let n = self.n;
        let words = n.div_ceil(64);
        let mut pre: Vec<Option<Bits>> = vec![None; n];
        let pre_of = |z: u32, pre: &mut Vec<Option<Bits>>| -> Bits {
            if let Some(b) = &pre[z as usize] {
                return b.clone();
            }
            let mut b = vec![0u64; words];
            for w in 0..n as u32 {
                if t[self.mul(z, w) as usize] {
                    set(&mut b, w);
                }
            }
            pre[z as usize] = Some(b.clone());
            b
        };
        // Key: element, and at level 0 whether the position has a move (a position with
        // none is a misère win whatever it predicts).
        let key = |elem: u32, moves: bool| -> usize {
            if k == 0 { elem as usize * 2 + moves as usize } else { elem as usize }
        };
        let mut walk: Antichains<Step> = Antichains::new(n * 2);
        walk.admit(key(0, false), Step { elem: 0, parent: u32::MAX, heap: 0 }, vec![0u64; words]);
        let walked = self.walk_positions(walk, max_states, |walk, i, h, e2| {
            let row = &self.rows[h as usize];
            let mut sig = vec![0u64; words];
            for w in 0..n as u32 {
                if has(&walk.sigs[i as usize], row[w as usize]) {
                    set(&mut sig, w);
                }
            }
            for &o in &self.opts[h as usize] {
                let b = pre_of(self.mul(walk.states[i as usize].elem, o), &mut pre);
                for (s, x) in sig.iter_mut().zip(&b) {
                    *s |= x;
                }
            }
            // A failure: predicted N, no option through H into P, no option into P.
            if !t[e2 as usize] && !d[e2 as usize] && !has(&sig, 0) {
                let position = walk.position_with(i, h);
                return Err(Level::Splits { position, kind: "N with every option N".into() });
            }
            Ok((key(e2, true), sig))
        });
        let alive = match walked {
            Ok(alive) => alive,
            Err(Stop::Failure(l)) => return Err(l),
            Err(Stop::Budget) => return Err(Level::Budget { states: max_states }),
        };
        // At level 0 the empty position (no move) must be predicted N; above it, Hᵏ alone is
        // the position with R empty, covered by the state of the identity.
        if k == 0 && t[0] {
            return Err(Level::Splits { position: Vec::new(), kind: "P with no move".into() });
        }
        if k > 0 && !t[0] && !d[0] {
            // R empty: predicted N, options only through H, none in P.
            return Err(Level::Splits { position: Vec::new(), kind: "N with every option N".into() });
        }
        Ok(alive)
    }

    /// Walks every position of the heaps below H with a move, adding heaps largest first
    /// from the states in `walk`: each live state i meets heap h through `extend(walk, i, h,
    /// e2)` (e2: its image with h added), which gives the newcomer's key and signature, or a
    /// failure; the newcomer is admitted into its key's antichain and walked on. `Ok(live
    /// states)` when every position was met.
    fn walk_positions<E>(
        &self,
        mut walk: Antichains<Step>,
        max_states: usize,
        mut extend: impl FnMut(&Antichains<Step>, u32, u32, u32) -> Result<(usize, Bits), E>,
    ) -> Result<usize, Stop<E>> {
        for h in (1..self.heap).rev() {
            if self.rows[h as usize].is_empty() {
                continue;
            }
            let mut work = walk.live_ids();
            while let Some(i) = work.pop() {
                if !walk.live[i as usize] {
                    continue;
                }
                let e2 = self.rows[h as usize][walk.states[i as usize].elem as usize];
                let (key, sig) = extend(&walk, i, h, e2).map_err(Stop::Failure)?;
                if let Some(id) = walk.admit(key, Step { elem: e2, parent: i, heap: h }, sig) {
                    work.push(id);
                }
                if walk.len() > max_states {
                    return Err(Stop::Budget);
                }
            }
        }
        Ok(walk.alive)
    }

    /// The proved set of level k as elements (dense numbering).
    pub fn level_set(&self, k: usize) -> Option<&[bool]> {
        self.levels.get(k).map(Vec::as_slice)
    }

    /// The total of element z's least position.
    pub fn least_total(&self, z: u32) -> u32 {
        self.total[z as usize]
    }

    /// Element z as its part in the refinement's monoid and its counters' values (one per
    /// counted heap, in the refinement's order).
    pub fn parts_of(&self, z: u32) -> (u32, Vec<u32>) {
        let qs = self.refinement.q.size() as u64;
        let r = (self.refinement.cap + 1) as u64;
        let raw = self.raw[z as usize];
        let mut rest = raw / qs;
        let counters = (0..self.refinement.counted.len())
            .map(|_| {
                let v = (rest % r) as u32;
                rest /= r;
                v
            })
            .collect();
        ((raw % qs) as u32, counters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Convention, GameSpec, Position};
    use crate::quotient::compute::{Limits, QuotientBuilder};
    use crate::quotient::recheck::{Recheck, ShiftClaim, recheck};
    use crate::solve::reference::ReferenceSearch;

    fn code(game: &str) -> OctalCode {
        game.parse::<GameSpec>().unwrap().octal().unwrap().clone()
    }

    fn ladder(game: &str, heap: u32, counted: &[u32], cap: u32) -> Ladder {
        let c = code(game);
        let mut b = QuotientBuilder::new(&c, Limits::default());
        while b.max_heap() < heap - 1 {
            b.add_heap().unwrap();
        }
        let r = Refinement {
            q: b.monoid().clone(),
            images: b.heap_images().to_vec(),
            counted: counted.to_vec(),
            cap,
            period: 1,
        };
        Ladder::new(&c, heap, r, 1 << 22).unwrap()
    }

    /// Every R of heaps below `heap` with at most `total` tokens, and whether Hᵏ + R is a
    /// P-position by the forward search (which knows nothing of quotients).
    fn beside<'s, 'g: 's, R: crate::game::GameRules + ?Sized>(
        search: &'s mut ReferenceSearch<'g, R>,
        heap: u32,
        k: usize,
        total: u32,
    ) -> impl Iterator<Item = (Vec<u32>, bool)> + 's {
        crate::quotient::tests::partitions(total)
            .into_iter()
            .filter(move |r| r.iter().all(|&h| h < heap))
            .map(move |r| {
                let mut heaps = r.clone();
                heaps.extend(std::iter::repeat_n(heap, k));
                let p = !search.solve(&Position::new(heaps)).0;
                (r, p)
            })
    }

    /// Every proved level agrees with the forward search (which knows nothing of quotients)
    /// on every Hᵏ + R with R of heaps below H and at most `total` tokens.
    fn check(game: &str, heap: u32, counted: &[u32], cap: u32, levels: usize, total: u32) -> Vec<Level> {
        let c = code(game);
        let mut l = ladder(game, heap, counted, cap);
        let mut search = ReferenceSearch::new(&c, Convention::Misere);
        let mut out = Vec::new();
        for k in 0..levels {
            let v = l.climb(1 << 20);
            out.push(v.clone());
            if !matches!(v, Level::Factors { .. }) {
                break;
            }
            for (r, p) in beside(&mut search, heap, k, total) {
                assert_eq!(l.is_p(k, &r), Some(p), "{game} {heap}^{k} + {r:?}");
            }
        }
        out
    }

    #[test]
    fn proved_levels_agree_with_the_forward_search() {
        for (game, heap, counted, cap, levels, total, proved) in [
            ("dawson", 10u32, &[][..], 1u32, 3usize, 12u32, 1usize),
            ("dawson", 10, &[6, 4], 3, 3, 12, 3),
            ("dawson", 14, &[], 1, 2, 10, 2),
            ("kayles", 9, &[], 1, 3, 10, 1),
            ("kayles", 9, &[5], 3, 3, 10, 3),
            ("octal:0.123", 7, &[], 1, 3, 12, 3),
        ] {
            let v = check(game, heap, counted, cap, levels, total);
            let factors = v.iter().filter(|l| matches!(l, Level::Factors { .. })).count();
            assert_eq!(factors, proved, "{game} {heap} {counted:?}: {v:?}");
        }
    }

    /// A level that does not factor really does not: the forward search finds two
    /// positions with the same image and different outcomes beside Hᵏ, no larger than the
    /// failure reported (the least mismatch and its element's least position).
    #[test]
    fn a_split_is_two_positions_the_refinement_confuses() {
        for (game, heap, level) in [("dawson", 10u32, 1usize), ("kayles", 9, 1)] {
            let c = code(game);
            let mut l = ladder(game, heap, &[], 1);
            for _ in 0..level {
                assert!(matches!(l.climb(1 << 20), Level::Factors { .. }));
            }
            let Level::Splits { position, .. } = l.climb(1 << 20) else { panic!("{game} {heap}: no split") };
            let total: u32 = position.iter().sum();
            let mut search = ReferenceSearch::new(&c, Convention::Misere);
            let mut seen: std::collections::HashMap<u32, bool> = std::collections::HashMap::new();
            let mut found = false;
            for (r, p) in beside(&mut search, heap, level, total) {
                if *seen.entry(l.element(&r)).or_insert(p) != p {
                    found = true;
                    break;
                }
            }
            assert!(found, "{game} {heap}: no two positions of total <= {total} told apart");
        }
    }

    /// The ladder with heap `g` only counted (its part in the quotient is the identity),
    /// exact below `cap` − 1, then its parity.
    fn free_ladder(game: &str, heap: u32, g: u32, cap: u32) -> Ladder {
        let c = code(game);
        let mut b = QuotientBuilder::new(&c, Limits::default());
        while b.max_heap() < heap - 1 {
            b.add_heap().unwrap();
        }
        let mut images = b.heap_images().to_vec();
        images[g as usize] = 0;
        let r = Refinement { q: b.monoid().clone(), images, counted: vec![g], cap, period: 2 };
        Ladder::new(&c, heap, r, 1 << 22).unwrap()
    }

    /// Both checks of a form: `check_shift`, and the second check (`recheck`, written from
    /// the lemma, with levels 0..k₀ − 1 taken as claims), which must agree; the first's verdict.
    fn both(game: &str, l: &Ladder, form: &ShiftForm) -> ShiftCheck {
        let first = l.check_shift(form, 1 << 20).unwrap();
        let claim = ShiftClaim::of(&code(game), l, form).unwrap();
        let second = recheck(&claim, 1 << 22).unwrap();
        let agree = matches!(
            (&first, &second),
            (ShiftCheck::Proved(_), Recheck::Consistent { .. })
                | (ShiftCheck::Fails { .. }, Recheck::Inconsistent { .. })
        );
        assert!(agree, "{game}: the two checks disagree: {first:?} and {second:?}");
        first
    }

    /// A shift form proved from level k₀ predicts o(Hᵏ + R) for k past every proved level;
    /// the forward search agrees on every Hᵏ + R, k₀ ≤ k ≤ k₀ + 2, R of at most `total`
    /// tokens (Kayles, H = 13, heap 4 or 8 counted; only levels 0..k₀ climbed). A form with one entry flipped (one a position reads) is refused.
    #[test]
    fn a_proved_shift_form_agrees_with_the_forward_search_past_the_ladder() {
        for (game, heap, g, k0, total) in [("kayles", 13u32, 4u32, 1usize, 7u32), ("kayles", 13, 8, 1, 7)] {
            let c = code(game);
            let mut l = free_ladder(game, heap, g, 8);
            for _ in 0..=k0 {
                assert!(matches!(l.climb(1 << 20), Level::Factors { .. }), "{game}");
            }
            let form = l.shift_form(k0, -(k0 as i64), 1, 0).unwrap();
            let v = both(game, &l, &form);
            assert!(matches!(v, ShiftCheck::Proved { .. }), "{game}: {v:?}");
            let mut search = ReferenceSearch::new(&c, Convention::Misere);
            let mut seen = 0;
            for k in k0..=k0 + 2 {
                for (r, p) in beside(&mut search, heap, k, total) {
                    assert_eq!(form.is_p(&l, k, &r), Some(p), "{game} {heap}^{k} + {r:?}");
                    seen += 1;
                }
            }
            assert!(seen >= 40, "{seen}");
            // H^(k0+1) alone reads F(1, −k0 − 1): flipping it must be caught.
            let mut wrong = form.clone();
            wrong.flip(0, 0, -(k0 as i64) - 1);
            let v = both(game, &l, &wrong);
            assert!(matches!(v, ShiftCheck::Fails { .. }), "{game}: a flipped form passed: {v:?}");
        }
    }

    /// A shift form is refused with its base level not proved, a window narrower than the
    /// counter's period, or more than one counted heap, and checked only over its own
    /// refinement.
    #[test]
    fn a_shift_form_needs_proved_levels_that_shift() {
        let mut l = free_ladder("dawson", 10, 6, 8);
        assert_eq!(l.shift_form(0, -1, 1, 0), Err(ShiftError::Unproved { k0: 0, proved: 0 }));
        l.climb(1 << 20);
        assert!(matches!(l.shift_form(0, 0, 0, 0), Err(ShiftError::Window { .. })));
        let r = l.refinement().clone();
        let mut two = Refinement { counted: vec![6, 4], ..r };
        two.cap = 8;
        let mut l2 = Ladder::new(&code("dawson"), 10, two, 1 << 22).unwrap();
        l2.climb(1 << 20);
        assert_eq!(l2.shift_form(0, -1, 1, 0), Err(ShiftError::Counted(2)));
        // A form is checked only over the refinement it was read from.
        let form = l.shift_form(0, -1, 12, 0).unwrap();
        let mut r1 = l.refinement().clone();
        r1.period = 1;
        let mut l1 = Ladder::new(&code("dawson"), 10, r1, 1 << 22).unwrap();
        l1.climb(1 << 20);
        assert!(matches!(l1.check_shift(&form, 1 << 20), Err(ShiftError::Foreign { .. })));
    }

    /// Level 0 re-derives the quotient's own P-set, for Dawson's Kayles heaps 1..25.
    #[test]
    fn level_zero_is_the_quotients_p_set() {
        let mut l = ladder("dawson", 26, &[], 1);
        assert!(matches!(l.climb(1 << 20), Level::Factors { p_count: 23, .. }));
        let c = code("dawson");
        let mut b = QuotientBuilder::new(&c, Limits::default());
        while b.max_heap() < 25 {
            b.add_heap().unwrap();
        }
        for z in 0..l.size() as u32 {
            let heaps = l.least_position(z);
            let x = heaps.iter().fold(0, |acc, &h| b.monoid().mul(acc, b.heap_images()[h as usize]));
            assert_eq!(l.is_p(0, &heaps), Some(b.monoid().is_p(x)), "{heaps:?}");
        }
    }

    /// A two-region form where no one-region form exists: Kayles, H = 9, heap 5 counted.
    /// Levels 1..3 are not F(x, c − k) (refused), but F(x, min(c, 1), c − k) is, and proved
    /// from level 1 it predicts every 9ᵏ + R the forward search reaches (k ≤ 5, past the
    /// climbed levels). Every flipped entry of 14 read at k = 2 and not at the base level
    /// (P to N and N to P) is refused.
    #[test]
    fn a_two_region_form_proves_what_one_region_cannot() {
        let (game, heap, g, k0, total) = ("kayles", 9u32, 5u32, 1usize, 6u32);
        let c = code(game);
        let mut l = free_ladder(game, heap, g, 10);
        for _ in 0..=3 {
            assert!(matches!(l.climb(1 << 20), Level::Factors { .. }));
        }
        assert!(matches!(l.shift_form(k0, -2, 1, 0), Err(ShiftError::NotShifted { .. })));
        let form = l.shift_form(k0, -2, 1, 1).unwrap();
        let v = both(game, &l, &form);
        assert!(matches!(v, ShiftCheck::Proved { .. }), "{v:?}");
        let mut search = ReferenceSearch::new(&c, Convention::Misere);
        let mut seen = 0;
        for k in k0..=5 {
            for (r, p) in beside(&mut search, heap, k, total) {
                assert_eq!(form.is_p(&l, k, &r), Some(p), "{game} {heap}^{k} + {r:?}");
                seen += 1;
            }
        }
        assert!(seen >= 60, "{seen}");
        // Entries read at k = 2 (e = −2) and never at the base level: 9² + R with no 5, and
        // 9^(c+1) + 5^c + R; R small. A P read as N can be caught only by the walk (some
        // position is then N with every option N), an N read as P by the per-image check.
        let r = l.refinement();
        let mut flipped = [0usize; 2];
        for rest in [&[][..], &[1], &[2], &[3], &[4], &[2, 2], &[3, 1]] {
            let x = rest.iter().fold(0, |acc, &h| r.q.mul(acc, r.images[h as usize]));
            for (cc, d) in [(0i64, -2i64), (1, -1)] {
                let mut wrong = form.clone();
                wrong.flip(x, cc, d);
                flipped[form.value(x, cc, d) as usize] += 1;
                let v = both(game, &l, &wrong);
                assert!(
                    matches!(v, ShiftCheck::Fails { .. }),
                    "F({rest:?}, {cc}, {d}) flipped passed: {v:?}"
                );
            }
        }
        assert!(flipped[0] > 0 && flipped[1] > 0, "flipped N, P: {flipped:?}");
    }

    /// The second check takes the levels below k₀ as claims, not theorems: a level-0 entry
    /// flipped (for R = ∅, the misère rule itself, and for small R) is refused. The claim it
    /// proves, read its own way, is the forward search's outcome of 9ᵏ + R, k ≤ 4, R ≤ 6 tokens.
    #[test]
    fn the_second_check_refuses_a_wrong_level_below_the_form() {
        let (game, heap, g) = ("kayles", 9u32, 5u32);
        let mut l = free_ladder(game, heap, g, 10);
        for _ in 0..=3 {
            assert!(matches!(l.climb(1 << 20), Level::Factors { .. }));
        }
        let form = l.shift_form(1, -2, 1, 1).unwrap();
        let c = code(game);
        let claim = ShiftClaim::of(&c, &l, &form).unwrap();
        assert!(matches!(recheck(&claim, 1 << 22).unwrap(), Recheck::Consistent { .. }));
        // The claim, read by the second check's own reading, is the forward search's outcome.
        let mut search = ReferenceSearch::new(&c, Convention::Misere);
        for k in 0..=4 {
            for (r, p) in beside(&mut search, heap, k, 6) {
                assert_eq!(claim.outcome(k, &r), p, "{game} {heap}^{k} + {r:?}");
            }
        }
        let r = l.refinement();
        for rest in [&[][..], &[1], &[2], &[3], &[2, 2], &[4, 1]] {
            let x = rest.iter().fold(0, |acc, &h| r.q.mul(acc, r.images[h as usize]));
            let mut wrong = claim.clone();
            let i = x as usize * (claim.cap as usize + 1);
            wrong.levels[0][i] = !wrong.levels[0][i];
            let v = recheck(&wrong, 1 << 22).unwrap();
            assert!(matches!(v, Recheck::Inconsistent { .. }), "level 0 at {rest:?} flipped passed: {v:?}");
        }
    }

    /// A form right at every step k > k₀ but wrong at the base level k₀ itself is refused:
    /// Kayles, H = 9, heap 5 counted, the c* = 2 form from level 1 with the entry that
    /// 9 + 5, 9 + 5 + 1 or 9 + 5 + 4 reads (at k = 1 only) flipped. Without the base check
    /// each passes the step (F at level 1 is only read through H from level 2, as a claim),
    /// and the form then says 9 + 5 is N where the forward search says P.
    #[test]
    fn a_form_wrong_at_its_base_level_is_refused() {
        let (game, heap, g, k0) = ("kayles", 9u32, 5u32, 1usize);
        let mut l = free_ladder(game, heap, g, 14);
        for _ in 0..=4 {
            assert!(matches!(l.climb(1 << 20), Level::Factors { .. }));
        }
        let form = l.shift_form(k0, -4, 1, 2).unwrap();
        assert!(matches!(both(game, &l, &form), ShiftCheck::Proved { .. }));
        let c = code(game);
        let mut search = ReferenceSearch::new(&c, Convention::Misere);
        let rf = l.refinement();
        for rest in [&[][..], &[1], &[4]] {
            let mut r = rest.to_vec();
            r.push(g);
            let x = rest.iter().fold(0, |acc, &h| rf.q.mul(acc, rf.images[h as usize]));
            let mut heaps = r.clone();
            heaps.push(heap);
            let p = !search.solve(&Position::new(heaps)).0;
            assert_eq!(form.is_p(&l, k0, &r), Some(p), "{r:?}");
            let mut wrong = form.clone();
            wrong.flip(x, 1, 1 - k0 as i64);
            assert_eq!(wrong.is_p(&l, k0, &r), Some(!p), "{r:?}");
            let v = both(game, &l, &wrong);
            assert!(matches!(v, ShiftCheck::Fails { .. }), "9 + {r:?} flipped at the base passed: {v:?}");
        }
    }
}
