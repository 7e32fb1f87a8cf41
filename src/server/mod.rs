//! `nimdb serve`: a JSON API over the database and the web explorer page, on axum/tokio.
//!
//! Requests run on three pools of worker threads ([`schedule`]), each thread with its own
//! read-only connection and [`Session`] (cached rank tables, tier metadata, blocks and stored
//! misère quotients, refreshed when another connection commits): stored lookups, theorem
//! answers of small bounded cost, and work computed on the spot, chosen by an estimate made
//! before the request runs ([`cost`]). Each pool has a bounded queue, each job a CPU limit,
//! and each job stops when its client leaves (a [`Stop`] set when the request's future is
//! dropped). Positions with heaps beyond the database's (up to `u64::MAX`) are answered by
//! theorems alone. The nim-values computed are kept for later requests ([`recent`]), and so
//! are the answers of `/api/v1/heaps` ([`HEAPS_CACHE_BYTES`]). Connections are accepted by
//! [`listen`], with timeouts for slow clients. The server never writes to the database,
//! unless started with `--solve-up-to N`: then a position no stored solve holds is solved on
//! the spot when its universe has at most N positions, through one read-write connection,
//! until all such solves have added up to the total allowed (`--solve-total`).

pub mod api;
pub mod cost;
pub mod listen;
pub mod schedule;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::answer::{Answer, Listing};
use crate::batch::{LookupError, Session};
use crate::game::{Game, GameSpec};
use crate::query::{Plan, QueryError, Quotients, answer_after_solving_until, plan};
use crate::store::Database;
use crate::theory::report::{HeapOptions, TheoryError, heap_report_until};
use crate::theory::{Stop, recent};
use api::ApiError;
use schedule::{Class, Limits, Pool};

/// The explorer page, served at `/`.
pub const PAGE: &str = include_str!("page.html");

/// The most positions `--solve-up-to` may allow a single request to solve.
pub const MAX_SOLVE_UP_TO: u64 = crate::query::AUTO_SOLVE_LIMIT;

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// `--solve-up-to` above [`MAX_SOLVE_UP_TO`].
    #[error(
        "on-the-spot solves of {0} positions are too large: they are bounded by {MAX_SOLVE_UP_TO} positions"
    )]
    SolveBoundTooLarge(u64),
    /// A thread count, queue, limit or timeout out of its range.
    #[error("{0}")]
    Bound(String),
    /// The database could not be opened.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// Binding, serving or starting a thread failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// How `nimdb serve` runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The database file.
    pub db: PathBuf,
    /// Where to listen.
    pub addr: SocketAddr,
    /// Solve positions no stored solve holds when their universe has at most this many
    /// positions (writes to the database); `None`: never write.
    pub solve_up_to: Option<u64>,
    /// The most positions all on-the-spot solves may add up to while the server runs
    /// (`None`: as many as `solve_up_to`, one solve's worth).
    pub solve_total: Option<u64>,
    /// Threads of the lookup pool and of the theorem pool, each (1..=[`schedule::MAX_WORKERS`]).
    pub workers: usize,
    /// Threads of the theory pool, for answers computed on the spot (1..=[`schedule::MAX_WORKERS`]).
    pub theory_workers: usize,
    /// The CPU time one request's work may take, and the requests each pool holds waiting.
    pub limits: Limits,
    /// How long a client may take to send a request's head, or stay idle between requests.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
}

impl Config {
    /// The server's defaults for `db` at `addr`: as many lookup threads as cores (at most
    /// [`schedule::MAX_WORKERS`]), [`schedule::DEFAULT_THEORY_WORKERS`] theory threads,
    /// [`schedule::DEFAULT_CPU`] per request, [`schedule::DEFAULT_QUEUE`] waiting per pool,
    /// and the timeouts of [`listen`]; never solving.
    pub fn new(db: PathBuf, addr: SocketAddr) -> Config {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Config {
            db,
            addr,
            solve_up_to: None,
            solve_total: None,
            workers: cores.clamp(1, schedule::MAX_WORKERS),
            theory_workers: schedule::DEFAULT_THEORY_WORKERS,
            limits: Limits { cpu: schedule::DEFAULT_CPU, queue: schedule::DEFAULT_QUEUE },
            header_timeout: listen::HEADER_TIMEOUT,
            body_timeout: listen::BODY_TIMEOUT,
        }
    }

    /// Refuses a bound out of range before anything starts.
    fn check(&self) -> Result<(), ServeError> {
        if let Some(n) = self.solve_up_to.filter(|&n| n > MAX_SOLVE_UP_TO) {
            return Err(ServeError::SolveBoundTooLarge(n));
        }
        for (what, n) in [("lookup", self.workers), ("theory", self.theory_workers)] {
            if !(1..=schedule::MAX_WORKERS).contains(&n) {
                return Err(ServeError::Bound(format!(
                    "{n} {what} threads: each pool has 1 to {} threads (each holds an open connection)",
                    schedule::MAX_WORKERS
                )));
            }
        }
        if !(1..=schedule::MAX_QUEUE).contains(&self.limits.queue) {
            return Err(ServeError::Bound(format!(
                "a queue of {} requests: each pool holds 1 to {} waiting",
                self.limits.queue,
                schedule::MAX_QUEUE
            )));
        }
        let seconds = |d: Duration, max: f64| d > Duration::ZERO && d.as_secs_f64() <= max;
        if !seconds(self.limits.cpu, schedule::MAX_CPU_SECONDS) {
            return Err(ServeError::Bound(format!(
                "a CPU limit of {} s per request: it is more than 0 and at most {} s",
                schedule::seconds(self.limits.cpu),
                schedule::MAX_CPU_SECONDS
            )));
        }
        for (what, d) in [("header", self.header_timeout), ("body", self.body_timeout)] {
            if !seconds(d, listen::MAX_TIMEOUT_SECONDS) {
                return Err(ServeError::Bound(format!(
                    "a {what} timeout of {} s: it is more than 0 and at most {} s",
                    schedule::seconds(d),
                    listen::MAX_TIMEOUT_SECONDS
                )));
            }
        }
        Ok(())
    }
}

struct AppState {
    /// Stored lookups.
    pool: Pool,
    /// Theorem answers of small, bounded cost ([`Class::Theorem`]).
    theorem: Pool,
    /// Answers computed on the spot ([`Class::Computed`]).
    theory: Pool,
    /// How long a client may take to send a body.
    body_timeout: Duration,
    /// The read-write connection for `--solve-up-to`, with its bounds.
    solver: Option<Solver>,
    /// Held while a misère quotient is computed for `GET /api/v1/quotient`: one at a time.
    quotient: Mutex<()>,
    /// The answers of `GET /api/v1/heaps` kept between requests.
    heaps: AnswerCache,
}

/// The most bytes of `GET /api/v1/heaps` answers kept between requests (an answer up to
/// heap 20,000 is about 200 KB).
pub const HEAPS_CACHE_BYTES: usize = 16 << 20;

/// The most `GET /api/v1/heaps` answers kept between requests.
pub const HEAPS_CACHE_ENTRIES: usize = 256;

/// Answers kept between requests, by (canonical game, up_to): the JSON bytes, the least
/// recently used forgotten first past [`HEAPS_CACHE_BYTES`] or [`HEAPS_CACHE_ENTRIES`].
/// An answer is a function of its key alone (the heap values of a game never change), so a
/// kept one is sent as it is.
#[derive(Default)]
struct AnswerCache {
    /// Most recently used last.
    entries: Mutex<Vec<((String, u32), axum::body::Bytes)>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl AnswerCache {
    fn get(&self, key: &(String, u32)) -> Option<axum::body::Bytes> {
        let found = self.entries.lock().ok().and_then(|mut entries| {
            let i = entries.iter().position(|(k, _)| k == key)?;
            let entry = entries.remove(i);
            let bytes = entry.1.clone();
            entries.push(entry);
            Some(bytes)
        });
        let counter = if found.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn keep(&self, key: (String, u32), bytes: axum::body::Bytes) {
        if bytes.len() > HEAPS_CACHE_BYTES {
            return;
        }
        let Ok(mut entries) = self.entries.lock() else { return };
        entries.retain(|(k, _)| *k != key);
        entries.push((key, bytes));
        while entries.len() > HEAPS_CACHE_ENTRIES
            || entries.iter().map(|(_, b)| b.len()).sum::<usize>() > HEAPS_CACHE_BYTES
        {
            entries.remove(0);
        }
    }

    fn health(&self) -> serde_json::Value {
        let (answers, bytes) = self
            .entries
            .lock()
            .map(|e| (e.len(), e.iter().map(|(_, b)| b.len()).sum::<usize>()))
            .unwrap_or_default();
        json!({
            "answers": answers,
            "bytes": bytes,
            "hits": self.hits.load(Ordering::Relaxed),
            "misses": self.misses.load(Ordering::Relaxed),
        })
    }
}

/// On-the-spot solves: one read-write connection, the bound on each solve, and the
/// positions all of them may still add.
struct Solver {
    db: Mutex<Database>,
    limit: u64,
    left: Mutex<u64>,
    total: u64,
    /// The CPU time one solve may take (`--cpu-limit`), on its threads' clocks.
    cpu: Duration,
    counters: SolverCounters,
    /// The threads that do the solves' work: the request's thread and the solves' own
    /// pool, started with the first solve (its workers, and the tier writer they start).
    /// A solve's CPU time is theirs, not the process's (other requests' work does not count
    /// against a solve's limit); solves run one at a time (the database's lock is held).
    threads: crate::query::AnswerThreads,
}

/// What the on-the-spot solves have done, shown at `/healthz` (`solver`).
#[derive(Default)]
struct SolverCounters {
    /// Requests in the solver now (waiting for its connection, planning or solving).
    busy: AtomicU64,
    /// Solves started.
    started: AtomicU64,
    /// Solves whose client left: stopped before their next tier (or never started).
    abandoned: AtomicU64,
    /// Solves stopped at the CPU limit (`--cpu-limit`), before their next tier.
    over_limit: AtomicU64,
}

/// Counts a request in the solver while it is held ([`SolverCounters::busy`]).
struct InSolver<'a>(&'a SolverCounters);

impl SolverCounters {
    fn run(&self) -> InSolver<'_> {
        self.busy.fetch_add(1, Ordering::Relaxed);
        InSolver(self)
    }
}

impl Drop for InSolver<'_> {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

type Shared = Arc<AppState>;

impl AppState {
    /// The pool that runs work of `class`.
    fn pool_for(&self, class: Class) -> &Pool {
        match class {
            Class::Lookup => &self.pool,
            Class::Theorem => &self.theorem,
            Class::Computed => &self.theory,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, axum::Json(self.body())).into_response()
    }
}

fn json_response(value: &impl serde::Serialize) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(e) => ApiError { status: 500, message: e.to_string() }.into_response(),
    }
}

/// The router: the API, the page, JSON errors for unknown routes and methods.
fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/healthz", get(healthz))
        .route("/api/v1/query", get(get_query).post(post_query))
        .route("/api/v1/solves", get(get_solves))
        .route("/api/v1/heaps", get(get_heaps))
        .route("/api/v1/quotient", get(get_quotient))
        .route("/api/v1/slice", get(get_slice))
        .fallback(|| async { ApiError { status: 404, message: "no such page (see /api/v1/…)".into() } })
        .method_not_allowed_fallback(|| async {
            ApiError { status: 405, message: "method not allowed".into() }
        })
        .with_state(state)
}

/// An answer as JSON bytes: the whole answer, or without the move list.
fn reply_json(answer: &Answer, listing: Listing) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::with_capacity(512);
    push_answer(&mut out, answer, listing)?;
    Ok(out)
}

/// Appends an answer's JSON to `out`: the whole answer, or without the move list.
fn push_answer(out: &mut Vec<u8>, answer: &Answer, listing: Listing) -> Result<(), ApiError> {
    match listing {
        Listing::All => push_json(out, answer),
        Listing::BestOnly => push_json(out, &answer.brief()),
    }
}

/// A 200 with a JSON body.
fn json_bytes(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

async fn get_query(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let request = match api::parse_query_request(raw.as_deref()) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let (game, convention, position, listing) =
        (request.game, request.convention, request.position, request.listing);
    let looked_up = {
        // Written as JSON on the worker thread, so the answer is freed where it was made.
        let answer = move |s: &mut Session<'_>, game: &Game, position: &[u64]| match s
            .answer(game, convention, position, listing)
        {
            Err(LookupError::Deferred) => Ok(None),
            answer => answer.map_err(ApiError::from).and_then(|a| reply_json(&a, listing)).map(Some),
        };
        let (g, p) = (game.clone(), position.clone());
        match state.pool.run(move |s| answer(s, &g, &p)).await {
            Ok(Some(bytes)) => Ok(bytes),
            // Theory on the spot: apart from stored lookups, on the pool its cost classes it to.
            Ok(None) => {
                let (g, p) = (game.clone(), position.clone());
                let class = cost::query(&game, convention, &position);
                state.pool_for(class).run(move |s| answer(s, &g, &p)).await.and_then(|bytes| {
                    bytes.ok_or_else(|| ApiError { status: 500, message: "theory was deferred twice".into() })
                })
            }
            Err(e) => Err(e),
        }
    };
    match looked_up {
        Ok(bytes) => json_bytes(bytes),
        Err(e) if e.status == 404 && state.solver.is_some() => {
            let solver = state.clone();
            // Set when this future is dropped (the client left), or by the watch of the
            // CPU time past the limit: the solve stops before its next tier, keeping the
            // tiers it finished.
            let cpu = state.solver.as_ref().map_or(schedule::DEFAULT_CPU, |s| s.cpu);
            let stop = Stop::new().with_cpu_limit(cpu);
            let _stop_when_dropped = stop.on_drop();
            let solved = tokio::task::spawn_blocking(move || {
                let solver = solver.solver.as_ref().expect("a solver");
                let _running = solver.counters.run();
                let poisoned = || ApiError { status: 500, message: "solver poisoned".into() };
                let mut db = solver.db.lock().map_err(|_| poisoned())?;
                // Solve a small universe on the spot; quotients are only read, never computed.
                let refused = |e: QueryError| ApiError { status: 404, message: format!("{e:#}") };
                match plan(Some(&db), &game, convention, &position, solver.limit, Quotients::Stored)
                    .map_err(refused)?
                {
                    Plan::Answered(answer) => Ok(*answer),
                    Plan::Solve(cover) => {
                        // Planned as `nimdb solve` plans one: within the memory this process
                        // may use and the disk beside the file.
                        let threads = solver.threads.threads();
                        crate::query::cover_fits(&game, convention, &cover, db.path(), threads).map_err(|e| {
                            ApiError { status: 503, message: format!("{e}; nothing was written") }
                        })?;
                        if stop.is_stopped() {
                            solver.counters.abandoned.fetch_add(1, Ordering::Relaxed);
                            return Err(LookupError::Stopped.into());
                        }
                        let cost = cover.positions();
                        let mut left = solver.left.lock().map_err(|_| poisoned())?;
                        if cost > *left {
                            return Err(ApiError {
                                status: 503,
                                message: format!(
                                    "solving this position on the spot takes {cost} positions, more than \
                                     the {} left of the {} this server may solve in all",
                                    *left, solver.total
                                ),
                            });
                        }
                        // Counted whole though its client may leave part-way: the tiers
                        // it stores stay, and a later solve resumes from them.
                        *left -= cost;
                        drop(left);
                        solver.counters.started.fetch_add(1, Ordering::Relaxed);
                        // The solve runs on the solver's own pool, whose threads (and the
                        // tier writer they start) are one thread group: their CPU time and
                        // this thread's are watched, not the process's, so other requests'
                        // work never counts against the solve's limit.
                        let watch = solver.threads.watch(&stop);
                        let db: &mut Database = &mut db;
                        let solved = solver.threads.install(|| {
                            answer_after_solving_until(db, &game, convention, &position, cover, &stop)
                        });
                        let over = watch.fired();
                        drop(watch);
                        if over {
                            solver.counters.over_limit.fetch_add(1, Ordering::Relaxed);
                            return Err(ApiError {
                                status: 422,
                                message: format!(
                                    "solving this position on the spot needs more than this server's limit of {} s \
                                     of CPU time per request (--cpu-limit); it was stopped there, and the tiers it \
                                     finished are stored: the same request goes on from them",
                                    schedule::seconds(cpu)
                                ),
                            });
                        }
                        if stop.is_stopped() {
                            solver.counters.abandoned.fetch_add(1, Ordering::Relaxed);
                        }
                        solved.map_err(refused)
                    }
                }
            })
            .await;
            match solved {
                Ok(Ok(answer)) => match reply_json(&answer, listing) {
                    Ok(bytes) => json_bytes(bytes),
                    Err(e) => e.into_response(),
                },
                Ok(Err(e)) => e.into_response(),
                Err(e) => ApiError { status: 500, message: e.to_string() }.into_response(),
            }
        }
        Err(e) => e.into_response(),
    }
}

/// Whether solving `universe` on the spot fits whole in memory (the solve does not spill)
/// A POST batch's answers as one JSON array; `None` when an item needs theory this session
/// defers. Stops between items when `stop` is set (the client left, or the CPU limit), also
/// when every answer comes from memory.
fn write_batch(
    s: &mut Session<'_>,
    request: &api::BatchRequest,
    stop: &Stop,
) -> Result<Option<Vec<u8>>, ApiError> {
    let mut out = Vec::with_capacity(256 * request.positions.len() + 2);
    out.push(b'[');
    for (i, item) in request.positions.iter().enumerate() {
        if stop.is_stopped() {
            return Err(LookupError::Stopped.into());
        }
        if i > 0 {
            out.push(b',');
        }
        let position = match &item.position {
            Ok(p) => p,
            Err(e) => {
                push_json(&mut out, &item.error(i, e))?;
                continue;
            }
        };
        match s.answer(&request.game, request.convention, position, request.listing) {
            Ok(answer) => push_answer(&mut out, &answer, request.listing)?,
            Err(LookupError::Deferred) => return Ok(None),
            Err(e @ (LookupError::Store(_) | LookupError::Stopped)) => return Err(ApiError::from(e)),
            Err(e) => {
                let e = ApiError::from(e);
                let error =
                    json!({ "index": i, "position": position, "error": e.message, "status": e.status });
                push_json(&mut out, &error)?;
            }
        }
    }
    out.push(b']');
    Ok(Some(out))
}

/// Appends one batch item's JSON to `out`.
fn push_json(out: &mut Vec<u8>, value: &impl serde::Serialize) -> Result<(), ApiError> {
    serde_json::to_writer(&mut *out, value).map_err(|e| ApiError { status: 500, message: e.to_string() })
}

async fn post_query(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
    headers: axum::http::HeaderMap,
    body: Body,
) -> Response {
    let too_large = || ApiError {
        status: 413,
        message: format!("the body is larger than {} bytes", api::MAX_BODY_BYTES),
    };
    // Refused by its declared length before a byte of it is read (the connection is then
    // closed: the body is never read).
    if let Some(length) = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok())
        && length.trim().parse::<u64>().is_ok_and(|n| n > api::MAX_BODY_BYTES as u64)
    {
        return too_large().into_response();
    }
    let bytes =
        match tokio::time::timeout(state.body_timeout, axum::body::to_bytes(body, api::MAX_BODY_BYTES)).await
        {
            Ok(Ok(b)) => b,
            Ok(Err(_)) => return too_large().into_response(),
            Err(_) => {
                return ApiError {
                    status: 408,
                    message: format!(
                        "the body did not arrive within this server's {} s",
                        schedule::seconds(state.body_timeout)
                    ),
                }
                .into_response();
            }
        };
    let request = match api::parse_batch_request(raw.as_deref(), &bytes) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    // The answers, written as one JSON array in order: each answer, or for a position that
    // is not one or that nothing answers, its error object with its index. A batch that
    // needs theory on the spot is answered again, on the pool its cost classes it to.
    let request = Arc::new(request);
    let first = {
        let request = request.clone();
        state.pool.run_with(move |s, stop| write_batch(s, &request, stop)).await
    };
    let answers = match first {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => {
            let positions: Vec<&Vec<u64>> =
                request.positions.iter().filter_map(|item| item.position.as_ref().ok()).collect();
            let class = cost::batch_of(&request.game, request.convention, &positions);
            state.pool_for(class).run_with(move |s, stop| write_batch(s, &request, stop)).await.and_then(
                |bytes| {
                    bytes.ok_or_else(|| ApiError { status: 500, message: "theory was deferred twice".into() })
                },
            )
        }
        Err(e) => Err(e),
    };
    match answers {
        Ok(bytes) => json_bytes(bytes),
        Err(e) => e.into_response(),
    }
}

async fn get_solves(State(state): State<Shared>) -> Response {
    let listed =
        state.pool.run(|s| s.db().solve_histories().map_err(|e| ApiError::from(LookupError::Store(e)))).await;
    match listed {
        Ok(solves) => json_response(&solves),
        Err(e) => e.into_response(),
    }
}

/// `GET /healthz`: that the server answers, what each pool is doing (`busy`: jobs running
/// now; `abandoned`: jobs whose client left while they ran, stopped there; `skipped`: whose
/// client left before they started), the nim-values kept between requests
/// ([`recent::stats`]: games, values, bytes, hits, misses), and with `--solve-up-to` what
/// the on-the-spot solves did (`solver`: `busy`, `started`, `abandoned`: stopped because
/// their client left, `positions_left` of `positions_total`). Answered on the runtime
/// itself, never behind a pool.
async fn healthz(State(state): State<Shared>) -> Response {
    json_response(&json!({
        "status": "ok",
        "lookup_pool": state.pool.health(),
        "theorem_pool": state.theorem.health(),
        "theory_pool": state.theory.health(),
        "heaps_answers": state.heaps.health(),
        "nim_values": recent::stats(),
        "solver": state.solver.as_ref().map(|s| json!({
            "busy": s.counters.busy.load(Ordering::Relaxed),
            "started": s.counters.started.load(Ordering::Relaxed),
            "abandoned": s.counters.abandoned.load(Ordering::Relaxed),
            "over_limit": s.counters.over_limit.load(Ordering::Relaxed),
            "positions_left": s.left.lock().map(|l| *l).unwrap_or(0),
            "positions_total": s.total,
        })),
    }))
}

/// `GET /api/v1/heaps`: a game's single-heap values up to N. The same request again is
/// answered from [`AppState::heaps`] without any work; otherwise on the theory pool, the
/// nim-values computed on from those kept in memory for the game ([`recent`], shared with
/// theory answers to queries) and kept for the next request. A request whose client leaves
/// stops its heap values within milliseconds and keeps those finished.
async fn get_heaps(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let (game, up_to) = match api::parse_heaps_request(raw.as_deref()) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let key = (game.canonical(), up_to as u32);
    if let Some(bytes) = state.heaps.get(&key) {
        return ([(header::CONTENT_TYPE, "application/json")], bytes).into_response();
    }
    let answered = state
        .theory
        .run_with(move |_, stop| {
            let v = heaps_json(&game, up_to as u32, stop)?;
            serde_json::to_vec(&v).map_err(|e| ApiError { status: 500, message: e.to_string() })
        })
        .await;
    match answered {
        Ok(bytes) => {
            let bytes = axum::body::Bytes::from(bytes);
            state.heaps.keep(key, bytes.clone());
            ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
        }
        Err(e) => e.into_response(),
    }
}

/// The answer of [`get_heaps`].
fn heaps_json(game: &GameSpec, up_to: u32, stop: &Stop) -> Result<serde_json::Value, ApiError> {
    let key = game.canonical();
    let kept = recent::prefix(&key, up_to);
    let known = kept.as_deref().map_or(&[][..], Vec::as_slice);
    let r = match heap_report_until(game, &HeapOptions::new(up_to), known, stop) {
        Ok(r) => r,
        Err(TheoryError::Stopped(stopped)) => {
            recent::keep(&key, Arc::new(stopped.values));
            return Err(LookupError::Stopped.into());
        }
        Err(e) => return Err(ApiError { status: 422, message: format!("{e:#}") }),
    };
    recent::keep(&key, Arc::new(r.values.clone()));
    Ok(json!({
        "game": r.game.to_string(),
        "up_to": r.values.len() - 1,
        "values": r.values,
        "misere_values": r.misere,
        "genus": r.genus.iter().map(|g| g.as_ref().map(|g| g.to_string())).collect::<Vec<_>>(),
        "period": r.periodicity.period,
        "preperiod": r.periodicity.preperiod,
        "proven": r.periodicity.proven,
        "summary": r.periodicity.to_string(),
        "method": r.method,
    }))
}

/// `GET /api/v1/slice`: the outcome of every position [a, b, fixed…] with a, b ≤ size, as
/// `outcomes[a][b]` ("win", "loss", or null when nothing answers it), looked up as `query
/// --batch` looks up (stored solves, the stored misère quotient, theory), on the theory pool.
async fn get_slice(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let request = match api::parse_slice_request(raw.as_deref()) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    match state.theory.run_with(move |s, stop| slice(s, &request, stop)).await {
        Ok(v) => json_response(&v),
        Err(e) => e.into_response(),
    }
}

/// The slice's answers (see [`get_slice`]); [a, b] and [b, a] are one position.
fn slice(
    s: &mut Session<'_>,
    request: &api::SliceRequest,
    stop: &Stop,
) -> Result<serde_json::Value, ApiError> {
    // The positions [a, b, …] with b ≤ a, looked up once each.
    let game = Game::from(request.game.clone());
    let mut half: Vec<Vec<serde_json::Value>> = Vec::with_capacity(request.size as usize + 1);
    for a in 0..=request.size {
        let mut row = Vec::with_capacity(a as usize + 1);
        for b in 0..=a {
            if stop.is_stopped() {
                return Err(LookupError::Stopped.into());
            }
            let mut heaps = vec![u64::from(a), u64::from(b)];
            heaps.extend(request.fixed.iter().map(|&h| u64::from(h)));
            row.push(match s.lookup(&game, request.convention, &heaps) {
                Ok(found) => serde_json::to_value(found.outcome)
                    .map_err(|e| ApiError { status: 500, message: e.to_string() })?,
                Err(e @ (LookupError::Store(_) | LookupError::Stopped)) => return Err(e.into()),
                Err(_) => serde_json::Value::Null,
            });
        }
        half.push(row);
    }
    let n = half.len();
    let outcomes: Vec<Vec<serde_json::Value>> =
        (0..n).map(|a| (0..n).map(|b| half[a.max(b)][a.min(b)].clone()).collect()).collect();
    let count = |f: fn(&serde_json::Value) -> bool| outcomes.iter().flatten().filter(|v| f(v)).count();
    let (losses, unanswered) = (count(|v| v.as_str() == Some("loss")), count(serde_json::Value::is_null));
    Ok(json!({
        "game": request.game.canonical(),
        "convention": request.convention,
        "size": request.size,
        "fixed": request.fixed,
        "outcomes": outcomes,
        "losses": losses,
        "unanswered": unanswered,
    }))
}

/// `GET /api/v1/quotient`: the misère quotient of an octal game, as `nimdb quotient --json`
/// prints it: the stored one when it covers what is asked (heaps 1..=max_heap, read off the
/// game's one stored quotient, or without max_heap a proven period), else computed now within the server's limits (at most
/// [`api::MAX_QUOTIENT_ELEMENTS`] elements and [`api::MAX_QUOTIENT_HEAPS`] heaps, for
/// [`api::QUOTIENT_SECONDS`], one at a time) and not stored. An open-ended request that
/// proves no period within those heaps is refused (`nimdb quotient` would go on).
async fn get_quotient(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    use crate::store::quotients::Toward;
    use crate::theory::quotient::{Limits, QuotientOptions, compute_quotient};
    let (game, max_heap) = match api::parse_quotient_request(raw.as_deref()) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let spec = game.clone();
    let stored = state
        .pool
        .run(move |s| {
            // The game's one stored quotient answers every range it covers (a smaller one
            // read off it, its closure check within the server's walk).
            match s.db().quotient_toward(&spec, max_heap, 1_000_000) {
                Ok(Toward::Covered(q)) => Ok(Some(q)),
                Ok(_) => Ok(None),
                Err(e) => Err(ApiError { status: 500, message: e.to_string() }),
            }
        })
        .await;
    let too_large = |size: usize, what: &str| ApiError {
        status: 422,
        message: format!(
            "the {what} misère quotient of {game} has {size} elements; this server sends at most {} (compute it with the command line's quotient, which has no such limit)",
            api::MAX_QUOTIENT_ELEMENTS
        ),
    };
    match stored {
        Ok(Some(q)) => {
            if q.size() > api::MAX_QUOTIENT_ELEMENTS {
                return too_large(q.size(), "stored").into_response();
            }
            let mut v = q.to_json(&game);
            v["reused"] = json!(true);
            return json_response(&v);
        }
        Ok(_) => {}
        Err(e) => return e.into_response(),
    }
    // On the theory pool: stopped (at the next heap) when the client leaves or at the CPU
    // limit; one computation at a time.
    let quotient_state = state.clone();
    let computed = state
        .theory
        .run_with(move |_, stop| {
            let state = quotient_state;
            let Ok(_one) = state.quotient.try_lock() else {
                return Err(ApiError {
                    status: 503,
                    message: "another misère quotient is being computed; try again in a few seconds".into(),
                });
            };
            let code = game.octal().expect("parse_quotient_request checked it").clone();
            let mut opts = match max_heap {
                Some(n) => QuotientOptions::to_heap(n as u64)
                    .map_err(|e| ApiError { status: 400, message: e.to_string() })?,
                None => QuotientOptions { cap: api::MAX_QUOTIENT_HEAPS, ..QuotientOptions::default() },
            };
            // Smaller walks and candidates than the command line's: limits only refuse, so a
            // quotient computed within them is the command line's.
            opts.limits = Limits {
                max_elements: api::MAX_QUOTIENT_ELEMENTS,
                max_candidate: 1 << 16,
                max_states: 200_000,
                ..Limits::default()
            };
            opts.max_states = 1_000_000;
            opts.deadline = Some(std::time::Instant::now() + std::time::Duration::from_secs(api::QUOTIENT_SECONDS));
            let limits = format!(
                "at most {} elements, heaps 1..{}, {} s",
                api::MAX_QUOTIENT_ELEMENTS,
                api::MAX_QUOTIENT_HEAPS,
                api::QUOTIENT_SECONDS
            );
            let q = compute_quotient(&code, opts, &mut |_, _| !stop.is_stopped()).map_err(|e| ApiError {
                status: 422,
                // The command line's hint (raise --max-elements) is no help to a client.
                message: format!(
                    "no misère quotient for {game} within this server's limits ({limits}): {}",
                    e.to_string().replace(" (raise --max-elements)", "")
                ),
            })?;
            if max_heap.is_none() && !q.proven() {
                return Err(ApiError {
                    status: 422,
                    message: format!(
                        "no period of the misère quotient of {game} is proven within heaps 1..{} (this server's limit); \
                         ask for max_heap=N, or store a quotient that proves one",
                        q.max_heap
                    ),
                });
            }
            let mut v = q.to_json(&game);
            v["reused"] = json!(false);
            Ok(v)
        })
        .await;
    match computed {
        Ok(v) => json_response(&v),
        Err(e) => e.into_response(),
    }
}

/// Waits for SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Serves until SIGINT or SIGTERM, then finishes the requests under way and returns.
/// Prints `listening on http://ADDR` (the bound address, so port 0 picks a free one) on
/// stdout once it accepts connections.
pub fn serve(config: Config) -> Result<(), ServeError> {
    config.check()?;
    let solver = match config.solve_up_to {
        Some(limit) => {
            let total = config.solve_total.unwrap_or(limit);
            Some(Solver {
                db: Mutex::new(Database::open(&config.db)?),
                limit,
                left: Mutex::new(total),
                total,
                cpu: config.limits.cpu,
                counters: SolverCounters::default(),
                threads: crate::query::AnswerThreads::new(),
            })
        }
        None => None,
    };
    let pool = Pool::start(&config.db, Class::Lookup, config.workers, config.limits, 0)?;
    let theorem = Pool::start(&config.db, Class::Theorem, config.workers, config.limits, 0)?;
    // Computed work yields the cores to lookups and theorem answers.
    let theory = Pool::start(&config.db, Class::Computed, config.theory_workers, config.limits, THEORY_NICE)?;
    let state = Arc::new(AppState {
        pool,
        theorem,
        theory,
        body_timeout: config.body_timeout,
        solver,
        quotient: Mutex::new(()),
        heaps: AnswerCache::default(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            writeln!(out, "listening on http://{addr}")?;
            out.flush()?;
        }
        // On SIGINT or SIGTERM: stop accepting, let the requests under way finish for up to
        // SHUTDOWN_GRACE, then stop regardless (a long theory answer is abandoned).
        let signalled = Arc::new(tokio::sync::Notify::new());
        let notify = signalled.clone();
        let serving =
            listen::serve_until(listener, router(state.clone()), config.header_timeout, async move {
                shutdown_signal().await;
                notify.notify_one();
            });
        tokio::select! {
            served = serving => served?,
            () = async {
                signalled.notified().await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            } => {}
        }
        Ok::<(), ServeError>(())
    });
    // Dropping the requests still under way sets their jobs' stops: heap values end within
    // milliseconds and their threads are joined below. Work that does not look at a stop
    // (an on-the-spot solve) is not waited for past the deadline.
    runtime.shutdown_timeout(Duration::from_millis(100));
    let deadline = std::time::Instant::now() + SHUTDOWN_GRACE;
    let joined = [&state.pool, &state.theorem, &state.theory].map(|p| p.stop(deadline));
    let solver_free = state.solver.is_none() || Arc::strong_count(&state) == 1;
    drop(state);
    // Every connection of this server is closed: the side files its read-only connections
    // leave are removed, unless another connection (another process) holds the file.
    if joined.iter().all(|&j| j) && solver_free {
        crate::store::release_side_files(&config.db);
    }
    eprintln!("nimdb serve: stopped");
    result
}

/// How much lower the theory pool's threads run (their nice value): work computed on the
/// spot yields the cores to stored lookups and theorem answers.
const THEORY_NICE: i32 = 10;

/// How long requests under way may run after SIGINT or SIGTERM before the server stops.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);
