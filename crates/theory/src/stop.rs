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
use std::time::Duration;

/// Heaps a nim-value engine computes between two looks at the [`Stop`] (the plain, direct,
/// sparse and rare-pair engines): a heap costs from a few nanoseconds (no rare heap met) to
/// O(n) pair reads (a rare one, or any heap of the plain method), so a stop is heard within
/// milliseconds and the look costs nothing measurable.
pub const STOP_EVERY: u32 = 64;

/// A request to stop, shared by clones, with the CPU time its holder allows the work
/// ([`Stop::cpu_limit`]). [`Stop::never`] is never set and costs nothing to check.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    flag: Option<Arc<AtomicBool>>,
    cpu: Option<Duration>,
}

impl Stop {
    /// A flag nobody can set: the computation runs to its end.
    pub fn never() -> Stop {
        Stop { flag: None, cpu: None }
    }

    /// A flag not yet set.
    pub fn new() -> Stop {
        Stop { flag: Some(Arc::new(AtomicBool::new(false))), cpu: None }
    }

    /// The same flag, with the CPU time the work may take: work whose cost is predicted
    /// past it is refused before it starts (the caller's face names the limit), and whoever
    /// holds the flag sets it when the time is spent (a server's watch, the command line's).
    pub fn with_cpu_limit(self, limit: Duration) -> Stop {
        Stop { cpu: Some(limit), ..self }
    }

    /// The CPU time the work may take, when its holder set one.
    pub fn cpu_limit(&self) -> Option<Duration> {
        self.cpu
    }

    /// Asks every holder of this flag (or a clone) to stop.
    pub fn stop(&self) {
        if let Some(flag) = &self.flag {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a stop was asked for.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.flag.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
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
        let limited = stop.clone().with_cpu_limit(Duration::from_secs(3));
        assert!(limited.is_stopped(), "the same flag, with a limit");
        assert_eq!((limited.cpu_limit(), stop.cpu_limit()), (Some(Duration::from_secs(3)), None));
    }
}
