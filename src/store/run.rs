//! Running a solve into the database.

use crate::game::{Convention, GameSpec};
use crate::index::Universe;
use crate::solve::{Progress, SolveOptions, SolveReport, Strategy, solve};

use super::open::Database;
use super::solves::{SolveKey, SolveRecord};
use super::tiers::SqliteTierStore;

impl Database {
    /// Solves `game` over `universe` into this database, resuming from (and extending) the
    /// stored solve with the same key. Returns the solve as stored afterwards and the run's
    /// figures.
    pub fn solve(
        &mut self,
        game: &GameSpec,
        convention: Convention,
        universe: Universe,
        nim_values: bool,
        progress: &dyn Progress,
    ) -> anyhow::Result<(SolveRecord, SolveReport)> {
        let key = SolveKey::new(game, convention, &universe, nim_values);
        let solve_row = self.begin_solve(&key, universe.max_total)?;
        let options = SolveOptions { convention, universe, nim_values, strategy: Strategy::default() };
        let report = {
            let mut store = SqliteTierStore::new(self, &solve_row, universe);
            solve(game, &options, &mut store, progress)?
        };
        if report.tiers_now > 0 {
            self.add_solve_time(solve_row.id, report.seconds)?;
        }
        let solve_row = self.find_solve(&key)?.expect("solve row exists");
        Ok((solve_row, report))
    }
}
