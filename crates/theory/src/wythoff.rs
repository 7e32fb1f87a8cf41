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

use super::Lowering;

/// x² as a 256-bit number (high, low halves), for x < 2¹²⁰.
fn square_wide(x: u128) -> (u128, u128) {
    debug_assert!(x < 1 << 120);
    const LOW: u128 = (1 << 64) - 1;
    let (a, b) = (x >> 64, x & LOW);
    let mid = 2 * a * b;
    let (low, carry) = (b * b).overflowing_add((mid & LOW) << 64);
    (a * a + (mid >> 64) + u128::from(carry), low)
}

/// 5n² as a 256-bit number (high, low halves).
fn five_squared(n: u64) -> (u128, u128) {
    let sq = n as u128 * n as u128;
    let (low, carry) = (sq << 2).overflowing_add(sq);
    ((sq >> 126) + u128::from(carry), low)
}

/// ⌊n·√5⌋ = ⌊√(5n²)⌋ exactly, for any n ≥ 0.
fn floor_root5(n: u64) -> u128 {
    let target = five_squared(n);
    // A float estimate is within a few thousand; a binary search over exact squares fixes it.
    let guess = (n as f64 * 5f64.sqrt()) as u128;
    let (mut lo, mut hi) = (guess.saturating_sub(1 << 14), guess + (1 << 14));
    debug_assert!(square_wide(lo) <= target && square_wide(hi) > target);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if square_wide(mid) <= target { lo = mid } else { hi = mid }
    }
    lo
}

/// ⌊n·φ⌋ exactly, in integers: φ = (1 + √5)/2, so ⌊nφ⌋ = ⌊(n + √(5n²))/2⌋. Any n ≥ 0
/// (the result may exceed `u64::MAX`).
pub fn lower_wythoff(n: u64) -> u128 {
    (n as u128 + floor_root5(n)) / 2
}

/// Whether `(a, b)` (any order) is a normal-play Wythoff pair.
pub fn is_wythoff_pair(a: u64, b: u64) -> bool {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    lower_wythoff(b - a) == a as u128
}

/// The heap that completes `y` to a normal-play Wythoff pair: every y ≥ 1 is exactly one of
/// a lower number a_n = ⌊nφ⌋ (partner a_n + n) or an upper one b_m = a_m + m (partner a_m),
/// and 0 pairs with 0. With n = ⌊y/φ⌋ + 1 = ⌊(⌊y√5⌋ − y)/2⌋ + 1, y is lower iff a_n = y;
/// otherwise it is the (y − n + 1)-th upper number.
pub fn wythoff_partner(y: u64) -> u128 {
    if y == 0 {
        return 0;
    }
    let n = ((floor_root5(y) - y as u128) / 2 + 1) as u64;
    if lower_wythoff(n) == y as u128 { y as u128 + n as u128 } else { (y - (y - n + 1)) as u128 }
}

/// The heap completing `y` to a losing pair under `convention`: the normal-play partner,
/// except that misère play pairs 0 with 1 and 2 with itself.
fn partner(y: u64, convention: Convention) -> u128 {
    match (convention, y) {
        (Convention::Misere, 0) => 1,
        (Convention::Misere, 1) => 0,
        (Convention::Misere, 2) => 2,
        _ => wythoff_partner(y),
    }
}

/// The losing pair (smaller, larger) whose heaps differ by `d`: (a_d, a_d + d), and under
/// misère play (2, 2) for d = 0 and (0, 1) for d = 1.
fn pair_with_difference(d: u64, convention: Convention) -> (u128, u128) {
    match (convention, d) {
        (Convention::Misere, 0) => (2, 2),
        (Convention::Misere, 1) => (0, 1),
        _ => {
            let a = lower_wythoff(d);
            (a, a + d as u128)
        }
    }
}

/// Whether the position of at most two heaps `heaps` is a loss for the player to move, or
/// `None` for three or more heaps (no theorem).
pub fn wythoff_loss(heaps: &[u32], convention: Convention) -> Option<bool> {
    loss(heaps, convention)
}

/// [`wythoff_loss`] for heaps of any size (u64).
pub fn wythoff_loss_u64(heaps: &[u64], convention: Convention) -> Option<bool> {
    loss(heaps, convention)
}

fn loss<H: Copy + Into<u64>>(heaps: &[H], convention: Convention) -> Option<bool> {
    let (a, b) = match *heaps {
        [] => (0, 0),
        [a] => (a.into(), 0),
        [a, b] => (a.into(), b.into()),
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

/// The first winning move in nimdb's move order from a position of at most two heaps
/// (`heaps` largest first), straight from Wythoff's pairs: `None` from a loss, from the
/// empty position, or for three or more heaps. A winning move ends on a losing pair, and
/// each heap has one partner, so there are at most three: lower the larger heap to the
/// smaller one's partner, lower the smaller heap to the larger one's partner, or take the
/// same from both to reach the pair with the same difference. Move order takes them in
/// that order (one-heap moves first, larger heap first).
pub fn wythoff_move(heaps: &[u64], convention: Convention) -> Option<Vec<Lowering>> {
    if heaps.is_empty() || loss(heaps, convention)? {
        return None;
    }
    let x = heaps[0];
    let y = heaps.get(1).copied().unwrap_or(0);
    let p = partner(y, convention);
    if p < x as u128 {
        return Some(vec![Lowering::of(heaps, 0, p as u64)]);
    }
    if y > 0 {
        let p = partner(x, convention);
        if p < y as u128 {
            return Some(vec![Lowering::of(heaps, 1, p as u64)]);
        }
        let (a, b) = pair_with_difference(x - y, convention);
        if a < y as u128 {
            return Some(vec![Lowering::of(heaps, 0, b as u64), Lowering::of(heaps, 1, a as u64)]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_pairs() {
        // OEIS A000201 (lower Wythoff) and the pairs (0,0), (1,2), (3,5), (4,7), (6,10).
        let lower: Vec<u128> = (1..=12).map(lower_wythoff).collect();
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
        // ⌊(2⁶⁴ − 1)·φ⌋, with φ to 60 digits.
        assert_eq!(lower_wythoff(u64::MAX), 29_847_458_893_032_750_100);
    }

    /// The pairs by their definition: a_n is the least number not yet in a pair, b_n = a_n + n.
    fn pairs_up_to(top: usize) -> Vec<u64> {
        let mut partner = vec![u64::MAX; top + 1];
        let mut n = 0u64;
        for a in 0..=top {
            if partner[a] != u64::MAX {
                continue;
            }
            let b = a + n as usize;
            partner[a] = b as u64;
            if b <= top {
                partner[b] = a as u64;
            }
            n += 1;
        }
        partner
    }

    #[test]
    fn partners_match_the_definition() {
        let want = pairs_up_to(200_000);
        for (y, &p) in want.iter().enumerate() {
            assert_eq!(wythoff_partner(y as u64), p as u128, "{y}");
        }
        // Every exact root near the top of u64: (⌊y√5⌋)² ≤ 5y² < (⌊y√5⌋ + 1)².
        for y in [u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1, 12_345_678_901_234_567_890] {
            let r = floor_root5(y);
            assert!(square_wide(r) <= five_squared(y) && square_wide(r + 1) > five_squared(y), "{y}");
            let p = wythoff_partner(y);
            if p <= u64::MAX as u128 {
                assert!(is_wythoff_pair(y, p as u64), "{y} {p}");
            }
        }
    }

    #[test]
    fn moves_reach_losing_pairs_and_are_the_first_in_move_order() {
        for convention in [Convention::Normal, Convention::Misere] {
            for x in 0..60u64 {
                for y in 0..=x {
                    let heaps: Vec<u64> = [x, y].into_iter().filter(|&h| h > 0).collect();
                    let loss = wythoff_loss_u64(&heaps, convention).unwrap();
                    // The first winning move in move order, by listing every move.
                    let mut listed: Vec<Vec<u64>> = Vec::new();
                    for to in (0..x).rev() {
                        listed.push(vec![to, y]);
                    }
                    if y > 0 && y != x {
                        for to in (0..y).rev() {
                            listed.push(vec![x, to]);
                        }
                    }
                    if y > 0 {
                        for t in 1..=y {
                            listed.push(vec![x - t, y - t]);
                        }
                    }
                    let first = listed.into_iter().find(|c| {
                        let c: Vec<u64> = c.iter().copied().filter(|&h| h > 0).collect();
                        wythoff_loss_u64(&c, convention).unwrap()
                    });
                    match wythoff_move(&heaps, convention) {
                        None => assert!(loss || heaps.is_empty(), "{convention} {heaps:?}"),
                        Some(m) => {
                            let after = crate::lowering::lowered(&heaps, &m);
                            let mut want = first.clone().expect("a win has a winning move");
                            want.truncate(heaps.len());
                            assert_eq!(after, want, "{convention} {heaps:?}");
                        }
                    }
                }
            }
        }
        // Huge heaps.
        for convention in [Convention::Normal, Convention::Misere] {
            for heaps in [[u64::MAX, 3], [u64::MAX, u64::MAX - 7], [1 << 62, 1 << 61]] {
                if let Some(m) = wythoff_move(&heaps, convention) {
                    let after: Vec<u64> = crate::lowering::lowered(&heaps, &m);
                    assert_eq!(wythoff_loss_u64(&after, convention), Some(true), "{heaps:?}");
                }
            }
        }
    }
}
