//! Ctrl-C while the GIL is released.
//!
//! Python's own SIGINT handler only sets a flag; the `KeyboardInterrupt` is raised when some
//! code holding the GIL on the main thread checks for it. While the library works with the
//! GIL released, its stop hooks (the solver's `Progress::interrupted`, the quotient's
//! `stop`, the heap runs' per-stretch callback) call [`poll`], which takes the GIL for a
//! moment and asks Python whether a signal came. A pending `KeyboardInterrupt` (or whatever
//! a signal handler raised) is kept for this thread, the library stops at its next clean
//! point (keeping what is complete, as the command line's Ctrl-C does), and the caller
//! raises it with [`take`].

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

thread_local! {
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
    static LAST_POLL: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// How often [`poll_now_and_then`] really asks Python.
const POLL_EVERY: Duration = Duration::from_millis(50);

/// Whether a signal handler raised (Ctrl-C): asks Python (taking the GIL for a moment).
/// Once one has, keeps saying so until [`take`].
pub fn poll() -> bool {
    if PENDING.with(|p| p.borrow().is_some()) {
        return true;
    }
    LAST_POLL.with(|l| l.set(Some(Instant::now())));
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            true
        }
    })
}

/// [`poll`], but asking Python at most every 50 ms: for hooks called in tight loops.
pub fn poll_now_and_then() -> bool {
    if PENDING.with(|p| p.borrow().is_some()) {
        return true;
    }
    let due = LAST_POLL.with(|l| l.get().is_none_or(|t| t.elapsed() >= POLL_EVERY));
    due && poll()
}

/// Keeps `e` (an exception a callback raised) to be raised once the library has stopped.
pub fn keep(e: PyErr) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            *p = Some(e);
        }
    });
}

/// The exception kept by [`poll`] or [`keep`], if any; clears it.
pub fn take() -> Option<PyErr> {
    LAST_POLL.with(|l| l.set(None));
    PENDING.with(|p| p.borrow_mut().take())
}
