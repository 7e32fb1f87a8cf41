//! The library's typed errors in the user's words: where a flag or a command would help,
//! the message names it.

use nimdb::driver::{DriverError, JobError, SolveBounds, SolveJob};
use nimdb::game::Convention;
use nimdb::game::Game;
use nimdb::index::{Universe, UniverseError};
use nimdb::play::{AdviceError, PlayError, SessionError, UnknownPlayers};
use nimdb::query::{QueryError, Uncovered};
use nimdb::resources::{Bytes, MemoryBudget};
use nimdb::space::{BoundsError, SpaceError};
use nimdb::store::StoreError;
use nimdb::theory::TheoryError;
use nimdb::tree::{MeasureStopped, TreeError};
use nimdb::verify::VerifyError;

/// The `nimdb solve` bounds that name `universe`, e.g. `--max-total 20 --max-heap 7`.
pub fn universe_flags(universe: &Universe) -> String {
    let mut s = format!("--max-total {}", universe.max_total);
    if let Some(n) = universe.max_heap {
        s += &format!(" --max-heap {n}");
    }
    if let Some(h) = universe.max_heaps {
        s += &format!(" --max-heaps {h}");
    }
    s
}

fn misere_flag(convention: Convention) -> &'static str {
    if convention == Convention::Misere { " --misere" } else { "" }
}

/// A database error, with the way out when the file is missing.
pub fn store(e: StoreError) -> anyhow::Error {
    match e {
        StoreError::Missing(path) => {
            anyhow::anyhow!("no nimdb database at {} (run `nimdb solve` first, or pass --db)", path.display())
        }
        other => other.into(),
    }
}

/// A universe error, in terms of the solve flags.
pub fn universe(e: UniverseError) -> anyhow::Error {
    match e {
        UniverseError::HeapCapWithSplits(game) => anyhow::anyhow!(
            "--max-heaps cannot be used with {game}: its moves can split a heap in two, so a position with the most heaps allowed would have children with more, and the universe would not be closed under moves"
        ),
        UniverseError::Unbounded => {
            anyhow::anyhow!("give --max-total, or both --max-heap and --max-heaps, to bound the universe")
        }
        UniverseError::TooWide(e) => anyhow::anyhow!("{e}; lower --max-heap or --max-heaps"),
        e @ UniverseError::TierTooWide(_) => anyhow::anyhow!("{e}; lower --max-total or --max-heaps"),
    }
}

/// A theory error, in terms of `--up-to`.
pub fn theory(e: TheoryError) -> anyhow::Error {
    match e {
        TheoryError::TooLarge { up_to, game, limit, why } => {
            anyhow::anyhow!("--up-to {up_to} is too large for {game}: the limit is {limit} ({why})")
        }
        other => other.into(),
    }
}

/// A solve-into-the-database error.
pub fn driver(e: DriverError) -> anyhow::Error {
    match e {
        DriverError::Store(e) => store(e),
        DriverError::Theory(e) => theory(e),
        other => other.into(),
    }
}

/// A query error, naming the command that would cover an uncovered position.
pub fn query(e: QueryError) -> anyhow::Error {
    match e {
        QueryError::NotCovered(uncovered) => {
            let Uncovered { position, game, convention, interrupted, theory, positions, limit, universe } =
                *uncovered;
            let misere = misere_flag(convention);
            let partial = interrupted.map_or(String::new(), |(id, last)| {
                format!(
                    " (solve #{id} was interrupted{}; rerunning its solve command resumes it)",
                    last.map_or(String::new(), |t| format!(" after tier {t}"))
                )
            });
            let count = positions.map_or("too many".to_string(), |c| c.to_string());
            let way = if let Some((solved, cost)) = suggested_solve(&game, convention, &universe) {
                // Its positions, where they are not the count above (some are stored).
                let more = if Some(solved) == positions {
                    String::new()
                } else {
                    format!("solves {solved} positions and ")
                };
                format!(
                    "run: nimdb solve --game {game}{misere} {}; it {more}takes {cost}",
                    universe_flags(&universe)
                )
            } else {
                "no solve that covers it fits this machine (nimdb solve --dry-run with its caps says \
                 why)"
                    .to_string()
            };
            anyhow::anyhow!(
                "{position} is not covered by any stored solve of {game}{misere}{partial}{theory}; covering it means solving {count} more positions (more than the {limit} solved on the spot); {way}"
            )
        }
        QueryError::NoShortcut { ref game, .. } => {
            let game = game.clone();
            anyhow::anyhow!("{e} (nimdb heaps --game {game} --up-to N computes further)")
        }
        QueryError::TooCostly { ref game, heap, seconds, .. } => {
            let (game, heap, needed) = (game.clone(), heap, (seconds * 1.5).ceil().min(3600.0));
            anyhow::anyhow!(
                "{e}; raise --cpu-limit (to about {needed}) to compute them, or nimdb heaps --game {game} --up-to {heap} computes and stores them"
            )
        }
        QueryError::BeyondTheory { ref game, quotient: true, .. } => {
            let game = game.clone();
            anyhow::anyhow!(
                "{e}; nimdb quotient --game {game} computes its misère quotient, and stores it when it proves a period"
            )
        }
        QueryError::Store(e) => store(e),
        QueryError::Solve(e) => driver(e),
        QueryError::Space(e) => space(e),
        other => other.into(),
    }
}

/// A position of `game` to show in an example.
pub fn example(game: &Game) -> String {
    game.example_position()
}

/// A misère quotient error, naming the flag that helps.
pub fn quotient(e: nimdb::theory::quotient::QuotientError) -> anyhow::Error {
    use nimdb::theory::quotient::QuotientError;
    match e {
        QuotientError::TooLarge { heap, limit } => {
            anyhow::anyhow!("the quotient grew beyond {limit} elements at heap {heap} (raise --max-elements)")
        }
        QuotientError::BadMaxHeap { given, max } => {
            anyhow::anyhow!("--max-heap must be between 1 and {max}, not {given}")
        }
        other => other.into(),
    }
}

/// Whether `nimdb solve` would accept the solve of `universe` (its total within the limit,
/// and its memory within the budget, spilling if need be): only such a solve is suggested.
fn suggested_solve(game: &str, convention: Convention, universe: &Universe) -> Option<(u64, String)> {
    let game: Game = game.parse().ok()?;
    let asked = SolveBounds {
        max_total: Some(universe.max_total),
        max_heap: universe.max_heap,
        max_heaps: universe.max_heaps,
    };
    solve_cost(&game, convention, asked)
}

/// What the solve of `game` within `asked` costs: its positions, and its memory, disk and
/// CPU time (at the measured rate) in words, when `nimdb solve` would accept it (its job is
/// made from the flags suggested, and its memory fits the default budget): only such a
/// solve is suggested.
fn solve_cost(game: &Game, convention: Convention, asked: SolveBounds) -> Option<(u64, String)> {
    // The solve `nimdb solve` would run, on rayon's global pool.
    let job = SolveJob::new(game, convention, asked, false, nimdb::solve::pool_threads()).ok()?;
    let e = job.estimate();
    e.fit(&MemoryBudget::new(None), "the solve").ok()?;
    let (memory, disk) = (Bytes(e.memory_bytes), Bytes(e.disk_bytes));
    let words = match job.cpu_time() {
        Some(t) => format!("~{memory} of memory, ~{disk} of disk and {}", t.words()),
        None => format!("~{memory} of memory and ~{disk} of disk"),
    };
    Some((e.positions, words))
}

/// A tree too large to draw, with the flags that draw it.
pub fn tree(e: TreeError) -> anyhow::Error {
    if matches!(e, TreeError::BeyondDrawable { .. }) {
        return e.into();
    }
    if let TreeError::Loopy { game } = &e {
        return anyhow::anyhow!("{e}: nimdb query --game {game} answers them");
    }
    if matches!(e, TreeError::Memory { .. }) {
        return anyhow::anyhow!("{e}; raise --memory-limit, or draw a smaller position");
    }
    if matches!(e, TreeError::MeasureStopped { reason: MeasureStopped::Memory { .. }, .. }) {
        return anyhow::anyhow!("{e}; raise --max-nodes (and --memory-limit) to draw it");
    }
    let dag = e.dag_that_fits().map_or(String::new(), |n| format!(" (or use --dag: its DAG has {n} nodes)"));
    anyhow::anyhow!("{e}; raise --max-nodes to draw it{dag}")
}

/// A verification error, with the way out when nothing is stored.
pub fn verify(e: VerifyError) -> anyhow::Error {
    match e {
        VerifyError::NoSolve { game, convention } => {
            anyhow::anyhow!(
                "no stored solve of {game}{} to verify (run nimdb solve first)",
                misere_flag(convention)
            )
        }
        VerifyError::Store(e) => store(e),
        other => other.into(),
    }
}

/// An unknown `--players` value.
pub fn players(e: UnknownPlayers) -> anyhow::Error {
    anyhow::anyhow!("unknown --players value '{}' (expected one of: {})", e.given, e.expected)
}

/// A game that cannot start.
pub fn session(e: SessionError) -> anyhow::Error {
    match e {
        SessionError::NoHeaps => anyhow::anyhow!("{e}; give some, e.g. 3 4 5"),
        other => other.into(),
    }
}

/// The computer could not judge a position.
pub fn advice(e: AdviceError) -> anyhow::Error {
    match e {
        AdviceError::Query(e) => query(*e),
        over @ AdviceError::OverLimit { .. } => anyhow::anyhow!("{over}; raise --cpu-limit to let it finish"),
    }
}

/// A game that stopped with an error.
pub fn play(e: PlayError) -> anyhow::Error {
    match e {
        PlayError::Advice(e) => advice(e),
        PlayError::Refused(e) => session(e),
        other => other.into(),
    }
}

/// A query of a family's error, naming the command that would cover an uncovered position.
pub fn space(e: SpaceError) -> anyhow::Error {
    match e {
        SpaceError::Store(s) => store(s),
        SpaceError::Solve(d) => driver(d),
        SpaceError::NotCovered { ref game, convention, bounds, .. } => {
            let misere = if convention == Convention::Misere { " --misere" } else { "" };
            // The flags `bounds` below accepts for this space: a capped game takes only
            // --max-heaps (its total follows).
            let flags = match bounds.max_heap {
                Some(_) => format!("--max-heaps {}", bounds.max_heaps),
                None => format!("--max-total {} --max-heaps {}", bounds.max_total, bounds.max_heaps),
            };
            let suggested = game.parse::<Game>().ok().and_then(|g| {
                // The flags suggested: a capped game's total follows from its heap count.
                let max_total = bounds.max_heap.is_none().then_some(bounds.max_total);
                let asked = SolveBounds { max_total, max_heap: None, max_heaps: Some(bounds.max_heaps) };
                solve_cost(&g, convention, asked)
            });
            match suggested {
                Some((_, cost)) => anyhow::anyhow!(
                    "{e}; solve a space that holds it: nimdb solve --game {game}{misere} {flags}; it takes {cost}"
                ),
                None => anyhow::anyhow!(
                    "{e}; no solve of a space that holds it fits this machine (nimdb solve --dry-run with {flags} says why)"
                ),
            }
        }
        other => anyhow::anyhow!("{other}"),
    }
}

/// A solve refused before it ran, in terms of the solve flags.
pub fn job(e: JobError) -> anyhow::Error {
    match e {
        JobError::Universe(e) => universe(e),
        JobError::Bounds(e) => {
            let flag = match e {
                BoundsError::NeedsHeaps(_) => " (--max-heaps K)",
                BoundsError::TotalNotAllowed { .. } => " (leave out --max-total)",
                BoundsError::NeedsTotal(_) => " (--max-total N)",
                BoundsError::HeapCap(_) => " (--max-total and --max-heaps, not --max-heap)",
                BoundsError::TooLarge(_) => " (lower --max-total or --max-heaps)",
            };
            anyhow::anyhow!("{e}{flag}")
        }
        e @ JobError::NoMoves(_) => anyhow::anyhow!("{e}"),
        JobError::NoNimValues(game) => {
            anyhow::anyhow!(
                "--nim-values is not available for {game}: its solve stores outcome and remoteness"
            )
        }
        JobError::NoWindow(game) => anyhow::anyhow!(
            "--window-limit is not taken for {game}: its solver keeps every tier it reads in memory and never spills (--memory-limit bounds the solve, and --dry-run shows its cost)"
        ),
        JobError::NotPartitioned(game) => anyhow::anyhow!(
            "--mpi-ranks is not taken for {game}: an MPI job (--mpi) solves heap games only, and {game} is solved by one process"
        ),
        JobError::Resource(e) if e.is_memory() => {
            anyhow::anyhow!("{e}; nothing was written (--memory-limit SIZE sets the budget)")
        }
        JobError::Resource(e) => anyhow::anyhow!("{e}; nothing was written"),
    }
}

/// A memory limit above what this process may have, with the flag that gave it.
pub fn memory_limit(e: nimdb::resources::ResourceError) -> anyhow::Error {
    anyhow::anyhow!("--memory-limit: {e}")
}
