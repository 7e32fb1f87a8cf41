//! Single-heap nim-value sequences g(0..=N), computed from each heap's own moves.
//!
//! g(n) is the mex (least non-negative integer not among) the values of the options of a
//! heap of size n: a move that removes the heap counts 0, one that leaves one heap `a` counts
//! g(a), and one that leaves two heaps `a, b` counts g(a) ⊕ g(b) (Sprague–Grundy).
//!
//! Two ways to compute the same sequence:
//! * [`mex_values`]: the reference (and the method for hexadecimal codes, whose heaps may
//!   split in three: g(a) ⊕ g(b) ⊕ g(c)). Works for any [`HeapRules`] through its yes/no
//!   predicates alone; O(n²) per heap for splitting games with unbounded removals, O(k·n)
//!   with removals bounded by `k`. Fine up to a few thousand.
//! * [`nim_values`]: the fast path for every rule family nimdb knows, through the move
//!   [`HeapShape`] and the rare/common ("sparse space") method of [`sparse`](super::sparse).
//!   Kayles and Dawson's Kayles reach n = 1,000,000 in well under a second.

use crate::game::{HeapFamily, HeapRules, for_each_three};

use super::mex::StampSet;
use super::shape::HeapShape;
use super::sparse::{EngineStats, MethodChoice, SplitMethod, compute_with};

/// The reference nim-value sequence g(0..=up_to), by a plain mex over every move of every
/// heap, using only the [`HeapRules`] predicates.
///
/// Removals are bounded by [`HeapRules::max_take`] when the rules give a bound.
pub fn mex_values<R: HeapRules + ?Sized>(rules: &R, up_to: u32) -> Vec<u32> {
    let mut g = vec![0u32; up_to as usize + 1];
    let mut seen = StampSet::new();
    let splits = rules.splits();
    for n in 1..=up_to {
        seen.clear();
        if rules.vanishes(n) {
            seen.insert(0);
        }
        let max_take = rules.max_take().map_or(n, |k| k.min(n));
        for k in 0..=max_take {
            let rest = n - k;
            if k >= 1 && rest >= 1 && rules.leaves_one(n, rest) {
                seen.insert(g[rest as usize]);
            }
            if splits {
                for b in 1..=rest / 2 {
                    let a = rest - b;
                    if rules.leaves_two(n, a, b) {
                        seen.insert(g[a as usize] ^ g[b as usize]);
                    }
                }
            }
            if rules.splits_three_taking(k) {
                for_each_three(rest, |a, b, c| {
                    if rules.leaves_three(n, a, b, c) {
                        seen.insert(g[a as usize] ^ g[b as usize] ^ g[c as usize]);
                    }
                });
            }
        }
        g[n as usize] = seen.mex();
    }
    g
}

/// How a sequence was computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceInfo {
    /// The method used for the splitting moves.
    pub method: SplitMethod,
    /// Work counters (heaps computed, rare heaps, pair scans).
    pub stats: EngineStats,
}

/// The nim-value sequence g(0..=up_to) of any game nimdb knows, by the fastest method that
/// applies (see [`sparse`](super::sparse)).
pub fn nim_values(rules: &HeapFamily, up_to: u32) -> Vec<u32> {
    nim_values_with_info(rules, up_to, &[]).0
}

/// Like [`nim_values`], continuing from a known prefix `known = g(0..=m)` (for instance one
/// read back from the database), and reporting how the values were computed. A `known` prefix
/// longer than needed is truncated.
pub fn nim_values_with_info(rules: &HeapFamily, up_to: u32, known: &[u32]) -> (Vec<u32>, SequenceInfo) {
    let shape = HeapShape::of(rules);
    if shape.three_way {
        // Hexadecimal codes: the plain mex over every move, three-way splits included.
        return (
            mex_values(rules, up_to),
            SequenceInfo { method: SplitMethod::Plain, stats: EngineStats::default() },
        );
    }
    let (values, method, stats) = compute_with(&shape, up_to, known, MethodChoice::Auto);
    (values, SequenceInfo { method, stats })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    fn spec(s: &str) -> GameSpec {
        s.parse().unwrap()
    }

    #[test]
    fn reference_kayles_and_grundy() {
        let k = mex_values(spec("kayles").heap_rules().unwrap(), 16);
        assert_eq!(k, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1]);
        let g = mex_values(spec("grundy").heap_rules().unwrap(), 10);
        assert_eq!(g, [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0]);
        let nim = mex_values(spec("nim").heap_rules().unwrap(), 30);
        assert!(nim.iter().enumerate().all(|(n, &v)| v == n as u32));
    }

    #[test]
    fn fast_matches_reference_on_small_games() {
        for game in
            ["kayles", "dawson", "nim", "lines", "grundy", "octal:0.137", "octal:4.7", "subtraction:1,2,3"]
        {
            let s = spec(game);
            assert_eq!(
                nim_values(s.heap_rules().unwrap(), 300),
                mex_values(s.heap_rules().unwrap(), 300),
                "{game}"
            );
        }
    }
}
