//! Ctrl-C while the GIL is released.
//!
//! Python's own SIGINT handler only sets a flag; the `KeyboardInterrupt` is raised when some
//! code holding the GIL on the main thread checks for it. While the library works with the
//! GIL released, two things hear a Ctrl-C:
//!
//! - its stop hooks that call back (the solver's `Progress::interrupted`, the quotient's
//!   `stop`, the heap runs' per-stretch callback, a batch between positions) call [`poll`],
//!   which takes the GIL for a moment and asks Python whether a signal came;
//! - its loops that only look at a flag (the nim-values of a theory answer or of
//!   `heap_values`, which for a game that splits heaps three ways take minutes within one
//!   call) are handed [`Listening::stop`], a [`Stop`] that a SIGINT sets at once. For that,
//!   while a long call runs on the main thread under Python's default Ctrl-C handler, the
//!   process's SIGINT handler is one that sets the flag and then calls the handler it
//!   replaced (Python's, which notes the signal as before); [`Listening`] puts the old one
//!   back when the call ends.
//!
//! A pending `KeyboardInterrupt` (or whatever a signal handler raised) is kept for this
//! thread, the library stops at its next clean point (keeping what is complete, as the
//! command line's Ctrl-C does), and the caller raises it with [`take`].

use std::cell::{Cell, RefCell};
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nimdb::theory::Stop;
use pyo3::prelude::*;

thread_local! {
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
    static LAST_POLL: Cell<Option<Instant>> = const { Cell::new(None) };
    /// How many [`Listening`] guards this thread holds (nested calls: a progress callback
    /// that calls nimdb again).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Whether this thread's outermost guard installed the handler.
    static HEARING: Cell<bool> = const { Cell::new(false) };
}

/// How often [`poll_now_and_then`] really asks Python.
const POLL_EVERY: Duration = Duration::from_millis(50);

/// Set by the handler: a SIGINT came while a guard listened.
static FIRED: AtomicBool = AtomicBool::new(false);
/// The stop the handler sets: a leaked [`Stop`], replaced by a fresh one (leaking one per
/// Ctrl-C heard) when a guard starts after it was set, so the handler never reads freed
/// memory.
static STOP: AtomicPtr<Stop> = AtomicPtr::new(ptr::null_mut());
/// The handler replaced (`sa_sigaction` of the old `sigaction`) and whether it takes three
/// arguments (`SA_SIGINFO`).
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
static PREVIOUS_SIGINFO: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    FIRED.store(true, Ordering::SeqCst);
    let stop = STOP.load(Ordering::SeqCst);
    if !stop.is_null() {
        // SAFETY: STOP only ever points at a leaked, never freed `Stop`; `stop()` is one
        // atomic store, async-signal-safe.
        unsafe { (*stop).stop() };
    }
    let previous = PREVIOUS.load(Ordering::SeqCst);
    if previous == libc::SIG_DFL || previous == libc::SIG_IGN || previous == on_sigint as *const () as usize {
        return;
    }
    // SAFETY: `previous` is the handler the kernel would have called for this signal, with
    // the arguments its `SA_SIGINFO` flag says; Python's is async-signal-safe by design.
    unsafe {
        if PREVIOUS_SIGINFO.load(Ordering::SeqCst) {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(previous);
            f(signal, info, context);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(previous);
            f(signal);
        }
    }
}

/// Python's main thread's ident (`threading.main_thread().ident`, which is `pthread_self()`).
fn main_thread(py: Python<'_>) -> Option<u64> {
    static MAIN: OnceLock<Option<u64>> = OnceLock::new();
    *MAIN.get_or_init(|| {
        py.import("threading")
            .and_then(|t| t.call_method0("main_thread"))
            .and_then(|m| m.getattr("ident"))
            .and_then(|i| i.extract::<u64>())
            .ok()
    })
}

/// Whether Python's SIGINT handler is its default one (`signal.default_int_handler`, which
/// raises KeyboardInterrupt): only then does a Ctrl-C stop a flag-watching loop at once (a
/// handler of the program's own is called at the polls, as before).
fn default_handler(py: Python<'_>) -> bool {
    let Ok(signal) = py.import("signal") else { return false };
    let (Ok(current), Ok(default)) = (
        signal.getattr("SIGINT").and_then(|s| signal.call_method1("getsignal", (s,))),
        signal.getattr("default_int_handler"),
    ) else {
        return false;
    };
    current.is(&default)
}

/// While held, a Ctrl-C sets [`Listening::stop`] at once (see the module's doc). Take one
/// (with the GIL) before releasing the GIL for a long call, and drop it after.
pub struct Listening {
    /// The handler this guard replaced, put back on drop (`None`: nothing installed).
    previous: Option<libc::sigaction>,
    stop: Stop,
}

impl Listening {
    /// Starts listening: on Python's main thread under its default SIGINT handler, installs
    /// the handler that sets the stop; elsewhere (another thread, a handler of the
    /// program's own, or nested in a call already listening) only [`poll`] hears signals.
    pub fn new(py: Python<'_>) -> Listening {
        let depth = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        if depth > 1 {
            // Nested: the outer call's handler and stop stay in place.
            let stop = if HEARING.with(Cell::get) { current_stop() } else { Stop::new() };
            return Listening { previous: None, stop };
        }
        FIRED.store(false, Ordering::SeqCst);
        // SAFETY: pthread_self has no preconditions.
        let me = unsafe { libc::pthread_self() } as u64;
        if main_thread(py) != Some(me) || !default_handler(py) {
            return Listening { previous: None, stop: Stop::new() };
        }
        let current = STOP.load(Ordering::SeqCst);
        // SAFETY: STOP points at a leaked `Stop` or is null.
        if current.is_null() || unsafe { (*current).is_stopped() } {
            STOP.store(Box::into_raw(Box::new(Stop::new())), Ordering::SeqCst);
        }
        // SAFETY: a zeroed sigaction is a valid value to fill; sigaction(2) with valid
        // pointers has no other preconditions, and the handler is async-signal-safe.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, ptr::null(), &mut previous) != 0 {
                return Listening { previous: None, stop: Stop::new() };
            }
            PREVIOUS.store(previous.sa_sigaction, Ordering::SeqCst);
            PREVIOUS_SIGINFO.store(previous.sa_flags & libc::SA_SIGINFO != 0, Ordering::SeqCst);
            let mut ours: libc::sigaction = std::mem::zeroed();
            ours.sa_sigaction = on_sigint as *const () as usize;
            ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut ours.sa_mask);
            if libc::sigaction(libc::SIGINT, &ours, ptr::null_mut()) != 0 {
                return Listening { previous: None, stop: Stop::new() };
            }
            HEARING.with(|h| h.set(true));
            Listening { previous: Some(previous), stop: current_stop() }
        }
    }

    /// The stop a Ctrl-C sets while this guard listens. Where none can (another thread, a
    /// handler of the program's own), a flag of its own all the same: a CPU watch may set
    /// it (`cpu_limit`), and the polls hear Ctrl-C.
    pub fn stop(&self) -> &Stop {
        &self.stop
    }
}

/// A fresh stop in place of one a CPU watch set (a batch's position stopped at its
/// `cpu_limit`: the next position needs a flag not yet set): on a thread whose guard
/// listens, the one a Ctrl-C now sets (the old one is leaked, as after a Ctrl-C, so the
/// handler never reads freed memory); elsewhere a new flag of its own.
pub fn renewed() -> Stop {
    if !HEARING.with(Cell::get) {
        return Stop::new();
    }
    STOP.store(Box::into_raw(Box::new(Stop::new())), Ordering::SeqCst);
    current_stop()
}

impl Drop for Listening {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
        if let Some(previous) = self.previous {
            // SAFETY: puts back the sigaction read when the guard started.
            unsafe {
                libc::sigaction(libc::SIGINT, &previous, ptr::null_mut());
            }
            HEARING.with(|h| h.set(false));
        }
    }
}

/// A clone of the stop the handler sets.
fn current_stop() -> Stop {
    let current = STOP.load(Ordering::SeqCst);
    if current.is_null() {
        return Stop::never();
    }
    // SAFETY: STOP points at a leaked, never freed `Stop`.
    unsafe { (*current).clone() }
}

/// Whether the handler of this thread's guard heard a Ctrl-C.
fn fired() -> bool {
    HEARING.with(Cell::get) && FIRED.load(Ordering::SeqCst)
}

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

/// [`poll`], but asking Python at most every 50 ms (at once after a Ctrl-C the handler
/// heard): for hooks called in tight loops.
pub fn poll_now_and_then() -> bool {
    if PENDING.with(|p| p.borrow().is_some()) {
        return true;
    }
    let due = fired() || LAST_POLL.with(|l| l.get().is_none_or(|t| t.elapsed() >= POLL_EVERY));
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

/// The exception kept by [`poll`] or [`keep`], or the one Python raises for a Ctrl-C the
/// handler heard, if any; clears it.
pub fn take() -> Option<PyErr> {
    LAST_POLL.with(|l| l.set(None));
    if let Some(e) = PENDING.with(|p| p.borrow_mut().take()) {
        return Some(e);
    }
    if fired() {
        FIRED.store(false, Ordering::SeqCst);
        return Some(Python::attach(|py| match py.check_signals() {
            Err(e) => e,
            // The signal was noted by a handler other than Python's: still a Ctrl-C.
            Ok(()) => pyo3::exceptions::PyKeyboardInterrupt::new_err(()),
        }));
    }
    None
}

/// Clears what an earlier call left (at the start of a call).
pub fn clear() {
    LAST_POLL.with(|l| l.set(None));
    PENDING.with(|p| p.borrow_mut().take());
}
