//! The computation: the misère quotient of the closure of heaps 1..n, built one heap at a
//! time, as Siegel's MisereSolver does.
//!
//! Adding heap n to a known quotient Q of heaps 1..n−1 (with its map Φ), the heap's options
//! are sums of at most two smaller heaps, so their images O ⊆ Q are products in the table.
//! Then one of two things happens:
//!
//! * **Identification.** If some position Y of the old closure has option images O_Y with
//!   O_Y empty exactly when O is, and, for every w ∈ Q, O·w meets P exactly when O_Y·w does,
//!   then the new heap is equivalent to Y and the quotient does not grow. (Proof, by
//!   induction on a position Z = k·Hₙ + X: replacing every copy of Hₙ by Y gives a position
//!   of the old closure with the same outcome, because Z has a P-option exactly when its
//!   image does.) The signature of an option set, the set of w with O·w ∩ P ≠ ∅, is hashed,
//!   so the test costs |O|·|Q| operations and a lookup. The candidates Y are the heaps and
//!   one least representative of each element.
//! * **Extension.** Otherwise the heap is a new generator x. The outcome of X + i·x is
//!   computed for every element of Q and i = 0, 1, 2, … from the options of a least
//!   representative of X (images (s, i)) and of the copies of the heap (images (X·o, i−1)),
//!   until the row of outcomes repeats (in misère play xⁱ⁺² = xⁱ eventually, so it does).
//!   The candidate Q × {1, x, x², …} is then reduced by indistinguishability (Moore's
//!   refinement), giving the new quotient.
//!
//! The construction is checked afterwards by [`certify::closure_check`](super::certify),
//! an exact test over every position of the closure, so a result marked verified never
//! rests on the construction's reasoning alone.

use std::collections::HashMap;

use crate::game::{TakeBreakCode as OctalCode, heap_results};

use super::QuotientError;
use super::certify::ClosureState;
use super::monoid::{BipartiteMonoid, ElementSet, reduce};

/// How many derivatives deep an extension may look.
const MAX_DEPTH: usize = 6;

/// Limits on a computation.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest quotient accepted; beyond it the computation stops with
    /// [`QuotientError::TooLarge`].
    pub max_elements: usize,
    /// The longest run of outcome rows i = 0, 1, 2, … tried for one new generator.
    pub max_power: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_elements: 2048, max_power: 64 }
    }
}

/// The incremental quotient computation for one octal game.
#[derive(Clone, Debug)]
pub struct QuotientBuilder {
    code: OctalCode,
    limits: Limits,
    q: BipartiteMonoid,
    /// Image of heap h, h = 0..=n (heap 0 is the identity).
    heap_img: Vec<u32>,
    /// Option images of heap h, sorted.
    heap_opts: Vec<Vec<u32>>,
    /// For each element, the option images of a least representative position.
    rep_opts: Vec<Vec<u32>>,
    /// The weight Σ(2h − 1) of that representative (every move lowers it).
    rep_weight: Vec<u64>,
    /// Identification signatures of known positions → their element.
    sigs: HashMap<ElementSet, u32>,
    /// For each element o, the contexts w with o·w ∈ P.
    p_over: Vec<ElementSet>,
    generators: Vec<u32>,
}

/// One step's outcome, for progress reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The heap is equivalent to an element already present.
    Identified(u32),
    /// The heap is a new generator; the quotient now has this many elements.
    Extended(usize),
}

impl QuotientBuilder {
    /// A computation for `code` with nothing added yet (the trivial quotient).
    pub fn new(code: &OctalCode, limits: Limits) -> Self {
        let mut b = QuotientBuilder {
            code: code.clone(),
            limits,
            q: BipartiteMonoid::trivial(),
            heap_img: vec![0],
            heap_opts: vec![Vec::new()],
            rep_opts: vec![Vec::new()],
            rep_weight: vec![0],
            sigs: HashMap::new(),
            p_over: Vec::new(),
            generators: Vec::new(),
        };
        b.rebuild_signatures();
        b
    }

    /// The octal code.
    pub fn code(&self) -> &OctalCode {
        &self.code
    }

    /// The largest heap added so far.
    pub fn max_heap(&self) -> u32 {
        self.heap_img.len() as u32 - 1
    }

    /// The current quotient.
    pub fn monoid(&self) -> &BipartiteMonoid {
        &self.q
    }

    /// Heap images 0..=max_heap.
    pub fn heap_images(&self) -> &[u32] {
        &self.heap_img
    }

    /// Option images of each heap 0..=max_heap.
    pub fn heap_options(&self) -> &[Vec<u32>] {
        &self.heap_opts
    }

    /// The option images of heap `n` under the current map.
    fn options_of(&self, n: u32) -> Vec<u32> {
        let mut set = ElementSet::new(self.q.size());
        for r in heap_results(&self.code, n) {
            let img = r.parts().iter().fold(0, |acc, &a| self.q.mul(acc, self.heap_img[a as usize]));
            set.insert(img);
        }
        set.to_vec()
    }

    /// The identification signature of an option set: the contexts w with O·w ∩ P ≠ ∅,
    /// plus one bit for "O is empty".
    fn signature(&self, opts: &[u32]) -> ElementSet {
        let n = self.q.size();
        let mut s = ElementSet::new(n + 1);
        for &o in opts {
            s.union_with(&self.p_over[o as usize]);
        }
        if opts.is_empty() {
            s.insert(n as u32);
        }
        s
    }

    fn rebuild_signatures(&mut self) {
        let n = self.q.size();
        self.p_over = (0..n as u32)
            .map(|o| {
                let mut s = ElementSet::new(n + 1);
                for w in 0..n as u32 {
                    if self.q.is_p(self.q.mul(o, w)) {
                        s.insert(w);
                    }
                }
                s
            })
            .collect();
        let mut sigs = HashMap::new();
        for (y, opts) in self.rep_opts.iter().enumerate() {
            sigs.entry(self.signature(opts)).or_insert(y as u32);
        }
        for (h, opts) in self.heap_opts.iter().enumerate() {
            sigs.entry(self.signature(opts)).or_insert(self.heap_img[h]);
        }
        self.sigs = sigs;
    }

    /// Adds the next heap, n = max_heap + 1.
    pub fn add_heap(&mut self) -> Result<Step, QuotientError> {
        let n = self.max_heap() + 1;
        let opts = self.options_of(n);
        let sig = self.signature(&opts);
        if let Some(&y) = self.sigs.get(&sig) {
            self.heap_img.push(y);
            let w = 2 * n as u64 - 1;
            if w < self.rep_weight[y as usize] {
                self.rep_weight[y as usize] = w;
                self.rep_opts[y as usize] = opts.clone();
            }
            self.heap_opts.push(opts);
            return Ok(Step::Identified(y));
        }
        // Extend from Q; if the new heap tells apart positions that Q identifies, the check
        // fails and the extension is redone from the derivative, which sees deeper.
        let mut base = self.clone();
        for _depth in 0..MAX_DEPTH {
            let mut cand = base.clone();
            let o = cand.options_of(n);
            cand.extend(n, o)?;
            if let Some(states) = cand.consistent()? {
                cand.learn_states(&states);
                *self = cand;
                return Ok(Step::Extended(self.q.size()));
            }
            base = base.derivative()?;
        }
        Err(QuotientError::Internal(format!("heap {n}: no consistent extension within depth {MAX_DEPTH}")))
    }

    /// Adds heaps until `max_heap` is `n`, calling `progress` after each heap; `progress`
    /// returns false to stop, which gives [`QuotientError::Interrupted`].
    pub fn extend_to(
        &mut self,
        n: u32,
        progress: &mut dyn FnMut(u32, usize) -> bool,
    ) -> Result<(), QuotientError> {
        while self.max_heap() < n {
            self.add_heap()?;
            if !progress(self.max_heap(), self.q.size()) {
                return Err(QuotientError::Interrupted { heap: self.max_heap() });
            }
        }
        Ok(())
    }

    /// Heap n is a new generator with option images `opts`: build Q × ⟨x⟩ and reduce.
    fn extend(&mut self, n: u32, opts: Vec<u32>) -> Result<(), QuotientError> {
        let q = &self.q;
        let size = q.size();
        let mut order: Vec<u32> = (0..size as u32).collect();
        order.sort_by_key(|&x| (self.rep_weight[x as usize], x));
        // rows[i][x]: is X + i·Hₙ a P-position, for X with image x.
        let mut rows: Vec<Vec<bool>> = vec![q.p_marks().to_vec()];
        let (tail, period) = loop {
            let i = rows.len();
            if i > self.limits.max_power {
                return Err(QuotientError::NoPowerCycle { heap: n, tried: self.limits.max_power });
            }
            let prev = &rows[i - 1];
            let mut row = vec![false; size];
            for &x in &order {
                let own = &self.rep_opts[x as usize];
                let has_move = !own.is_empty() || !opts.is_empty();
                row[x as usize] = has_move
                    && own.iter().all(|&s| !row[s as usize])
                    && opts.iter().all(|&o| !prev[q.mul(x, o) as usize]);
            }
            if let Some(j) = rows.iter().position(|r| *r == row) {
                break (j, i - j);
            }
            rows.push(row);
        };
        let len = tail + period;
        let cap = |i: usize| if i < len { i } else { tail + (i - tail) % period };
        let count = size * len;
        if count > 64 * self.limits.max_elements.max(1) {
            return Err(QuotientError::TooLarge { heap: n, limit: self.limits.max_elements });
        }
        let id = |x: u32, i: usize| x * len as u32 + i as u32;
        let split = |e: u32| (e / len as u32, e as usize % len);
        // Generators: the old heap images (as (g, 0)) and the new heap (1, 1).
        let mut gens: Vec<u32> = Vec::new();
        for &g in &self.heap_img[1..] {
            if !gens.contains(&id(g, 0)) {
                gens.push(id(g, 0));
            }
        }
        gens.push(id(0, cap(1)));
        let mul = |a: u32, b: u32| {
            let (x, i) = split(a);
            let (y, j) = split(b);
            id(q.mul(x, y), cap(i + j))
        };
        let is_p = |e: u32| {
            let (x, i) = split(e);
            rows[i][x as usize]
        };
        let (blocks, class) = reduce(count, 0, &gens, is_p, mul);
        if blocks > self.limits.max_elements {
            return Err(QuotientError::TooLarge { heap: n, limit: self.limits.max_elements });
        }
        // Least representative of each class, and the new table.
        let hw = 2 * n as u64 - 1;
        let weight = |e: u32| {
            let (x, i) = split(e);
            self.rep_weight[x as usize] + i as u64 * hw
        };
        let mut rep = vec![u32::MAX; blocks];
        for e in 0..count as u32 {
            let c = class[e as usize] as usize;
            if rep[c] == u32::MAX || weight(e) < weight(rep[c]) {
                rep[c] = e;
            }
        }
        let mut table = vec![0u32; blocks * blocks];
        for a in 0..blocks {
            for b in a..blocks {
                let v = class[mul(rep[a], rep[b]) as usize];
                table[a * blocks + b] = v;
                table[b * blocks + a] = v;
            }
        }
        let p: Vec<bool> = rep.iter().map(|&e| is_p(e)).collect();
        let map_set = |set: &mut Vec<u32>| {
            set.sort_unstable();
            set.dedup();
        };
        let mut rep_opts = Vec::with_capacity(blocks);
        let mut rep_weight = Vec::with_capacity(blocks);
        for &e in &rep {
            let (x, i) = split(e);
            let mut s: Vec<u32> =
                self.rep_opts[x as usize].iter().map(|&o| class[id(o, i) as usize]).collect();
            if i >= 1 {
                s.extend(opts.iter().map(|&o| class[id(q.mul(x, o), i - 1) as usize]));
            }
            map_set(&mut s);
            rep_opts.push(s);
            rep_weight.push(weight(e));
        }
        let old_class = |g: u32| class[id(g, 0) as usize];
        let heap_img: Vec<u32> = self
            .heap_img
            .iter()
            .map(|&g| old_class(g))
            .chain(std::iter::once(class[id(0, cap(1)) as usize]))
            .collect();
        let mut heap_opts: Vec<Vec<u32>> = self
            .heap_opts
            .iter()
            .map(|set| {
                let mut s: Vec<u32> = set.iter().map(|&o| old_class(o)).collect();
                map_set(&mut s);
                s
            })
            .collect();
        let mut new_opts: Vec<u32> = opts.iter().map(|&o| old_class(o)).collect();
        map_set(&mut new_opts);
        heap_opts.push(new_opts);
        self.q = BipartiteMonoid::from_table(blocks, table, p).map_err(QuotientError::Internal)?;
        self.heap_img = heap_img;
        self.heap_opts = heap_opts;
        self.rep_opts = rep_opts;
        self.rep_weight = rep_weight;
        self.generators.push(n);
        self.rebuild_signatures();
        Ok(())
    }

    /// Whether the current map predicts every outcome of the closure (the exact test of
    /// [`closure_check`](super::certify::closure_check)); if so, the states of the closure.
    fn consistent(&self) -> Result<Option<Vec<ClosureState>>, QuotientError> {
        match super::certify::closure_states(&self.q, &self.heap_img, &self.heap_opts, self.state_limit()) {
            Ok(states) => Ok(Some(states)),
            Err(e) if e.starts_with("more than") => {
                Err(QuotientError::TooLarge { heap: self.max_heap(), limit: self.limits.max_elements })
            }
            Err(_) => Ok(None),
        }
    }

    /// Makes every position of the verified closure a candidate for identification: a state
    /// (x, σ, e) is the image and option signature of some position Y, so a later heap whose
    /// options have signature σ (and are empty iff e) is equivalent to Y, of image x. Without
    /// this, only heaps and one least position per element are candidates, and a heap that
    /// matches another position is added as a new generator, only to merge back.
    fn learn_states(&mut self, states: &[ClosureState]) {
        let n = self.q.size();
        for (x, sig, empty) in states {
            let mut key = ElementSet::new(n + 1);
            key.union_with(sig);
            if *empty {
                key.insert(n as u32);
            }
            self.sigs.entry(key).or_insert(*x);
        }
    }

    fn state_limit(&self) -> usize {
        256 * self.limits.max_elements.max(1)
    }

    /// The derivative of the current (correct) map: the monoid of pairs (Φ(G), S(G)) of the
    /// positions G of the closure, S(G) the images of G's options, multiplied as
    /// (x, S)(y, T) = (xy, S·y ∪ x·T) and marked as x is. It is finer than Φ, so it still
    /// predicts every outcome, and it remembers one more level of each position's options:
    /// the base to extend from when a new heap tells apart positions that Φ identifies.
    fn derivative(&self) -> Result<Self, QuotientError> {
        let q = &self.q;
        let size = q.size();
        let n = self.max_heap() as usize;
        let mut letters: Vec<(u32, ElementSet)> = Vec::new();
        let mut letter_of = vec![0usize; n + 1];
        for (h, slot) in letter_of.iter_mut().enumerate().skip(1) {
            let mut set = ElementSet::new(size);
            for &o in &self.heap_opts[h] {
                set.insert(o);
            }
            let l = (self.heap_img[h], set);
            *slot = match letters.iter().position(|x| *x == l) {
                Some(i) => i,
                None => {
                    letters.push(l);
                    letters.len() - 1
                }
            };
        }
        let times = |a: &(u32, ElementSet), b: &(u32, ElementSet)| {
            let mut s = ElementSet::new(size);
            for e in a.1.iter() {
                s.insert(q.mul(e, b.0));
            }
            for e in b.1.iter() {
                s.insert(q.mul(a.0, e));
            }
            (q.mul(a.0, b.0), s)
        };
        let mut ids: HashMap<(u32, ElementSet), u32> = HashMap::new();
        let mut states: Vec<(u32, ElementSet)> = vec![(0, ElementSet::new(size))];
        ids.insert(states[0].clone(), 0);
        let mut succ: Vec<Vec<u32>> = Vec::new();
        let mut i = 0;
        while i < states.len() {
            let st = states[i].clone();
            let mut row = Vec::with_capacity(letters.len());
            for l in &letters {
                let next = times(&st, l);
                let len = ids.len() as u32;
                let id = *ids.entry(next.clone()).or_insert_with(|| {
                    states.push(next);
                    len
                });
                row.push(id);
            }
            succ.push(row);
            if states.len() > 4 * self.limits.max_elements.max(1) {
                return Err(QuotientError::TooLarge { heap: n as u32 + 1, limit: self.limits.max_elements });
            }
            i += 1;
        }
        let count = states.len();
        // Least-weight position of each state (Dijkstra over letters, weight 2h − 1 of the
        // smallest heap with that letter), remembered as parent links.
        let mut letter_heap = vec![0u32; letters.len()];
        for h in (1..=n).rev() {
            letter_heap[letter_of[h]] = h as u32;
        }
        let mut dist = vec![u64::MAX; count];
        let mut parent = vec![(u32::MAX, 0u32); count];
        let mut queue = std::collections::BinaryHeap::new();
        dist[0] = 0;
        queue.push(std::cmp::Reverse((0u64, 0u32)));
        while let Some(std::cmp::Reverse((d, e))) = queue.pop() {
            if d > dist[e as usize] {
                continue;
            }
            for (l, &t) in succ[e as usize].iter().enumerate() {
                let nd = d + 2 * letter_heap[l] as u64 - 1;
                if nd < dist[t as usize] {
                    dist[t as usize] = nd;
                    parent[t as usize] = (e, letter_heap[l]);
                    queue.push(std::cmp::Reverse((nd, t)));
                }
            }
        }
        let mut table = vec![0u32; count * count];
        for a in 0..count {
            for b in a..count {
                let v = ids[&times(&states[a], &states[b])];
                table[a * count + b] = v;
                table[b * count + a] = v;
            }
        }
        let p: Vec<bool> = states.iter().map(|st| q.is_p(st.0)).collect();
        let heap_img: Vec<u32> = std::iter::once(0).chain((1..=n).map(|h| succ[0][letter_of[h]])).collect();
        let rep_heaps: Vec<Vec<u32>> = (0..count as u32)
            .map(|e| {
                let mut hs = Vec::new();
                let mut cur = e;
                while cur != 0 {
                    let (p, h) = parent[cur as usize];
                    hs.push(h);
                    cur = p;
                }
                hs
            })
            .collect();
        let mut d = self.clone();
        d.q = BipartiteMonoid::from_table(count, table, p).map_err(QuotientError::Internal)?;
        d.heap_img = heap_img;
        d.heap_opts = (0..=n as u32).map(|h| if h == 0 { Vec::new() } else { d.options_of(h) }).collect();
        d.rep_weight = dist;
        d.rep_opts = rep_heaps.iter().map(|hs| d.position_options(hs)).collect();
        d.rebuild_signatures();
        Ok(d)
    }

    /// The option images of the position with these heaps.
    fn position_options(&self, heaps: &[u32]) -> Vec<u32> {
        let q = &self.q;
        let mut set = ElementSet::new(q.size());
        for i in 0..heaps.len() {
            let rest = heaps
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .fold(0, |acc, (_, &h)| q.mul(acc, self.heap_img[h as usize]));
            for &o in &self.heap_opts[heaps[i] as usize] {
                set.insert(q.mul(rest, o));
            }
        }
        set.to_vec()
    }

    /// The heaps that entered as new generators (before any later merging).
    pub fn generator_heaps(&self) -> &[u32] {
        &self.generators
    }
}
