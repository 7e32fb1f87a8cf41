//! `solve`, `query` and `verify` for the families that own their position space
//! (staircase, welter, raise:C): the same commands, through `nimdb::space`.

use std::path::Path;
use std::process::ExitCode;

use nimdb::driver::solve_space_into;
use nimdb::game::{Convention, Game};
use nimdb::index::SpaceBounds;
use nimdb::resources::{Bytes, MemoryBudget};
use nimdb::solve::family::estimate_family;
use nimdb::space::{BoundsError, moves_bound, space_bounds, space_of};
use nimdb::store::Database;

use super::progress::SolveBar;
use super::words;

/// What `nimdb solve` was given, for a family.
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

/// `nimdb solve` of a family.
pub fn solve(r: SolveRequest<'_>) -> anyhow::Result<ExitCode> {
    let bounds = bounds(&r)?;
    let space = space_of(r.game, bounds).map_err(words::space)?;
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
    let result = solve_space_into(&mut db, r.game, r.convention, space.as_ref(), &bar);
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
