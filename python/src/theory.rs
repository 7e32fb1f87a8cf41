//! `nimdb.heap_values` and `nimdb.quotient`: single-heap nim-value sequences and misère
//! quotients, computed by the library's theory (nothing is read from or written to a
//! database).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use numpy::{IntoPyArray, PyArray1, PyArrayMethods};
use pyo3::prelude::*;

use nimdb::game::GameSpec;
use nimdb::resources::MemoryBudget;
use nimdb::theory::quotient::{
    Computed, Limits, QuotientError, QuotientOptions, compute_quotient, compute_quotient_from,
};
use nimdb::theory::quotient_play::quotient_loss;
use nimdb::theory::report::{DEFAULT_MISERE_UP_TO, HeapOptions, check_up_to};

use crate::errors::{Kind, cpu_limit_arg, nimdb_error, parse_game, position_arg, whole};
use crate::signals;

// `heap_values`'s default for `misere_up_to` is written as a number, so that Python shows it.
const _: () = assert!(DEFAULT_MISERE_UP_TO == 30);

/// A game's single-heap values for heaps 0..=up_to (`nimdb.heap_values`), as
/// `nimdb heaps --json` gives them. The sequences are numpy arrays of the smallest unsigned
/// integer type that holds them (uint8 for most octal games: one byte a value).
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct HeapValues {
    /// The game, as written canonically.
    pub game: String,
    /// The last heap computed.
    pub up_to: u32,
    /// g(0..=up_to): the nim-value of each single heap; uint8, uint16 or uint32, the
    /// smallest that holds the largest value.
    pub values: Py<PyAny>,
    /// The last heap with a misère value (and genus and tameness), or None.
    pub misere_up_to: Option<u32>,
    /// The misère nim-value of heaps 0..=misere_up_to (uint8, uint16 or uint32).
    pub misere_values: Py<PyAny>,
    /// Conway's genus of heaps 0..=misere_up_to, as text such as "1^31" (a numpy array of
    /// str).
    pub genus: Py<PyAny>,
    /// bool: whether each of heaps 0..=misere_up_to is tame.
    pub tame: Py<PyAny>,
    /// The period of the nim-values, when one is found (proven or apparent).
    pub period: Option<u32>,
    /// The preperiod: g(n + period) = g(n) for every n >= preperiod.
    pub preperiod: Option<u32>,
    /// Whether the period is proven (Guy–Smith for finite octal codes).
    pub proven: bool,
    /// The periodicity in words, as `nimdb heaps` prints it.
    pub summary: String,
    /// How the values were computed.
    pub method: String,
}

/// Unsigned values gathered in the smallest numpy integer type that holds them: one byte a
/// value until one needs more, then the buffer is widened once.
enum Narrowest {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Narrowest {
    /// An empty buffer for `n` values.
    fn with_capacity(n: usize) -> Self {
        Narrowest::U8(Vec::with_capacity(n))
    }

    fn push(&mut self, v: u32) {
        match self {
            Narrowest::U8(a) => match u8::try_from(v) {
                Ok(b) => a.push(b),
                Err(_) => {
                    let mut wide: Vec<u16> = Vec::with_capacity(a.capacity());
                    wide.extend(a.iter().map(|&b| u16::from(b)));
                    *self = Narrowest::U16(wide);
                    self.push(v);
                }
            },
            Narrowest::U16(a) => match u16::try_from(v) {
                Ok(b) => a.push(b),
                Err(_) => {
                    let mut wide: Vec<u32> = Vec::with_capacity(a.capacity());
                    wide.extend(a.iter().map(|&b| u32::from(b)));
                    *self = Narrowest::U32(wide);
                    self.push(v);
                }
            },
            Narrowest::U32(a) => a.push(v),
        }
    }

    /// The numpy array (numpy takes the buffer: nothing is copied).
    fn into_array(self, py: Python<'_>) -> Py<PyAny> {
        match self {
            Narrowest::U8(a) => a.into_pyarray(py).into_any().unbind(),
            Narrowest::U16(a) => a.into_pyarray(py).into_any().unbind(),
            Narrowest::U32(a) => a.into_pyarray(py).into_any().unbind(),
        }
    }
}

#[pymethods]
impl HeapValues {
    /// HTML for Jupyter: the periodicity and the values, a row a period (at most 600 values
    /// shown, then "… N more").
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        crate::answers::html(slf.as_any(), "heap_values_html")
    }

    fn __repr__(&self) -> String {
        format!("HeapValues(game={:?}, up_to={}, {})", self.game, self.up_to, self.summary)
    }

    /// A pandas DataFrame indexed by heap n = 0..=up_to: g, and the misère value, genus and
    /// tameness (missing past misere_up_to). Needs pandas.
    fn to_frame<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("nimdb._frames")?.call_method1("heap_values_frame", (slf,))
    }
}

/// The single-heap nim-values g(0..=up_to) of `game`, with its misère values, genus and
/// tameness for heaps up to `misere_up_to`, and the period found (proven when a theorem
/// certifies it), as `nimdb heaps` computes them. The GIL is released while they are
/// computed; Ctrl-C stops between stretches of 65,536 heaps and raises KeyboardInterrupt.
///
/// `cpu_limit` (no limit unless given, as `nimdb heaps --cpu-limit`) is the CPU seconds
/// they may take on the calling thread, the one that computes them (other threads of the
/// program do not count): values predicted to take longer are refused before they start,
/// and a run past it is stopped; both raise TooCostly.
#[pyfunction]
#[pyo3(signature = (game, up_to, *, misere_up_to = 30, cpu_limit = None))]
pub fn heap_values(
    py: Python<'_>,
    game: &str,
    up_to: i64,
    misere_up_to: i64,
    cpu_limit: Option<f64>,
) -> PyResult<HeapValues> {
    let spec = parse_game(game)?;
    let up_to = whole(up_to, "up_to", u64::MAX)?;
    let misere_up_to = whole(misere_up_to, "misere_up_to", u32::MAX.into())? as u32;
    let up_to = check_up_to(&spec, up_to).map_err(|e| Kind::BadArgument.err(format!("up_to: {e}")))?;
    let limit = cpu_limit.map(|s| cpu_limit_arg(Some(s))).transpose()?;
    let opts = HeapOptions { misere_up_to, ..HeapOptions::new(up_to) };
    signals::clear();
    let listening = signals::Listening::new(py);
    let stop = listening.stop();
    let stop = &limit.map_or(stop.clone(), |limit| stop.clone().with_cpu_limit(limit));
    let over = |limit: Duration| {
        Kind::TooCostly.err(format!(
            "the heap values were stopped at the CPU limit of {} s; raise cpu_limit to let them finish",
            limit.as_secs_f64()
        ))
    };
    let (run, fired) = py.detach(|| {
        // The calling thread's clock (the values are computed on it), the prediction's
        // probe included; no pool is started.
        let threads = nimdb::query::AnswerThreads::new();
        let watch = threads.watch(stop);
        if let (Some(_), Some(rules)) = (limit, spec.heap_rules())
            && let Err(e) = nimdb::query::check_values_cost(&spec, rules, up_to, &[], stop)
        {
            return (Err(Err(e)), watch.fired());
        }
        let run = nimdb::driver::run_heaps_until(None, &spec, &opts, stop, |_, _, _| {
            if signals::poll() { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        (run.map_err(Ok), watch.fired())
    });
    if let Some(e) = signals::take() {
        return Err(e);
    }
    drop(listening);
    let run = match run {
        Err(Err(e)) => {
            return Err(match (e, limit) {
                (_, Some(limit)) if fired => over(limit),
                (e @ nimdb::query::QueryError::TooCostly { seconds, .. }, Some(limit)) => Kind::TooCostly
                    .err(format!(
                        "{e}; raise cpu_limit (to about {}) to compute them",
                        (seconds * 1.5).ceil().max(limit.as_secs_f64())
                    )),
                (e, _) => nimdb_error(e),
            });
        }
        Err(Ok(e)) => {
            return Err(match limit {
                Some(limit) if fired => over(limit),
                _ => nimdb_error(e),
            });
        }
        Ok(run) => run,
    };
    let Some(periodicity) = run.periodicity.as_ref() else {
        if let (true, Some(limit)) = (fired, limit) {
            return Err(over(limit));
        }
        return Err(Kind::Base.err("the heap values were interrupted"));
    };
    // Straight from the stream (a certified period keeps only its prefix in memory): no
    // report with every value as u32 and misère rows padded to up_to.
    let stream = &run.stream;
    let values = py.detach(|| {
        let mut values = Narrowest::with_capacity(up_to as usize + 1);
        for h in 0..=up_to {
            values.push(stream.value(h));
        }
        values
    });
    let misere_up_to = stream.misere_up_to();
    let count = misere_up_to.map_or(0, |m| m + 1);
    let small = || 0..count;
    let mut misere = Narrowest::with_capacity(count as usize);
    for h in small() {
        misere.push(stream.misere(h).unwrap_or_default());
    }
    let genus: Vec<String> =
        small().map(|h| stream.genus(h).map(|g| g.to_string()).unwrap_or_default()).collect();
    let tame: Vec<bool> = small().map(|h| stream.tame(h).unwrap_or_default()).collect();
    let numpy = py.import("numpy")?;
    Ok(HeapValues {
        game: stream.game().to_string(),
        up_to,
        values: values.into_array(py),
        misere_up_to,
        misere_values: misere.into_array(py),
        genus: numpy.call_method1("array", (genus, "U"))?.unbind(),
        tame: tame.into_pyarray(py).into_any().unbind(),
        period: periodicity.period,
        preperiod: periodicity.preperiod,
        proven: periodicity.proven,
        summary: periodicity.to_string(),
        method: stream.method(),
    })
}

/// A misère quotient (Plambeck–Siegel) of an octal game (`nimdb.quotient`), as
/// `nimdb quotient --json` gives it.
#[pyclass(module = "nimdb", frozen)]
pub struct Quotient {
    q: nimdb::theory::quotient::Quotient,
    game: String,
}

#[pymethods]
impl Quotient {
    /// The game, canonical (e.g. "0.07" for Dawson's Kayles).
    #[getter]
    fn game(&self) -> &str {
        &self.game
    }

    /// |Q|: the number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.q.size()
    }

    /// |P|: the number of P-elements.
    #[getter]
    fn p_count(&self) -> usize {
        self.q.p_count()
    }

    /// The largest heap computed (the quotient covers every heap when the period is
    /// proven).
    #[getter]
    fn max_heap(&self) -> u32 {
        self.q.max_heap
    }

    /// uint32, shape (size, size): the multiplication table; entry [a, b] is the element of
    /// a sum of positions whose elements are a and b.
    #[getter]
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let n = self.q.size();
        Ok(self.q.monoid.table().to_vec().into_pyarray(py).reshape([n, n])?.into_any())
    }

    /// bool, one per element: whether the element is in P (its positions are losses for the
    /// player to move).
    #[getter]
    fn p<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.q.monoid.p_marks().to_vec().into_pyarray(py)
    }

    /// The P-elements.
    #[getter]
    fn p_elements(&self) -> Vec<u32> {
        self.q.monoid.p_elements()
    }

    /// The element of each single heap 0..=max_heap.
    #[getter]
    fn heap_elements(&self) -> Vec<u32> {
        self.q.heap_images.clone()
    }

    /// Each element as its least word in the generators (a, b, c…; "1" is the identity).
    #[getter]
    fn words(&self) -> Vec<String> {
        self.q.presentation().words
    }

    /// The relations of the presentation, e.g. "a^2 = 1".
    #[getter]
    fn relations(&self) -> Vec<String> {
        self.q.presentation().relations
    }

    /// The proven period of the heap elements, or None.
    #[getter]
    fn period(&self) -> Option<u32> {
        self.q.certificate.map(|c| c.period)
    }

    /// The proven preperiod of the heap elements, or None.
    #[getter]
    fn preperiod(&self) -> Option<u32> {
        self.q.certificate.map(|c| c.from)
    }

    /// The apparent (unproven) (period, preperiod) when none is proven.
    #[getter]
    fn apparent(&self) -> Option<(u32, u32)> {
        self.q.apparent
    }

    /// Whether the period is proven: the quotient then answers heaps of any size.
    #[getter]
    fn proven(&self) -> bool {
        self.q.proven()
    }

    /// Whether the quotient is tame (that of misère Nim on the nim-values).
    #[getter]
    fn tame(&self) -> bool {
        self.q.tame
    }

    /// The element of a position (a sequence of heap sizes or a string such as "7 5 3").
    fn element(&self, heaps: &Bound<'_, PyAny>) -> PyResult<u32> {
        let position = position_arg(heaps)?;
        let mut e = 0; // the identity: the empty position
        for &h in position.heaps() {
            let Some(stand_in) = self.q.equivalent_heap(h) else {
                return Err(Kind::NotAnswered.err(format!(
                    "heap {h} is beyond the quotient's range (heaps up to {}, no proven period)",
                    self.q.max_heap
                )));
            };
            e = self.q.sum_element(e, self.q.image(stand_in).map_err(nimdb_error)?);
        }
        Ok(e)
    }

    /// Whether a position (a sequence of heap sizes or a string) is a P-position (a loss
    /// for the player to move) of the game's misère play.
    fn is_p(&self, heaps: &Bound<'_, PyAny>) -> PyResult<bool> {
        let position = position_arg(heaps)?;
        match quotient_loss(&self.q, position.heaps()).map_err(nimdb_error)? {
            Some(loss) => Ok(loss),
            None => Err(Kind::NotAnswered.err(format!(
                "{position} has a heap beyond the quotient's range (heaps up to {}, no proven period)",
                self.q.max_heap
            ))),
        }
    }

    /// HTML for Jupyter: |Q|, |P|, the relations, and the multiplication table with its
    /// P-elements marked (a quotient of more than 24 elements: its generators' rows).
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        crate::answers::html(slf.as_any(), "quotient_html")
    }

    fn __repr__(&self) -> String {
        format!(
            "Quotient(game={:?}, size={}, p_count={}, max_heap={}, period={}, preperiod={}, proven={})",
            self.game,
            self.q.size(),
            self.q.p_count(),
            self.q.max_heap,
            crate::answers::py_opt(self.period()),
            crate::answers::py_opt(self.preperiod()),
            if self.q.proven() { "True" } else { "False" }
        )
    }
}

/// A quotient computation, its arguments checked.
pub struct QuotientJob {
    spec: GameSpec,
    opts: QuotientOptions,
    /// The time budget, in seconds.
    seconds: Option<f64>,
}

/// How a quotient computation ended without a complete quotient.
pub enum QuotientFailure {
    /// Ctrl-C: the exception to raise, and the verified quotient of the heaps done.
    Interrupted(PyErr, Option<Box<nimdb::theory::quotient::Quotient>>),
    /// The time budget ran out, or a limit stopped a heap: what to say, and the verified
    /// quotient of the heaps done (when it was asked for).
    Stopped(String, Option<Box<nimdb::theory::quotient::Quotient>>),
    /// The library's message.
    Message(String),
}

impl QuotientJob {
    /// Checks the arguments of `quotient` (an octal game, the limits, the memory budget).
    pub fn new(
        game: &str,
        max_heap: Option<i64>,
        max_elements: i64,
        memory_limit: Option<i64>,
        seconds: Option<f64>,
    ) -> PyResult<Self> {
        let max_heap = max_heap.map(|n| whole(n, "max_heap", u64::MAX)).transpose()?;
        let max_elements = whole(max_elements, "max_elements", u64::MAX)? as usize;
        let memory_limit = memory_limit.map(|n| whole(n, "memory_limit", u64::MAX)).transpose()?;
        if let Some(s) = seconds.filter(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(Kind::BadArgument.err(format!("seconds must be a positive number, not {s}")));
        }
        let spec = parse_game(game)?;
        if spec.octal().is_none() {
            return Err(Kind::BadGame.err(format!(
                "{spec} is not an octal game: misère quotients are computed for octal codes only \
                 (its heaps must split by an octal rule)"
            )));
        }
        if !(2..=1_000_000).contains(&max_elements) {
            return Err(Kind::BadArgument
                .err(format!("max_elements must be between 2 and 1000000, not {max_elements}")));
        }
        let mut opts = match max_heap {
            Some(n) => {
                QuotientOptions::to_heap(n).map_err(|e| Kind::BadArgument.err(format!("max_heap: {e}")))?
            }
            None => QuotientOptions::default(),
        };
        opts.limits = Limits::with_max_elements(max_elements);
        opts.stop = Some(signals::poll_now_and_then);
        let needed = opts.limits.memory_bound(opts.max_heap.unwrap_or(opts.cap));
        MemoryBudget::given(memory_limit)
            .map_err(|e| Kind::BadArgument.err(format!("memory_limit: {e}")))?
            .check(&format!("a quotient of up to {max_elements} elements"), needed)
            .map_err(|e| Kind::TooCostly.err(format!("{e}; lower max_elements or raise memory_limit")))?;
        Ok(QuotientJob { spec, opts, seconds })
    }

    /// The game (what its quotients are stored under).
    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    /// The heaps asked for (`None`: open-ended, until a period is proven).
    pub fn max_heap(&self) -> Option<u32> {
        self.opts.max_heap
    }

    /// The computation's options (its limits, and the cap of an open-ended one).
    pub fn options(&self) -> &QuotientOptions {
        &self.opts
    }

    /// Computes the quotient; call with the GIL released. Ctrl-C stops it (see [`signals`]);
    /// with `keep_partial`, the quotient of the heaps done is then verified and handed back
    /// (which takes as long as that check), else the call ends at once.
    ///
    /// `from` (a stored quotient of fewer heaps, with no proven period) is gone on from, so
    /// its heaps are not added again (the result is the same).
    pub fn run(
        &self,
        keep_partial: bool,
        from: Option<&nimdb::theory::quotient::Quotient>,
    ) -> Result<nimdb::theory::quotient::Quotient, QuotientFailure> {
        let code = self.spec.octal().expect("checked to be octal");
        let mut opts = self.opts;
        let budget = opts.budget(self.seconds);
        opts.deadline = budget.map(|s| Instant::now() + Duration::from_secs_f64(s));
        // The last heap added and the quotient's size then, for the words of a time-out.
        let mut reached = from.map_or((0, 1), |q| (q.max_heap, q.size()));
        let mut progress = |heap: u32, size: usize| {
            reached = (heap, size);
            !signals::poll()
        };
        let computed = if keep_partial || from.is_some() {
            compute_quotient_from(code, opts, &mut progress, from)
        } else {
            compute_quotient(code, opts, &mut progress).map(Computed::Complete)
        };
        let interrupt = signals::take();
        let done = |(heap, size): (u32, usize)| {
            if heap == 0 {
                "no heap was done".to_string()
            } else {
                format!(
                    "heaps 1..={heap} were done, a quotient of {size} elements \
                     (max_heap={heap} gives the quotient of those heaps)"
                )
            }
        };
        let out_of_time = |partial: Option<Box<nimdb::theory::quotient::Quotient>>| {
            QuotientFailure::Stopped(
                format!(
                    "no misère quotient for {} within the time budget ({} s{}): {}; give more seconds to go on",
                    self.spec,
                    budget.unwrap_or_default(),
                    if self.seconds.is_none() { ", the default of an open-ended call" } else { "" },
                    done(reached),
                ),
                partial,
            )
        };
        let limited = |why: &QuotientError, partial: Option<Box<nimdb::theory::quotient::Quotient>>| {
            let heap = partial.as_ref().map_or(reached.0, |q| q.max_heap);
            let size = partial.as_ref().map_or(reached.1, |q| q.size());
            QuotientFailure::Stopped(
                format!(
                    "no misère quotient for {}: {}; {}",
                    self.spec,
                    crate::errors::message(why).replace("--max-elements", "max_elements"),
                    done((heap, size)),
                ),
                partial,
            )
        };
        let timed_out = opts.deadline.is_some_and(|d| Instant::now() >= d);
        match (computed, interrupt) {
            (Ok(Computed::Interrupted(q)), None) if timed_out => Err(out_of_time(Some(Box::new(q)))),
            (Err(QuotientError::Interrupted { .. }), None) if timed_out => Err(out_of_time(None)),
            (Ok(Computed::Stopped { quotient, why }), None) => Err(limited(&why, Some(Box::new(quotient)))),
            (Ok(Computed::Stopped { quotient, .. }), Some(e)) => {
                Err(QuotientFailure::Interrupted(e, Some(Box::new(quotient))))
            }
            (Err(why), None) if why.is_limit() && reached.0 > 0 => Err(limited(&why, None)),
            (Ok(Computed::Complete(q)), None) => Ok(q),
            (Ok(Computed::Complete(q)), Some(e)) => Err(QuotientFailure::Interrupted(e, Some(Box::new(q)))),
            (Ok(Computed::Interrupted(q)), Some(e)) => {
                Err(QuotientFailure::Interrupted(e, Some(Box::new(q))))
            }
            (Ok(Computed::Interrupted(_)), None) => {
                Err(QuotientFailure::Message("the quotient was interrupted".to_string()))
            }
            (Err(_), Some(e)) => Err(QuotientFailure::Interrupted(e, None)),
            (Err(e), None) => Err(QuotientFailure::Message(format!(
                "no misère quotient for {}: {}",
                self.spec,
                crate::errors::message(&e).replace("--max-elements", "max_elements")
            ))),
        }
    }

    /// The Python object for a quotient this job computed or found stored.
    pub fn wrap(&self, q: nimdb::theory::quotient::Quotient) -> Quotient {
        Quotient { q, game: self.spec.canonical() }
    }
}

/// The misère quotient of an octal `game` (Plambeck–Siegel), as `nimdb quotient` computes
/// it: of heaps 1..=max_heap, or, without max_heap, grown until a period is proven (up to
/// heap 1000). `max_elements` bounds the quotient (and any candidate) built; a computation
/// whose limits could need more than `memory_limit` (bytes; default 80% of the memory
/// available) is refused up front. `seconds` is a time budget (default: 10 s for an
/// open-ended call, none with max_heap; every code the four-digit atlas certified took at
/// most 0.08 CPU s): past it, or when a limit stops a heap, NimdbError says how far the
/// computation got (the heaps done and the quotient's size) and what to ask for instead. The GIL is released while it is computed; Ctrl-C stops it within moments
/// and raises KeyboardInterrupt. Nothing is stored (`Database.quotient` stores it).
#[pyfunction]
#[pyo3(signature = (game, *, max_heap = None, max_elements = 4096, memory_limit = None, seconds = None))]
pub fn quotient(
    py: Python<'_>,
    game: &str,
    max_heap: Option<i64>,
    max_elements: i64,
    memory_limit: Option<i64>,
    seconds: Option<f64>,
) -> PyResult<Quotient> {
    let job = QuotientJob::new(game, max_heap, max_elements, memory_limit, seconds)?;
    signals::clear();
    let listening = signals::Listening::new(py);
    let result = py.detach(|| job.run(false, None));
    drop(listening);
    match result {
        Ok(q) => Ok(job.wrap(q)),
        Err(QuotientFailure::Interrupted(e, _)) => Err(e),
        Err(QuotientFailure::Stopped(m, _) | QuotientFailure::Message(m)) => Err(Kind::TooCostly.err(m)),
    }
}
