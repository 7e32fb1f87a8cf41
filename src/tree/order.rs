//! Move order for the tree view, and short move labels.
//!
//! The tree lists a position's moves heap by heap, largest heap first (the order of
//! [`MoveTable::moves`](crate::game::MoveTable::moves)), and within one heap by the number
//! of tokens taken, fewest first; results that take the same number keep the heap-rule
//! order (one heap before two, larger part first). So in take-1..3 the children of `[6]`
//! are `take 1`, `take 2`, `take 3`, as in the textbook figure. Everything that breaks ties
//! "by move order" (the principal line, alpha-beta's visiting order) means this order.

use std::collections::HashMap;

use crate::game::{GameRules, HeapResult, Move, Position, heap_results};

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
