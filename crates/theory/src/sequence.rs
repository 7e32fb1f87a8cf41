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
use super::sparse::{EngineStats, MethodChoice, SplitMethod, compute_until};
use super::stop::{Stop, Stopped};

/// The reference nim-value sequence g(0..=up_to), by a plain mex over every move of every
/// heap, using only the [`HeapRules`] predicates.
///
/// Removals are bounded by [`HeapRules::max_take`] when the rules give a bound.
pub fn mex_values<R: HeapRules + ?Sized>(rules: &R, up_to: u32) -> Vec<u32> {
    match mex_values_until(rules, up_to, &[], &Stop::never()) {
        Ok(g) => g,
        Err(stopped) => unreachable!("a computation nobody can stop stopped: {stopped}"),
    }
}

/// [`mex_values`], continuing from `known = g(0..len)` (truncated if longer than needed),
/// and stopping when `stop` is set: it is looked at once per removal size, so a heap of
/// thousands whose three-way splits cost a second is left within a millisecond or so. A
/// stop gives back the values finished before it ([`Stopped::values`]).
pub fn mex_values_until<R: HeapRules + ?Sized>(
    rules: &R,
    up_to: u32,
    known: &[u32],
    stop: &Stop,
) -> Result<Vec<u32>, Stopped> {
    let mut g = Vec::with_capacity(up_to as usize + 1);
    g.extend_from_slice(&known[..known.len().min(up_to as usize + 1)]);
    if g.is_empty() {
        g.push(0);
    }
    let mut seen = StampSet::new();
    let splits = rules.splits();
    for n in g.len() as u32..=up_to {
        seen.clear();
        if rules.vanishes(n) {
            seen.insert(0);
        }
        let max_take = rules.max_take().map_or(n, |k| k.min(n));
        for k in 0..=max_take {
            if stop.is_stopped() {
                return Err(Stopped { values: g });
            }
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
        g.push(seen.mex());
    }
    Ok(g)
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
    match nim_values_until(rules, up_to, known, &Stop::never()) {
        Ok(done) => done,
        Err(stopped) => unreachable!("a computation nobody can stop stopped: {stopped}"),
    }
}

/// [`nim_values_with_info`], stopping when `stop` is set. The plain mex of hexadecimal codes
/// (heaps split three ways: about n⁴ to reach heap n, minutes within the limits) looks at
/// `stop` within every heap ([`mex_values_until`]); the other engines (seconds within the
/// limits) every [`STOP_EVERY`](super::stop::STOP_EVERY) heaps
/// ([`compute_until`]). A stop gives back the values finished.
pub fn nim_values_until(
    rules: &HeapFamily,
    up_to: u32,
    known: &[u32],
    stop: &Stop,
) -> Result<(Vec<u32>, SequenceInfo), Stopped> {
    let shape = HeapShape::of(rules);
    if shape.three_way {
        // Hexadecimal codes: the plain mex over every move, three-way splits included.
        let g = mex_values_until(rules, up_to, known, stop)?;
        return Ok((g, SequenceInfo { method: SplitMethod::Plain, stats: EngineStats::default() }));
    }
    if stop.is_stopped() {
        return Err(Stopped { values: known.to_vec() });
    }
    let (values, method, stats) = compute_until(&shape, up_to, known, MethodChoice::Auto, stop)?;
    Ok((values, SequenceInfo { method, stats }))
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
    fn the_plain_mex_continues_from_known_values_and_gives_them_back_when_stopped() {
        let rules = spec("hex:0.[F]");
        let rules = rules.heap_rules().unwrap();
        let whole = mex_values(rules, 60);
        assert_eq!(mex_values_until(rules, 60, &whole[..25], &Stop::never()).unwrap(), whole);
        assert_eq!(mex_values_until(rules, 40, &whole, &Stop::never()).unwrap(), whole[..=40]);
        let stop = Stop::new();
        stop.stop();
        let stopped = mex_values_until(rules, 60, &whole[..25], &stop).unwrap_err();
        assert_eq!(stopped.values, whole[..25], "a stop keeps exactly the values finished");
        let stopped = nim_values_until(rules, 60, &[], &stop).unwrap_err();
        assert_eq!(stopped.values, [0]);
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
