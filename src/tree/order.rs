//! Move order for the tree view, short move labels, and the walker every tree room uses.
//!
//! [`TreeWalker`] is how the tree view sees any game: a position is the family's canonical
//! counts, and its children come in tree order with a short label. A family with its own
//! position space lists its moves in its own fixed order, labelled with the family's words.
//! The heap games list a position's moves heap by heap, largest heap first (the order of
//! [`MoveTable::moves`](crate::game::MoveTable::moves)), and within one heap by the number
//! of tokens taken, fewest first; results that take the same number keep the heap-rule
//! order (one heap before two, larger part first). So in take-1..3 the children of `[6]`
//! are `take 1`, `take 2`, `take 3`, as in the textbook figure. Everything that breaks ties
//! "by move order" (the principal line, alpha-beta's visiting order) means this order.

use std::collections::HashMap;

use crate::game::{Game, GameRules, HeapResult, Move, Position, Rules, heap_results, result_bound};

/// A game as the tree view walks it: the children of a position in tree order, each with
/// a short label, and the bounds measuring checks before it starts.
pub struct TreeWalker<'a> {
    game: &'a Game,
    heaps: Option<TreeMoves<'a, Rules>>,
}

impl<'a> TreeWalker<'a> {
    /// A walker of `game`.
    pub fn new(game: &'a Game) -> Self {
        TreeWalker { game, heaps: game.heaps().map(|spec| TreeMoves::new(spec.rules())) }
    }

    /// The game walked.
    pub fn game(&self) -> &'a Game {
        self.game
    }

    /// The children of `position` in tree order, each with its label (see [`move_label`]
    /// for heap games; a family's own words otherwise).
    pub fn children(&mut self, position: &[u32]) -> Vec<(String, Vec<u32>)> {
        match &mut self.heaps {
            Some(moves) => {
                let from = Position::from_sorted(position.to_vec());
                moves.moves(&from).iter().map(|m| (move_label(m, &from), m.apply(&from).into())).collect()
            }
            None => self.game.family().moves(position).into_iter().map(|m| (m.text, m.to)).collect(),
        }
    }

    /// Calls `visit` with each child of `position` in tree order, one at a time (no labels,
    /// and never all the children at once); stops at the first error `visit` returns.
    pub fn for_each_child<E>(
        &mut self,
        position: &[u32],
        visit: &mut dyn FnMut(&[u32]) -> Result<(), E>,
    ) -> Result<(), E> {
        match &mut self.heaps {
            Some(moves) => {
                let from = Position::from_sorted(position.to_vec());
                for m in moves.moves(&from) {
                    visit(m.apply(&from).heaps())?;
                }
                Ok(())
            }
            None => {
                let mut result = Ok(());
                self.game.family().for_each_child(position, &mut Vec::new(), &mut |c| {
                    if result.is_ok() {
                        result = visit(c);
                    }
                });
                result
            }
        }
    }

    /// An upper bound on the number of moves from `position`.
    pub fn move_bound(&self, position: &[u32]) -> u128 {
        match self.game.heaps() {
            Some(spec) => spec.rules().move_bound(&Position::from_sorted(position.to_vec())),
            // A staircase step of c coins, a Welter heap of a and a raise heap of h have at
            // most c, a and h + 1 moves.
            None => position.iter().map(|&c| c as u128 + 1).sum(),
        }
    }

    /// For heap games, the largest heap of `position` and an upper bound on its moves
    /// alone (for rules whose moves change several heaps, on the position's moves).
    pub fn heap_bound(&self, position: &[u32]) -> Option<(u32, u128)> {
        let spec = self.game.heaps()?;
        let largest = position.first().copied().unwrap_or(0);
        Some(match spec.rules().single_heap() {
            Some(rules) => (largest, result_bound(rules, largest)),
            None => (largest, self.move_bound(position)),
        })
    }

    /// `position` in the game's notation.
    pub fn show(&self, position: &[u32]) -> String {
        self.game.family().show(position)
    }
}

/// A move generator in tree order that computes each heap size's results once, on demand.
///
/// Unlike a [`MoveTable`](crate::game::MoveTable), it never tabulates heap sizes the search
/// does not meet, so a huge heap costs only its own results.
pub struct TreeMoves<'a, R: GameRules + ?Sized> {
    rules: &'a R,
    results: HashMap<u32, Vec<HeapResult>>,
}

impl<'a, R: GameRules + ?Sized> TreeMoves<'a, R> {
    /// A generator for `rules`, with an empty cache.
    pub fn new(rules: &'a R) -> Self {
        TreeMoves { rules, results: HashMap::new() }
    }

    /// Every move from `position`, in tree order (see the module docs).
    pub fn moves(&mut self, position: &Position) -> Vec<Move> {
        let Some(rules) = self.rules.single_heap() else {
            return self.rules.moves(position);
        };
        let mut out = Vec::new();
        let mut last = 0;
        for &heap in position.heaps() {
            if heap == last {
                continue;
            }
            last = heap;
            let results = self.results.entry(heap).or_insert_with(|| heap_results(rules, heap));
            out.extend(results.iter().map(|&result| Move::single(heap, result)));
        }
        out
    }
}

/// A short label for `mv` played from `from`, e.g. `take 1`, `take 2 from 7`,
/// `split 6 into 4+2`, `take 1 from 9, leaving 5+3`.
///
/// The heap is named only when the position has heaps of different sizes; equal heaps are
/// interchangeable, so `take 1` from `[3,3]` is unambiguous.
pub fn move_label(mv: &Move, from: &Position) -> String {
    let labels: Vec<String> = mv.changes().iter().map(|c| change_label(c.heap, c.result, from)).collect();
    labels.join(" & ")
}

fn change_label(heap: u32, result: HeapResult, from: &Position) -> String {
    let single = from.heaps().iter().all(|&h| h == heap);
    let from_heap = if single { String::new() } else { format!(" from {heap}") };
    let taken = heap - result.tokens();
    let parts: Vec<String> = result.parts().iter().map(u32::to_string).collect();
    match result.parts().len() {
        0 | 1 => format!("take {taken}{from_heap}"),
        _ if taken == 0 => format!("split {heap} into {}", parts.join("+")),
        _ => format!("take {taken}{from_heap}, leaving {}", parts.join("+")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    fn labels(game: &str, pos: &str) -> Vec<String> {
        let spec: GameSpec = game.parse().unwrap();
        let p: Position = pos.parse().unwrap();
        let mut moves_gen = TreeMoves::new(spec.rules());
        moves_gen.moves(&p).iter().map(|m| format!("{} → {}", move_label(m, &p), m.apply(&p))).collect()
    }

    #[test]
    fn bounded_takes_give_the_same_results_as_the_heap_rules() {
        for game in [
            "nim",
            "subtraction:1,2,3",
            "subtraction:2,5",
            "kayles",
            "dawson",
            "octal:4.7",
            "octal:0.4",
            "grundy",
            "lines",
            "octal:0.137",
        ] {
            let spec: GameSpec = game.parse().unwrap();
            for heap in 0..40 {
                let mut want = heap_results(spec.heap_rules().unwrap(), heap);
                want.sort_by_key(|r| heap - r.tokens());
                assert_eq!(heap_results(spec.heap_rules().unwrap(), heap), want, "{game} {heap}");
                assert!(
                    crate::game::result_bound(spec.heap_rules().unwrap(), heap) >= want.len() as u128,
                    "{game} {heap}"
                );
            }
        }
    }

    #[test]
    fn fewest_tokens_first_within_a_heap() {
        assert_eq!(labels("subtraction:1,2,3", "3"), ["take 1 → [2]", "take 2 → [1]", "take 3 → []"]);
        assert_eq!(labels("kayles", "3"), ["take 1 → [2]", "take 1, leaving 1+1 → [1,1]", "take 2 → [1]"]);
        assert_eq!(
            labels("nim", "2 1"),
            ["take 1 from 2 → [1,1]", "take 2 from 2 → [1]", "take 1 from 1 → [2]"]
        );
        assert_eq!(labels("grundy", "6"), ["split 6 into 5+1 → [5,1]", "split 6 into 4+2 → [4,2]"]);
        assert_eq!(labels("nim", "2 2"), ["take 1 → [2,1]", "take 2 → [2]"]);
    }
}
