//! `solve`, `query` and `verify` for the families that own their position space
//! (staircase, welter, raise:C): the same commands, through `nimdb::spaced`.

use std::path::Path;
use std::process::ExitCode;

use nimdb::driver::solve_spaced_into;
use nimdb::game::Outcome;
use nimdb::game::{Convention, Game};
use nimdb::index::SpaceBounds;
use nimdb::resources::{Bytes, MemoryBudget};
use nimdb::solve::family::estimate_family;
use nimdb::spaced::{
    BoundsError, SpacedAnswer, SpacedPlan, SpacedReport, answer_after_solving, moves_bound, plan_spaced,
    space_bounds, space_of, verify_spaced,
};
use nimdb::store::Database;

use super::progress::SolveBar;
use super::words;

/// A position of `game` to show in an example: counts each family takes (a raise:C heap
/// is at most C).
pub fn example(game: &Game) -> String {
    match game {
        Game::Raise(r) => format!("{} 1", r.cap),
        Game::Staircase(_) | Game::Welter(_) => "3 0 2 5".to_string(),
        Game::Heaps(_) => "7 5 3".to_string(),
    }
}

/// What `nimdb solve` was given, for a spaced game.
pub struct SolveRequest<'a> {
    pub game: &'a Game,
    pub convention: Convention,
    pub max_total: Option<u32>,
    pub max_heap: Option<u32>,
    pub max_heaps: Option<u32>,
    pub nim_values: bool,
    pub dry_run: bool,
    pub quiet: bool,
    pub memory_limit: Option<u64>,
    pub db: &'a Path,
}

/// The bounds `nimdb solve` was given, checked against the family's rules.
fn bounds(r: &SolveRequest<'_>) -> anyhow::Result<SpaceBounds> {
    if r.nim_values {
        anyhow::bail!(
            "--nim-values is not available for {}: its solve stores outcome and remoteness",
            r.game
        );
    }
    space_bounds(r.game, r.max_total, r.max_heap, r.max_heaps).map_err(|e| {
        let flag = match e {
            BoundsError::NeedsHeaps(_) => " (--max-heaps K)",
            BoundsError::TotalNotAllowed { .. } => " (leave out --max-total)",
            BoundsError::NeedsTotal(_) => " (--max-total N)",
            BoundsError::HeapCap(_) => " (--max-total and --max-heaps, not --max-heap)",
            BoundsError::TooLarge(_) => " (--max-total, --max-heaps)",
        };
        anyhow::anyhow!("{e}{flag}")
    })
}

/// `nimdb solve` of a spaced game.
pub fn solve(r: SolveRequest<'_>) -> anyhow::Result<ExitCode> {
    let bounds = bounds(&r)?;
    let space = space_of(r.game, bounds).map_err(words::spaced)?;
    let family = r.game.family();
    let estimate = estimate_family(space.as_ref(), family.loopy(), moves_bound(bounds));
    let budget = MemoryBudget::given(r.memory_limit).map_err(super::words::memory_limit)?;
    let misere = if r.convention == Convention::Misere { " --misere" } else { "" };
    if r.dry_run {
        println!("game:        {}{misere}", r.game);
        println!("space:       tier total ≤ {}, heaps ≤ {}", bounds.max_total, bounds.max_heaps);
        println!("tiers:       {}", estimate.tiers);
        println!("positions:   {}", estimate.positions);
        println!(
            "memory:      ~{} (every tier{})",
            super::cost::mb(estimate.memory_bytes),
            if family.loopy() { ", and the whole game graph: a loopy game is solved whole" } else { "" }
        );
        println!("disk:        ~{}", super::cost::mb(estimate.disk_bytes));
        match super::cost::plan(&estimate, &budget, "this solve", r.db) {
            Ok(_) => println!("budget:      {} ({}): fits", Bytes(budget.bytes), budget.source),
            Err(e) => println!("budget:      {e}"),
        }
        println!("dry run: nothing written");
        return Ok(ExitCode::SUCCESS);
    }
    super::cost::plan(&estimate, &budget, "this solve", r.db)?;
    let mut db = Database::open(r.db).map_err(words::store)?;
    let bar = SolveBar::new(!r.quiet);
    super::interrupt::install();
    let result = solve_spaced_into(&mut db, r.game, r.convention, space.as_ref(), &bar);
    bar.finish();
    let stopped = super::interrupt::stopped_solve(&result, db.path(), r.game.family().loopy());
    if let Some(code) = stopped {
        return Ok(code);
    }
    let (solve, report) = result.map_err(words::driver)?;
    if !r.quiet {
        println!(
            "solved {}{misere}: {} positions (tier total ≤ {}, heaps ≤ {}), {} solved now in {:.2} s; solve #{} {:?}",
            r.game,
            report.positions,
            bounds.max_total,
            bounds.max_heaps,
            report.solved_now,
            report.seconds,
            solve.id,
            solve.status
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `nimdb query` of a spaced game.
pub fn query(
    game: &Game,
    convention: Convention,
    heaps: &[String],
    db_path: &Path,
    json: bool,
    all_moves: bool,
) -> anyhow::Result<ExitCode> {
    let position = game.parse_position(heaps).map_err(|e| anyhow::anyhow!("bad position: {e}"))?;
    let reader = Database::open_for_reading(db_path).map_err(words::store)?;
    let answer = match plan_spaced(reader.as_ref(), game, convention, &position).map_err(words::spaced)? {
        SpacedPlan::Answered(a) => *a,
        SpacedPlan::Solve(bounds) => {
            drop(reader);
            let mut db = Database::open(db_path).map_err(words::store)?;
            answer_after_solving(&mut db, game, convention, &position, bounds).map_err(words::spaced)?
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print!("{}", render(game, &answer, all_moves));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(game: &Game, a: &SpacedAnswer, all_moves: bool) -> String {
    let family = game.family();
    let conv = if a.convention == Convention::Misere { ", misère" } else { "" };
    let outcome = match a.outcome {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Draw => "draw",
    };
    let mut out =
        format!("{} ({}{conv}): {outcome} for the player to move", family.show(&a.position), a.game);
    match (a.outcome, a.remoteness) {
        (Outcome::Draw, _) => out += " (neither player can force a win)",
        (_, Some(r)) => out += &format!(", remoteness {r}"),
        (_, None) => out += ", remoteness unknown",
    }
    if let Some(g) = a.nim_value {
        out += &format!(", nim-value {g}");
    }
    out += "\n";
    match &a.best_move {
        // From a win or a draw a best move exists; past the theorem's search it is not named.
        None if a.outcome != Outcome::Loss && a.moves_omitted > 0 => {
            out += &format!(
                "best move: not searched for (the position has up to {} moves, more than the theorem's search examines)\n",
                a.moves_omitted
            )
        }
        None if a.moves.is_empty() && a.moves_omitted == 0 => out += "no moves: the game is over\n",
        None => out += "every move loses against perfect play\n",
        Some(m) => {
            let why = match (a.outcome, a.remoteness.is_some()) {
                (Outcome::Win, true) => "wins fastest",
                (Outcome::Win, false) => "wins",
                (Outcome::Loss, _) => "loses slowest",
                (Outcome::Draw, _) => "keeps the draw",
            };
            out += &format!("best move ({why}): {} → {}\n", m.description, family.show(&m.to));
        }
    }
    if all_moves && a.moves_omitted > 0 {
        // Left out by the work allowed (then the count is the family's bound on them), or
        // by the listing limit (then it is their number).
        let cost = family.formula(Convention::Normal).map_or(a.position.len() as u64 + 1, |f| {
            nimdb::theory::families::evaluation_cost(f, &a.position)
        });
        if !nimdb::game::moves_fit(family, &a.position, cost) {
            out += &format!(
                "moves (up to {}): not listed, too much work to list (each a position of {} counts)\n",
                a.moves_omitted,
                a.position.len()
            );
        } else {
            out += &format!(
                "moves ({}): not listed, more than {}\n",
                a.moves_omitted,
                nimdb::spaced::THEORY_LISTING_LIMIT
            );
        }
    } else if all_moves {
        out += &format!("moves ({}):\n", a.moves.len());
        for m in &a.moves {
            let r = m.remoteness.map_or("".to_string(), |r| format!(" in {r}"));
            let o = match m.outcome {
                Outcome::Win => "wins",
                Outcome::Loss => "loses",
                Outcome::Draw => "draws",
            };
            out += &format!("  {:<44} opponent {o}{r}\n", m.description);
        }
    }
    let source = match a.source {
        nimdb::query::Source::Database => "database".to_string(),
        nimdb::query::Source::Solved => "solved now and stored".to_string(),
        _ => format!("theory ({})", theorem_name(a)),
    };
    out += &format!("source: {source}\n");
    out
}

fn theorem_name(a: &SpacedAnswer) -> &'static str {
    a.theorem.map_or("none", nimdb::game::Formula::name)
}

/// `nimdb verify` of a spaced game.
pub fn verify(game: &Game, convention: Convention, db_path: &Path, json: bool) -> anyhow::Result<ExitCode> {
    let db = Database::open_for_reading(db_path)
        .map_err(words::store)?
        .ok_or_else(|| words::store(nimdb::store::StoreError::Missing(db_path.to_path_buf())))?;
    let report = verify_spaced(&db, game, convention).map_err(words::spaced)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render_report(&report, convention));
    }
    Ok(if report.failed() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn render_report(r: &SpacedReport, convention: Convention) -> String {
    let ids: Vec<String> = r.solves.iter().map(|i| format!("#{i}")).collect();
    let mut out = format!("verify {} ({convention}), solve {}\n", r.game, ids.join(", "));
    out += &format!(
        "checked {} positions: {} follow from their children's records, {} do not; {} draws\n",
        r.checked, r.consistent, r.inconsistent, r.draws
    );
    match r.theorem {
        Some(_) => out += &format!("theorem: {} of {} agree\n", r.theorem_agree, r.theorem_checked),
        None => out += "theorem: none known for this game and convention; self-consistency only\n",
    }
    if !r.first_failures.is_empty() {
        out += &format!("first failures: {}\n", r.first_failures.join(" "));
    }
    out
}
