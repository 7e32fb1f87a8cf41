//! Misère quotients (Plambeck and Siegel) of octal games: compute them, certify them, and
//! answer misère positions of any size through them.
//!
//! Let A be the closure of the heaps 1..n under moves and sums. Two positions G, H are
//! indistinguishable, G ≡ H, when G + X and H + X have the same misère outcome for every X
//! in A. The classes form a finite commutative monoid Q = A/≡ with a marked subset P (the
//! classes of P-positions), and a position's outcome is read from the product of its heaps'
//! images. The modules, one job each:
//! * [`monoid`]: the bipartite monoid (Q, P) and its reduction by indistinguishability;
//! * [`word`]: positions as words, in the order (largest heap first) every walk follows;
//! * [`pretension`]: a candidate (Q, P, Φ) and the exact search for its least failure;
//! * [`candidate`]: direct sums with free cyclic generators, marked and reduced;
//! * [`compute`]: the incremental computation, one heap at a time (Siegel's MisereSolver:
//!   identification, extension, recalibration);
//! * [`certify`]: the exact closure check and the periodicity certificate for heap images;
//! * [`presentation`]: generators and relations in a, b, c… notation;
//! * [`tame`]: whether the quotient is the tame (misère Nim) quotient;
//! * [`packed`]: a quotient as bytes for the database (the generators' action, not the
//!   whole table);
//! * [`restrict`]: the quotient of fewer heaps read off a stored one;
//! * [`survey`]: every octal code with up to D digits;
//! * [`atlas`]: every octal code with up to four digits, each certified finite or partial
//!   under a budget (and why it stopped).
//!
//! [`Quotient`] bundles the result and answers positions ([`Quotient::is_p`],
//! [`Quotient::winning_move`]).

pub mod atlas;
pub mod candidate;
pub mod certify;
pub mod compute;
pub mod monoid;
pub mod packed;
pub mod presentation;
pub mod pretension;
pub mod recheck;
pub mod relative;
pub mod restrict;
pub mod survey;
pub mod tame;
pub mod word;

use serde::Serialize;

use crate::game::{HeapFamily, HeapRules, Move, Position, TakeBreakCode as OctalCode, all_moves};

pub use certify::{ClosureCheck, PeriodCertificate, PeriodRule, closure_check};
pub use compute::{Choice, Limits, Observer, QuotientBuilder, Step, Unobserved};
pub use monoid::{BipartiteMonoid, MonoidError};
pub use packed::PackedError;
pub use presentation::{Presentation, present};

/// The largest `--max-heap` accepted.
pub const MAX_QUOTIENT_HEAP: u32 = 20_000;

/// The heap where an open-ended computation (no `--max-heap`) gives up looking for a period.
pub const DEFAULT_CAP: u32 = 1000;

/// Why a quotient could not be computed or used.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum QuotientError {
    /// Stopped on request.
    #[error("interrupted after heap {heap}")]
    Interrupted {
        /// The last heap added.
        heap: u32,
    },
    /// A reduced quotient or candidate grew beyond the element limit
    /// ([`Limits::with_max_elements`]).
    #[error(
        "the quotient grew beyond {limit} elements at heap {heap} (a higher element limit lets it grow further)"
    )]
    TooLarge {
        /// The heap being added.
        heap: u32,
        /// The limit.
        limit: usize,
    },
    /// An unreduced candidate (a direct sum with free generators) would be too large.
    #[error("a candidate for heap {heap} would have more than {limit} elements before reduction")]
    CandidateTooLarge {
        /// The heap being added.
        heap: u32,
        /// The limit.
        limit: u64,
    },
    /// A stored quotient could not be taken up again ([`QuotientBuilder::resume`]).
    #[error("a stored quotient cannot be resumed: {0}")]
    Resume(String),
    /// The failure walk met more states than allowed.
    #[error("verifying heap {heap} walked more than {limit} closure states")]
    TooManyStates {
        /// The heap being added.
        heap: u32,
        /// The limit.
        limit: usize,
    },
    /// Recalibration could not repair a failure, or took too many rounds.
    #[error("heap {heap}: no recalibration repaired the candidate (after {tries} rounds)")]
    NoRecalibration {
        /// The heap being added.
        heap: u32,
        /// Rounds tried.
        tries: usize,
    },
    /// The computation would need more memory than allowed.
    #[error("the computation may need {needed} bytes of memory, more than the {budget} bytes allowed")]
    OverBudget {
        /// The bound on what it may need.
        needed: u64,
        /// What is allowed.
        budget: u64,
    },
    /// The exact closure check failed or could not finish.
    #[error("the quotient failed its closure check: {0}")]
    Unverified(String),
    /// The heap range asked for is out of range.
    #[error("a quotient covers heaps 1 to N with N between 1 and {max}, not {given}")]
    BadMaxHeap {
        /// What was asked.
        given: u64,
        /// The limit.
        max: u32,
    },
    /// A heap beyond the range the quotient covers.
    #[error("heap {heap} is beyond the quotient's range (heaps up to {covered}, no proven period)")]
    OutOfRange {
        /// The heap.
        heap: u32,
        /// The largest heap covered.
        covered: u32,
    },
    /// A broken invariant.
    #[error("internal error: {0}")]
    Internal(String),
}

/// How far to compute.
#[derive(Clone, Copy, Debug)]
pub struct QuotientOptions {
    /// Compute exactly heaps 1..=N; `None`: grow until a period is proven or `cap`.
    pub max_heap: Option<u32>,
    /// The cap for open-ended runs.
    pub cap: u32,
    /// Size limits.
    pub limits: Limits,
    /// The most states the final closure check may keep.
    pub max_states: usize,
    /// Asked during long walks within a heap: true stops the computation there, keeping
    /// the quotient of the heaps before it (as the progress callback does between heaps).
    pub stop: Option<fn() -> bool>,
    /// A wall-clock deadline, heard the same way as `stop`.
    pub deadline: Option<std::time::Instant>,
}

impl Default for QuotientOptions {
    fn default() -> Self {
        QuotientOptions {
            max_heap: None,
            cap: DEFAULT_CAP,
            limits: Limits::default(),
            max_states: 4_000_000,
            stop: None,
            deadline: None,
        }
    }
}

impl QuotientError {
    /// Whether a limit stopped a heap (the quotient or a candidate outgrew the element
    /// budget, the closure walk its state budget, or no recalibration repaired the
    /// candidate): the heaps before it are complete.
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            QuotientError::TooLarge { .. }
                | QuotientError::CandidateTooLarge { .. }
                | QuotientError::TooManyStates { .. }
                | QuotientError::NoRecalibration { .. }
        )
    }
}

impl QuotientOptions {
    /// The time budget these options get when the caller gives `seconds` or none: `seconds`,
    /// else [`OPEN_ENDED_SECONDS`] for an open-ended computation, else no budget.
    pub fn budget(&self, seconds: Option<f64>) -> Option<f64> {
        seconds.or(self.max_heap.is_none().then_some(OPEN_ENDED_SECONDS))
    }

    /// Options for exactly heaps 1..=`n`, refused when out of range.
    pub fn to_heap(n: u64) -> Result<Self, QuotientError> {
        if n == 0 || n > MAX_QUOTIENT_HEAP as u64 {
            return Err(QuotientError::BadMaxHeap { given: n, max: MAX_QUOTIENT_HEAP });
        }
        Ok(QuotientOptions { max_heap: Some(n as u32), ..Default::default() })
    }
}

/// A computed, verified misère quotient of an octal game.
#[derive(Clone, Debug)]
pub struct Quotient {
    /// The octal code.
    pub code: OctalCode,
    /// (Q, P).
    pub monoid: BipartiteMonoid,
    /// Φ(H_n) for n = 0..=max_heap.
    pub heap_images: Vec<u32>,
    /// The option images of each heap.
    pub heap_options: Vec<Vec<u32>>,
    /// The largest heap computed (N).
    pub max_heap: u32,
    /// The proof that the heap images are periodic, if any.
    pub certificate: Option<PeriodCertificate>,
    /// An apparent (unproven) period and preperiod when none is proven.
    pub apparent: Option<(u32, u32)>,
    /// The closure check passed.
    pub check: ClosureCheck,
    /// Whether the quotient is tame.
    pub tame: bool,
}

/// What a quotient says about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Prediction {
    /// The position's element.
    pub element: u32,
    /// Whether it is a P-position (a loss for the player to move).
    pub loss: bool,
}

/// Computes and verifies the quotient of `code`. `progress(heap, size)` is called after
/// every heap and returns false to interrupt, which gives [`QuotientError::Interrupted`].
pub fn compute_quotient(
    code: &OctalCode,
    opts: QuotientOptions,
    progress: &mut dyn FnMut(u32, usize) -> bool,
) -> Result<Quotient, QuotientError> {
    match run(code, opts, progress, false, None)? {
        Computed::Complete(q) => Ok(q),
        Computed::Interrupted(q) => Err(QuotientError::Interrupted { heap: q.max_heap }),
        Computed::Stopped { why, .. } => Err(why),
    }
}

/// How an interruptible computation ended.
#[derive(Clone, Debug)]
pub enum Computed {
    /// The computation ran to its end.
    Complete(Quotient),
    /// `progress` asked to stop: the verified quotient of the heaps added so far (1..=h,
    /// with a period certificate when those heaps already prove one).
    Interrupted(Quotient),
    /// A limit stopped the next heap (`why`: the quotient or a candidate outgrew the
    /// element budget, the closure walk its state budget, or no recalibration repaired the
    /// candidate): the verified quotient of the heaps before it, as for an interruption.
    Stopped {
        /// The quotient of heaps 1..=h, verified.
        quotient: Quotient,
        /// What stopped heap h + 1.
        why: QuotientError,
    },
}

/// The time budget of an open-ended computation (no `max_heap`) when the caller sets none:
/// 10 s. Every code the four-digit atlas certified needed at most 0.081 CPU s (docs/atlas.md),
/// so a code still growing after 10 s is not going to prove a period soon; the caller says so
/// and keeps the verified quotient of the heaps done.
pub const OPEN_ENDED_SECONDS: f64 = 10.0;

/// As [`compute_quotient`], but an interruption, or a limit that stops a heap, keeps what is
/// complete: the quotient of the heaps added before it, verified by the same closure check.
pub fn compute_quotient_interruptible(
    code: &OctalCode,
    opts: QuotientOptions,
    progress: &mut dyn FnMut(u32, usize) -> bool,
) -> Result<Computed, QuotientError> {
    run(code, opts, progress, true, None)
}

/// [`compute_quotient_interruptible`], going on from `from` (a verified quotient of heaps
/// 1..m of the same code with no proven period, such as a stored one) when it passes
/// [`QuotientBuilder::resume`]'s closure check, so heaps 1..m are not added again;
/// otherwise from heap 1. The heaps added after m, and so the result, are those of a
/// computation from heap 1 under the same options (`progress` hears heaps m + 1 on).
pub fn compute_quotient_from(
    code: &OctalCode,
    opts: QuotientOptions,
    progress: &mut dyn FnMut(u32, usize) -> bool,
    from: Option<&Quotient>,
) -> Result<Computed, QuotientError> {
    run(code, opts, progress, true, from)
}

/// The computation (from `from` when it can go on from it); on interruption, `keep`
/// verifies and returns the quotient of the heaps done, and otherwise it says only where it
/// stopped.
fn run(
    code: &OctalCode,
    opts: QuotientOptions,
    progress: &mut dyn FnMut(u32, usize) -> bool,
    keep: bool,
    from: Option<&Quotient>,
) -> Result<Computed, QuotientError> {
    let rule = certify::period_rule(code.last_nonzero(), code.splits());
    let target = opts.max_heap.unwrap_or(opts.cap.clamp(1, MAX_QUOTIENT_HEAP));
    let resumed = from.filter(|q| q.code == *code && !q.proven() && q.max_heap < target).and_then(|q| {
        QuotientBuilder::resume(code, opts.limits, q.monoid.clone(), q.heap_images.clone()).ok()
    });
    let mut b = resumed.unwrap_or_else(|| QuotientBuilder::new(code, opts.limits));
    let mut certificate = None;
    let asked = opts.stop.unwrap_or(|| false);
    let deadline = opts.deadline;
    let stop = move || asked() || deadline.is_some_and(|d| std::time::Instant::now() >= d);
    while b.max_heap() < target {
        match b.add_heap_observed(&stop, &mut compute::Unobserved) {
            Ok(_) => {}
            Err(QuotientError::Interrupted { .. }) if !keep => {
                return Err(QuotientError::Interrupted { heap: b.max_heap() });
            }
            Err(QuotientError::Interrupted { .. }) => {
                let certificate = rule.and_then(|rule| certify::proven_period(b.heap_images(), rule));
                return finish(b, certificate, opts.max_states).map(Computed::Interrupted);
            }
            Err(why) if why.is_limit() && keep && b.max_heap() > 0 => {
                let certificate = rule.and_then(|rule| certify::proven_period(b.heap_images(), rule));
                let quotient = finish(b, certificate, opts.max_states)?;
                return Ok(Computed::Stopped { quotient, why });
            }
            Err(e) => return Err(e),
        }
        let n = b.max_heap();
        if !progress(n, b.monoid().size()) {
            if !keep {
                return Err(QuotientError::Interrupted { heap: n });
            }
            let certificate = rule.and_then(|rule| certify::proven_period(b.heap_images(), rule));
            return finish(b, certificate, opts.max_states).map(Computed::Interrupted);
        }
        if opts.max_heap.is_none()
            && let Some(rule) = rule
            && (n.is_multiple_of(4) || n == target)
            && let Some(c) = certify::proven_period(b.heap_images(), rule)
        {
            certificate = Some(c);
            break;
        }
    }
    if let (Some(rule), None) = (rule, certificate) {
        certificate = certify::proven_period(b.heap_images(), rule);
    }
    finish(b, certificate, opts.max_states).map(Computed::Complete)
}

/// The quotient `b` has verified so far, as it stands (every heap's verification was a
/// closure check of heaps 1..n; no period proven), to store and resume from.
pub(crate) fn reached(b: &QuotientBuilder) -> Quotient {
    let max_heap = b.max_heap();
    let g = crate::nim_values(&HeapFamily::TakeBreak(b.code().clone()), max_heap);
    Quotient {
        code: b.code().clone(),
        monoid: b.monoid().clone(),
        heap_images: b.heap_images().to_vec(),
        heap_options: b.heap_options().to_vec(),
        max_heap,
        certificate: None,
        apparent: certify::apparent_period(b.heap_images()),
        check: ClosureCheck { states: b.last_states() },
        tame: tame::is_tame(b.monoid(), b.heap_images(), &g),
    }
}

/// The quotient of `b`'s heaps: the exact closure check (at most `max_states` states), the
/// tameness test and the apparent period when `certificate` is `None`.
pub(crate) fn finish(
    b: QuotientBuilder,
    certificate: Option<PeriodCertificate>,
    max_states: usize,
) -> Result<Quotient, QuotientError> {
    let check = closure_check(b.monoid(), b.heap_images(), b.heap_options(), max_states)
        .map_err(QuotientError::Unverified)?;
    let max_heap = b.max_heap();
    let g = crate::nim_values(&HeapFamily::TakeBreak(b.code().clone()), max_heap);
    let tame = tame::is_tame(b.monoid(), b.heap_images(), &g);
    let apparent = if certificate.is_none() { certify::apparent_period(b.heap_images()) } else { None };
    Ok(Quotient {
        code: b.code().clone(),
        monoid: b.monoid().clone(),
        heap_images: b.heap_images().to_vec(),
        heap_options: b.heap_options().to_vec(),
        max_heap,
        certificate,
        apparent,
        check,
        tame,
    })
}

impl Quotient {
    /// |Q|.
    pub fn size(&self) -> usize {
        self.monoid.size()
    }

    /// |P|.
    pub fn p_count(&self) -> usize {
        self.monoid.p_elements().len()
    }

    /// Whether the heap images are proven periodic, so the quotient holds for every heap.
    pub fn proven(&self) -> bool {
        self.certificate.is_some()
    }

    /// The largest heap answered: every heap when proven, else `max_heap`.
    pub fn covers(&self, heap: u32) -> bool {
        heap <= self.max_heap || self.proven()
    }

    /// Φ(H_n), for any n the quotient covers.
    pub fn image(&self, n: u32) -> Result<u32, QuotientError> {
        if n <= self.max_heap {
            return Ok(self.heap_images[n as usize]);
        }
        match self.certificate {
            Some(c) => {
                let m = c.from + (n - c.from) % c.period;
                Ok(self.heap_images[m as usize])
            }
            None => Err(QuotientError::OutOfRange { heap: n, covered: self.max_heap }),
        }
    }

    /// The element of a position (heaps in any order, zeros allowed).
    #[inline]
    pub fn element(&self, heaps: &[u32]) -> Result<u32, QuotientError> {
        let mut sorted: Vec<u32> = heaps.iter().copied().filter(|&h| h > 0).collect();
        sorted.sort_unstable();
        let mut acc = 0;
        let mut i = 0;
        while i < sorted.len() {
            let j = sorted[i..].iter().take_while(|&&h| h == sorted[i]).count();
            acc = self.monoid.mul(acc, self.monoid.pow(self.image(sorted[i])?, j as u64));
            i += j;
        }
        Ok(acc)
    }

    /// The quotient's prediction for a position.
    pub fn predict(&self, heaps: &[u32]) -> Result<Prediction, QuotientError> {
        let element = self.element(heaps)?;
        Ok(Prediction { element, loss: self.monoid.is_p(element) })
    }

    /// Whether the position is a misère P-position.
    pub fn is_p(&self, heaps: &[u32]) -> Result<bool, QuotientError> {
        Ok(self.predict(heaps)?.loss)
    }

    /// The first move, in nimdb's move order, to a P-position, or `None` from a P-position
    /// (or a position with no move).
    pub fn winning_move(&self, position: &Position) -> Result<Option<Move>, QuotientError> {
        // Distinct heap sizes with counts, and the product of everything but one copy of each.
        let mut groups: Vec<(u32, u64)> = Vec::new();
        for &h in position.heaps() {
            match groups.last_mut() {
                Some((s, c)) if *s == h => *c += 1,
                _ => groups.push((h, 1)),
            }
        }
        let q = &self.monoid;
        let imgs: Vec<u32> = groups.iter().map(|&(h, _)| self.image(h)).collect::<Result<_, _>>()?;
        let full: Vec<u32> = groups.iter().zip(&imgs).map(|(&(_, c), &x)| q.pow(x, c)).collect();
        let mut prefix = vec![0u32; groups.len() + 1];
        for i in 0..groups.len() {
            prefix[i + 1] = q.mul(prefix[i], full[i]);
        }
        let mut suffix = vec![0u32; groups.len() + 1];
        for i in (0..groups.len()).rev() {
            suffix[i] = q.mul(suffix[i + 1], full[i]);
        }
        let rest: std::collections::HashMap<u32, u32> = groups
            .iter()
            .enumerate()
            .map(|(i, &(h, c))| (h, q.mul(q.mul(prefix[i], suffix[i + 1]), q.pow(imgs[i], c - 1))))
            .collect();
        for m in all_moves(&self.code, position) {
            let Some(c) = m.single_change() else { continue };
            let mut after = 0;
            for &a in c.result.parts() {
                after = q.mul(after, self.image(a)?);
            }
            if q.is_p(q.mul(rest[&c.heap], after)) {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// The presentation in a, b, c… notation.
    pub fn presentation(&self) -> Presentation {
        present(&self.monoid, &self.heap_images)
    }

    /// Whether the code splits heaps (for descriptions).
    pub fn splits(&self) -> bool {
        self.code.splits()
    }
}

#[cfg(test)]
mod tests;

/// A quotient as plain data, for storage: everything but the code is numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct QuotientData {
    /// The octal code, as `0.77`.
    pub code: String,
    /// |Q|.
    pub size: usize,
    /// The multiplication table, row-major.
    pub table: Vec<u32>,
    /// The P marks.
    pub p: Vec<bool>,
    /// Heap images 0..=max_heap.
    pub heap_images: Vec<u32>,
    /// Option images of each heap.
    pub heap_options: Vec<Vec<u32>>,
    /// The certificate, if proven.
    pub certificate: Option<PeriodCertificate>,
    /// The apparent period and preperiod, if any.
    pub apparent: Option<(u32, u32)>,
    /// States of the closure check.
    pub check_states: usize,
    /// Tame.
    pub tame: bool,
}

impl Quotient {
    /// The quotient as plain data.
    pub fn to_data(&self) -> QuotientData {
        QuotientData {
            code: self.code.to_string(),
            size: self.monoid.size(),
            table: self.monoid.table().to_vec(),
            p: self.monoid.p_marks().to_vec(),
            heap_images: self.heap_images.clone(),
            heap_options: self.heap_options.clone(),
            certificate: self.certificate,
            apparent: self.apparent,
            check_states: self.check.states,
            tame: self.tame,
        }
    }

    /// Rebuilds a quotient from plain data, checking its shape (not re-running the check).
    pub fn from_data(d: QuotientData) -> Result<Self, QuotientError> {
        let spec: crate::game::GameSpec = format!("octal:{}", d.code)
            .parse()
            .map_err(|e: crate::game::SpecError| QuotientError::Internal(e.to_string()))?;
        let code = spec.octal().cloned().ok_or_else(|| QuotientError::Internal("not octal".into()))?;
        let monoid = BipartiteMonoid::from_table(d.size, d.table, d.p)
            .map_err(|e| QuotientError::Internal(e.to_string()))?;
        let n = d.heap_images.len();
        if n == 0 || d.heap_options.len() != n || d.heap_images.iter().any(|&x| x as usize >= d.size) {
            return Err(QuotientError::Internal("heap images do not fit the table".into()));
        }
        Ok(Quotient {
            code,
            monoid,
            heap_images: d.heap_images,
            heap_options: d.heap_options,
            max_heap: n as u32 - 1,
            certificate: d.certificate,
            apparent: d.apparent,
            check: ClosureCheck { states: d.check_states },
            tame: d.tame,
        })
    }
}

/// A quotient that answers every heap up to `top`: for finite codes, the open-ended
/// computation (up to heap `cap`, a certified period covers every heap); otherwise, or when
/// that proves no period, the quotient of heaps 1..=top.
pub fn covering_quotient(
    code: &OctalCode,
    top: u32,
    cap: u32,
    limits: Limits,
) -> Result<Quotient, QuotientError> {
    if code.last_nonzero().is_some() {
        let opts = QuotientOptions { cap, limits, ..QuotientOptions::default() };
        if let Ok(q) = compute_quotient(code, opts, &mut |_, _| true)
            && q.covers(top)
        {
            return Ok(q);
        }
    }
    let opts = QuotientOptions { limits, ..QuotientOptions::to_heap(top.max(1) as u64)? };
    compute_quotient(code, opts, &mut |_, _| true)
}

impl Quotient {
    /// The JSON object `nimdb quotient --json` prints (without its `reused`) and `GET
    /// /api/v1/quotient` answers: sizes, heap images and words, P, the table, the
    /// presentation, the period and its certificate, tameness.
    pub fn to_json(&self, spec: &crate::game::GameSpec) -> serde_json::Value {
        use serde_json::json;
        let pres = self.presentation();
        let c = self.certificate;
        json!({
            "game": spec.canonical(),
            "size": self.size(),
            "p_count": self.p_count(),
            "heap_elements": self.heap_images,
            "heap_words": self.heap_images.iter().map(|&x| pres.words[x as usize].clone()).collect::<Vec<_>>(),
            "p_elements": self.monoid.p_elements(),
            "table": self.monoid.rows(),
            "presentation": {
                "generators": pres.generators.iter().zip(&pres.generator_heaps)
                    .map(|(g, h)| json!({"name": g, "heap": h})).collect::<Vec<_>>(),
                "relations": pres.relations,
                "words": pres.words,
            },
            "period": c.map(|c| c.period),
            "preperiod": c.map(|c| c.from),
            "proven": c.is_some(),
            "certificate": c.map(|c| json!({
                "text": c.to_string(), "detail": c,
            })),
            "apparent_period": self.apparent.map(|(p, e)| json!({"period": p, "preperiod": e})),
            "closure_check_states": self.check.states,
            "tame": self.tame,
            "max_heap": self.max_heap,
        })
    }
}

// Helpers for answering positions of any size (u64 heaps) without listing moves: batch
// lookups, `serve` and theory answers (see `theory::quotient_play`).
impl Quotient {
    /// The proven period of the heap images as (n₀, p): Φ(n + p) = Φ(n) for every n ≥ n₀.
    /// `None` when no period is proven.
    pub fn heap_period(&self) -> Option<(u32, u32)> {
        self.certificate.map(|c| (c.from, c.period))
    }

    /// A heap of at most `max_heap` tokens with the same image as a heap of `n` tokens (n
    /// itself when it is that small; otherwise reduced by the proven period), or `None` when
    /// the quotient does not cover n.
    pub fn equivalent_heap(&self, n: u64) -> Option<u32> {
        if n <= self.max_heap as u64 {
            return Some(n as u32);
        }
        let (from, period) = self.heap_period()?;
        Some(from + ((n - from as u64) % period as u64) as u32)
    }

    /// The element of the sum of two positions whose elements are `a` and `b`.
    pub fn sum_element(&self, a: u32, b: u32) -> u32 {
        self.monoid.mul(a, b)
    }

    /// Whether the element `e` is in P (its positions are losses for the player to move).
    #[inline]
    pub fn element_is_p(&self, e: u32) -> bool {
        self.monoid.is_p(e)
    }
}
