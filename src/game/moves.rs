//! Moves on whole positions, derived from the heap rules.

use std::fmt;

use super::position::Position;
use super::rules::HeapRules;

/// What one heap becomes after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HeapResult {
    /// The heap is gone.
    Vanish,
    /// One smaller heap is left.
    One(u32),
    /// Two nonempty heaps are left, the larger first.
    Two(u32, u32),
}

impl HeapResult {
    /// The tokens left by this result.
    pub fn tokens(self) -> u32 {
        match self {
            HeapResult::Vanish => 0,
            HeapResult::One(a) => a,
            HeapResult::Two(a, b) => a + b,
        }
    }
}

/// A move: one heap of size `heap` becomes `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The size of the heap moved in.
    pub heap: u32,
    /// What that heap becomes.
    pub result: HeapResult,
}

impl Move {
    /// The number of tokens this move removes.
    pub fn taken(&self) -> u32 {
        self.heap - self.result.tokens()
    }

    /// The position after playing this move from `from` (which must hold a heap `self.heap`).
    pub fn apply(&self, from: &Position) -> Position {
        let mut heaps = from.heaps().to_vec();
        let i = heaps.iter().position(|&h| h == self.heap).expect("move from a heap the position lacks");
        heaps.remove(i);
        match self.result {
            HeapResult::Vanish => {}
            HeapResult::One(a) => heaps.push(a),
            HeapResult::Two(a, b) => heaps.extend([a, b]),
        }
        Position::new(heaps)
    }

    /// The move in words, e.g. "take 2 from the 7-heap → [5,4,3]" or "take 1 from the
    /// 9-heap, leaving 3 and 5".
    pub fn describe(&self, from: &Position) -> String {
        let to = self.apply(from);
        match self.result {
            HeapResult::Vanish => format!("take all {} from the {}-heap → {to}", self.heap, self.heap),
            HeapResult::One(_) => format!("take {} from the {}-heap → {to}", self.taken(), self.heap),
            HeapResult::Two(a, b) if self.taken() == 0 => {
                format!("split the {}-heap into {b} and {a} → {to}", self.heap)
            }
            HeapResult::Two(a, b) => {
                format!("take {} from the {}-heap, leaving {b} and {a} → {to}", self.taken(), self.heap)
            }
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.result {
            HeapResult::Vanish => write!(f, "{} -> 0", self.heap),
            HeapResult::One(a) => write!(f, "{} -> {a}", self.heap),
            HeapResult::Two(a, b) => write!(f, "{} -> {b} {a}", self.heap),
        }
    }
}

/// Every heap's possible results, listed once per heap size up to a bound.
#[derive(Clone, Debug)]
pub struct MoveTable {
    results: Vec<Vec<HeapResult>>,
}

/// The results a heap of size `heap` may become, in a fixed order: fewest tokens taken
/// first; for the same number taken, one heap before two, and two heaps by larger part
/// descending; taking the whole heap comes last. This order breaks ties between equally
/// good moves everywhere in nimdb.
pub fn heap_results<R: HeapRules + ?Sized>(rules: &R, heap: u32) -> Vec<HeapResult> {
    let mut out = Vec::new();
    let most = rules.max_take().map_or(heap, |m| m.min(heap));
    for taken in 0..=most {
        let left = heap - taken;
        if left == 0 {
            if taken > 0 && rules.vanishes(heap) {
                out.push(HeapResult::Vanish);
            }
            continue;
        }
        if taken > 0 && rules.leaves_one(heap, left) {
            out.push(HeapResult::One(left));
        }
        if rules.splits_taking(taken) {
            for b in 1..=left / 2 {
                let a = left - b;
                if rules.leaves_two(heap, a, b) {
                    out.push(HeapResult::Two(a, b));
                }
            }
        }
    }
    out
}

/// An upper bound on the number of results of a heap of size `heap` (so on the moves of any
/// heap no larger), computed without enumerating them.
pub fn result_bound<R: HeapRules + ?Sized>(rules: &R, heap: u32) -> u128 {
    let h = heap as u128;
    let k = rules.max_take().map_or(h, |k| (k as u128).min(h));
    let mut bound = k + 1;
    if rules.splits() {
        // At most left/2 ways to split `left` tokens, for each of the k + 1 amounts taken.
        bound += (k + 1) * (h / 2);
    }
    bound
}

impl MoveTable {
    /// The results of every heap size `0..=max_heap`.
    pub fn new<R: HeapRules + ?Sized>(rules: &R, max_heap: u32) -> Self {
        MoveTable { results: (0..=max_heap).map(|h| heap_results(rules, h)).collect() }
    }

    /// The largest heap size covered.
    pub fn max_heap(&self) -> u32 {
        self.results.len() as u32 - 1
    }

    /// The results of a heap of size `heap` (≤ [`max_heap`](Self::max_heap)).
    #[inline]
    pub fn results(&self, heap: u32) -> &[HeapResult] {
        &self.results[heap as usize]
    }

    /// Every move from `position`, one per distinct heap size and result, in a fixed order
    /// (heaps largest first, then the order of [`heap_results`]).
    pub fn moves(&self, position: &Position) -> Vec<Move> {
        let mut out = Vec::new();
        let mut last = 0;
        for &h in position.heaps() {
            if h == last {
                continue;
            }
            last = h;
            out.extend(self.results(h).iter().map(|&result| Move { heap: h, result }));
        }
        out
    }
}

/// Every move from `position` under `rules`, without a precomputed table (only the
/// position's own heap sizes are expanded), in the order of [`MoveTable::moves`].
pub fn all_moves<R: HeapRules + ?Sized>(rules: &R, position: &Position) -> Vec<Move> {
    let mut out = Vec::new();
    let mut last = 0;
    for &h in position.heaps() {
        if h != last {
            last = h;
            out.extend(heap_results(rules, h).into_iter().map(|result| Move { heap: h, result }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    fn children(game: &str, pos: &str) -> Vec<String> {
        let spec: GameSpec = game.parse().unwrap();
        let p: Position = pos.parse().unwrap();
        all_moves(spec.rules(), &p).iter().map(|m| m.apply(&p).to_string()).collect()
    }

    #[test]
    fn line_game_children_of_seed_002() {
        let mut c = children("lines", "3 1");
        c.sort();
        assert_eq!(c, ["[1,1,1]", "[1,1]", "[1]", "[2,1]", "[3]"]);
    }

    #[test]
    fn grundy_splits_unequal() {
        assert_eq!(children("grundy", "6"), ["[5,1]", "[4,2]"]);
        assert_eq!(children("nim", "3"), ["[2]", "[1]", "[]"]);
        assert!(children("grundy", "2 1").is_empty());
    }

    #[test]
    fn describes_moves_in_words() {
        let p: Position = "7 4 3".parse().unwrap();
        let m = Move { heap: 7, result: HeapResult::One(5) };
        assert_eq!(m.describe(&p), "take 2 from the 7-heap → [5,4,3]");
        let p: Position = "9".parse().unwrap();
        let m = Move { heap: 9, result: HeapResult::Two(5, 3) };
        assert_eq!(m.describe(&p), "take 1 from the 9-heap, leaving 3 and 5 → [5,3]");
    }
}
