//! The forward reference search: memoized minimax over positions.
//!
//! In an impartial game both players have the same moves, so minimax reduces to negamax on
//! one bit: a position is a win for the player to move iff some move leads to a loss for the
//! player then to move. Terminal positions are decided by the convention (normal play: the
//! player to move has lost; misère: has won). The search is iterative (an explicit stack),
//! so deep positions such as one heap of 100 000 in a subtraction game cannot overflow the
//! call stack, and it stops expanding a position at its first known losing child.

use std::collections::HashMap;

use super::order::TreeMoves;
use crate::game::{Convention, GameRules, Position};

/// A memoized minimax search that keeps its memo across queries, so checking many positions
/// of one game costs each reachable position once.
pub struct MinimaxSearch<'a, R: GameRules + ?Sized> {
    convention: Convention,
    moves: TreeMoves<'a, R>,
    memo: HashMap<Position, bool>,
}

impl<'a, R: GameRules + ?Sized> MinimaxSearch<'a, R> {
    /// A search for `rules` under `convention`, with an empty memo.
    pub fn new(rules: &'a R, convention: Convention) -> Self {
        MinimaxSearch { convention, moves: TreeMoves::new(rules), memo: HashMap::new() }
    }

    /// Whether `position` is a win (an N-position) for the player to move.
    pub fn is_win(&mut self, position: &Position) -> bool {
        if let Some(&win) = self.memo.get(position) {
            return win;
        }
        // (position, children pushed?) — a position is finished once all its children are.
        let mut stack = vec![(position.clone(), false)];
        while let Some((p, expanded)) = stack.pop() {
            if self.memo.contains_key(&p) {
                continue;
            }
            let children: Vec<Position> = self.moves.moves(&p).iter().map(|m| m.apply(&p)).collect();
            if children.is_empty() {
                self.memo.insert(p, self.convention.terminal_is_win());
                continue;
            }
            if children.iter().any(|c| self.memo.get(c) == Some(&false)) {
                self.memo.insert(p, true);
                continue;
            }
            if expanded {
                // Every child is known and none is a loss.
                self.memo.insert(p, false);
                continue;
            }
            let unknown: Vec<Position> =
                children.into_iter().filter(|c| !self.memo.contains_key(c)).collect();
            stack.push((p, true));
            stack.extend(unknown.into_iter().map(|c| (c, false)));
        }
        self.memo[position]
    }
}

/// Whether `position` is a win for the player to move under `rules` and `convention`,
/// by memoized minimax (a fresh memo per call; use [`MinimaxSearch`] to share one).
///
/// This is the forward reference search the retrograde solver is checked against.
pub fn minimax_value(rules: &(impl GameRules + ?Sized), convention: Convention, position: &Position) -> bool {
    MinimaxSearch::new(rules, convention).is_win(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    fn bouton(p: &Position) -> bool {
        !crate::theory::normal_nim_loss(p.heaps())
    }

    fn misere_bouton(p: &Position) -> bool {
        !crate::theory::misere_nim_loss(p.heaps())
    }

    #[test]
    fn agrees_with_bouton_normal_and_misere() {
        let nim = GameSpec::nim();
        let mut normal = MinimaxSearch::new(nim.rules(), Convention::Normal);
        let mut misere = MinimaxSearch::new(nim.rules(), Convention::Misere);
        for a in 0..=6 {
            for b in 0..=a {
                for c in 0..=b {
                    for d in 0..=c {
                        let p = Position::new(vec![a, b, c, d]);
                        assert_eq!(normal.is_win(&p), bouton(&p), "normal {p}");
                        assert_eq!(misere.is_win(&p), misere_bouton(&p), "misère {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn take_one_to_three_has_period_four() {
        let spec: GameSpec = "subtraction:1,2,3".parse().unwrap();
        for n in 0..40 {
            let p = Position::new(vec![n]);
            assert_eq!(minimax_value(spec.rules(), Convention::Normal, &p), n % 4 != 0, "normal {n}");
            assert_eq!(minimax_value(spec.rules(), Convention::Misere, &p), n % 4 != 1, "misère {n}");
        }
    }

    #[test]
    fn deep_chains_do_not_overflow_the_stack() {
        let spec: GameSpec = "subtraction:1".parse().unwrap();
        let p = Position::new(vec![300_000]);
        assert!(!minimax_value(spec.rules(), Convention::Normal, &p));
        assert!(minimax_value(spec.rules(), Convention::Misere, &p));
    }
}
