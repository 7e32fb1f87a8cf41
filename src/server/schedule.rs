//! The server's scheduler: a pool of worker threads for each cost class, each pool with a
//! bounded queue of its own and a watch on the CPU time of every job it runs.
//!
//! The promise (written in `docs/http-api.md`, held by `tests/serve_load.rs`):
//! - a stored lookup runs on the lookup pool, which never runs theory: it never waits
//!   behind a theorem answer, heap values or a solve;
//! - a cheap theorem answer (what [`cost`](super::cost) classes as [`Class::Theorem`]: a
//!   theorem that decides the position, heap values already kept or few, a family's
//!   theorem over few moves) runs on the theorem pool, never behind work classed
//!   [`Class::Computed`] (heap values to compute, large move lists, slices, quotients),
//!   which has a pool of its own whose threads also run at a lower scheduling priority;
//! - each pool takes at most its queue's worth of waiting jobs: one more is refused at
//!   once (503, naming the bound), so a flood of one class neither grows the server's
//!   memory nor delays the others;
//! - each job's CPU time is watched: past the server's limit ([`Limits::cpu`]) its
//!   [`Stop`] is set, the work stops where it looks at it (within milliseconds in heap
//!   values, batches and slices) and the request is answered 422, naming the limit;
//! - a job whose client left is never started, and one under way is stopped (the request's
//!   future sets the stop when dropped).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::json;
use tokio::sync::oneshot;

use super::api::ApiError;
use crate::batch::{LookupError, Session};
use crate::resources::ThreadClock;
use crate::store::Database;
use crate::theory::Stop;

/// What a request costs, decided before it runs: which pool runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Stored records only (and theorems that decide a position beyond every heap a
    /// database holds, which cost no more than a lookup): the lookup pool.
    Lookup,
    /// A theorem answer of bounded, small cost: the theorem pool.
    Theorem,
    /// Work computed on the spot whose cost grows with the request: heap values, a long
    /// move list, a slice, a batch that needs theory, a misère quotient: the theory pool.
    Computed,
}

impl Class {
    /// The class in words, as an error names its pool.
    pub fn words(self) -> &'static str {
        match self {
            Class::Lookup => "stored lookups",
            Class::Theorem => "theorem answers",
            Class::Computed => "answers computed on the spot",
        }
    }
}

/// The most worker threads of one pool (`--workers`, `--theory-workers`): each holds an
/// open connection and a session with its caches.
pub const MAX_WORKERS: usize = 64;

/// The most requests one pool may hold waiting (`--queue`).
pub const MAX_QUEUE: usize = 4096;

/// The largest CPU limit per request (`--cpu-limit`), in seconds: an hour.
pub const MAX_CPU_SECONDS: f64 = 3600.0;

/// The CPU time a request's work may take unless the operator says otherwise.
pub const DEFAULT_CPU: Duration = Duration::from_secs(5);

/// The requests each pool may hold waiting unless the operator says otherwise.
pub const DEFAULT_QUEUE: usize = 128;

/// The theory pool's threads unless the operator says otherwise.
pub const DEFAULT_THEORY_WORKERS: usize = 2;

/// How a pool bounds its work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The CPU time one job may take before its stop is set.
    pub cpu: Duration,
    /// The most jobs waiting for a thread; one more is refused.
    pub queue: usize,
}

/// Lowers the calling thread's scheduling priority by `nice` (Linux: threads have their
/// own nice values), so that it yields the cores to the other pools' threads.
fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority on the calling thread take no pointers.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let _ = libc::setpriority(libc::PRIO_PROCESS, tid, nice);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// The length and modification time of a file, to see that it changed.
fn file_stamp(path: &std::path::Path) -> Option<(u64, Option<std::time::SystemTime>)> {
    std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()))
}

/// The job a worker runs now, as the watch sees it.
struct Running {
    /// The worker's clock and its reading when the job started (`None`: no thread clock
    /// here; the job's wall time is watched instead).
    clock: Option<(ThreadClock, Duration)>,
    started: std::time::Instant,
    stop: Stop,
    /// Set by the watch when it stopped the job at the limit.
    over: Arc<AtomicBool>,
}

impl Running {
    fn used(&self) -> Duration {
        match self.clock {
            Some((clock, at)) => {
                clock.used().map_or_else(|| self.started.elapsed(), |now| now.saturating_sub(at))
            }
            None => self.started.elapsed(),
        }
    }
}

/// One worker's place for the watch: what it runs now, if anything.
#[derive(Default)]
pub struct Slot(Mutex<Option<Running>>);

impl Slot {
    fn watch(&self, clock: Option<ThreadClock>, stop: Stop, over: Arc<AtomicBool>) {
        let clock = clock.and_then(|c| c.used().map(|at| (c, at)));
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(Running { clock, started: std::time::Instant::now(), stop, over });
        }
    }

    fn unwatch(&self) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = None;
        }
    }
}

/// A job run on a pool thread, given the worker's session, clock and slot; returns whether
/// it panicked (the thread then starts a fresh session: the one the panic left may be
/// half-way through an answer).
type Job = Box<dyn FnOnce(&mut Session<'_>, Option<ThreadClock>, &Slot) -> bool + Send>;

/// What a pool has done, shown at `/healthz`.
#[derive(Debug, Default)]
pub struct Counters {
    /// Jobs running now.
    pub busy: AtomicUsize,
    /// Jobs waiting for a thread now.
    pub waiting: AtomicUsize,
    /// Jobs started.
    pub started: AtomicU64,
    /// Jobs whose client left while they ran (their stop was set before they ended: work
    /// under way was stopped).
    pub abandoned: AtomicU64,
    /// Jobs whose client left before they started (not run at all).
    pub skipped: AtomicU64,
    /// Requests refused because the queue was full.
    pub refused: AtomicU64,
    /// Jobs stopped at the CPU limit.
    pub over_limit: AtomicU64,
}

/// Worker threads of one class, each with its own read-only connection and [`Session`],
/// a bounded queue, and a watch thread that stops a job past the CPU limit.
pub struct Pool {
    class: Class,
    jobs: Mutex<Option<mpsc::SyncSender<Job>>>,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    workers: usize,
    limits: Limits,
    /// The counters shown at `/healthz`.
    pub counters: Arc<Counters>,
    /// Set when the pool stops: the watch thread ends.
    closing: Arc<AtomicBool>,
}

/// How often the watch reads the running jobs' clocks.
const WATCH_EVERY: Duration = Duration::from_millis(10);

impl Pool {
    /// Starts `workers` threads (at least one) over `db`, each opening its own read-only
    /// connection first (so a bad file fails at once). The lookup pool's sessions defer
    /// theory ([`Session::set_defer_theory`]); `nice` lowers the threads' priority.
    pub fn start(
        db: &std::path::Path,
        class: Class,
        workers: usize,
        limits: Limits,
        nice: i32,
    ) -> Result<Pool, super::ServeError> {
        let (tx, rx) = mpsc::sync_channel::<Job>(limits.queue);
        let rx = Arc::new(Mutex::new(rx));
        let slots: Arc<Vec<Slot>> = Arc::new((0..workers.max(1)).map(|_| Slot::default()).collect());
        let kind = match class {
            Class::Lookup => "lookup",
            Class::Theorem => "theorem",
            Class::Computed => "theory",
        };
        let mut threads = Vec::new();
        for i in 0..workers.max(1) {
            let first = Database::open_read_only(db)?;
            let path = db.to_path_buf();
            let (rx, slots) = (rx.clone(), slots.clone());
            let spawned = std::thread::Builder::new().name(format!("nimdb-{kind}-{i}")).spawn(move || {
                if nice > 0 {
                    lower_priority(nice);
                }
                let clock = ThreadClock::current();
                fn session_of(db: &Database, class: Class) -> Session<'_> {
                    let mut session = Session::new(db);
                    session.set_defer_theory(class == Class::Lookup);
                    session
                }
                let mut db = first;
                let mut pending: Option<Job> = None;
                loop {
                    // A file opened as immutable never shows later commits: when it changes,
                    // it is opened again (the job that noticed waits for it).
                    let stamp = file_stamp(&path);
                    let mut session = session_of(&db, class);
                    loop {
                        let job = match pending.take() {
                            Some(job) => job,
                            None => match rx.lock().map(|rx| rx.recv()) {
                                Ok(Ok(job)) => job,
                                _ => return,
                            },
                        };
                        if db.is_immutable() && file_stamp(&path) != stamp {
                            pending = Some(job);
                            break;
                        }
                        if job(&mut session, clock, &slots[i]) {
                            session = session_of(&db, class);
                        }
                    }
                    drop(session);
                    if let Ok(again) = Database::open_read_only(&path) {
                        db = again;
                    }
                }
            });
            threads.push(spawned?);
        }
        let closing = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(Counters::default());
        {
            let (closing, slots, counters) = (closing.clone(), slots.clone(), counters.clone());
            let limit = limits.cpu;
            let watch = std::thread::Builder::new().name(format!("nimdb-{kind}-watch")).spawn(move || {
                while !closing.load(Ordering::Relaxed) {
                    std::thread::sleep(WATCH_EVERY);
                    for slot in slots.iter() {
                        let Ok(slot) = slot.0.lock() else { continue };
                        if let Some(running) = slot.as_ref()
                            && !running.over.load(Ordering::Relaxed)
                            && running.used() > limit
                        {
                            running.over.store(true, Ordering::Relaxed);
                            running.stop.stop();
                            counters.over_limit.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
            threads.push(watch?);
        }
        Ok(Pool {
            class,
            jobs: Mutex::new(Some(tx)),
            threads: Mutex::new(threads),
            workers: workers.max(1),
            limits,
            counters,
            closing,
        })
    }

    /// Runs `f` on a worker, with the session refreshed.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session<'_>) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        self.run_with(move |session, _| f(session)).await
    }

    /// Runs `f` on a worker, with the session refreshed and `f` given the job's [`Stop`]
    /// (the session's theory stops with it too). The stop is set when this future is
    /// dropped (axum drops a request's future when its client disconnects, and the runtime
    /// drops them all when the server stops) and when the job's CPU time passes the limit.
    /// Refused at once (503) when the pool's queue is full.
    pub async fn run_with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session<'_>, &Stop) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        // The limit rides with the stop: heap values predicted past it are refused up front.
        let stop = Stop::new().with_cpu_limit(self.limits.cpu);
        let _stop_when_dropped = stop.on_drop();
        let over = Arc::new(AtomicBool::new(false));
        let (tx, rx) = oneshot::channel();
        let counters = self.counters.clone();
        let cpu = self.limits.cpu;
        let job: Job = {
            let over = over.clone();
            Box::new(move |session, clock, slot| {
                counters.waiting.fetch_sub(1, Ordering::Relaxed);
                // The client left before the job started: nothing to answer.
                if tx.is_closed() || stop.is_stopped() {
                    counters.skipped.fetch_add(1, Ordering::Relaxed);
                    return false;
                }
                counters.started.fetch_add(1, Ordering::Relaxed);
                counters.busy.fetch_add(1, Ordering::Relaxed);
                session.set_stop(stop.clone());
                slot.watch(clock, stop.clone(), over.clone());
                // A lookup that panics (a bug) answers 500; its thread and the server go on.
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    session
                        .refresh()
                        .map_err(|e| LookupError::Store(e).into())
                        .and_then(|()| f(session, &stop))
                }));
                slot.unwatch();
                let panicked = run.is_err();
                let mut result = run.unwrap_or_else(|_| {
                    Err(ApiError { status: 500, message: "the lookup failed on an internal error".into() })
                });
                if result.is_err() && over.load(Ordering::Relaxed) {
                    result = Err(over_limit(cpu));
                }
                session.set_stop(Stop::never());
                // Hold no read transaction between requests (a solve may be checkpointing).
                session.release();
                if stop.is_stopped() && !over.load(Ordering::Relaxed) {
                    counters.abandoned.fetch_add(1, Ordering::Relaxed);
                }
                counters.busy.fetch_sub(1, Ordering::Relaxed);
                let _ = tx.send(result);
                panicked
            })
        };
        self.counters.waiting.fetch_add(1, Ordering::Relaxed);
        let sent = self.jobs.lock().ok().and_then(|j| j.as_ref().map(|tx| tx.try_send(job)));
        match sent {
            Some(Ok(())) => {}
            Some(Err(mpsc::TrySendError::Full(_))) => {
                self.counters.waiting.fetch_sub(1, Ordering::Relaxed);
                self.counters.refused.fetch_add(1, Ordering::Relaxed);
                return Err(ApiError {
                    status: 503,
                    message: format!(
                        "the server is busy: {} {} are waiting already, the most it holds; try again shortly",
                        self.limits.queue,
                        self.class.words()
                    ),
                });
            }
            _ => {
                self.counters.waiting.fetch_sub(1, Ordering::Relaxed);
                return Err(ApiError { status: 503, message: "the server is shutting down".into() });
            }
        }
        rx.await.unwrap_or_else(|_| Err(ApiError { status: 500, message: "the lookup failed".into() }))
    }

    /// Stops taking jobs and joins the threads that finish by `deadline` (a job's stop is
    /// set when the runtime drops its request); a thread still busy then is left to end
    /// with the process. Returns whether every thread was joined (every connection closed).
    pub fn stop(&self, deadline: std::time::Instant) -> bool {
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.take();
        }
        self.closing.store(true, Ordering::Relaxed);
        let threads = self.threads.lock().map(|mut t| std::mem::take(&mut *t)).unwrap_or_default();
        let mut all = true;
        for t in threads {
            while !t.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if t.is_finished() {
                let _ = t.join();
            } else {
                all = false;
            }
        }
        all
    }

    /// The pool's figures, as `/healthz` shows them.
    pub fn health(&self) -> serde_json::Value {
        let c = &self.counters;
        json!({
            "workers": self.workers,
            "queue": self.limits.queue,
            "cpu_limit_seconds": self.limits.cpu.as_secs_f64(),
            "busy": c.busy.load(Ordering::Relaxed),
            "waiting": c.waiting.load(Ordering::Relaxed),
            "started": c.started.load(Ordering::Relaxed),
            "abandoned": c.abandoned.load(Ordering::Relaxed),
            "skipped": c.skipped.load(Ordering::Relaxed),
            "refused": c.refused.load(Ordering::Relaxed),
            "over_limit": c.over_limit.load(Ordering::Relaxed),
        })
    }
}

/// The answer of a job stopped at the CPU limit.
pub fn over_limit(cpu: Duration) -> ApiError {
    ApiError {
        status: 422,
        message: format!(
            "the answer needs more than this server's limit of {} s of CPU time per request; \
             it was stopped there (heap values finished are kept, and a later request goes on from them)",
            seconds(cpu)
        ),
    }
}

/// A duration in seconds, as a limit is written (`5`, `0.5`).
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{}", s as u64) } else { format!("{s}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.sqlite");
        drop(Database::open(&db).unwrap());
        (dir, db)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    /// Finding: a lookup that panicked (a raise:C solve cut short did, in the families' answer path of an earlier version)
    /// killed its pool thread; with one worker every later request, of any game, was
    /// answered 503 "the server is shutting down". A panic now answers 500 and the thread
    /// goes on with a fresh session.
    #[test]
    fn a_lookup_that_panics_answers_500_and_its_thread_goes_on() {
        let (_dir, db) = db();
        let limits = Limits { cpu: DEFAULT_CPU, queue: 4 };
        let pool = Pool::start(&db, Class::Lookup, 1, limits, 0).unwrap();
        runtime().block_on(async {
            let failed = pool.run(|_| -> Result<u32, ApiError> { panic!("a bug in one lookup") }).await;
            assert_eq!(failed.unwrap_err().status, 500);
            assert_eq!(pool.run(|_| Ok(7)).await.unwrap(), 7);
        });
        assert_eq!(pool.counters.busy.load(Ordering::Relaxed), 0);
        assert_eq!(pool.counters.started.load(Ordering::Relaxed), 2);
        assert!(pool.stop(std::time::Instant::now() + Duration::from_secs(2)));
    }

    /// Issue 34 H2: a request's work had no bound but its own (`hex:0.[F]` at 1335 took
    /// 49.9 CPU s). A job that spins past the CPU limit has its stop set, and is answered
    /// 422 naming the limit; the worker is free for the next job.
    #[test]
    fn a_job_past_the_cpu_limit_is_stopped_and_answered_422() {
        let (_dir, db) = db();
        let limits = Limits { cpu: Duration::from_millis(200), queue: 4 };
        let pool = Pool::start(&db, Class::Computed, 1, limits, 0).unwrap();
        runtime().block_on(async {
            let spun = pool
                .run_with(|_, stop| -> Result<u64, ApiError> {
                    let mut n = 0u64;
                    while !stop.is_stopped() {
                        n = std::hint::black_box(n.wrapping_add(1));
                    }
                    Err(LookupError::Stopped.into())
                })
                .await
                .unwrap_err();
            assert_eq!(spun.status, 422, "{spun:?}");
            assert!(spun.message.contains("0.2 s of CPU time per request"), "{}", spun.message);
            // Sleeping costs no CPU: a job that waits longer than the limit is not stopped.
            let slept = pool
                .run_with(|_, stop| {
                    std::thread::sleep(Duration::from_millis(400));
                    Ok(stop.is_stopped())
                })
                .await;
            assert_eq!(slept, Ok(false));
        });
        assert_eq!(pool.counters.over_limit.load(Ordering::Relaxed), 1);
        assert_eq!(pool.counters.abandoned.load(Ordering::Relaxed), 0);
        pool.stop(std::time::Instant::now() + Duration::from_secs(2));
    }

    /// Issue 34 H1/H2: requests piled up without bound behind busy workers (50 clients took
    /// the server to 1.32 GB). A pool holds at most its queue: one more is refused at once
    /// with 503, naming the bound, and counted.
    #[test]
    fn a_full_queue_refuses_at_once() {
        let (_dir, db) = db();
        let limits = Limits { cpu: DEFAULT_CPU, queue: 2 };
        let pool = Arc::new(Pool::start(&db, Class::Computed, 1, limits, 0).unwrap());
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async {
            let gate = Arc::new(std::sync::Barrier::new(2));
            let held = {
                let (pool, gate) = (pool.clone(), gate.clone());
                tokio::spawn(async move {
                    pool.run(move |_| {
                        gate.wait();
                        gate.wait();
                        Ok(0)
                    })
                    .await
                })
            };
            // The worker is held: two jobs wait, the third is refused.
            let g = gate.clone();
            tokio::task::spawn_blocking(move || g.wait()).await.unwrap();
            let waiting: Vec<_> = (1..=2)
                .map(|i| {
                    let pool = pool.clone();
                    tokio::spawn(async move { pool.run(move |_| Ok(i)).await })
                })
                .collect();
            while pool.counters.waiting.load(Ordering::Relaxed) < 2 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let refused = pool.run(|_| Ok(9)).await.unwrap_err();
            assert_eq!(refused.status, 503);
            assert!(
                refused.message.contains("2 answers computed on the spot are waiting"),
                "{}",
                refused.message
            );
            let g = gate.clone();
            tokio::task::spawn_blocking(move || g.wait()).await.unwrap();
            assert_eq!(held.await.unwrap(), Ok(0));
            for (i, w) in waiting.into_iter().enumerate() {
                assert_eq!(w.await.unwrap(), Ok(i as i32 + 1));
            }
        });
        assert_eq!(pool.counters.refused.load(Ordering::Relaxed), 1);
        pool.stop(std::time::Instant::now() + Duration::from_secs(2));
    }
}
