//! The reference: a forward search (memoized minimax) from one position.
//!
//! It shares nothing with the tier solver but the rules: no ranking, no tiers, no
//! un-moves. Tests compare the retrograde solver and the sweep against it on every position.

use std::collections::HashMap;

use crate::game::{Convention, GameRules, Position};

/// Outcome and remoteness by forward search, memoized over positions.
pub struct ReferenceSearch<'a, R: GameRules + ?Sized> {
    rules: &'a R,
    convention: Convention,
    memo: HashMap<Position, (bool, u32)>,
}

impl<'a, R: GameRules + ?Sized> ReferenceSearch<'a, R> {
    /// A search under `rules` and `convention`.
    pub fn new(rules: &'a R, convention: Convention) -> Self {
        ReferenceSearch { rules, convention, memo: HashMap::new() }
    }

    /// (win for the player to move, remoteness) of `position`.
    pub fn solve(&mut self, position: &Position) -> (bool, u32) {
        if let Some(&v) = self.memo.get(position) {
            return v;
        }
        let children: Vec<Position> = self.rules.moves(position).iter().map(|m| m.apply(position)).collect();
        let value = if children.is_empty() {
            (self.convention == Convention::Misere, 0)
        } else {
            let results: Vec<(bool, u32)> = children.iter().map(|c| self.solve(c)).collect();
            match results.iter().filter(|(win, _)| !win).map(|&(_, r)| r).min() {
                Some(fastest) => (true, fastest + 1),
                None => (false, results.iter().map(|&(_, r)| r).max().unwrap() + 1),
            }
        };
        self.memo.insert(position.clone(), value);
        value
    }

    /// The nim-value of `position` by mex over its children (misère: terminals are 1).
    pub fn nim_value(&mut self, position: &Position, memo: &mut HashMap<Position, u32>) -> u32 {
        if let Some(&v) = memo.get(position) {
            return v;
        }
        let children: Vec<Position> = self.rules.moves(position).iter().map(|m| m.apply(position)).collect();
        let v = if children.is_empty() {
            u32::from(self.convention == Convention::Misere)
        } else {
            let mut seen: Vec<u32> = children.iter().map(|c| self.nim_value(c, memo)).collect();
            nimdb_core::mex::mex(&mut seen)
        };
        memo.insert(position.clone(), v);
        v
    }
}
