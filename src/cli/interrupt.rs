//! Ctrl-C for long computations: SIGINT sets a flag that the computation checks between
//! stretches, so that it stops after committing what is complete instead of dying midway.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// From now on SIGINT asks the computation to stop (see [`requested`]) instead of ending
/// the process.
pub fn install() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// Whether SIGINT arrived since [`install`].
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
