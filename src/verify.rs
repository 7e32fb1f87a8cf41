//! Checking stored solves against theory, and against themselves.
//!
//! Which theory applies is what the game's family declares ([`crate::game::Theory`]):
//! Moore's theorem for Nim_k, Wythoff's pairs for two-heap Wythoff positions, and for sums
//! of heaps the following; families with no theorem are checked for self-consistency only.
//! Every stored position of every solve of a game is checked against the theory that
//! applies: Bouton's rule (normal Nim), the misère-Nim rule (misère Nim), Sprague–Grundy with
//! heap nim-values computed from each heap's own moves (any game, normal play), and, under
//! misère play of other games, the *tame prediction*: the misère-Nim rule applied to the heap
//! nim-values. The first three are theorems, so a disagreement means the database is wrong;
//! the last is not, and the positions where it fails (the *wild* ones) are a research finding.
//! Stored nim-values are checked too: normal ones against the XOR of the heap values, misère
//! ones against an independent misère search. Finally a random sample of positions is
//! recomputed from its children's stored values, as GamesCrafters' tier-solver test does.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::game::{Claim, Convention, Formula, Game, GameRules, GameSpec, Outcome, Position, Stated};
use crate::index::PartitionTable;
use crate::index::TierId;
use crate::solve::{Silent, SinkError, SolveOptions, SolvedTier, Strategy, TierStore, solve as solve_tiers};
use crate::store::{Database, Prober, SolveRecord, StoreError, TierCounts};
use crate::theory::{
    MisereSolver, misere_nim_loss, misere_nim_rule, moore_loss, nim_values, normal_nim_loss, wythoff_loss,
};

/// How many mismatching positions a report lists.
pub const LISTED: usize = 10;

/// The largest heap the independent misère search handles.
const MISERE_SEARCH_MAX_HEAP: u32 = crate::theory::misere::MAX_HEAP;

/// Misère positions the independent misère search may memoize while checking nim-values.
const MISERE_SEARCH_BUDGET: usize = 2_000_000;

/// Which theory a check used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Theory {
    /// Normal Nim: a loss iff the XOR of the heaps is 0.
    Bouton,
    /// Misère Nim: a loss iff (some heap ≥ 2 and XOR 0) or (all heaps ≤ 1 and XOR 1).
    MisereNim,
    /// Normal play: a loss iff the XOR of the heaps' nim-values is 0.
    SpragueGrundy,
    /// Misère play: the misère-Nim rule on the heaps' nim-values (exact only for tame games).
    TamePrediction,
    /// Moore's theorem for Nim_k (binary column sums modulo k + 1).
    Moore {
        /// The most heaps a move changes.
        k: u32,
    },
    /// Wythoff's pairs, on the positions of at most two heaps.
    Wythoff,
    /// A family's own theorem (Staircase Nim's odd steps, Welter's function, Smith's values
    /// for the loopy game, Bouton's or Moore's on a hypergraph), checked on every stored
    /// position where it decides one.
    Family {
        /// The theorem.
        theorem: Formula,
    },
    /// No theorem applies to the family: only the database's self-consistency is checked.
    None,
}

impl Theory {
    /// The theory for a game and convention, as the game's family declares it.
    pub fn for_game(game: &GameSpec, convention: Convention) -> Self {
        let declared = game.rules().theory();
        match (declared.formula, convention) {
            (Some(Formula::Bouton), Convention::Normal) => Theory::Bouton,
            (Some(Formula::Bouton), Convention::Misere) => Theory::MisereNim,
            (Some(Formula::Moore { k }), _) => Theory::Moore { k },
            (Some(Formula::Wythoff), _) => Theory::Wythoff,
            // The theorems of the families with their own position space; no heap game
            // declares them.
            (
                Some(Formula::OddSteps | Formula::Welter | Formula::Smith { .. } | Formula::ExactNim { .. }),
                _,
            ) => Theory::None,
            (None, _) if !declared.sum_of_heaps => Theory::None,
            (None, Convention::Normal) => Theory::SpragueGrundy,
            (None, Convention::Misere) => Theory::TamePrediction,
        }
    }

    /// Whether the theory is a theorem (a disagreement means the database is wrong).
    pub fn is_theorem(self) -> bool {
        !matches!(self, Theory::TamePrediction | Theory::None)
    }

    /// The theorem's name, where it is a family's own.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Theory::Family { theorem } => Some(theorem.name()),
            _ => None,
        }
    }

    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            Theory::Bouton => "Bouton's rule: a loss iff the XOR of the heaps is 0",
            Theory::MisereNim => {
                "the misère-Nim rule: a loss iff (some heap ≥ 2 and XOR 0) or (every heap ≤ 1 and XOR 1)"
            }
            Theory::SpragueGrundy => "Sprague–Grundy: a loss iff the XOR of the heaps' nim-values is 0",
            Theory::TamePrediction => {
                "the tame prediction: the misère-Nim rule on the heaps' nim-values (not a theorem: where it fails, the position is wild)"
            }
            Theory::Moore { .. } => {
                "Moore's theorem: a loss iff every binary column sum is divisible by k + 1 (misère: when every heap is ≤ 1, iff the number of heaps is ≡ 1 mod k + 1)"
            }
            Theory::Wythoff => {
                "Wythoff's pairs: a two-heap position is a loss iff it is (⌊nφ⌋, ⌊nφ²⌋) (misère: with (0,1) and (2,2) for n = 0, 1); positions of three or more heaps have no theorem and are not checked"
            }
            Theory::Family { .. } => {
                "the family's theorem, on every stored position it decides (every position is also recomputed from its children)"
            }
            Theory::None => "no theorem applies; self-consistency only",
        }
    }
}

/// The result of verifying one game and convention.
#[derive(Clone, Debug, serde::Serialize)]
pub struct VerifyReport {
    /// Canonical game.
    pub game: String,
    /// Convention.
    pub convention: Convention,
    /// The theory applied.
    pub theory: Theory,
    /// Whether that theory is a theorem.
    pub theorem: bool,
    /// The solves checked.
    pub solves: Vec<i64>,
    /// Positions checked against the theory.
    pub checked: u64,
    /// Positions where the database and the theory agree.
    pub agree: u64,
    /// Positions where they disagree.
    pub mismatches: u64,
    /// Stored positions no theorem of the family covers (checked for self-consistency only).
    pub no_theorem: u64,
    /// The smallest disagreeing positions (by total, then heap count, then heaps largest
    /// first): wild positions under the tame prediction.
    pub first_mismatches: Vec<Vec<u64>>,
    /// Stored nim-values checked (against XOR of heap values, or the misère search).
    pub nim_values_checked: u64,
    /// Stored nim-values that disagree.
    pub nim_value_mismatches: u64,
    /// The first positions whose stored nim-value disagrees.
    pub first_nim_value_mismatches: Vec<Vec<u64>>,
    /// Positions recomputed from their children's stored values.
    pub sampled: u64,
    /// Positions recomputed from the rules alone (`--full`).
    pub recomputed: u64,
    /// Of those, the ones whose stored value differs.
    pub recomputed_mismatches: u64,
    /// Draws stored (a loopy game's positions from which neither player can force a win).
    #[serde(skip_serializing_if = "is_zero")]
    pub draws: u64,
    /// Whether every tier passed its checksums and every sampled position matched its children.
    pub consistent: bool,
    /// What was inconsistent, if anything: each different problem once, at most
    /// [`LISTED`] of them.
    pub problems: Vec<String>,
    /// Problems found past the [`LISTED`] kept (repeats of one kept not counted).
    #[serde(skip_serializing_if = "is_zero")]
    pub problems_omitted: u64,
    /// Misère octal games: every stored outcome checked against the misère quotient.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quotient: Option<QuotientCrossCheck>,
    /// The theorems and conjectures the user states of the game ([`check_stated`]), each
    /// checked against every stored position; none unless the caller adds them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stated: Vec<StatedCheck>,
}

/// A theorem or conjecture the user states of a game ([`Stated`]), checked against every
/// stored position of the game under its convention.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StatedCheck {
    /// Its name and citation, as the user gave them.
    pub citation: String,
    /// What it gives: a nim-value or an outcome.
    pub claim: Claim,
    /// Whether the user marks it proven (a counterexample then fails the check).
    pub proven: bool,
    /// Stored positions checked (a position stored in two solves is checked in each).
    pub checked: u64,
    /// Of those, the ones it agrees with.
    pub agree: u64,
    /// Of those, the ones it does not: counterexamples.
    pub counterexamples: u64,
    /// The smallest counterexamples (by total, then fewer counts, then counts), at most
    /// [`LISTED`].
    pub first_counterexamples: Vec<Counterexample>,
}

/// A position where a stated formula and the database disagree.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Counterexample {
    /// The position, in the game's notation.
    pub position: Vec<u64>,
    /// What the formula says: a nim-value, or an outcome.
    pub stated: Value,
    /// What the database says (a nim-value computed from the stored game's moves, or the
    /// stored one; an outcome as stored).
    pub actual: Value,
}

/// A nim-value or an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A nim-value.
    NimValue(u64),
    /// An outcome.
    Outcome(Outcome),
}

/// Checks each of `theorems` (those stated under `convention`; the rest are skipped)
/// against every stored position of `game` under `convention`: an outcome claim against
/// the stored outcome; a nim-value claim against the stored nim-value (a heap game solved
/// with nim-values) or, for an acyclic family, the nim-value computed by mex over the
/// space of every stored solve (`theory::space_values`). `stop` is heard between positions.
/// An error the formula gives (an exception, a value that is none) stops the check.
pub fn check_stated(
    db: &Database,
    game: &Game,
    convention: Convention,
    theorems: &[std::sync::Arc<dyn Stated>],
    stop: &crate::theory::Stop,
) -> Result<Vec<StatedCheck>, VerifyError> {
    let theorems: Vec<_> = theorems.iter().filter(|t| t.convention() == convention).collect();
    let mut checks: Vec<StatedCheck> = theorems
        .iter()
        .map(|t| StatedCheck {
            citation: t.citation().to_string(),
            claim: t.claim(),
            proven: t.proven(),
            checked: 0,
            agree: 0,
            counterexamples: 0,
            first_counterexamples: Vec::new(),
        })
        .collect();
    if theorems.is_empty() {
        return Ok(checks);
    }
    let solves = crate::stored::solves_of(db, game, convention)?;
    if solves.is_empty() {
        return Err(VerifyError::NoSolve { game: game.to_string(), convention });
    }
    let space_error = |e: crate::space::SpaceError| VerifyError::Space(Box::new(e));
    // A family's nim-values, computed once over the space of every stored solve.
    let family_values = match theorems.iter().any(|t| t.claim() == Claim::NimValue) && game.heaps().is_none()
    {
        false => None,
        true => {
            if game.family().loopy() {
                return Err(VerifyError::Stated(format!(
                    "{game} is loopy: its positions have no nim-value to check a formula against (state an outcome)"
                )));
            }
            let Some(bounds) =
                crate::space::stored_union_bounds(db, game, convention).map_err(space_error)?
            else {
                return Err(VerifyError::NoSolve { game: game.to_string(), convention });
            };
            let space = crate::space::space_of(game, bounds).map_err(space_error)?;
            let values = crate::theory::space_values::space_nim_values(
                game.family(),
                space.as_ref(),
                convention,
                stop,
            )
            .map_err(|e| VerifyError::Stated(e.to_string()))?;
            Some((space, values))
        }
    };
    for solve in &solves {
        if theorems.iter().any(|t| t.claim() == Claim::NimValue)
            && game.heaps().is_some()
            && !solve.nim_values
        {
            return Err(VerifyError::Stated(format!(
                "solve #{} of {game} stores no nim-values to check a nim-value formula against: solve it again with nim-values",
                solve.id
            )));
        }
        let filter = crate::store::ExportFilter::default();
        crate::stored::for_each_stored(db, game, solve, filter, |p| -> Result<(), VerifyError> {
            if stop.is_stopped() {
                return Err(VerifyError::Stated("stopped before every stored position was checked".into()));
            }
            for (t, check) in theorems.iter().zip(checks.iter_mut()) {
                let said = t.value(p.position).map_err(VerifyError::Stated)?;
                let (stated, actual) = match t.claim() {
                    Claim::Outcome => (Value::Outcome(said.outcome), Value::Outcome(p.outcome)),
                    Claim::NimValue => {
                        let actual = match &family_values {
                            Some((space, values)) => values.get(space.as_ref(), p.position).map(u64::from),
                            None => p.nim_value.map(u64::from),
                        };
                        let actual = actual.ok_or_else(|| {
                            VerifyError::Stated(format!(
                                "no nim-value of {} is known",
                                game.family().show(p.position)
                            ))
                        })?;
                        (Value::NimValue(said.nim_value.unwrap_or(u64::MAX)), Value::NimValue(actual))
                    }
                };
                check.checked += 1;
                if stated == actual {
                    check.agree += 1;
                } else {
                    check.counterexamples += 1;
                    let position: Vec<u64> = p.position.iter().map(|&c| u64::from(c)).collect();
                    let listed = &mut check.first_counterexamples;
                    if !listed.iter().any(|c| c.position == position) {
                        listed.push(Counterexample { position, stated, actual });
                        listed.sort_by_key(|c| smallest_first(&c.position));
                        listed.truncate(LISTED);
                    }
                }
            }
            Ok(())
        })?;
    }
    Ok(checks)
}

/// The cross-check of stored misère outcomes against the misère quotient (Plambeck–Siegel).
/// The quotient passed its exact closure check, so a disagreement contradicts a theorem.
#[derive(Clone, Debug, serde::Serialize)]
pub struct QuotientCrossCheck {
    /// The quotient's heap range (heaps 1..=max_heap).
    pub max_heap: u32,
    /// |Q|.
    pub size: usize,
    /// Whether its heap images are certified periodic (so it covers every heap).
    pub proven: bool,
    /// Positions checked.
    pub checked: u64,
    /// Positions whose stored outcome disagrees with the quotient.
    pub mismatches: u64,
    /// The smallest disagreeing positions.
    pub first_mismatches: Vec<Vec<u64>>,
    /// Why no quotient was available, when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl VerifyReport {
    /// Records an inconsistency: the report is inconsistent; the problem is listed unless it
    /// is listed already or [`LISTED`] are (then counted in `problems_omitted`), so a damaged
    /// file makes a line of bounded length.
    pub fn problem(&mut self, text: String) {
        self.consistent = false;
        if self.problems.contains(&text) {
            return;
        }
        if self.problems.len() < LISTED {
            self.problems.push(text);
        } else {
            self.problems_omitted += 1;
        }
    }

    /// Whether a theorem was contradicted or the database is inconsistent (the exit status).
    pub fn failed(&self) -> bool {
        // A stored nim-value that disagrees with its own definition is an error under any
        // convention; a disagreement with the tame prediction is not.
        !self.consistent
            || self.nim_value_mismatches > 0
            || (self.theorem && self.mismatches > 0)
            || self.quotient.as_ref().is_some_and(|q| q.mismatches > 0)
            || self.stated.iter().any(|s| s.proven && s.counterexamples > 0)
    }
}

/// Why a verification could not run.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Nothing stored to verify.
    #[error("no stored solve of {game} ({convention}) to verify")]
    NoSolve {
        /// Canonical game.
        game: String,
        /// The convention.
        convention: Convention,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored solve's universe cannot be indexed.
    #[error(transparent)]
    Universe(#[from] crate::index::UniverseError),
    /// The recomputation (`full`) failed.
    #[error(transparent)]
    Recompute(#[from] crate::solve::SolveError),
    /// A stored misère quotient could not be read.
    #[error(transparent)]
    Quotient(#[from] crate::store::quotients::QuotientStoreError),
    /// A family's stored solve could not be read (its bounds were damaged).
    #[error(transparent)]
    Space(Box<crate::space::SpaceError>),
    /// A stated theorem could not be checked: its formula gave no value (it raised, or gave
    /// what is not one), it cannot be checked against this game's solves, or the check was
    /// stopped.
    #[error("{0}")]
    Stated(String),
    /// A stored solve could not be read.
    #[error(transparent)]
    Stored(Box<crate::stored::StoredError>),
    /// The game's moves are not known here (a game defined by a program whose rules this
    /// process does not have): its stored positions cannot be recomputed.
    #[error("{game}'s moves are not known here (it is defined in Python): verify it with Database.verify")]
    NoMoves {
        /// Canonical game.
        game: String,
    },
}

impl From<crate::stored::StoredError> for VerifyError {
    fn from(e: crate::stored::StoredError) -> Self {
        VerifyError::Stored(Box::new(e))
    }
}

/// Verifies every stored solve of `game` under `convention`, recomputing `sample` random
/// positions from their children (seeded by `seed`).
pub fn verify(
    db: &Database,
    game: &Game,
    convention: Convention,
    sample: u64,
    seed: u64,
) -> Result<VerifyReport, VerifyError> {
    verify_with(db, game, convention, &VerifyOptions { sample, seed, full: false })
}

/// How thoroughly to verify.
#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions {
    /// Positions to recompute from their children's stored values, at random.
    pub sample: u64,
    /// Seed of the sample.
    pub seed: u64,
    /// Also recompute every stored position from the rules alone (a fresh solve in memory,
    /// tier by tier, compared with each stored tier). This catches any payload changed
    /// since it was solved, checksums recomputed or not.
    pub full: bool,
}

/// Verifies every stored solve of any game under `convention` as `options` say. A heap game
/// is checked against its theory, its sampled (or, with `full`, every) position against its
/// children, its stored counts and, for the misère play of an octal game, against its misère
/// quotient; a family with its own position space has every stored position recomputed
/// from its children's records and checked against the family's theorem where one decides
/// it, and its solves' counts, totals and tiers against their records.
pub fn verify_with(
    db: &Database,
    game: &Game,
    convention: Convention,
    options: &VerifyOptions,
) -> Result<VerifyReport, VerifyError> {
    if !game.family().moves_known() {
        return Err(VerifyError::NoMoves { game: game.to_string() });
    }
    match game.heaps() {
        Some(spec) => verify_heaps(db, spec, convention, options),
        None => verify_family(db, game, convention),
    }
}

/// [`verify_with`] of a family with its own position space.
fn verify_family(db: &Database, game: &Game, convention: Convention) -> Result<VerifyReport, VerifyError> {
    let r = crate::space::verify_space(db, game, convention).map_err(|e| match e {
        crate::space::SpaceError::NoSolve(..) => VerifyError::NoSolve { game: game.to_string(), convention },
        crate::space::SpaceError::Store(e) => VerifyError::Store(e),
        other => VerifyError::Space(Box::new(other)),
    })?;
    let theory = r.theorem.map_or(Theory::None, |theorem| Theory::Family { theorem });
    let mut problems = r.problems;
    if r.inconsistent > 0 {
        problems.push(format!("{} positions do not follow from their children's records", r.inconsistent));
    }
    let mut report = VerifyReport {
        game: game.to_string(),
        convention,
        theory,
        theorem: theory.is_theorem(),
        solves: r.solves,
        checked: r.theorem_checked,
        agree: r.theorem_agree,
        mismatches: r.theorem_checked - r.theorem_agree,
        no_theorem: r.checked - r.theorem_checked,
        first_mismatches: r.first_failures,
        nim_values_checked: 0,
        nim_value_mismatches: 0,
        first_nim_value_mismatches: Vec::new(),
        sampled: r.checked,
        recomputed: 0,
        recomputed_mismatches: 0,
        draws: r.draws,
        consistent: true,
        problems: Vec::new(),
        problems_omitted: 0,
        quotient: None,
        stated: Vec::new(),
    };
    for p in problems {
        report.problem(p);
    }
    Ok(report)
}

/// [`verify_with`] of a heap game.
fn verify_heaps(
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    options: &VerifyOptions,
) -> Result<VerifyReport, VerifyError> {
    let (sample, seed) = (options.sample, options.seed);
    let theory = Theory::for_game(game, convention);
    let mut report = VerifyReport {
        game: game.canonical(),
        convention,
        theory,
        theorem: theory.is_theorem(),
        solves: Vec::new(),
        checked: 0,
        agree: 0,
        mismatches: 0,
        no_theorem: 0,
        first_mismatches: Vec::new(),
        nim_values_checked: 0,
        nim_value_mismatches: 0,
        first_nim_value_mismatches: Vec::new(),
        sampled: 0,
        recomputed: 0,
        recomputed_mismatches: 0,
        draws: 0,
        consistent: true,
        problems: Vec::new(),
        problems_omitted: 0,
        quotient: None,
        stated: Vec::new(),
    };
    let solves = db.solves_of(game, convention)?;
    if solves.is_empty() {
        return Err(VerifyError::NoSolve { game: game.canonical(), convention });
    }
    let mut rng = StdRng::seed_from_u64(seed);
    for solve in &solves {
        report.solves.push(solve.id);
        // The misère quotient of an octal game's misère play, checked in the theory's pass.
        let quotient = match convention == Convention::Misere && game.octal().is_some() {
            true => quotient_for(db, game, solve, &mut report)?,
            false => None,
        };
        let images = quotient.as_ref().map(|q| QuotientImages {
            monoid: &q.monoid,
            images: (0..=solve.target_universe().part_cap()).map(|h| q.image(h).ok()).collect(),
        });
        check_against_theory(db, game, convention, solve, images.as_ref(), &mut report)?;
        check_children(db, game, convention, solve, sample, &mut rng, &mut report)?;
        if options.full {
            recompute_all(db, game, convention, solve, &mut report)?;
        }
    }
    if let Some(q) = report.quotient.as_mut() {
        q.first_mismatches.sort_by_key(|p| smallest_first(p));
        q.first_mismatches.truncate(LISTED);
    }
    report.first_mismatches.sort_by_key(|p| smallest_first(p));
    report.first_mismatches.truncate(LISTED);
    report.first_nim_value_mismatches.sort_by_key(|p| smallest_first(p));
    report.first_nim_value_mismatches.truncate(LISTED);
    Ok(report)
}

/// The order in which mismatches are listed: by total, then fewer heaps, then heaps largest
/// first.
fn smallest_first(p: &[u64]) -> (u128, usize, Vec<u64>) {
    (p.iter().map(|&c| u128::from(c)).sum(), p.len(), p.to_vec())
}

/// Checks every stored position of `solve` against the theory that applies (and, when
/// `quotient` is given, against the misère quotient, in the same pass), its stored
/// nim-values, and each tier's and the solve's recorded counts against its records.
///
/// Each tier is read once; its positions are checked a stretch at a time on the threads of
/// rayon's pool, and the stretches' findings are merged in rank order, so the report is the
/// one a single pass in rank order gives (the first positions kept are the same). The misère
/// search that checks stored misère nim-values keeps a memo across positions, so that check
/// alone walks each tier in order on one thread.
fn check_against_theory(
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    solve: &SolveRecord,
    quotient: Option<&QuotientImages<'_>>,
    report: &mut VerifyReport,
) -> Result<(), VerifyError> {
    let universe = solve.target_universe();
    // Heap values, for sums of heaps only.
    let heap_rules = game.heap_rules().filter(|_| game.is_sum_of_heaps());
    let g = heap_rules.map_or_else(Vec::new, |rules| nim_values(rules, universe.part_cap()));
    let mut misere = heap_rules.map(MisereSolver::new);
    let mut misere_budget_left = true;
    let stored = db.stored_tiers(solve.id)?;
    let table = universe.table()?;
    // Every tier up to the solve's solved total must be there.
    for tier in universe.tiers() {
        if (tier.total as i64) <= solve.solved_total && !stored.contains(&tier) {
            report.problem(format!("tier {tier} of solve #{} is missing", solve.id));
        }
    }
    let counts = db.tier_counts(solve.id)?;
    let check = PositionCheck {
        theory: report.theory,
        convention,
        g: &g,
        sum_of_heaps: heap_rules.is_some(),
        quotient,
        table: &table,
    };
    let mut quotient_found = Findings::default();
    // Positions and losses of the tiers read, against the solve's own totals.
    let mut sums = (0i64, 0i64);
    let mut all_read = true;
    for tier in universe.tiers().into_iter().filter(|t| stored.contains(t)) {
        let solved = match db.load_tier(solve.id, tier) {
            Ok(s) => s,
            Err(e) => {
                report.problem(e.to_string());
                all_read = false;
                continue;
            }
        };
        let size = table.size(tier);
        if solved.remoteness.len() as u64 != size {
            report.problem(format!("tier {tier} of solve #{} has the wrong number of positions", solve.id));
            all_read = false;
            // A short tier's records are still checked against the quotient, as far as
            // they go.
            if check.quotient.is_some() && (solved.remoteness.len() as u64) < size {
                let found = check.tier(tier, &solved, false);
                quotient_found.merge_quotient(found);
            }
            continue;
        }
        // The counts the tier row records beside its payload, recomputed from its records.
        let found = TierCounts {
            positions: solved.remoteness.len() as i64,
            losses: solved.losses(convention) as i64,
            max_remoteness: solved.max_remoteness() as i64,
        };
        sums.0 += found.positions;
        sums.1 += found.losses;
        if let Some(recorded) = counts.get(&tier).filter(|&&c| c != found) {
            report.problem(format!(
                "tier {tier} of solve #{} records {} positions, {} losses and remoteness up to {}; its \
                 records hold {}, {} and {}",
                solve.id,
                recorded.positions,
                recorded.losses,
                recorded.max_remoteness,
                found.positions,
                found.losses,
                found.max_remoteness
            ));
        }
        let found = check.tier(tier, &solved, true);
        found.merge_into(report);
        quotient_found.merge_quotient(found);
        // Stored misère nim-values, against the misère search (in rank order: it memoizes).
        if let (Some(stored_values), Convention::Misere, Some(misere)) =
            (&solved.nim_values, convention, misere.as_mut())
        {
            let mut walk = table.walk(tier);
            for (&r, &stored_value) in solved.remoteness.iter().zip(stored_values) {
                let heaps = walk.next().expect("walk covers the tier");
                if !misere_budget_left || heaps.first().is_some_and(|&h| h > MISERE_SEARCH_MAX_HEAP) {
                    continue;
                }
                let expected = misere.value(heaps);
                misere_budget_left = misere.positions() < MISERE_SEARCH_BUDGET;
                report.nim_values_checked += 1;
                let stored_loss = !convention.is_win(r as u32);
                if expected != stored_value as u32 || (stored_value == 0) != stored_loss {
                    report.nim_value_mismatches += 1;
                    keep_smallest(&mut report.first_nim_value_mismatches, heaps);
                }
            }
        }
    }
    if all_read && (sums.0 as u64, sums.1 as u64) != (solve.positions, solve.losses) {
        report.problem(format!(
            "solve #{} records {} positions and {} losses; its tiers hold {} and {}",
            solve.id, solve.positions, solve.losses, sums.0, sums.1
        ));
    }
    if let Some(entry) = report.quotient.as_mut().filter(|_| quotient.is_some()) {
        entry.checked += quotient_found.quotient_checked;
        entry.mismatches += quotient_found.quotient_mismatches;
        for p in quotient_found.quotient_first {
            keep_listed(&mut entry.first_mismatches, p);
        }
    }
    Ok(())
}

/// Positions a stretch of a tier holds: what one task of the parallel check takes.
const STRETCH: usize = 1 << 16;

/// The checks made of each stored position of a heap game's solve (see
/// [`check_against_theory`]).
struct PositionCheck<'a> {
    theory: Theory,
    convention: Convention,
    /// The heaps' nim-values (a sum of heaps only; empty otherwise).
    g: &'a [u32],
    /// Whether the game is a sum of heaps (its normal nim-values are checked by XOR).
    sum_of_heaps: bool,
    quotient: Option<&'a QuotientImages<'a>>,
    table: &'a PartitionTable,
}

/// A misère quotient ready for many positions: each heap's image, looked up once.
struct QuotientImages<'a> {
    monoid: &'a crate::theory::quotient::BipartiteMonoid,
    /// Φ(heap) for every heap up to the solve's largest (`None` past what it covers).
    images: Vec<Option<u32>>,
}

/// What the check of some positions found, to be merged in rank order.
#[derive(Debug, Default, PartialEq)]
struct Findings {
    no_theorem: u64,
    checked: u64,
    agree: u64,
    mismatches: u64,
    first_mismatches: Vec<Vec<u64>>,
    nim_values_checked: u64,
    nim_value_mismatches: u64,
    first_nim_value_mismatches: Vec<Vec<u64>>,
    quotient_checked: u64,
    quotient_mismatches: u64,
    quotient_first: Vec<Vec<u64>>,
}

impl Findings {
    /// Adds later positions' findings (the first positions kept stay the first).
    fn merge(&mut self, later: Findings) {
        self.no_theorem += later.no_theorem;
        self.checked += later.checked;
        self.agree += later.agree;
        self.mismatches += later.mismatches;
        self.nim_values_checked += later.nim_values_checked;
        self.nim_value_mismatches += later.nim_value_mismatches;
        self.merge_quotient_counts(&later);
        for p in later.first_mismatches {
            keep_listed(&mut self.first_mismatches, p);
        }
        for p in later.first_nim_value_mismatches {
            keep_listed(&mut self.first_nim_value_mismatches, p);
        }
        for p in later.quotient_first {
            keep_listed(&mut self.quotient_first, p);
        }
    }

    fn merge_quotient_counts(&mut self, later: &Findings) {
        self.quotient_checked += later.quotient_checked;
        self.quotient_mismatches += later.quotient_mismatches;
    }

    /// Adds later positions' quotient findings alone.
    fn merge_quotient(&mut self, later: Findings) {
        self.merge_quotient_counts(&later);
        for p in later.quotient_first {
            keep_listed(&mut self.quotient_first, p);
        }
    }

    /// Adds the theory's and nim-values' findings to the report.
    fn merge_into(&self, report: &mut VerifyReport) {
        report.no_theorem += self.no_theorem;
        report.checked += self.checked;
        report.agree += self.agree;
        report.mismatches += self.mismatches;
        report.nim_values_checked += self.nim_values_checked;
        report.nim_value_mismatches += self.nim_value_mismatches;
        for p in &self.first_mismatches {
            keep_listed(&mut report.first_mismatches, p.clone());
        }
        for p in &self.first_nim_value_mismatches {
            keep_listed(&mut report.first_nim_value_mismatches, p.clone());
        }
    }
}

impl PositionCheck<'_> {
    /// Checks every position of a stored tier (`theory`: against the theory and the stored
    /// normal nim-values too, else against the quotient alone), a stretch at a time in
    /// parallel.
    fn tier(&self, tier: TierId, solved: &crate::store::StoredTier, theory: bool) -> Findings {
        self.tier_by(tier, solved, theory, STRETCH)
    }

    /// [`tier`](Self::tier), `stretch` positions a task.
    fn tier_by(
        &self,
        tier: TierId,
        solved: &crate::store::StoredTier,
        theory: bool,
        stretch: usize,
    ) -> Findings {
        use rayon::prelude::*;
        let n = solved.remoteness.len();
        if n <= stretch {
            return self.stretch(tier, solved, 0..n, theory);
        }
        let found: Vec<Findings> = (0..n.div_ceil(stretch))
            .into_par_iter()
            .map(|i| self.stretch(tier, solved, i * stretch..n.min((i + 1) * stretch), theory))
            .collect();
        let mut all = Findings::default();
        for f in found {
            all.merge(f);
        }
        all
    }

    /// Checks the positions of ranks `ranks` of a stored tier.
    fn stretch(
        &self,
        tier: TierId,
        solved: &crate::store::StoredTier,
        ranks: std::ops::Range<usize>,
        theory: bool,
    ) -> Findings {
        let mut f = Findings::default();
        let mut first = Vec::new();
        self.table.unrank_into(tier, ranks.start as u64, &mut first);
        let mut walk = crate::index::TierWalk::starting_at(first, self.table.max_part());
        let g = self.g;
        // What the theory and the quotient need of the heaps, folded over the heaps and kept
        // for each prefix: a step of the walk rewrites only a short suffix of the heaps, so
        // only that suffix is folded again.
        let uses_g = theory
            && (matches!(self.theory, Theory::SpragueGrundy | Theory::TamePrediction)
                || (solved.nim_values.is_some()
                    && self.convention == Convention::Normal
                    && self.sum_of_heaps));
        let mut folds = Folds::new(tier.heaps as usize);
        for rank in ranks {
            let heaps = walk.next().expect("walk covers the tier");
            folds.update(heaps, uses_g.then_some(g), self.quotient);
            let r = solved.remoteness[rank];
            let stored_loss = !self.convention.is_win(r as u32);
            if theory {
                let predicted_loss = match self.theory {
                    Theory::Bouton => Some(normal_nim_loss(heaps)),
                    Theory::MisereNim => Some(misere_nim_loss(heaps)),
                    // `position_nim_value(g, heaps) == 0`.
                    Theory::SpragueGrundy => Some(folds.nim_value() == 0),
                    // The misère-Nim rule on the heaps' nim-values (`tame_misere_loss`).
                    Theory::TamePrediction => {
                        Some(misere_nim_rule(folds.nim_value(), folds.value_above_one()))
                    }
                    Theory::Moore { k } => Some(moore_loss(heaps, k, self.convention)),
                    Theory::Wythoff => wythoff_loss(heaps, self.convention),
                    Theory::Family { .. } | Theory::None => None,
                };
                match predicted_loss {
                    None => f.no_theorem += 1,
                    Some(predicted_loss) => {
                        f.checked += 1;
                        if predicted_loss == stored_loss {
                            f.agree += 1;
                        } else {
                            f.mismatches += 1;
                            keep_smallest(&mut f.first_mismatches, heaps);
                        }
                    }
                }
                // Stored normal nim-values, against the XOR of the heaps' (misère ones are
                // checked in order by the caller; a game not a sum of heaps has no value to
                // compare with).
                if let Some(stored_values) = &solved.nim_values
                    && self.convention == Convention::Normal
                    && self.sum_of_heaps
                {
                    let stored_value = stored_values[rank] as u32;
                    f.nim_values_checked += 1;
                    if folds.nim_value() != stored_value || (stored_value == 0) != stored_loss {
                        f.nim_value_mismatches += 1;
                        keep_smallest(&mut f.first_nim_value_mismatches, heaps);
                    }
                }
            }
            if self.quotient.is_some() {
                f.quotient_checked += 1;
                // Every heap lies in the quotient's range (it covers the universe's largest
                // heap); a position it does not cover is not counted against it.
                if folds.quotient_loss().unwrap_or(stored_loss) != stored_loss {
                    f.quotient_mismatches += 1;
                    keep_smallest(&mut f.quotient_first, heaps);
                }
            }
        }
        f
    }
}

/// Folds over a position's heaps, kept for each prefix of the heaps (entry `i` covers the
/// first `i` heaps) along a walk of one tier, so that a step that rewrites heaps `i..` folds
/// only those again.
struct Folds<'a> {
    /// The heaps last folded.
    heaps: Vec<u32>,
    /// Whether `heaps` holds a position yet.
    started: bool,
    /// The XOR of the heaps' nim-values.
    nim_value: Vec<u32>,
    /// Whether some heap has a nim-value ≥ 2.
    above_one: Vec<bool>,
    /// The quotient element of the heaps ([`NOT_COVERED`] once a heap is past it).
    element: Vec<u32>,
    quotient: Option<&'a QuotientImages<'a>>,
}

/// A quotient element that stands for "some heap is past what the quotient covers".
const NOT_COVERED: u32 = u32::MAX;

impl<'a> Folds<'a> {
    fn new(heaps: usize) -> Self {
        Folds {
            heaps: vec![0; heaps],
            started: false,
            nim_value: vec![0; heaps + 1],
            above_one: vec![false; heaps + 1],
            element: vec![0; heaps + 1],
            quotient: None,
        }
    }

    /// Folds `heaps` (a position of the tier, after the one folded last): from the first
    /// heap that differs, with the heaps' nim-values `g` and the quotient's images where given.
    #[inline]
    fn update(&mut self, heaps: &[u32], g: Option<&[u32]>, quotient: Option<&'a QuotientImages<'a>>) {
        let from =
            if self.started { heaps.iter().zip(&self.heaps).take_while(|(a, b)| a == b).count() } else { 0 };
        self.started = true;
        self.quotient = quotient;
        for (i, &h) in heaps.iter().enumerate().skip(from) {
            self.heaps[i] = h;
            if let Some(g) = g {
                let v = g[h as usize];
                self.nim_value[i + 1] = self.nim_value[i] ^ v;
                self.above_one[i + 1] = self.above_one[i] || v >= 2;
            }
            if let Some(q) = quotient {
                let before = self.element[i];
                self.element[i + 1] = match q.images.get(h as usize).copied().flatten() {
                    _ if before == NOT_COVERED => NOT_COVERED,
                    // An empty heap is the identity (no tier's walk gives one).
                    _ if h == 0 => before,
                    Some(image) => q.monoid.mul(before, image),
                    None => NOT_COVERED,
                };
            }
        }
    }

    /// The XOR of the heaps' nim-values.
    fn nim_value(&self) -> u32 {
        self.nim_value[self.heaps.len()]
    }

    /// Whether some heap's nim-value is ≥ 2.
    fn value_above_one(&self) -> bool {
        self.above_one[self.heaps.len()]
    }

    /// Whether the quotient makes the position a P-position; `None` when it does not cover
    /// one of its heaps (as `Quotient::is_p`, whose element is this product of the heaps'
    /// images: the monoid is commutative).
    fn quotient_loss(&self) -> Option<bool> {
        let q = self.quotient?;
        let element = self.element[self.heaps.len()];
        (element != NOT_COVERED).then(|| q.monoid.is_p(element))
    }
}

/// `min(amount, length)` distinct numbers of `0..length` drawn uniformly at random, in
/// increasing order. A small sample of a large range is drawn by Floyd's algorithm (memory
/// in proportion to the sample); a large one by selection sampling (Knuth's algorithm S: one
/// pass over the range, constant memory).
fn sample_indices(rng: &mut StdRng, length: u64, amount: u64) -> Box<dyn Iterator<Item = u64> + '_> {
    let amount = amount.min(length);
    if amount == length {
        return Box::new(0..length);
    }
    if amount <= FLOYD_MAX && amount.saturating_mul(4) < length {
        let mut chosen = std::collections::HashSet::with_capacity(amount as usize);
        for j in length - amount..length {
            let t = rng.random_range(0..=j);
            if !chosen.insert(t) {
                chosen.insert(j);
            }
        }
        let mut sorted: Vec<u64> = chosen.into_iter().collect();
        sorted.sort_unstable();
        return Box::new(sorted.into_iter());
    }
    let mut needed = amount;
    Box::new((0..length).filter(move |&i| {
        // Take `i` with probability needed / (positions left).
        let take = needed > 0 && rng.random_range(0..length - i) < needed;
        needed -= u64::from(take);
        take
    }))
}

/// The largest sample drawn by Floyd's algorithm (a set of this many numbers).
const FLOYD_MAX: u64 = 1 << 20;

/// Keeps at most a few hundred candidates, so the smallest can be listed at the end.
fn keep_smallest(list: &mut Vec<Vec<u64>>, heaps: &[u32]) {
    if list.len() < 20 * LISTED {
        list.push(heaps.iter().map(|&h| u64::from(h)).collect());
    }
}

/// [`keep_smallest`] of a position already kept by a stretch checked before it is merged.
fn keep_listed(list: &mut Vec<Vec<u64>>, position: Vec<u64>) {
    if list.len() < 20 * LISTED {
        list.push(position);
    }
}

fn check_children(
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    solve: &SolveRecord,
    sample: u64,
    rng: &mut StdRng,
    report: &mut VerifyReport,
) -> Result<(), VerifyError> {
    let universe = solve.target_universe();
    let stored: Vec<_> = db.stored_tiers(solve.id)?.into_iter().filter(|t| universe.has_tier(*t)).collect();
    if stored.is_empty() {
        return Ok(());
    }
    let table: PartitionTable = universe.table()?;
    let mut prober = Prober::new(db, solve.clone(), universe.max_total)?;
    let mut heaps = Vec::new();
    // Positions are numbered across the stored tiers in order; the sample is drawn without
    // replacement and is at most every position.
    let sizes: Vec<u64> = stored.iter().map(|&t| table.size(t)).collect();
    let total: u64 = sizes.iter().sum();
    let (mut tier_index, mut tier_start) = (0usize, 0u64);
    for index in sample_indices(rng, total, sample) {
        while index >= tier_start + sizes[tier_index] {
            tier_start += sizes[tier_index];
            tier_index += 1;
        }
        let (tier, rank) = (stored[tier_index], index - tier_start);
        table.unrank_into(tier, rank, &mut heaps);
        let position = Position::from_sorted(heaps.clone());
        let problem = match recompute(&mut prober, game, convention, &position) {
            Ok(None) => None,
            Ok(Some(p)) => Some(p),
            Err(e) => Some(e.to_string()),
        };
        report.sampled += 1;
        if let Some(p) = problem {
            report.problem(p);
        }
    }
    Ok(())
}

/// Recomputes a position's remoteness from its children's stored values; a description of
/// the disagreement, if any.
fn recompute(
    prober: &mut Prober<'_>,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> Result<Option<String>, StoreError> {
    let Some(record) = prober.record(position)? else {
        return Ok(Some(format!("{position} is missing from its stored tier")));
    };
    let mut fastest_win = None::<u32>;
    let mut longest = None::<u32>;
    // The children through the family trait, as every face walks them.
    let mut children = Vec::new();
    crate::game::Family::for_each_child(game, position.heaps(), &mut Vec::new(), &mut |c| {
        children.push(Position::from_sorted(c.to_vec()))
    });
    for child in children {
        let Some(c) = prober.record(&child)? else {
            return Ok(Some(format!("{position}: its child {child} is not stored")));
        };
        let r = c.remoteness as u32;
        if convention.is_win(r) {
            longest = Some(longest.map_or(r, |l: u32| l.max(r)));
        } else {
            fastest_win = Some(fastest_win.map_or(r, |f: u32| f.min(r)));
        }
    }
    let expected = match (fastest_win, longest) {
        (Some(f), _) => f + 1,
        (None, Some(l)) => l + 1,
        (None, None) => 0,
    };
    let stored = record.remoteness as u32;
    let terminal_ok = expected != 0 || convention.is_win(0) == convention.is_win(stored);
    Ok((stored != expected || !terminal_ok)
        .then(|| format!("{position}: stored remoteness {stored}, but its children give {expected}")))
}

/// Compares each tier of a fresh solve with the stored tier of the same solve.
struct CompareSink<'a> {
    db: &'a Database,
    solve_id: i64,
    stored: std::collections::BTreeSet<TierId>,
    universe: crate::index::Universe,
    table: &'a crate::index::PartitionTable,
    report: &'a mut VerifyReport,
}

impl TierStore for CompareSink<'_> {
    fn solved_tiers(&mut self) -> Result<std::collections::BTreeSet<TierId>, SinkError> {
        Ok(Default::default())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        Err(SinkError::new(format!("tier {tier} is recomputed, not loaded")))
    }
    fn save(&mut self, fresh: SolvedTier) -> Result<(), SinkError> {
        let tier = fresh.tier;
        if !self.stored.contains(&tier) || !self.universe.has_tier(tier) {
            return Ok(());
        }
        let stored = match self.db.load_tier(self.solve_id, tier) {
            Ok(s) => s,
            Err(e) => {
                self.report.problem(e.to_string());
                return Ok(());
            }
        };
        self.report.recomputed += fresh.remoteness.len() as u64;
        let values_differ = |rank: usize| match (&fresh.nim_values, &stored.nim_values) {
            (Some(a), Some(b)) => a[rank] != b[rank],
            _ => false,
        };
        for rank in 0..fresh.remoteness.len() {
            if stored.remoteness.get(rank) != Some(&fresh.remoteness[rank]) || values_differ(rank) {
                self.report.recomputed_mismatches += 1;
                if self.report.problems.len() >= LISTED {
                    // A distinct position each: counted without writing it out.
                    self.report.consistent = false;
                    self.report.problems_omitted += 1;
                    continue;
                }
                let p = self.table.position(tier, rank as u64);
                self.report.problem(format!(
                    "{p}: stored remoteness {}, but the rules give {} (solve #{})",
                    stored.remoteness.get(rank).map_or("none".to_string(), |r| r.to_string()),
                    fresh.remoteness[rank],
                    self.solve_id
                ));
            }
        }
        Ok(())
    }
}

/// Recomputes every stored position of `solve` from the rules and compares.
fn recompute_all(
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    solve: &SolveRecord,
    report: &mut VerifyReport,
) -> Result<(), VerifyError> {
    if solve.solved_total < 0 {
        return Ok(());
    }
    let universe = crate::index::Universe { max_total: solve.solved_total as u32, ..solve.target_universe() };
    let table = universe.table()?;
    let stored = db.stored_tiers(solve.id)?;
    let mut sink = CompareSink { db, solve_id: solve.id, stored, universe, table: &table, report };
    let options =
        SolveOptions { convention, universe, nim_values: solve.nim_values, strategy: Strategy::default() };
    solve_tiers(game, &options, &mut sink, &Silent)?;
    Ok(())
}

/// The misère quotient every stored misère outcome of `solve` is checked against: the stored
/// one when it covers the solve's heaps, else one computed for them (verify only reads).
/// Records it in the report's quotient entry; `None` (and why, in the entry) when none
/// could be had.
fn quotient_for(
    db: &Database,
    game: &GameSpec,
    solve: &SolveRecord,
    report: &mut VerifyReport,
) -> Result<Option<crate::theory::quotient::Quotient>, VerifyError> {
    let top = solve.target_universe().part_cap();
    let stored = db.load_quotient(game, None)?;
    let q = match stored {
        Some(q) if q.covers(top) => Ok(q),
        _ => {
            let code = game.octal().expect("octal");
            crate::theory::quotient::covering_quotient(code, top, 1000, Default::default())
        }
    };
    let entry = report.quotient.get_or_insert(QuotientCrossCheck {
        max_heap: 0,
        size: 0,
        proven: false,
        checked: 0,
        mismatches: 0,
        first_mismatches: Vec::new(),
        unavailable: None,
    });
    match q {
        Ok(q) => {
            (entry.max_heap, entry.size, entry.proven) = (q.max_heap, q.size(), q.proven());
            Ok(Some(q))
        }
        Err(e) => {
            entry.unavailable = Some(e.to_string());
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parallel check's stretches, merged in rank order, find what one pass over each
    /// tier finds: the same counts, and the same first positions kept (past the 200 kept, in
    /// misère Kayles to total 34, whose wild positions are more than that).
    #[test]
    fn stretches_merged_in_rank_order_find_what_one_pass_finds() {
        let mut db = Database::open_in_memory().unwrap();
        let kayles: GameSpec = "kayles".parse().unwrap();
        let universe = crate::index::Universe::new(kayles.rules(), "kayles", Some(34), None, None).unwrap();
        let (solve, _) =
            crate::driver::solve_into(&mut db, &kayles, Convention::Misere, universe, false, &Silent)
                .unwrap();
        let table = universe.table().unwrap();
        let g = nim_values(kayles.heap_rules().unwrap(), universe.part_cap());
        let q = crate::theory::quotient::covering_quotient(
            kayles.octal().unwrap(),
            universe.part_cap(),
            1000,
            Default::default(),
        )
        .unwrap();
        let images = QuotientImages {
            monoid: &q.monoid,
            images: (0..=universe.part_cap()).map(|h| q.image(h).ok()).collect(),
        };
        let check = PositionCheck {
            theory: Theory::TamePrediction,
            convention: Convention::Misere,
            g: &g,
            sum_of_heaps: true,
            quotient: Some(&images),
            table: &table,
        };
        let (mut whole, mut stretched) = (Findings::default(), Findings::default());
        for tier in universe.tiers() {
            let solved = db.load_tier(solve.id, tier).unwrap();
            let one = check.tier_by(tier, &solved, true, usize::MAX);
            for stretch in [1, 3, 64] {
                assert_eq!(
                    check.tier_by(tier, &solved, true, stretch),
                    one,
                    "{tier}, stretches of {stretch}"
                );
            }
            // Across tiers too: the first positions kept are the ones met first.
            whole.merge(check.tier_by(tier, &solved, true, usize::MAX));
            stretched.merge(check.tier_by(tier, &solved, true, 5));
        }
        assert!(whole.mismatches > 20 * LISTED as u64, "{}", whole.mismatches);
        assert_eq!(whole.first_mismatches.len(), 20 * LISTED);
        assert_eq!((whole.quotient_checked, whole.quotient_mismatches), (whole.checked, 0));
        assert_eq!(stretched, whole);
        // The folds along the walk give the plain functions' answers.
        let mut walk_check = 0u64;
        for tier in universe.tiers() {
            let solved = db.load_tier(solve.id, tier).unwrap();
            let mut walk = table.walk(tier);
            for &r in &solved.remoteness {
                let heaps = walk.next().unwrap();
                let values: Vec<u32> = heaps.iter().map(|&h| g[h as usize]).collect();
                let stored_loss = !Convention::Misere.is_win(r as u32);
                walk_check += u64::from(crate::theory::tame_misere_loss(&values) != stored_loss);
                assert_eq!(q.is_p(heaps).unwrap(), stored_loss, "{heaps:?}");
            }
        }
        assert_eq!(walk_check, whole.mismatches);
    }

    #[test]
    fn samples_are_distinct_sorted_and_capped() {
        let mut rng = StdRng::seed_from_u64(7);
        for (length, amount) in [(10, 3), (10, 9), (10, 10), (10, u64::MAX), (1000, 100), (1000, 999), (5, 0)]
        {
            let v: Vec<u64> = sample_indices(&mut rng, length, amount).collect();
            assert_eq!(v.len() as u64, amount.min(length), "{length} {amount}");
            assert!(v.windows(2).all(|w| w[0] < w[1]), "{length} {amount}: {v:?}");
            assert!(v.iter().all(|&i| i < length));
        }
        // Every index is about equally likely, by either algorithm (2 of 10 by Floyd's, 8 of
        // 10 by selection sampling).
        for amount in [2u64, 8] {
            let mut seen = [0u32; 10];
            for _ in 0..20_000 {
                for i in sample_indices(&mut rng, 10, amount) {
                    seen[i as usize] += 1;
                }
            }
            let expect = 20_000 * amount as u32 / 10;
            assert!(seen.iter().all(|&c| c.abs_diff(expect) < expect / 10), "{amount}: {seen:?}");
        }
    }
}
