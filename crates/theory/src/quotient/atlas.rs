//! The atlas: every octal code 0.d₁…d_D (D ≤ 4), each charted under a budget as a certified
//! finite misère quotient or as a partial one that says where and why it stopped.
//!
//! **Which codes.** Every code with one to D digits after the point, digits 0–7, whose last
//! digit is nonzero ([`atlas_codes`], the same list as [`survey_codes`]): a code with
//! trailing zeros is the same game as the shorter code (a digit 0 allows no move), so it is
//! charted once, as the shorter code. No other code is skipped. Some pairs are known to be
//! the same game up to a shift of heap sizes (Dawson's Kayles 0.07 and 0.137), but their
//! quotients are not equal as charted here (the heap at which a period is certified moves),
//! and a rule that skipped such codes would need its own proof for every pair; charting
//! both costs less than that proof and checks one against the other.
//!
//! **How each code is charted** ([`chart_code`]): the incremental computation
//! ([`QuotientBuilder`], Siegel's MisereSolver algorithm) adds heaps 1, 2, … one at a time;
//! after each heap the Plambeck–Siegel periodicity theorem is tried on the heap images
//! ([`certify::proven_period`]), and the first heap at which it proves a period ends the
//! code: the quotient then holds for every heap size, and after the exact closure check it
//! is [`Chart::Certified`]. Otherwise the code stops at the first budget it meets
//! ([`Budget`]: the most heaps, the largest quotient or candidate, the walk's states, the
//! recalibrations of one heap, the time the caller's clock allows), as [`Chart::Partial`]
//! with the heap reached, |Q| and |P| of the verified quotient of heaps 1..h there, and the
//! reason ([`StopReason`]).
//!
//! **Reruns** ([`Entry::redo_under`]): a certified code is final; a partial code is charted
//! again only under a budget that raises the limit that stopped it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::game::{HeapRules as _, TakeBreakCode};

use super::survey::{SurveyError, survey_codes};
use super::{Limits, Quotient, QuotientBuilder, QuotientError, certify};

/// The most digits an atlas takes.
pub const MAX_ATLAS_DIGITS: u32 = 4;

/// Every code an atlas of `digits` digits charts: 0.d₁…d_D for 1 ≤ D ≤ `digits`, last digit
/// nonzero, in order of length, then digits (7 + 56 + 448 = 511 codes up to three digits,
/// 4,095 up to four).
pub fn atlas_codes(digits: u32) -> Result<Vec<TakeBreakCode>, SurveyError> {
    survey_codes(digits)
}

/// What one code may spend. A code stops at the first of these it meets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// The most heaps added (the quotient of heaps 1..max_heap at most).
    pub max_heap: u32,
    /// The largest quotient or reduced candidate, |Q|.
    pub max_elements: usize,
    /// The largest unreduced candidate.
    pub max_candidate: u64,
    /// The most states of one failure walk (the final closure check may keep twice as
    /// many, and at least 4,000,000).
    pub max_states: usize,
    /// The most recalibrations while adding one heap.
    pub max_recalibrations: usize,
    /// The most seconds on the caller's clock (CPU time in `nimdb atlas`).
    pub seconds: f64,
}

impl Default for Budget {
    fn default() -> Self {
        let l = Limits::default();
        Budget {
            max_heap: 1000,
            max_elements: l.max_elements,
            max_candidate: l.max_candidate,
            max_states: l.max_states,
            max_recalibrations: l.max_recalibrations,
            seconds: 1.0,
        }
    }
}

impl Budget {
    /// The computation's limits.
    pub fn limits(&self) -> Limits {
        Limits {
            max_elements: self.max_elements,
            max_candidate: self.max_candidate,
            max_states: self.max_states,
            max_recalibrations: self.max_recalibrations,
        }
    }

    /// The most states the final closure check may keep.
    pub fn check_states(&self) -> usize {
        self.max_states.saturating_mul(2).max(4_000_000)
    }
}

/// Why a partial code stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// Heap `max_heap` was reached with no period proven.
    Heaps,
    /// The quotient (or a reduced candidate) outgrew `max_elements`.
    Elements,
    /// An unreduced candidate outgrew `max_candidate`.
    Candidate,
    /// A failure walk, or the final closure check, met more states than allowed.
    States,
    /// No recalibration repaired a candidate within `max_recalibrations` rounds (or none
    /// of the recalibrations tried could).
    Recalibrations,
    /// The time budget was spent.
    Time,
    /// A theorem shows the quotient of heaps 1..n infinite for every n from the next heap
    /// on ([`PROVEN_INFINITE`]): no budget would certify it.
    Infinite,
}

/// A code whose misère quotient of heaps 1..n is proven infinite for every n ≥ `from_heap`.
#[derive(Clone, Copy, Debug)]
pub struct ProvenInfinite {
    /// The code, as [`TakeBreakCode`] prints it.
    pub code: &'static str,
    /// The first heap whose quotient is infinite.
    pub from_heap: u32,
    /// The theorem and where it is proved.
    pub source: &'static str,
}

/// The codes whose quotients are proven infinite, each with its theorem's source. The atlas
/// stops such a code before its first infinite heap, with [`StopReason::Infinite`].
pub const PROVEN_INFINITE: &[ProvenInfinite] = &[ProvenInfinite {
    code: "0.07",
    from_heap: 34,
    source: "34^k + 30^m + 25 is a misère P-position iff m >= k and m = k mod 2, for every k >= 2 \
             (nimdb's two-region shift-form certificate over Q33, docs/quotients.md), so heap 34 \
             has infinite order",
}];

/// The theorem that makes `code`'s quotient infinite from some heap on, if one is known.
pub fn proven_infinite(code: &TakeBreakCode) -> Option<&'static ProvenInfinite> {
    let name = code.to_string();
    PROVEN_INFINITE.iter().find(|p| p.code == name)
}

impl StopReason {
    /// Every reason, in the order they are listed.
    pub const ALL: [StopReason; 7] = [
        StopReason::Infinite,
        StopReason::Time,
        StopReason::Elements,
        StopReason::Candidate,
        StopReason::States,
        StopReason::Recalibrations,
        StopReason::Heaps,
    ];

    /// The short name stored and printed (`time`, `elements`, …).
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Heaps => "heaps",
            StopReason::Elements => "elements",
            StopReason::Candidate => "candidate",
            StopReason::States => "states",
            StopReason::Recalibrations => "recalibrations",
            StopReason::Time => "time",
            StopReason::Infinite => "infinite",
        }
    }

    /// The reason named `name`.
    pub fn from_name(name: &str) -> Option<StopReason> {
        StopReason::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Whether `new` raises the limit this reason names above `old`'s.
    pub fn raised(self, old: &Budget, new: &Budget) -> bool {
        match self {
            StopReason::Heaps => new.max_heap > old.max_heap,
            StopReason::Elements => new.max_elements > old.max_elements,
            StopReason::Candidate => new.max_candidate > old.max_candidate,
            StopReason::States => new.max_states > old.max_states,
            StopReason::Recalibrations => new.max_recalibrations > old.max_recalibrations,
            StopReason::Time => new.seconds > old.seconds,
            StopReason::Infinite => false,
        }
    }
}

/// A certified finite quotient, in figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Certified {
    /// |Q|.
    pub size: usize,
    /// |P|.
    pub p_count: usize,
    /// The period of the heap images.
    pub period: u32,
    /// The least preperiod.
    pub preperiod: u32,
    /// Whether the quotient is tame (misère Nim's on its nim-values).
    pub tame: bool,
    /// The last heap the periodicity certificate needs (the quotient of heaps 1..this
    /// proves it).
    pub certified_heap: u32,
    /// The heaps computed (the first heap at which the period was proven).
    pub max_heap: u32,
    /// The heap of each generator a, b, c, …
    pub generator_heaps: Vec<u32>,
    /// The relations, `a^2 = 1`, …
    pub relations: Vec<String>,
    /// The P-elements as least words.
    pub p_words: Vec<String>,
    /// The states the closure check kept.
    pub check_states: usize,
}

/// A code that stopped before a period was proven.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partial {
    /// The largest heap added: the verified quotient of heaps 1..heap is what is known.
    pub heap: u32,
    /// |Q| of that quotient.
    pub size: usize,
    /// |P| of that quotient.
    pub p_count: usize,
    /// Why it stopped.
    pub reason: StopReason,
    /// The computation's own words for it.
    pub detail: String,
    /// An apparent (unproven) period and preperiod of the heap images so far.
    pub apparent: Option<(u32, u32)>,
}

/// How a code was charted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Chart {
    /// A finite quotient, certified for every heap size.
    Certified(Certified),
    /// Stopped by a budget.
    Partial(Partial),
}

/// One code of the atlas: the chart, the budget it was charted under and the time spent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The code, as `0.77`.
    pub code: String,
    /// Its digits after the point.
    pub digits: u32,
    /// The chart.
    pub chart: Chart,
    /// The budget it was charted under.
    pub budget: Budget,
    /// The seconds it took on the caller's clock.
    pub seconds: f64,
}

impl Entry {
    /// Whether the code should be charted again under `budget`: never when certified; when
    /// partial, only if `budget` raises the limit that stopped it.
    pub fn redo_under(&self, budget: &Budget) -> bool {
        match &self.chart {
            Chart::Certified(_) => false,
            Chart::Partial(p) => p.reason.raised(&self.budget, budget),
        }
    }

    /// The status name: `certified` or `partial`.
    pub fn status(&self) -> &'static str {
        match self.chart {
            Chart::Certified(_) => "certified",
            Chart::Partial(_) => "partial",
        }
    }
}

/// A charted code with, when certified, the quotient itself (to store or use).
#[derive(Clone, Debug)]
pub struct Charted {
    /// The entry.
    pub entry: Entry,
    /// The certified quotient.
    pub quotient: Option<Box<Quotient>>,
    /// For a partial code, the verified quotient of the heaps it reached (no period proven),
    /// from which a rerun under a larger budget goes on ([`chart_code_from`]); `None` when it
    /// reached no heap or has more than [`RESUME_MAX_ELEMENTS`] elements.
    pub reached: Option<Box<Quotient>>,
}

/// The largest partial quotient kept to resume from (the atlas's default element budget):
/// stored packed ([`Quotient::pack`]), one of |Q| elements takes about 2·|Q|·k bytes for k
/// generators (the 638 elements of Dawson's Kayles to heap 33: 19 KB); larger ones are charted from heap 1
/// again.
pub const RESUME_MAX_ELEMENTS: usize = 4096;

/// The verified quotient `b` has reached, to resume from, if small enough.
fn reached(b: &QuotientBuilder) -> Option<Box<Quotient>> {
    (b.max_heap() > 0 && b.monoid().size() <= RESUME_MAX_ELEMENTS).then(|| Box::new(super::reached(b)))
}

/// Charts one code under `budget`. `clock()` is the time this code has spent so far (the
/// caller chooses which time: `nimdb atlas` gives the thread's CPU time); `interrupt()` asks
/// to abandon the code, which then gives `None` (nothing is known of it). Both are heard
/// between heaps and during long walks within a heap.
pub fn chart_code(
    code: &TakeBreakCode,
    budget: &Budget,
    clock: &dyn Fn() -> Duration,
    interrupt: &dyn Fn() -> bool,
) -> Option<Charted> {
    chart_code_from(code, budget, clock, interrupt, None)
}

/// [`chart_code`], going on from `from` (a partial code's [`Charted::reached`], heaps
/// 1..n) when it is given and passes [`QuotientBuilder::resume`]'s closure check, so heaps
/// 1..n are not added again; otherwise from heap 1. The heaps added after n, and so the
/// entry, are the same as from heap 1 under the same budget (`clock` should then count the
/// code's earlier CPU time too, as `nimdb atlas` does).
pub fn chart_code_from(
    code: &TakeBreakCode,
    budget: &Budget,
    clock: &dyn Fn() -> Duration,
    interrupt: &dyn Fn() -> bool,
    from: Option<&Quotient>,
) -> Option<Charted> {
    let limit = Duration::from_secs_f64(budget.seconds.max(0.0));
    let out_of_time = || clock() >= limit;
    let stop = || interrupt() || out_of_time();
    let digits = code.last_nonzero().unwrap_or(0);
    let rule = certify::period_rule(code.last_nonzero(), code.splits());
    let infinite = proven_infinite(code);
    let resumed = from.filter(|q| q.code == *code).and_then(|q| {
        QuotientBuilder::resume(code, budget.limits(), q.monoid.clone(), q.heap_images.clone()).ok()
    });
    let mut b = resumed.unwrap_or_else(|| QuotientBuilder::new(code, budget.limits()));
    let partial = |b: &QuotientBuilder, reason: StopReason, detail: String| Partial {
        heap: b.max_heap(),
        size: b.monoid().size(),
        p_count: b.monoid().p_elements().len(),
        reason,
        detail,
        apparent: certify::apparent_period(b.heap_images()),
    };
    let entry = |chart: Chart| Entry {
        code: code.to_string(),
        digits,
        chart,
        budget: *budget,
        seconds: clock().as_secs_f64(),
    };
    loop {
        if let Some(c) = rule.and_then(|rule| certify::proven_period(b.heap_images(), rule)) {
            let max_heap = b.max_heap();
            return match super::finish(b, Some(c), budget.check_states()) {
                Ok(q) => {
                    let pres = q.presentation();
                    let chart = Chart::Certified(Certified {
                        size: q.size(),
                        p_count: q.p_count(),
                        period: c.period,
                        preperiod: c.from,
                        tame: q.tame,
                        certified_heap: c.needs,
                        max_heap,
                        generator_heaps: pres.generator_heaps.clone(),
                        relations: pres.relations.clone(),
                        p_words: q
                            .monoid
                            .p_elements()
                            .iter()
                            .map(|&x| pres.words[x as usize].clone())
                            .collect(),
                        check_states: q.check.states,
                    });
                    Some(Charted { entry: entry(chart), quotient: Some(Box::new(q)), reached: None })
                }
                // The check could not finish within its states (a failure would be a
                // contradicted theorem, which `finish` reports the same way).
                Err(e) => {
                    let p = Partial {
                        heap: max_heap,
                        size: 0,
                        p_count: 0,
                        reason: StopReason::States,
                        detail: e.to_string(),
                        apparent: None,
                    };
                    Some(Charted { entry: entry(Chart::Partial(p)), quotient: None, reached: None })
                }
            };
        }
        if b.max_heap() >= budget.max_heap {
            let why = format!("no period proven by heap {}", budget.max_heap);
            return Some(Charted {
                entry: entry(Chart::Partial(partial(&b, StopReason::Heaps, why))),
                quotient: None,
                reached: reached(&b),
            });
        }
        if let Some(proof) = infinite.filter(|p| b.max_heap() + 1 >= p.from_heap) {
            let why = format!(
                "heap {}: the quotient of heaps 1..n is infinite for every n >= {}: {}",
                proof.from_heap, proof.from_heap, proof.source
            );
            return Some(Charted {
                entry: entry(Chart::Partial(partial(&b, StopReason::Infinite, why))),
                quotient: None,
                reached: reached(&b),
            });
        }
        if stop() {
            return stopped(&b, interrupt, &partial, &entry, budget);
        }
        let reason = match b.add_heap_observed(&stop, &mut super::Unobserved) {
            Ok(_) => continue,
            Err(QuotientError::Interrupted { .. }) => {
                return stopped(&b, interrupt, &partial, &entry, budget);
            }
            Err(QuotientError::TooLarge { .. }) => StopReason::Elements,
            Err(QuotientError::CandidateTooLarge { .. }) => StopReason::Candidate,
            Err(QuotientError::TooManyStates { .. }) => StopReason::States,
            Err(QuotientError::NoRecalibration { .. }) => StopReason::Recalibrations,
            Err(e) => {
                // Not a budget: a broken invariant. Reported as partial, in its own words, so
                // the atlas goes on; the reason that fits best is the walk's.
                let p = partial(&b, StopReason::States, e.to_string());
                return Some(Charted { entry: entry(Chart::Partial(p)), quotient: None, reached: None });
            }
        };
        let why = last_error_words(&b, reason, budget);
        return Some(Charted {
            entry: entry(Chart::Partial(partial(&b, reason, why))),
            quotient: None,
            reached: reached(&b),
        });
    }
}

/// The words for a budget met while adding the heap after `b`'s last.
fn last_error_words(b: &QuotientBuilder, reason: StopReason, budget: &Budget) -> String {
    let heap = b.max_heap() + 1;
    match reason {
        StopReason::Elements => {
            format!("heap {heap}: the quotient grew beyond {} elements", budget.max_elements)
        }
        StopReason::Candidate => {
            format!(
                "heap {heap}: a candidate would have more than {} elements before reduction",
                budget.max_candidate
            )
        }
        StopReason::States => format!("heap {heap}: a walk met more than {} states", budget.max_states),
        StopReason::Recalibrations => format!("heap {heap}: no recalibration repaired the candidate"),
        StopReason::Heaps | StopReason::Time | StopReason::Infinite => String::new(),
    }
}

/// The outcome of a stop heard between or within heaps: `None` when asked from outside,
/// else the time budget.
fn stopped(
    b: &QuotientBuilder,
    interrupt: &dyn Fn() -> bool,
    partial: &dyn Fn(&QuotientBuilder, StopReason, String) -> Partial,
    entry: &dyn Fn(Chart) -> Entry,
    budget: &Budget,
) -> Option<Charted> {
    if interrupt() {
        return None;
    }
    let why = format!("heap {}: the time budget of {} s was spent", b.max_heap() + 1, budget.seconds);
    Some(Charted {
        entry: entry(Chart::Partial(partial(b, StopReason::Time, why))),
        quotient: None,
        reached: reached(b),
    })
}

/// Counts of an atlas by status and reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Codes charted.
    pub codes: usize,
    /// Certified finite.
    pub certified: usize,
    /// Of those, tame.
    pub tame: usize,
    /// Partial, by reason (in [`StopReason::ALL`] order, zero counts left out).
    pub partial: Vec<(StopReason, usize)>,
    /// The seconds all entries took.
    pub seconds: f64,
}

/// Counts `entries` by status and reason.
pub fn tally<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Tally {
    let mut t = Tally::default();
    let mut by: std::collections::BTreeMap<StopReason, usize> = Default::default();
    for e in entries {
        t.codes += 1;
        t.seconds += e.seconds;
        match &e.chart {
            Chart::Certified(c) => {
                t.certified += 1;
                t.tame += usize::from(c.tame);
            }
            Chart::Partial(p) => *by.entry(p.reason).or_default() += 1,
        }
    }
    t.partial = StopReason::ALL.into_iter().filter_map(|r| by.get(&r).map(|&n| (r, n))).collect();
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn code(s: &str) -> TakeBreakCode {
        let ds: Vec<u8> = s.bytes().map(|b| b - b'0').collect();
        TakeBreakCode::new(0, &ds, None).unwrap()
    }

    fn chart(s: &str, budget: &Budget) -> Entry {
        let start = Instant::now();
        chart_code(&code(s), budget, &|| start.elapsed(), &|| false).unwrap().entry
    }

    #[test]
    fn codes_are_counted_once() {
        assert_eq!(atlas_codes(1).unwrap().len(), 7);
        assert_eq!(atlas_codes(3).unwrap().len(), 7 + 56 + 448);
        assert_eq!(atlas_codes(4).unwrap().len(), 4095);
        let names: std::collections::HashSet<String> =
            atlas_codes(3).unwrap().iter().map(|c| c.to_string()).collect();
        assert_eq!(names.len(), 511);
        assert!(names.contains("0.07") && names.contains("0.137") && !names.contains("0.770"));
        assert!(atlas_codes(0).is_err() && atlas_codes(5).is_err());
    }

    /// A partial code charted again from the quotient it reached gives the entry a chart from
    /// heap 1 gives under the larger budget (heap budgets, so that time plays no part):
    /// Dawson's Kayles 20 -> 30 (partial both times), Kayles 60 -> certified, 0.35 stopped by
    /// its elements then given more.
    #[test]
    fn a_partial_code_goes_on_from_what_it_reached() {
        let big = Budget { seconds: 1e9, ..Budget::default() };
        for (c, first, then) in [
            ("07", Budget { max_heap: 20, ..big }, Budget { max_heap: 30, ..big }),
            ("77", Budget { max_heap: 60, ..big }, big),
            ("35", Budget { max_elements: 200, ..big }, Budget { max_elements: 600, max_heap: 14, ..big }),
        ] {
            let start = Instant::now();
            let clock = || start.elapsed();
            let one = chart_code(&code(c), &first, &clock, &|| false).unwrap();
            let reached = one.reached.expect("a partial code keeps what it reached");
            assert!(matches!(one.entry.chart, Chart::Partial(_)), "{c}");
            let again = chart_code_from(&code(c), &then, &clock, &|| false, Some(&reached)).unwrap().entry;
            let fresh = chart(c, &then);
            assert_eq!(again.chart, fresh.chart, "{c}");
        }
    }

    #[test]
    fn kayles_is_certified_at_its_period() {
        let e = chart("77", &Budget { seconds: 1e9, ..Budget::default() });
        let Chart::Certified(c) = &e.chart else { panic!("{e:?}") };
        assert_eq!((c.size, c.p_count, c.period, c.preperiod, c.tame), (40, 9, 12, 71, false));
        // The first heap at which the certificate holds: 2·71 + 2·12 + 2 − 1.
        assert_eq!((c.certified_heap, c.max_heap), (167, 167));
        assert_eq!(c.generator_heaps, [1, 2, 5, 9, 12, 25, 27]);
        assert!(c.relations.iter().any(|r| r == "a^2 = 1"), "{:?}", c.relations);
        assert!(!e.redo_under(&Budget { seconds: 1e12, max_heap: 20_000, ..Budget::default() }));
    }

    #[test]
    fn each_budget_stops_with_its_reason() {
        let big = Budget { seconds: 1e9, ..Budget::default() };
        let e = chart("77", &Budget { max_heap: 150, ..big });
        let Chart::Partial(p) = &e.chart else { panic!("{e:?}") };
        assert_eq!((p.reason, p.heap, p.size, p.p_count), (StopReason::Heaps, 150, 40, 9));
        assert_eq!(p.apparent, Some((12, 71)));
        assert!(e.redo_under(&Budget { max_heap: 151, ..big }));
        assert!(!e.redo_under(&Budget {
            max_elements: 99_999,
            seconds: 1e12,
            ..Budget { max_heap: 150, ..big }
        }));
        // Dawson's Kayles grows past 24 elements at heap 25.
        let e = chart("07", &Budget { max_elements: 30, ..big });
        let Chart::Partial(p) = &e.chart else { panic!("{e:?}") };
        assert_eq!((p.reason, p.heap, p.size, p.p_count), (StopReason::Elements, 24, 24, 5));
        assert!(e.redo_under(&Budget { max_elements: 31, ..big }));
        assert!(!e.redo_under(&Budget { max_heap: 20_000, ..Budget { max_elements: 30, ..big } }));
        let e = chart("07", &Budget { max_candidate: 50, ..big });
        assert!(matches!(&e.chart, Chart::Partial(p) if p.reason == StopReason::Candidate), "{e:?}");
        let e = chart("35", &Budget { max_states: 10, ..big });
        assert!(matches!(&e.chart, Chart::Partial(p) if p.reason == StopReason::States), "{e:?}");
        let e = chart("35", &Budget { max_recalibrations: 1, ..big });
        assert!(matches!(&e.chart, Chart::Partial(p) if p.reason == StopReason::Recalibrations), "{e:?}");
        // A clock that has already run out: stopped before any heap.
        let e =
            chart_code(&code("07"), &Budget { seconds: 1.0, ..big }, &|| Duration::from_secs(2), &|| false)
                .unwrap()
                .entry;
        let Chart::Partial(p) = &e.chart else { panic!("{e:?}") };
        assert_eq!((p.reason, p.heap), (StopReason::Time, 0));
        assert!(
            e.redo_under(&Budget { seconds: 1.5, ..big }) && !e.redo_under(&Budget { seconds: 1.0, ..big })
        );
    }

    #[test]
    fn an_interrupt_leaves_nothing() {
        let b = Budget { seconds: 1e9, ..Budget::default() };
        assert!(chart_code(&code("07"), &b, &|| Duration::ZERO, &|| true).is_none());
    }

    #[test]
    fn a_tally_counts_by_reason() {
        let big = Budget { seconds: 1e9, ..Budget::default() };
        let es = [chart("77", &big), chart("07", &Budget { max_elements: 30, ..big }), chart("3", &big)];
        let t = tally(&es);
        assert_eq!((t.codes, t.certified, t.tame), (3, 2, 1));
        assert_eq!(t.partial, vec![(StopReason::Elements, 1)]);
    }
}
