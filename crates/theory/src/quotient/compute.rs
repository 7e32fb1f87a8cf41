//! The computation: the misère quotient of the closure of heaps 1..n, built one heap at a
//! time, as in Siegel's MisereSolver.
//!
//! The state is a verified [`Pretension`] for heaps 1..n−1 (its predictions are right on
//! the whole closure) and, for each element, the minimal signatures of the closure's
//! positions ([`Antichains`]). Adding heap n, with option images O ⊆ Q and signature σₙ:
//!
//! * **Identification.** Heap n may be equivalent to an element x already present. It must
//!   be *compatible* with its options (no context w with x·w ∈ P and σₙ ∋ w, else some
//!   position would have a P-option and a P-image: a P-failure). Then, if some position W
//!   of the closure with image x has σ(W) ⊆ σₙ, the map n ↦ x is right everywhere (the
//!   mex interpolation principle of Plambeck and Siegel: every position with copies of Hₙ
//!   is covered by the one with each copy replaced by W, which is known not to fail).
//!   Otherwise each compatible x is tried by walking only the positions that hold Hₙ, with
//!   the closure's signatures already in place.
//! * **Extension.** Otherwise Hₙ gets a free generator: the candidate Q ⊕ ⟨g⟩ is marked
//!   from its least positions, reduced, and verified. The powers of g get the index and
//!   period at which the marks of the levels x·gᵏ repeat ([`top_cycle`]), so the candidate
//!   marks exactly as the infinite free sum Q ⊕ ℕ would. While verification finds a
//!   failure (the least position predicted wrongly), the pretension is **recalibrated**:
//!   for the heaps of that position, one, then two, … at a time, the candidate is rebuilt
//!   with those heaps freed as cyclic generators of a larger index over the submonoid the
//!   other heaps generate, marked and reduced, until it predicts that position rightly
//!   (heap n freed alone gets its exact cycle over that submonoid, as above). The
//!   loop ends when verification finds no failure, which proves the result (the walk is
//!   exact), whatever the choices made on the way.

use crate::game::{TakeBreakCode as OctalCode, heap_results};

use super::QuotientError;
use super::candidate::{Candidate, Cyclic, HeapImage, Submonoid, index_and_period, top_cycle};
use super::monoid::{BipartiteMonoid, ElementSet};
use super::pretension::{Antichains, Letter, Pretension, SearchBudget, Verdict};
use super::word::Word;

/// The option images of heaps 0..=n under `images` (Φ(H₀), …, Φ(Hₙ), images in `q`): for
/// each heap, the distinct images of the positions one move away, in increasing order. The
/// same sets the computation keeps, re-derived from the code (for a quotient taken up again
/// or read back packed).
pub(crate) fn option_images(code: &OctalCode, q: &BipartiteMonoid, images: &[u32]) -> Vec<Vec<u32>> {
    (0..images.len() as u32)
        .map(|h| {
            let mut seen = ElementSet::new(q.size());
            for r in heap_results(code, h) {
                seen.insert(r.parts().iter().fold(0, |acc, &a| q.mul(acc, images[a as usize])));
            }
            seen.to_vec()
        })
        .collect()
}

/// Limits on a computation, each reported in its own words when reached.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest quotient (or reduced candidate) accepted: |Q|.
    pub max_elements: usize,
    /// The most elements of an unreduced candidate (a direct sum with free generators).
    pub max_candidate: u64,
    /// The most states one failure walk may visit.
    pub max_states: usize,
    /// The most recalibrations while adding one heap.
    pub max_recalibrations: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_elements: 4096,
            max_candidate: 1 << 22,
            max_states: 2_000_000,
            max_recalibrations: 10_000,
        }
    }
}

impl Limits {
    /// Limits with `max_elements` as the largest quotient.
    pub fn with_max_elements(max_elements: usize) -> Self {
        Limits { max_elements, ..Limits::default() }
    }

    /// A bound on the memory a computation to `max_heap` may use, in bytes: the largest
    /// table (|Q|² entries of 4 bytes, twice while a reduction builds the next), the largest
    /// candidate's marks and partition (about 32 bytes an element), and the walk's states (a signature of |Q| bits and a frame each).
    pub fn memory_bound(&self, max_heap: u32) -> u64 {
        let q = self.max_elements as u64;
        let table = 2 * 4 * q * q;
        // Marks, dense numbers, the reduction's two block arrays and its map, and the
        // reached list; and the option images of every heap.
        let candidate = self.max_candidate * 32 + 8 * q * max_heap as u64;
        let states = self.max_states as u64 * (q.div_ceil(64) * 8 + 48);
        table + candidate + states
    }
}

/// Watches a heap being added: the candidates tried.
pub trait Observer {
    /// A candidate for `heap` was verified: `failure` is the least position it predicts
    /// wrongly, or `None` when it holds.
    fn trial(&mut self, heap: u32, candidate: &Pretension, failure: Option<&Word>) {
        let _ = (heap, candidate, failure);
    }

    /// A recalibration freed these heaps with these cyclic components (a candidate of
    /// `elements` before reduction).
    fn recalibrated(&mut self, heap: u32, freed: &[u32], cyclic: &[Cyclic], elements: u64) {
        let _ = (heap, freed, cyclic, elements);
    }
}

/// An observer that never stops and ignores everything.
pub struct Unobserved;

impl Observer for Unobserved {}

/// The incremental quotient computation for one octal game.
#[derive(Clone, Debug)]
pub struct QuotientBuilder {
    code: OctalCode,
    limits: Limits,
    pret: Pretension,
    anti: Antichains,
    generators: Vec<u32>,
    /// States walked by the last full verification.
    last_states: usize,
    recalibrations: usize,
    /// The letters of the current pretension (rebuilt when it changes).
    letters: Option<Vec<Letter>>,
    choice: Choice,
}

/// How a recalibration picks the heaps of a failure to free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Choice {
    /// The first set that repairs the failure: fewest heaps, smallest heaps first
    /// (MisereSolver's order).
    #[default]
    First,
    /// Of the sets with the fewest heaps that repair it, the one whose reduced candidate is
    /// smallest.
    Smallest,
    /// The first set that repairs it, largest heaps first.
    LargestFirst,
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
        QuotientBuilder {
            code: code.clone(),
            limits,
            pret: Pretension::new(BipartiteMonoid::trivial(), vec![0], vec![Vec::new()]),
            anti: Antichains::new(1),
            generators: Vec::new(),
            last_states: 0,
            recalibrations: 0,
            letters: None,
            choice: Choice::First,
        }
    }

    /// A computation that goes on from a stored quotient of heaps 1..n (its table, P-set and
    /// heap images 0..=n, as [`QuotientData`](super::QuotientData) keeps them), so that a
    /// larger budget need not add heaps 1..n again. Nothing stored is trusted: the option
    /// images are recomputed from the code and the whole closure check is run on the stored
    /// quotient (its walk also gives the antichains the next heap's identification reads); a
    /// quotient that fails it, or whose images do not fit it, is refused. The result then
    /// adds heap n + 1, n + 2, … exactly as a computation from heap 1 would (its
    /// [`generator_heaps`](Self::generator_heaps) are then the heaps that smaller heaps do
    /// not generate, the presentation's generators, where a computation from heap 1 lists
    /// every heap that entered as a new generator).
    pub fn resume(
        code: &OctalCode,
        limits: Limits,
        q: BipartiteMonoid,
        images: Vec<u32>,
    ) -> Result<Self, QuotientError> {
        let bad = |why: String| QuotientError::Resume(why);
        if images.first() != Some(&0) || images.iter().any(|&x| x as usize >= q.size()) {
            return Err(bad(
                "the heap images do not name elements of the table (heap 0 must be the identity)".into(),
            ));
        }
        let n = images.len() as u32 - 1;
        let options = option_images(code, &q, &images);
        let pret = Pretension::new(q, images, options);
        let budget = SearchBudget { max_states: limits.max_states, stop: &|| false, heap: n };
        match pret.verify(&budget)? {
            Verdict::Holds { antichains, states, .. } => {
                let generators = (1..=n)
                    .filter(|&h| {
                        let gens: Vec<u32> =
                            (1..h).map(|g| pret.images[g as usize]).filter(|&g| g != 0).collect();
                        let x = pret.images[h as usize];
                        x != 0 && Submonoid::generated(&pret.q, &gens).id[x as usize] == u32::MAX
                    })
                    .collect();
                Ok(QuotientBuilder {
                    code: code.clone(),
                    limits,
                    pret,
                    anti: antichains,
                    generators,
                    last_states: states,
                    recalibrations: 0,
                    letters: None,
                    choice: Choice::First,
                })
            }
            Verdict::Fails(w) => Err(bad(format!("the stored quotient predicts {w} wrongly"))),
        }
    }

    /// The octal code.
    pub fn code(&self) -> &OctalCode {
        &self.code
    }

    /// The largest heap added so far.
    pub fn max_heap(&self) -> u32 {
        self.pret.max_heap()
    }

    /// The current quotient.
    pub fn monoid(&self) -> &BipartiteMonoid {
        &self.pret.q
    }

    /// Heap images 0..=max_heap.
    pub fn heap_images(&self) -> &[u32] {
        &self.pret.images
    }

    /// Option images of each heap 0..=max_heap.
    pub fn heap_options(&self) -> &[Vec<u32>] {
        &self.pret.options
    }

    /// The current verified pretension.
    pub fn pretension(&self) -> &Pretension {
        &self.pret
    }

    /// The heaps that entered as new generators.
    pub fn generator_heaps(&self) -> &[u32] {
        &self.generators
    }

    /// States walked by the last full verification.
    pub fn last_states(&self) -> usize {
        self.last_states
    }

    /// Recalibrations made so far.
    pub fn recalibrations(&self) -> usize {
        self.recalibrations
    }

    /// Adds the next heap, n = max_heap + 1.
    pub fn add_heap(&mut self) -> Result<Step, QuotientError> {
        self.add_heap_observed(&|| false, &mut Unobserved)
    }

    /// Adds the next heap, telling `obs` of every candidate tried; `stop` is asked during
    /// long walks, and true abandons the heap (the builder keeps heaps 1..n−1) with
    /// [`QuotientError::Interrupted`].
    pub fn add_heap_observed(
        &mut self,
        stop: &dyn Fn() -> bool,
        obs: &mut dyn Observer,
    ) -> Result<Step, QuotientError> {
        let n = self.max_heap() + 1;
        let parts: Vec<Vec<u32>> = heap_results(&self.code, n).iter().map(|r| r.parts().to_vec()).collect();
        if self.letters.is_none() {
            self.letters = Some(self.pret.letters());
        }
        let budget = SearchBudget { max_states: self.limits.max_states, stop, heap: n };
        if parts.is_empty() {
            self.pret.images.push(0);
            self.pret.options.push(Vec::new());
            return Ok(Step::Identified(0));
        }
        let q = &self.pret.q;
        let mut seen = ElementSet::new(q.size());
        for ps in &parts {
            seen.insert(ps.iter().fold(0, |acc, &a| q.mul(acc, self.pret.images[a as usize])));
        }
        let opts = seen.to_vec();
        let sig = self.pret.signature(&opts);
        let letters = self.letters.as_ref().expect("letters just built");
        let compatible: Vec<u32> = (0..q.size() as u32).filter(|&x| self.pret.compatible(x, &sig)).collect();
        // A letter already present, or the mex interpolation principle.
        let found = compatible
            .iter()
            .copied()
            .find(|&x| letters.iter().any(|l| l.image == x && l.sig == sig) || self.anti.covers(x, &sig));
        let found = match found {
            Some(x) => Some((x, None)),
            None => {
                let mut hit = None;
                for &x in &compatible {
                    let mut trial = self.pret.clone();
                    trial.images.push(x);
                    trial.options.push(opts.clone());
                    let mut letters = letters.clone();
                    letters.push(Letter {
                        heap: n,
                        image: x,
                        sig: sig.clone(),
                        options: opts.clone(),
                        inert: false,
                    });
                    let mut anti = self.anti.clone();
                    let r = trial.n_search(&letters, &mut anti, true, &budget)?;
                    if r.failure.is_none() {
                        hit = Some((x, Some(anti)));
                        break;
                    }
                }
                hit
            }
        };
        if let Some((x, anti)) = found {
            // Heap n's letter joins unless an earlier heap's is the same.
            let letters = self.letters.as_mut().expect("letters just built");
            if !letters.iter().any(|l| l.image == x && l.sig == sig) {
                letters.push(Letter { heap: n, image: x, sig, options: opts.clone(), inert: false });
            }
            self.pret.images.push(x);
            self.pret.options.push(opts);
            if let Some(anti) = anti {
                self.anti = anti;
            }
            return Ok(Step::Identified(x));
        }
        // Extension: a free generator for heap n, then recalibrate until verified.
        let mut trial = {
            let base = Submonoid::whole(&self.pret.q);
            let cycle = top_cycle(&base, &self.pret.images, &self.code, self.limits.max_candidate)
                .unwrap_or(Cyclic { index: 2, period: 2 });
            let cand = Candidate::new(base, vec![cycle], self.limits.max_candidate)
                .ok_or(QuotientError::CandidateTooLarge { heap: n, limit: self.limits.max_candidate })?;
            let mut images: Vec<u32> = self.pret.images.clone();
            images.push(cand.element(HeapImage::Free(0)));
            cand.mark_and_reduce(&images, &self.code, self.limits.max_elements, n)?
        };
        let mut recalibrations = 0;
        loop {
            let verdict = trial.verify(&budget)?;
            obs.trial(
                n,
                &trial,
                match &verdict {
                    Verdict::Fails(w) => Some(w),
                    Verdict::Holds { .. } => None,
                },
            );
            match verdict {
                Verdict::Holds { antichains, states, .. } => {
                    self.pret = trial;
                    self.letters = None;
                    self.anti = antichains;
                    self.last_states = states;
                    self.generators.push(n);
                    self.recalibrations += recalibrations;
                    return Ok(Step::Extended(self.pret.q.size()));
                }
                Verdict::Fails(w) => {
                    recalibrations += 1;
                    if recalibrations > self.limits.max_recalibrations {
                        return Err(QuotientError::NoRecalibration {
                            heap: n,
                            tries: self.limits.max_recalibrations,
                        });
                    }
                    if stop() {
                        return Err(QuotientError::Interrupted { heap: n - 1 });
                    }
                    trial = self.recalibrate(&trial, &w, n, obs, stop)?;
                }
            }
        }
    }

    /// Rebuilds `trial` so that it predicts the failure `w` rightly: frees the heaps of
    /// `w` (fewest first, smallest heaps first) as cyclic generators over the submonoid the
    /// other heaps generate.
    fn recalibrate(
        &self,
        trial: &Pretension,
        w: &Word,
        n: u32,
        obs: &mut dyn Observer,
        stop: &dyn Fn() -> bool,
    ) -> Result<Pretension, QuotientError> {
        let should_be_p = !trial.q.is_p(trial.phi(w));
        let mut involved = w.heaps_present();
        if self.choice == Choice::LargestFirst {
            involved.reverse();
        }
        let mut too_large = None;
        for size in 1..=involved.len() {
            let mut best: Option<(Pretension, Vec<u32>, Vec<Cyclic>, u64)> = None;
            for set in combinations(&involved, size) {
                if stop() {
                    return Err(QuotientError::Interrupted { heap: n - 1 });
                }
                let gens: Vec<u32> = (1..=n)
                    .filter(|h| !set.contains(h))
                    .map(|h| trial.images[h as usize])
                    .filter(|&g| g != 0)
                    .collect();
                let base = Submonoid::generated(&trial.q, &gens);
                // Freeing heap n alone: its powers' index and period exactly (see `top_cycle`).
                let exact = (set == [n])
                    .then(|| {
                        let lower: Vec<u32> =
                            (0..n).map(|h| base.id[trial.images[h as usize] as usize]).collect();
                        top_cycle(&base, &lower, &self.code, self.limits.max_candidate)
                    })
                    .flatten();
                let cyclic: Vec<Cyclic> = set
                    .iter()
                    .map(|&h| {
                        if let Some(c) = exact {
                            return c;
                        }
                        let (idx, _) = index_and_period(&trial.q, trial.images[h as usize]);
                        let index = idx.max(w.exponent(h).saturating_sub(1));
                        let period = (2 * ((index as i64 - 4) / 2)).max(2) as u32;
                        Cyclic { index, period }
                    })
                    .collect();
                let map = base.id.clone();
                let Some(cand) = Candidate::new(base, cyclic.clone(), self.limits.max_candidate) else {
                    too_large =
                        Some(QuotientError::CandidateTooLarge { heap: n, limit: self.limits.max_candidate });
                    continue;
                };
                let images: Vec<u32> = (0..=n)
                    .map(|h| match set.iter().position(|&s| s == h) {
                        Some(i) => cand.element(HeapImage::Free(i)),
                        None => map[trial.images[h as usize] as usize],
                    })
                    .collect();
                let p = match cand.mark_and_reduce(&images, &self.code, self.limits.max_elements, n) {
                    Ok(p) => p,
                    Err(e @ QuotientError::TooLarge { .. }) => {
                        too_large = Some(e);
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if p.q.is_p(p.phi(w)) == should_be_p {
                    if self.choice != Choice::Smallest {
                        obs.recalibrated(n, &set, &cyclic, cand.size());
                        return Ok(p);
                    }
                    if best.as_ref().is_none_or(|b| p.q.size() < b.0.q.size()) {
                        best = Some((p, set, cyclic, cand.size()));
                    }
                }
            }
            if let Some((p, set, cyclic, size)) = best {
                obs.recalibrated(n, &set, &cyclic, size);
                return Ok(p);
            }
        }
        Err(too_large.unwrap_or(QuotientError::NoRecalibration { heap: n, tries: 0 }))
    }

    /// Chooses how recalibration picks the heaps to free.
    pub fn set_choice(&mut self, choice: Choice) {
        self.choice = choice;
    }
}

/// The subsets of `values` of `size` elements, in lexicographic order of positions.
fn combinations(values: &[u32], size: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    if size > values.len() {
        return out;
    }
    let mut idx: Vec<usize> = (0..size).collect();
    loop {
        out.push(idx.iter().map(|&i| values[i]).collect());
        let Some(i) = (0..size).rev().find(|&i| idx[i] < values.len() - size + i) else { return out };
        idx[i] += 1;
        for j in i + 1..size {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::combinations;

    #[test]
    fn combinations_in_order() {
        assert_eq!(combinations(&[1, 2, 3], 1), vec![vec![1], vec![2], vec![3]]);
        assert_eq!(combinations(&[1, 2, 3], 2), vec![vec![1, 2], vec![1, 3], vec![2, 3]]);
        assert_eq!(combinations(&[1, 2, 3], 3), vec![vec![1, 2, 3]]);
        assert_eq!(combinations(&[4], 2), Vec::<Vec<u32>>::new());
    }
}
