//! Moves on whole positions: which heaps a move changes and what each becomes.

use std::fmt;

use super::position::Position;
use super::rules::HeapRules;

/// What one heap becomes in a move: nothing, or one, two or three nonempty heaps (the
/// larger first). A single-heap game replaces one heap by a `HeapResult`; a game whose
/// moves change several heaps gives one per heap changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeapResult {
    /// How many heaps are left (0 to 3).
    len: u8,
    /// The heaps left, largest first, padded with zeros.
    parts: [u32; 3],
}

impl HeapResult {
    /// The heap is gone.
    pub const VANISH: HeapResult = HeapResult { len: 0, parts: [0; 3] };

    /// One smaller heap is left.
    pub fn one(a: u32) -> Self {
        debug_assert!(a >= 1);
        HeapResult { len: 1, parts: [a, 0, 0] }
    }

    /// Two nonempty heaps are left, `a ≥ b`.
    pub fn two(a: u32, b: u32) -> Self {
        debug_assert!(a >= b && b >= 1);
        HeapResult { len: 2, parts: [a, b, 0] }
    }

    /// Three nonempty heaps are left, `a ≥ b ≥ c`.
    pub fn three(a: u32, b: u32, c: u32) -> Self {
        debug_assert!(a >= b && b >= c && c >= 1);
        HeapResult { len: 3, parts: [a, b, c] }
    }

    /// The result that leaves these heaps (any order; zeros dropped). `None` for more than
    /// three heaps.
    pub fn from_parts(parts: &[u32]) -> Option<Self> {
        let mut p: Vec<u32> = parts.iter().copied().filter(|&h| h > 0).collect();
        p.sort_unstable_by(|a, b| b.cmp(a));
        Some(match p[..] {
            [] => Self::VANISH,
            [a] => Self::one(a),
            [a, b] => Self::two(a, b),
            [a, b, c] => Self::three(a, b, c),
            _ => return None,
        })
    }

    /// The heaps left, largest first (empty when the heap vanishes).
    #[inline]
    pub fn parts(&self) -> &[u32] {
        &self.parts[..self.len as usize]
    }

    /// The tokens left by this result.
    pub fn tokens(self) -> u32 {
        self.parts.iter().sum()
    }

    /// Whether the heap is gone.
    pub fn vanishes(self) -> bool {
        self.len == 0
    }
}

/// One heap's part in a move: the heap of size `heap` becomes `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeapChange {
    /// The size of the heap moved in.
    pub heap: u32,
    /// What that heap becomes.
    pub result: HeapResult,
}

impl HeapChange {
    /// Tokens this change removes.
    pub fn taken(&self) -> u32 {
        self.heap - self.result.tokens()
    }
}

/// A move: one or more heaps change at once (one for heap games such as Nim or Kayles,
/// up to `K` for Moore's Nim_K, up to two for Wythoff's game). Changes are listed larger
/// heap first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    changes: Vec<HeapChange>,
}

impl Move {
    /// The move that changes one heap of size `heap` into `result`.
    pub fn single(heap: u32, result: HeapResult) -> Self {
        Move { changes: vec![HeapChange { heap, result }] }
    }

    /// The move made of these changes (at least one), listed larger heap first.
    pub fn of(mut changes: Vec<HeapChange>) -> Self {
        debug_assert!(!changes.is_empty());
        changes.sort_unstable_by(|a, b| b.cmp(a));
        Move { changes }
    }

    /// The heaps changed and what each becomes, larger heap first.
    pub fn changes(&self) -> &[HeapChange] {
        &self.changes
    }

    /// The change, for a move that changes exactly one heap.
    pub fn single_change(&self) -> Option<HeapChange> {
        match self.changes[..] {
            [c] => Some(c),
            _ => None,
        }
    }

    /// The largest heap moved in.
    pub fn heap(&self) -> u32 {
        self.changes[0].heap
    }

    /// The number of tokens this move removes.
    pub fn taken(&self) -> u32 {
        self.changes.iter().map(HeapChange::taken).sum()
    }

    /// The position after playing this move from `from` (which must hold the heaps it
    /// changes).
    pub fn apply(&self, from: &Position) -> Position {
        let mut heaps = from.heaps().to_vec();
        for c in &self.changes {
            let i = heaps.iter().position(|&h| h == c.heap).expect("move from a heap the position lacks");
            heaps.swap_remove(i);
        }
        for c in &self.changes {
            heaps.extend_from_slice(c.result.parts());
        }
        Position::new(heaps)
    }

    /// Whether `from` holds every heap this move changes.
    pub fn applies_to(&self, from: &Position) -> bool {
        let mut heaps = from.heaps().to_vec();
        self.changes.iter().all(|c| match heaps.iter().position(|&h| h == c.heap) {
            Some(i) => {
                heaps.swap_remove(i);
                true
            }
            None => false,
        })
    }

    /// The move in words, e.g. "take 2 from the 7-heap → \[5,4,3\]", "take 1 from the
    /// 9-heap, leaving 3 and 5", or "take 2 from the 7-heap and 2 from the 5-heap".
    pub fn describe(&self, from: &Position) -> String {
        format!("{} → {}", self.words(), self.apply(from))
    }

    /// The move in words without the position it leads to, e.g. "take 2 from the 7-heap":
    /// the text of a heap game's moves as a [`Family`](super::Family) lists them.
    pub fn words(&self) -> String {
        let parts: Vec<String> = self.changes.iter().map(describe_change).collect();
        join_and(&parts)
    }
}

fn describe_change(c: &HeapChange) -> String {
    let parts: Vec<u64> = c.result.parts().iter().map(|&p| p as u64).collect();
    describe_parts(c.heap as u64, c.taken() as u64, &parts)
}

/// One heap's change in words: the heap of size `heap` loses `taken` tokens and leaves
/// `parts` (largest first), e.g. "take 1 from the 9-heap, leaving 3 and 5".
pub(crate) fn describe_parts(h: u64, taken: u64, parts: &[u64]) -> String {
    match *parts {
        [] => format!("take all {h} from the {h}-heap"),
        [_] => format!("take {taken} from the {h}-heap"),
        [a, b] if taken == 0 => format!("split the {h}-heap into {b} and {a}"),
        [a, b] => format!("take {taken} from the {h}-heap, leaving {b} and {a}"),
        [a, b, c3] if taken == 0 => format!("split the {h}-heap into {c3}, {b} and {a}"),
        [a, b, c3] => format!("take {taken} from the {h}-heap, leaving {c3}, {b} and {a}"),
        _ => unreachable!("a heap becomes at most three"),
    }
}

/// Parts of a description joined with commas and a final "and".
pub(crate) fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl fmt::Display for HeapChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ->", self.heap)?;
        match self.result.parts() {
            [] => write!(f, " 0"),
            parts => parts.iter().rev().try_for_each(|p| write!(f, " {p}")),
        }
    }
}

impl fmt::Display for Move {
    /// `7 -> 5` for one heap, `9 -> 3 5` for a split, `7 -> 5, 5 -> 3` for several heaps.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.changes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Every heap's possible results, listed once per heap size up to a bound.
#[derive(Clone, Debug)]
pub struct MoveTable {
    results: Vec<Vec<HeapResult>>,
}

/// The results a heap of size `heap` may become, in a fixed order: fewest tokens taken
/// first; for the same number taken, one heap before two before three, and split heaps by
/// larger part descending; taking the whole heap comes last. This order breaks ties between
/// equally good moves everywhere in nimdb.
pub fn heap_results<R: HeapRules + ?Sized>(rules: &R, heap: u32) -> Vec<HeapResult> {
    let mut out = Vec::new();
    let most = rules.max_take().map_or(heap, |m| m.min(heap));
    for taken in 0..=most {
        let left = heap - taken;
        if left == 0 {
            if taken > 0 && rules.vanishes(heap) {
                out.push(HeapResult::VANISH);
            }
            continue;
        }
        if taken > 0 && rules.leaves_one(heap, left) {
            out.push(HeapResult::one(left));
        }
        if rules.splits_taking(taken) {
            for b in 1..=left / 2 {
                let a = left - b;
                if rules.leaves_two(heap, a, b) {
                    out.push(HeapResult::two(a, b));
                }
            }
        }
        if rules.splits_three_taking(taken) {
            for_each_three(left, |a, b, c| {
                if rules.leaves_three(heap, a, b, c) {
                    out.push(HeapResult::three(a, b, c));
                }
            });
        }
    }
    out
}

/// Calls `visit(a, b, c)` for every way to write `left` as `a + b + c`, `a ≥ b ≥ c ≥ 1`,
/// larger first part first, then larger second part first.
#[inline]
pub fn for_each_three(left: u32, mut visit: impl FnMut(u32, u32, u32)) {
    if left < 3 {
        return;
    }
    for a in (left.div_ceil(3)..=left - 2).rev() {
        let rest = left - a;
        // b ≥ c ≥ 1, b ≤ a, b + c = rest.
        let top = a.min(rest - 1);
        let bottom = rest.div_ceil(2);
        if bottom > top {
            continue;
        }
        for b in (bottom..=top).rev() {
            visit(a, b, rest - b);
        }
    }
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
    if rules.splits_three() {
        // At most left²/12 + 1 ways to split `left` tokens into three.
        bound += (k + 1) * (h * h / 12 + 1);
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
            out.extend(self.results(h).iter().map(|&result| Move::single(h, result)));
        }
        out
    }
}

/// Every move from `position` under heap rules `rules`, without a precomputed table (only
/// the position's own heap sizes are expanded), in the order of [`MoveTable::moves`].
pub fn heap_moves<R: HeapRules + ?Sized>(rules: &R, position: &Position) -> Vec<Move> {
    let mut out = Vec::new();
    let mut last = 0;
    for &h in position.heaps() {
        if h != last {
            last = h;
            out.extend(heap_results(rules, h).into_iter().map(|result| Move::single(h, result)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameSpec, all_moves};

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
        let m = Move::single(7, HeapResult::one(5));
        assert_eq!(m.describe(&p), "take 2 from the 7-heap → [5,4,3]");
        let p: Position = "9".parse().unwrap();
        let m = Move::single(9, HeapResult::two(5, 3));
        assert_eq!(m.describe(&p), "take 1 from the 9-heap, leaving 3 and 5 → [5,3]");
        let p: Position = "7 5".parse().unwrap();
        let m = Move::of(vec![
            HeapChange { heap: 5, result: HeapResult::one(3) },
            HeapChange { heap: 7, result: HeapResult::one(5) },
        ]);
        assert_eq!(m.describe(&p), "take 2 from the 7-heap and take 2 from the 5-heap → [5,3]");
        assert_eq!(m.to_string(), "7 -> 5, 5 -> 3");
        let m = Move::single(9, HeapResult::three(4, 3, 2));
        assert_eq!(m.to_string(), "9 -> 2 3 4");
    }

    #[test]
    fn threes_are_every_partition_into_three() {
        for left in 0..30u32 {
            let mut n = 0;
            let mut last = (u32::MAX, u32::MAX);
            for_each_three(left, |a, b, c| {
                assert!(a >= b && b >= c && c >= 1 && a + b + c == left);
                assert!((a, b) < last);
                last = (a, b);
                n += 1;
            });
            // p(n, 3 parts) = round(n² / 12).
            assert_eq!(n, ((left * left + 6) / 12) as usize, "{left}");
        }
    }
}
