//! Asking a long computation to stop: a flag shared between the code that computes and
//! whoever may no longer want the answer (a server whose client left, a shutdown).
//!
//! Every nim-value loop looks at the flag: the plain mex of games that split heaps three
//! ways (about n⁴ to reach heap n) once per option size, the other engines (the plain and
//! direct mex, the sparse and rare-pair engines: seconds within a server's limits) every
//! [`STOP_EVERY`] heaps, so a stop is heard within milliseconds; they then give back every value they
//! finished ([`Stopped`]), each exact, so that a later request may continue from them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Heaps a nim-value engine computes between two looks at the [`Stop`] (the plain, direct,
/// sparse and rare-pair engines): a heap costs from a few nanoseconds (no rare heap met) to
/// O(n) pair reads (a rare one, or any heap of the plain method), so a stop is heard within
/// milliseconds and the look costs nothing measurable.
pub const STOP_EVERY: u32 = 64;

/// A request to stop, shared by clones. [`Stop::never`] is never set and costs nothing to
/// check.
#[derive(Clone, Debug, Default)]
pub struct Stop(Option<Arc<AtomicBool>>);

impl Stop {
    /// A flag nobody can set: the computation runs to its end.
    pub fn never() -> Stop {
        Stop(None)
    }

    /// A flag not yet set.
    pub fn new() -> Stop {
        Stop(Some(Arc::new(AtomicBool::new(false))))
    }

    /// Asks every holder of this flag (or a clone) to stop.
    pub fn stop(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a stop was asked for.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.0.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// A guard that asks for the stop when it is dropped: held by whoever waits for the
    /// answer (an HTTP request's future, which the server drops when its client leaves).
    pub fn on_drop(&self) -> StopOnDrop {
        StopOnDrop(self.clone())
    }
}

/// Sets its [`Stop`] when dropped (see [`Stop::on_drop`]).
#[derive(Debug)]
#[must_use = "the stop is asked for when the guard is dropped"]
pub struct StopOnDrop(Stop);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// A nim-value computation that stopped on request before it finished.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the nim-values were stopped on request after heaps 0..={}", values.len().saturating_sub(1))]
pub struct Stopped {
    /// g(0..len): the values finished before the stop, each exact (g(n) depends only on
    /// smaller heaps), from which a later computation may continue.
    pub values: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_sets_the_flag_for_every_clone() {
        let stop = Stop::new();
        let seen = stop.clone();
        assert!(!seen.is_stopped());
        drop(stop.on_drop());
        assert!(seen.is_stopped() && stop.is_stopped());
        let never = Stop::never();
        never.stop();
        assert!(!never.is_stopped());
    }
}
