//! Everything about a game's single heaps up to N: nim-values, misère values, genus,
//! tameness and periodicity, continuing from values a cache already holds. This is what
//! `nimdb heaps` prints; the driver reads and extends the database's cache around it.

use crate::game::{GameSpec, HeapFamily};

use super::cache::StoredSequence;
use super::genus::{DEFAULT_DEPTH, Genus, GenusSolver};
use super::period::Periodicity;
use super::sequence::mex_values_until;
use super::shape::HeapShape;
use super::sparse::{MethodChoice, Prepared, SplitMethod, prepare_until};
use super::stop::{Stop, Stopped};

/// The largest N accepted for games computed in (near) linear time.
pub const MAX_UP_TO: u32 = 100_000_000;
/// The largest N for codes whose repeated digit splits (O(N²): 10⁵ takes a few seconds).
pub const MAX_UP_TO_QUADRATIC: u32 = 100_000;
/// The largest N for Grundy's game: the rare-pair engine takes about 15 µs a heap at 10⁶ and
/// more as the rare heaps grow (10⁷ is minutes, with progress, and Ctrl-C keeps the rows).
pub const MAX_UP_TO_GRUNDY: u32 = 20_000_000;
/// The largest N for hexadecimal codes (a heap that splits in three has O(n²) options).
pub const MAX_UP_TO_THREE_WAY: u32 = 3_000;
/// By default misère values and genus are computed for heaps up to this size.
pub const DEFAULT_MISERE_UP_TO: u32 = 30;
/// The misère solver stops extending to larger heaps once it holds this many positions.
pub const DEFAULT_STATE_BUDGET: usize = 2_000_000;

/// What to compute.
#[derive(Clone, Debug)]
pub struct HeapOptions {
    /// N: nim-values for heaps 0..=N.
    pub up_to: u32,
    /// Misère values, genus and tameness for heaps up to this (capped by N and the budget).
    pub misere_up_to: u32,
    /// The genus depth: γ0..=γ(depth).
    pub genus_depth: u16,
    /// The most positions the misère solver may memoize before it stops at the current heap.
    pub state_budget: usize,
}

impl HeapOptions {
    /// The defaults for heaps up to `up_to`.
    pub fn new(up_to: u32) -> Self {
        HeapOptions {
            up_to,
            misere_up_to: DEFAULT_MISERE_UP_TO,
            genus_depth: DEFAULT_DEPTH,
            state_budget: DEFAULT_STATE_BUDGET,
        }
    }
}

/// A game's single-heap values up to N.
#[derive(Clone, Debug)]
pub struct HeapReport {
    /// The game.
    pub game: GameSpec,
    /// g(0..=N).
    pub values: Vec<u32>,
    /// Misère values (γ0) of single heaps; `None` beyond where they were computed.
    pub misere: Vec<Option<u32>>,
    /// Genus of single heaps; `None` beyond where it was computed.
    pub genus: Vec<Option<Genus>>,
    /// Whether each heap is tame (it and every follower has a fickle or firm genus).
    pub tame: Vec<Option<bool>>,
    /// The genus depth used.
    pub genus_depth: u16,
    /// Periodicity of g(0..=N).
    pub periodicity: Periodicity,
    /// How the nim-values were obtained, in words.
    pub method: String,
    /// Why misère values stop before the requested heap, if they do.
    pub misere_note: Option<String>,
}

impl HeapReport {
    /// The largest heap with a misère value.
    pub fn misere_up_to(&self) -> Option<u32> {
        self.misere.iter().take_while(|v| v.is_some()).count().checked_sub(1).map(|n| n as u32)
    }
}

/// Why the theory cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum TheoryError {
    /// Heaps this large are beyond the game's method.
    #[error("a heap of {up_to} is too large for {game}: the limit is {limit} ({why})")]
    TooLarge {
        /// The largest heap asked for.
        up_to: u64,
        /// The game.
        game: String,
        /// The largest heap allowed.
        limit: u32,
        /// Why, in words.
        why: &'static str,
    },
    /// The game is not a sum of independent heaps, so heap values say nothing of it.
    #[error(
        "{0} is not a sum of independent heaps (a move may change several heaps), so heap values do not determine its positions"
    )]
    NotSumOfHeaps(String),
    /// The computation was stopped on request (its caller no longer wants it), with the
    /// nim-values finished before the stop.
    #[error(transparent)]
    Stopped(#[from] Stopped),
}

/// The heap rules of a game whose positions are sums of heaps; refuses the others, whose
/// positions single-heap values do not determine.
pub fn heap_rules(spec: &GameSpec) -> Result<&HeapFamily, TheoryError> {
    spec.heap_rules().ok_or_else(|| TheoryError::NotSumOfHeaps(spec.to_string()))
}

/// Refuses an N that the game's method cannot reach in reasonable time and memory.
pub fn check_up_to(spec: &GameSpec, up_to: u64) -> Result<u32, TheoryError> {
    let shape = HeapShape::of(heap_rules(spec)?);
    let (limit, why) = if matches!(spec.heap_rules(), Some(HeapFamily::Grundy(_))) {
        (
            MAX_UP_TO_GRUNDY,
            "Grundy's game has no known period, and each heap costs a scan that grows with the rare heaps",
        )
    } else if shape.three_way {
        (MAX_UP_TO_THREE_WAY, "a heap that splits in three has O(n²) options, so the plain mex costs O(n³)")
    } else if shape.quadratic() {
        (MAX_UP_TO_QUADRATIC, "a repeated splitting digit makes every heap cost O(n)")
    } else {
        (MAX_UP_TO, "larger tables are not useful")
    };
    if up_to > limit as u64 {
        return Err(TheoryError::TooLarge { up_to, game: spec.to_string(), limit, why });
    }
    Ok(up_to as u32)
}

/// Builds the report from scratch.
pub fn heap_report(spec: &GameSpec, opts: &HeapOptions) -> Result<HeapReport, TheoryError> {
    heap_report_from(spec, opts, &StoredSequence::default())
}

/// Builds the report, reusing the values in `stored` (a cache's prefix for this game, from
/// heap 0) and computing on from them.
pub fn heap_report_from(
    spec: &GameSpec,
    opts: &HeapOptions,
    stored: &StoredSequence,
) -> Result<HeapReport, TheoryError> {
    let mut stream = HeapStream::new(spec, opts, stored)?;
    stream.run_to(stream.up_to());
    Ok(stream.report())
}

/// Builds the report, continuing from nim-values `known = g(0..len)` kept in memory (by a
/// server, from an earlier request: [`recent`](super::recent)), and stopping when `stop`
/// is set. A stop while the plain mex of a game that splits heaps three ways runs (the only
/// engine that takes more than seconds within the limits) gives
/// [`TheoryError::Stopped`] with the values finished, which the caller may keep.
pub fn heap_report_until(
    spec: &GameSpec,
    opts: &HeapOptions,
    known: &[u32],
    stop: &Stop,
) -> Result<HeapReport, TheoryError> {
    let kept = StoredSequence { values: known.to_vec(), ..StoredSequence::default() };
    let mut stream = HeapStream::start(spec, opts, &kept, Kept::InMemory, stop)?;
    stream.run_to_until(stream.up_to(), stop)?;
    Ok(stream.report())
}

/// Where the values a report continues from were kept (the words of its method).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kept {
    /// The database's `heap_values` rows.
    Database,
    /// Values this process computed earlier.
    InMemory,
}
/// A game's single-heap values up to N, computed a stretch at a time so that output can be
/// written (and values stored) as they come: misère values, genus and tameness of the small
/// heaps first, then nim-values on demand ([`run_to`](Self::run_to)), then the periodicity
/// ([`finish`](Self::finish)). Memory: the nim-values in compact storage (one or two bytes
/// each for most games), nothing once a certified period makes the rest a copy.
#[derive(Clone, Debug)]
pub struct HeapStream {
    game: GameSpec,
    shape: HeapShape,
    up_to: u32,
    seq: Prepared,
    /// Heaps read from the cache (`None`: nothing), and whether it covered N.
    from_cache: Option<u32>,
    /// Which cache that was.
    kept: Kept,
    covered: bool,
    misere: Vec<Option<u32>>,
    genus: Vec<Option<Genus>>,
    tame: Vec<Option<bool>>,
    genus_depth: u16,
    misere_note: Option<String>,
}

impl HeapStream {
    /// Starts the report: checks N, sets the engine up to continue from `stored`'s values,
    /// and computes the misère values, genus and tameness of the small heaps.
    pub fn new(spec: &GameSpec, opts: &HeapOptions, stored: &StoredSequence) -> Result<Self, TheoryError> {
        HeapStream::start(spec, opts, stored, Kept::Database, &Stop::never())
    }

    /// [`new`](Self::new), stopping when `stop` is set: the plain mex of a game that splits
    /// heaps three ways (the engine that computes every value here, and takes minutes for a
    /// few thousand heaps) then gives [`TheoryError::Stopped`] with the values finished.
    pub fn new_until(
        spec: &GameSpec,
        opts: &HeapOptions,
        stored: &StoredSequence,
        stop: &Stop,
    ) -> Result<Self, TheoryError> {
        HeapStream::start(spec, opts, stored, Kept::Database, stop)
    }

    fn start(
        spec: &GameSpec,
        opts: &HeapOptions,
        stored: &StoredSequence,
        kept: Kept,
        stop: &Stop,
    ) -> Result<Self, TheoryError> {
        let n = check_up_to(spec, opts.up_to as u64)?;
        let rules = heap_rules(spec)?;
        let shape = HeapShape::of(rules);
        let covered = stored.up_to() >= Some(n);
        let seq = if covered {
            Prepared::from_values(stored.values[..=n as usize].to_vec(), SplitMethod::Plain)
        } else if shape.three_way {
            // Hexadecimal codes: the plain mex over every move, three-way splits included,
            // on from the values kept; the one engine here that is stopped on request.
            Prepared::from_values(mex_values_until(rules, n, &stored.values, stop)?, SplitMethod::Plain)
        } else {
            prepare_until(&shape, n, &stored.values, MethodChoice::Auto, stop)?
        };
        let mut stream = HeapStream {
            game: spec.clone(),
            shape,
            up_to: n,
            seq,
            from_cache: stored.up_to(),
            kept,
            covered,
            misere: Vec::new(),
            genus: Vec::new(),
            tame: Vec::new(),
            genus_depth: opts.genus_depth,
            misere_note: None,
        };
        // Misère values, genus and tameness of small heaps.
        // The exact misère search holds heaps of at most MAX_HEAP tokens.
        let want = opts.misere_up_to.min(n).min(crate::misere::MAX_HEAP);
        stream.run_to(want);
        let values: Vec<u32> = (0..=want).map(|h| stream.value(h)).collect();
        let k = want as usize + 1;
        let cached_ok = stored.genus_up_to() >= Some(want) && stored.genus_depth == Some(opts.genus_depth);
        if cached_ok {
            stream.misere = stored.misere[..k].to_vec();
            stream.genus = stored.genus[..k].to_vec();
            stream.tame = stored.tame[..k].to_vec();
        } else {
            let mut solver = GenusSolver::new(rules, opts.genus_depth);
            for h in 0..=want {
                if stop.is_stopped() {
                    return Err(Stopped { values: stream.seq.finished() }.into());
                }
                if solver.misere().positions() > opts.state_budget {
                    stream.misere_note = Some(format!(
                        "misère values stop at heap {} ({} positions memoized, budget {})",
                        h - 1,
                        solver.misere().positions(),
                        opts.state_budget
                    ));
                    break;
                }
                let ge = solver.genus(&[h], &values);
                stream.misere.push(Some(ge.misere_value()));
                stream.tame.push(Some(solver.is_tame(&[h], &values)));
                stream.genus.push(Some(ge));
            }
        }
        Ok(stream)
    }

    /// The game.
    pub fn game(&self) -> &GameSpec {
        &self.game
    }

    /// N.
    pub fn up_to(&self) -> u32 {
        self.up_to
    }

    /// Computes the nim-values of every heap up to `n` (at most N).
    pub fn run_to(&mut self, n: u32) {
        self.seq.run(n.min(self.up_to));
    }

    /// [`run_to`](Self::run_to), stopping when `stop` is set, with the values finished.
    pub fn run_to_until(&mut self, n: u32, stop: &Stop) -> Result<(), Stopped> {
        self.seq.run_until(n.min(self.up_to), stop)
    }

    /// g(n), for n up to where [`run_to`](Self::run_to) reached.
    pub fn value(&self, n: u32) -> u32 {
        self.seq.value(n)
    }

    /// The misère value of heap `n`, where computed.
    pub fn misere(&self, n: u32) -> Option<u32> {
        self.misere.get(n as usize).copied().flatten()
    }

    /// The genus of heap `n`, where computed.
    pub fn genus(&self, n: u32) -> Option<&Genus> {
        self.genus.get(n as usize).and_then(Option::as_ref)
    }

    /// Whether heap `n` is tame, where computed.
    pub fn tame(&self, n: u32) -> Option<bool> {
        self.tame.get(n as usize).copied().flatten()
    }

    /// The genus depth used.
    pub fn genus_depth(&self) -> u16 {
        self.genus_depth
    }

    /// The largest heap with a misère value.
    pub fn misere_up_to(&self) -> Option<u32> {
        self.misere.iter().take_while(|v| v.is_some()).count().checked_sub(1).map(|n| n as u32)
    }

    /// Why misère values stop before the requested heap, if they do.
    pub fn misere_note(&self) -> Option<&str> {
        self.misere_note.as_deref()
    }

    /// Bytes per nim-value held in memory.
    pub fn value_bytes(&self) -> usize {
        self.seq.value_bytes()
    }

    /// How the nim-values were obtained, in words.
    pub fn method(&self) -> String {
        let from = match self.kept {
            Kept::Database => "from the database",
            Kept::InMemory => "kept in memory from an earlier computation",
        };
        if self.covered {
            return match self.kept {
                Kept::Database => format!("read from the database (heaps 0..={})", self.up_to),
                Kept::InMemory => format!("{from} (heaps 0..={})", self.up_to),
            };
        }
        let mut method = self.seq.method.to_string();
        if let Some(m) = self.from_cache {
            method = format!("heaps 0..={m} {from}, then {method}");
        }
        if let Some(at) = self.seq.stats().certified_at {
            method.push_str(&format!("; heaps ≥ {at} copied from the period certified at that point"));
        }
        method
    }

    /// The periodicity of g(0..=N), once every heap is computed. A certified period is
    /// found again on the values computed before it (they hold its certificate), and holds
    /// up to N.
    pub fn finish(&self) -> Periodicity {
        let mut p = self.seq.analyse(&self.shape);
        p.checked_to = self.up_to;
        p
    }

    /// Heaps 0..=`to` as a cache keeps them (values, misère values, genus, tameness).
    pub fn rows_to(&self, to: u32) -> StoredSequence {
        let len = to as usize + 1;
        let cut = |v: &[Option<u32>]| v.iter().copied().chain(std::iter::repeat(None)).take(len).collect();
        StoredSequence {
            values: (0..=to).map(|n| self.value(n)).collect(),
            misere: cut(&self.misere),
            genus: self.genus.iter().cloned().chain(std::iter::repeat(None)).take(len).collect(),
            tame: self.tame.iter().copied().chain(std::iter::repeat(None)).take(len).collect(),
            genus_depth: Some(self.genus_depth),
        }
    }

    /// The whole report (every value in memory: for small N).
    pub fn report(&self) -> HeapReport {
        let len = self.up_to as usize + 1;
        let pad = |v: &Vec<Option<u32>>| {
            let mut v = v.clone();
            v.resize(len, None);
            v
        };
        let mut genus = self.genus.clone();
        genus.resize(len, None);
        let mut tame = self.tame.clone();
        tame.resize(len, None);
        HeapReport {
            game: self.game.clone(),
            values: (0..=self.up_to).map(|n| self.value(n)).collect(),
            misere: pad(&self.misere),
            genus,
            tame,
            genus_depth: self.genus_depth,
            periodicity: self.finish(),
            method: self.method(),
            misere_note: self.misere_note.clone(),
        }
    }
}

impl HeapReport {
    /// The values of this report, as a cache keeps them.
    pub fn to_stored(&self) -> StoredSequence {
        StoredSequence {
            values: self.values.clone(),
            misere: self.misere.clone(),
            genus: self.genus.clone(),
            tame: self.tame.clone(),
            genus_depth: Some(self.genus_depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continues_from_stored_values() {
        let kayles: GameSpec = "kayles".parse().unwrap();
        let mut opts = HeapOptions::new(200);
        opts.misere_up_to = 12;
        let first = heap_report(&kayles, &opts).unwrap();
        assert!(first.periodicity.proven);
        assert_eq!(first.genus[5].as_ref().unwrap().to_string(), "4^146");
        let stored = first.to_stored();
        let again = heap_report_from(&kayles, &HeapOptions { up_to: 150, ..opts.clone() }, &stored).unwrap();
        assert!(again.method.starts_with("read from the database"), "{}", again.method);
        assert_eq!(again.values[..], first.values[..=150]);
        assert_eq!(again.genus[..13], first.genus[..13]);
        let longer = heap_report_from(&kayles, &HeapOptions { up_to: 5000, ..opts }, &stored).unwrap();
        assert!(longer.method.starts_with("heaps 0..=200 from the database"), "{}", longer.method);
        assert_eq!(longer.values, heap_report(&kayles, &HeapOptions::new(5000)).unwrap().values);
    }

    #[test]
    fn a_stopped_report_keeps_its_values_and_a_later_one_continues_from_them() {
        let hex: GameSpec = "hex:0.[F]".parse().unwrap();
        let opts = HeapOptions::new(80);
        let whole = heap_report(&hex, &opts).unwrap();
        let stop = Stop::new();
        stop.stop();
        let Err(TheoryError::Stopped(stopped)) = heap_report_until(&hex, &opts, &whole.values[..50], &stop)
        else {
            panic!("not stopped");
        };
        assert_eq!(stopped.values, whole.values[..50]);
        let again = heap_report_until(&hex, &opts, &stopped.values, &Stop::never()).unwrap();
        assert_eq!(again.values, whole.values);
        assert_eq!(again.genus, whole.genus);
        assert_eq!(
            again.method,
            "heaps 0..=49 kept in memory from an earlier computation, then plain mex over all splits"
        );
        let kept = heap_report_until(&hex, &HeapOptions::new(60), &whole.values, &Stop::never()).unwrap();
        assert_eq!(kept.values, whole.values[..=60]);
        assert_eq!(kept.method, "kept in memory from an earlier computation (heaps 0..=60)");
    }

    #[test]
    fn refuses_absurd_sizes() {
        let kayles: GameSpec = "kayles".parse().unwrap();
        assert!(check_up_to(&kayles, 100_000_001).unwrap_err().to_string().contains("too large"));
        let lines: GameSpec = "lines".parse().unwrap();
        assert!(check_up_to(&lines, 200_000).is_err());
        assert!(check_up_to(&lines, 1000).is_ok());
    }

    #[test]
    fn budget_stops_the_misere_solver() {
        let lines: GameSpec = "lines".parse().unwrap();
        let opts = HeapOptions { state_budget: 2000, ..HeapOptions::new(40) };
        let r = heap_report(&lines, &opts).unwrap();
        let m = r.misere_up_to().unwrap();
        assert!(m < 40 && r.misere_note.is_some());
        assert!(r.misere[m as usize + 1..].iter().all(Option::is_none));
    }
}
