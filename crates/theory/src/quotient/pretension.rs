//! Pretensions: a candidate quotient (Q, P) with a map Φ from heaps to Q, and the exact
//! search for the least position whose outcome it predicts wrongly.
//!
//! A pretension predicts that a position G of the closure of heaps 1..n is a misère
//! P-position exactly when Φ(G) ∈ P. By induction on positions, the prediction is right
//! everywhere exactly when there is no *failure*:
//! * a **P-failure**: Φ(G) ∈ P, and G has an option G′ with Φ(G′) ∈ P;
//! * an **N-failure**: Φ(G) ∉ P, G has options, and Φ(G′) ∉ P for all of them.
//!
//! P-failures are found element by element: G = X + Hₕ fails exactly when Φ(X)·Φ(Hₕ) ∈ P
//! and Φ(X)·t ∈ P for an option image t of Hₕ, so one position X per element suffices.
//!
//! N-failures need a walk over positions. What a position G brings to any larger position
//! is its image x = Φ(G) and its *signature* σ(G) = {w ∈ Q : S(G)·w ∩ P ≠ ∅}, where S(G) is
//! the set of its options' images (the contexts w in which G + W has a P-option within G).
//! Adding a heap with image y and signature τ gives (x·y, y⁻¹σ ∪ x⁻¹τ), with
//! z⁻¹A = {w : z·w ∈ A}, and G N-fails exactly when x ∉ P and 1 ∉ σ (G ≠ 0). Both are
//! monotone: a state (x, σ′) with σ′ ⊆ σ fails whenever (x, σ) does, and so do their
//! extensions. The walk therefore visits positions in increasing [`Word`] order and drops
//! every position whose state is covered by one already met (with the same image and a
//! smaller or equal signature), together with the positions it leads to along the walk.
//! Because the word order is a monomial order, every position dropped is covered by a
//! smaller position that is visited or itself covered; so the walk is exact, and the first
//! failure it meets is the least one. What it keeps, for each element, is the antichain of
//! the minimal signatures of the whole closure.

use super::QuotientError;
use super::monoid::{BipartiteMonoid, ElementSet};
use super::word::Word;

/// A candidate quotient with its heap map.
#[derive(Clone, Debug)]
pub struct Pretension {
    /// (Q, P).
    pub q: BipartiteMonoid,
    /// Φ(Hₕ) for h = 0..=n.
    pub images: Vec<u32>,
    /// The images of the options of Hₕ, sorted, without repeats.
    pub options: Vec<Vec<u32>>,
    /// `p_over[x]` = x⁻¹P = {w : x·w ∈ P}.
    p_over: Vec<ElementSet>,
}

/// One letter of the walk: the heaps that act alike (same image and signature) are one.
#[derive(Clone, Debug)]
pub struct Letter {
    /// The smallest heap with this letter.
    pub heap: u32,
    /// Its image.
    pub image: u32,
    /// The signature of its option images.
    pub sig: ElementSet,
    /// Its option images.
    pub options: Vec<u32>,
    /// The heap has no options (a position of such heaps only is terminal).
    pub inert: bool,
}

/// The minimal signatures met for each element: a witness position stands behind each.
#[derive(Clone, Debug, Default)]
pub struct Antichains {
    /// `sets[x]`: pairwise incomparable signatures of positions with image x.
    pub sets: Vec<Vec<ElementSet>>,
}

impl Antichains {
    /// Empty antichains for a monoid of `size` elements.
    pub fn new(size: usize) -> Self {
        Antichains { sets: vec![Vec::new(); size] }
    }

    /// Whether some signature kept for `x` is contained in `sig`.
    pub fn covers(&self, x: u32, sig: &ElementSet) -> bool {
        self.sets[x as usize].iter().any(|s| s.is_subset(sig))
    }

    /// Adds (x, sig) unless covered; drops the signatures it covers. Whether it was added.
    fn offer(&mut self, x: u32, sig: &ElementSet) -> bool {
        let list = &mut self.sets[x as usize];
        if list.iter().any(|s| s.is_subset(sig)) {
            return false;
        }
        list.retain(|s| !sig.is_subset(s));
        list.push(sig.clone());
        true
    }

    /// The number of signatures kept.
    pub fn len(&self) -> usize {
        self.sets.iter().map(Vec::len).sum()
    }

    /// Whether none are kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Bounds on one failure search.
pub struct SearchBudget<'a> {
    /// The most states (positions not covered by an earlier one) the walk may visit.
    pub max_states: usize,
    /// Asked now and then; true stops the search with [`QuotientError::Interrupted`].
    pub stop: &'a dyn Fn() -> bool,
    /// The heap being added, for error messages.
    pub heap: u32,
}

/// What a completed search found.
#[derive(Debug)]
pub struct SearchResult {
    /// The least N-failure, if any (the walk stops there).
    pub failure: Option<Word>,
    /// States visited.
    pub states: usize,
}

impl Pretension {
    /// A pretension from its parts; the option images are sorted and deduplicated.
    pub fn new(q: BipartiteMonoid, images: Vec<u32>, mut options: Vec<Vec<u32>>) -> Self {
        for o in &mut options {
            o.sort_unstable();
            o.dedup();
        }
        let n = q.size();
        let p_over = (0..n as u32)
            .map(|x| {
                let mut s = ElementSet::new(n);
                for w in 0..n as u32 {
                    if q.is_p(q.mul(x, w)) {
                        s.insert(w);
                    }
                }
                s
            })
            .collect();
        Pretension { q, images, options, p_over }
    }

    /// The largest heap.
    pub fn max_heap(&self) -> u32 {
        self.images.len() as u32 - 1
    }

    /// x⁻¹P.
    pub fn p_over(&self, x: u32) -> &ElementSet {
        &self.p_over[x as usize]
    }

    /// The signature of a set of option images: the contexts w with S·w ∩ P ≠ ∅.
    pub fn signature(&self, opts: &[u32]) -> ElementSet {
        let mut s = ElementSet::new(self.q.size());
        for &o in opts {
            s.union_with(&self.p_over[o as usize]);
        }
        s
    }

    /// Φ of a word.
    pub fn phi(&self, w: &Word) -> u32 {
        let mut x = 0;
        for h in w.heaps_present() {
            x = self.q.mul(x, self.q.pow(self.images[h as usize], w.exponent(h) as u64));
        }
        x
    }

    /// The letters of the walk, by smallest heap: heaps without options are left out (they
    /// are the identity), and heaps with the same image and signature are one letter.
    pub fn letters(&self) -> Vec<Letter> {
        let mut out: Vec<Letter> = Vec::new();
        for h in 1..self.images.len() {
            let inert = self.options[h].is_empty();
            let image = self.images[h];
            if inert && image == 0 {
                // The identity with no options changes nothing.
                continue;
            }
            let sig = self.signature(&self.options[h]);
            if !out.iter().any(|l| l.image == image && l.sig == sig && l.inert == inert) {
                out.push(Letter { heap: h as u32, image, sig, options: self.options[h].clone(), inert });
            }
        }
        out
    }

    /// The least position (in [`Word`] order) of each element reachable from the heaps:
    /// `None` for elements no position reaches.
    pub fn least_words(&self, letters: &[Letter]) -> Vec<Option<Word>> {
        let n = self.q.size();
        let mut least: Vec<Option<Word>> = vec![None; n];
        least[0] = Some(Word::zero());
        let m = letters.len();
        let mut exps = vec![0u32; m];
        let mut stack: Vec<(usize, u32)> = Vec::new();
        let mut l = 0;
        while l < m {
            while stack.last().is_some_and(|&(lv, _)| lv < l) {
                stack.pop();
            }
            let base = stack.last().map_or(0, |&(_, x)| x);
            let next = self.q.mul(base, letters[l].image);
            if least[next as usize].is_none() {
                exps[l] += 1;
                least[next as usize] = Some(word_of(letters, &exps));
                match stack.last_mut() {
                    Some(top) if top.0 == l => top.1 = next,
                    _ => stack.push((l, next)),
                }
                l = 0;
            } else {
                exps[l] = 0;
                l += 1;
            }
        }
        least
    }

    /// The least P-failure, if any.
    pub fn p_failure(&self, letters: &[Letter], least: &[Option<Word>]) -> Option<Word> {
        let mut best: Option<Word> = None;
        for (x, w) in least.iter().enumerate() {
            let Some(w) = w else { continue };
            for l in letters {
                if self.q.is_p(self.q.mul(x as u32, l.image)) && l.sig.contains(x as u32) {
                    let mut heaps = w.heaps();
                    heaps.push(l.heap);
                    let f = Word::from_heaps(&heaps);
                    if best.as_ref().is_none_or(|b| f < *b) {
                        best = Some(f);
                    }
                }
            }
        }
        best
    }

    /// Whether `t` could be an option image of a position with image `x` without a
    /// P-failure in any context: no w with x·w ∈ P and t·w ∈ P.
    pub fn compatible(&self, x: u32, sig: &ElementSet) -> bool {
        !self.p_over[x as usize].meets(sig)
    }

    /// The N-failure walk (see the module notes). With `seed`, the positions without the
    /// last letter are taken as already verified, and their kept signatures (`seed`) cover
    /// positions from the start: only positions holding the last letter are walked.
    /// `antichains` receives every state kept.
    pub fn n_search(
        &self,
        letters: &[Letter],
        antichains: &mut Antichains,
        only_last: bool,
        budget: &SearchBudget<'_>,
    ) -> Result<SearchResult, QuotientError> {
        let n = self.q.size();
        let m = letters.len();
        if antichains.sets.len() != n {
            *antichains = Antichains::new(n);
        }
        if !only_last && self.q.is_p(0) {
            // The empty position is terminal: a misère win, never a P-position.
            return Ok(SearchResult { failure: Some(Word::zero()), states: 0 });
        }
        if m == 0 {
            return Ok(SearchResult { failure: None, states: 0 });
        }
        // Images of the terminal positions met (heaps without options only).
        let mut terminal_seen = vec![false; n];
        terminal_seen[0] = true;
        let mut exps = vec![0u32; m];
        // The walk's path: one frame per letter level with copies, deepest last. A frame
        // keeps the position's image, its option images S and σ(S) = ∪ p_over[s].
        struct Frame {
            level: usize,
            x: u32,
            opts: Vec<u32>,
            sig: ElementSet,
            terminal: bool,
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut states = 0usize;
        let mut sig = ElementSet::new(n);
        let mut opts: Vec<u32> = Vec::new();
        let empty: Vec<u32> = Vec::new();
        let mut l = 0;
        if only_last {
            // Positions holding at least one copy of the last letter.
            l = m - 1;
        }
        while l < m {
            while stack.last().is_some_and(|f| f.level < l) {
                stack.pop();
            }
            let (bx, bopts, bterm) = stack.last().map_or((0, &empty, true), |f| (f.x, &f.opts, f.terminal));
            let letter = &letters[l];
            let x = self.q.mul(bx, letter.image);
            let terminal = bterm && letter.inert;
            // S′ = S·y ∪ x_base·O, and σ(S′) = ∪ p_over[s′].
            sig.clear();
            opts.clear();
            let yrow = self.q.row(letter.image);
            opts.extend(bopts.iter().map(|&t| yrow[t as usize]));
            let brow = self.q.row(bx);
            opts.extend(letter.options.iter().map(|&t| brow[t as usize]));
            opts.sort_unstable();
            opts.dedup();
            for &t in &opts {
                sig.union_with(&self.p_over[t as usize]);
            }
            let fresh = if terminal {
                !std::mem::replace(&mut terminal_seen[x as usize], true)
            } else {
                antichains.offer(x, &sig)
            };
            if fresh {
                states += 1;
                if states > budget.max_states {
                    return Err(QuotientError::TooManyStates { heap: budget.heap, limit: budget.max_states });
                }
                if states.is_multiple_of(1 << 12) && (budget.stop)() {
                    return Err(QuotientError::Interrupted { heap: budget.heap.saturating_sub(1) });
                }
                exps[l] += 1;
                let fails = if terminal { self.q.is_p(x) } else { self.n_fails(x, &sig) };
                if fails {
                    return Ok(SearchResult { failure: Some(word_of(letters, &exps)), states });
                }
                match stack.last_mut() {
                    Some(top) if top.level == l => {
                        top.x = x;
                        top.terminal = terminal;
                        std::mem::swap(&mut top.sig, &mut sig);
                        std::mem::swap(&mut top.opts, &mut opts);
                    }
                    _ => stack.push(Frame { level: l, x, opts: opts.clone(), sig: sig.clone(), terminal }),
                }
                l = 0;
            } else {
                if only_last && l == m - 1 {
                    break;
                }
                exps[l] = 0;
                l += 1;
            }
        }
        Ok(SearchResult { failure: None, states })
    }

    fn n_fails(&self, x: u32, sig: &ElementSet) -> bool {
        !self.q.is_p(x) && !sig.contains(0)
    }

    /// The exact check: no P-failure and no N-failure anywhere in the closure. Returns the
    /// least failure, or the antichains and the number of states walked.
    pub fn verify(&self, budget: &SearchBudget<'_>) -> Result<Verdict, QuotientError> {
        let letters = self.letters();
        let least = self.least_words(&letters);
        let p_fail = self.p_failure(&letters, &least);
        let mut anti = Antichains::new(self.q.size());
        let r = self.n_search(&letters, &mut anti, false, budget)?;
        let failure = match (p_fail, r.failure) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Ok(match failure {
            Some(w) => Verdict::Fails(w),
            None => Verdict::Holds { antichains: anti, states: r.states, least },
        })
    }
}

/// What [`Pretension::verify`] concluded.
#[derive(Debug)]
pub enum Verdict {
    /// Every position is predicted rightly.
    Holds {
        /// The minimal signatures of each element.
        antichains: Antichains,
        /// States walked.
        states: usize,
        /// The least position of each element.
        least: Vec<Option<Word>>,
    },
    /// The least position predicted wrongly.
    Fails(Word),
}

/// The word in heaps of the letter exponents.
fn word_of(letters: &[Letter], exps: &[u32]) -> Word {
    let mut heaps = Vec::new();
    for (l, &e) in letters.iter().zip(exps) {
        heaps.extend(std::iter::repeat_n(l.heap, e as usize));
    }
    Word::from_heaps(&heaps)
}
