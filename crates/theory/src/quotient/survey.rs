//! Surveys: the quotient of every octal code with up to D digits after the point.

use std::time::{Duration, Instant};

use crate::game::TakeBreakCode;

use super::{Limits, Quotient, QuotientError, QuotientOptions, compute_quotient};

/// The largest `--digits` accepted.
pub const MAX_SURVEY_DIGITS: u32 = 4;

/// Why a survey cannot be listed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SurveyError {
    /// The number of digits is out of range.
    #[error("a survey takes codes of 1 to {MAX_SURVEY_DIGITS} digits after the point, not {given}")]
    Digits {
        /// The digits asked for.
        given: u32,
    },
    /// A code could not be built (a bug: every listed code is valid).
    #[error(transparent)]
    Code(#[from] crate::game::CodeError),
}

/// Every octal code 0.d₁…d_D with 1 ≤ D ≤ `digits` and d_D ≠ 0, in order of length, then
/// digits.
pub fn survey_codes(digits: u32) -> Result<Vec<TakeBreakCode>, SurveyError> {
    if digits == 0 || digits > MAX_SURVEY_DIGITS {
        return Err(SurveyError::Digits { given: digits });
    }
    let mut out = Vec::new();
    for len in 1..=digits {
        for n in 0..8u32.pow(len) {
            let ds: Vec<u8> = (0..len).rev().map(|i| (n / 8u32.pow(i) % 8) as u8).collect();
            if *ds.last().unwrap() == 0 {
                continue;
            }
            let code = TakeBreakCode::new(0, &ds, None)?;
            out.push(code);
        }
    }
    Ok(out)
}

/// How one code of a survey ended.
#[derive(Debug)]
pub enum SurveyOutcome {
    /// A verified quotient (certified or not).
    Solved(Box<Quotient>),
    /// Left open: the heap reached and why.
    Open {
        /// The last heap added.
        heap: u32,
        /// Why it stopped.
        why: String,
    },
    /// `stop` asked to end the survey during this code; nothing is known about it.
    Stopped,
}

/// The survey computation of one code: grow to `cap` heaps, with `limits`, for at most
/// `budget` of wall time (checked between heaps), or until `stop()` says so (checked there
/// too; then the outcome is [`SurveyOutcome::Stopped`]).
pub fn survey_one(
    code: &TakeBreakCode,
    cap: u32,
    limits: Limits,
    budget: Duration,
    stop: &dyn Fn() -> bool,
) -> SurveyOutcome {
    let start = Instant::now();
    let mut reached = 0;
    let opts = QuotientOptions { cap, limits, deadline: Some(start + budget), ..QuotientOptions::default() };
    match compute_quotient(code, opts, &mut |heap, _| {
        reached = heap;
        start.elapsed() < budget && !stop()
    }) {
        _ if stop() => SurveyOutcome::Stopped,
        Ok(q) if q.proven() => SurveyOutcome::Solved(Box::new(q)),
        Ok(q) => SurveyOutcome::Open { heap: q.max_heap, why: format!("no period proven by heap {cap}") },
        Err(QuotientError::Interrupted { heap }) => {
            SurveyOutcome::Open { heap, why: format!("time budget of {budget:?} spent") }
        }
        Err(e) => SurveyOutcome::Open { heap: reached, why: e.to_string() },
    }
}
