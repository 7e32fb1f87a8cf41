//! Wythoff's pairs for Wythoff's game on two heaps.
//!
//! Normal play (W. A. Wythoff, "A modification of the game of Nim", Nieuw Archief voor
//! Wiskunde 7 (1907)): the losses for the player to move are the pairs
//! `(⌊nφ⌋, ⌊nφ²⌋) = (a_n, a_n + n)`, n ≥ 0, in either order, φ the golden ratio.
//!
//! Misère play: the losses are the normal-play pairs for n ≥ 2 together with `(0, 1)` and
//! `(2, 2)`, in either order: only the two smallest pairs change (`(0, 0)` and `(1, 2)`
//! become wins). The argument: `(0, 1)` has only the move to `(0, 0)`, where the opponent
//! cannot move and so wins; `(2, 2)` moves only to `(1, 2)`, `(0, 2)` and `(1, 1)`, which
//! each move to `(0, 1)`, and to `(0, 0)`, a win for the player to move; from there on the
//! pairs are built by the same recursion as under normal play. nimdb's tests check the statement on every
//! two-heap position up to heap 1000 against the retrograde database, under both
//! conventions.
//!
//! Positions of three or more heaps have no known rule.

use crate::game::Convention;

/// ⌊n·φ⌋ exactly, in integers: φ = (1 + √5)/2, so ⌊nφ⌋ = ⌊(n + √(5n²))/2⌋.
pub fn lower_wythoff(n: u64) -> u64 {
    let n = n as u128;
    let r = isqrt(5 * n * n);
    ((n + r) / 2) as u64
}

fn isqrt(x: u128) -> u128 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u128;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// Whether `(a, b)` (any order) is a normal-play Wythoff pair.
pub fn is_wythoff_pair(a: u64, b: u64) -> bool {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    lower_wythoff(b - a) == a
}

/// Whether the position of at most two heaps `heaps` is a loss for the player to move, or
/// `None` for three or more heaps (no theorem).
pub fn wythoff_loss(heaps: &[u32], convention: Convention) -> Option<bool> {
    let (a, b) = match *heaps {
        [] => (0, 0),
        [a] => (a as u64, 0),
        [a, b] => (a as u64, b as u64),
        _ => return None,
    };
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    Some(match convention {
        Convention::Normal => is_wythoff_pair(a, b),
        Convention::Misere => match (a, b) {
            (0, 1) | (2, 2) => true,
            (0, 0) | (1, 2) => false,
            _ => is_wythoff_pair(a, b),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_pairs() {
        // OEIS A000201 (lower Wythoff) and the pairs (0,0), (1,2), (3,5), (4,7), (6,10).
        let lower: Vec<u64> = (1..=12).map(lower_wythoff).collect();
        assert_eq!(lower, [1, 3, 4, 6, 8, 9, 11, 12, 14, 16, 17, 19]);
        for (a, b) in [(0, 0), (1, 2), (3, 5), (4, 7), (6, 10), (8, 13), (9, 15)] {
            assert!(is_wythoff_pair(a, b) && is_wythoff_pair(b, a));
        }
        assert!(!is_wythoff_pair(2, 3));
        assert_eq!(wythoff_loss(&[3, 2, 1], Convention::Normal), None);
        assert_eq!(wythoff_loss(&[2, 2], Convention::Misere), Some(true));
        assert_eq!(wythoff_loss(&[1], Convention::Misere), Some(true));
        assert_eq!(wythoff_loss(&[2, 1], Convention::Misere), Some(false));
        // Large n: exact integer square roots.
        assert_eq!(lower_wythoff(1_000_000_000), 1_618_033_988);
    }
}
