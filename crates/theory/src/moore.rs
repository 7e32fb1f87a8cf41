//! Moore's theorem for Nim_k (E. H. Moore, "A generalization of the game called Nim",
//! Annals of Mathematics 11 (1910)).
//!
//! Write every heap in binary and add up each column (without carrying). Under normal
//! play a position is a loss for the player to move iff every column sum is divisible by
//! `k + 1`. Under misère play the same holds, except when every heap is at most 1: then a
//! position is a loss iff the number of heaps is ≡ 1 (mod `k + 1`). Nim_1 is Nim, and the
//! rule is Bouton's.

use crate::game::Convention;

use super::Lowering;

/// How many of `heaps` have each binary digit set: `counts[j]` for the digit 2^j.
fn column_counts<H: Copy + Into<u64>>(heaps: &[H]) -> [u64; 64] {
    let mut counts = [0u64; 64];
    for &h in heaps {
        let mut h: u64 = h.into();
        while h != 0 {
            let j = h.trailing_zeros() as usize;
            counts[j] += 1;
            h &= h - 1;
        }
    }
    counts
}

/// Whether every binary column sum of `heaps` is divisible by `k + 1`.
pub fn columns_divisible(heaps: &[u32], k: u32) -> bool {
    divisible(heaps, k)
}

fn divisible<H: Copy + Into<u64>>(heaps: &[H], k: u32) -> bool {
    let m = k as u64 + 1;
    column_counts(heaps).iter().all(|c| c.is_multiple_of(m))
}

/// Whether `heaps` is a loss for the player to move in Nim_k under `convention` (Moore's
/// theorem).
pub fn moore_loss(heaps: &[u32], k: u32, convention: Convention) -> bool {
    loss(heaps, k, convention)
}

/// [`moore_loss`] for heaps of any size (u64).
pub fn moore_loss_u64(heaps: &[u64], k: u32, convention: Convention) -> bool {
    loss(heaps, k, convention)
}

fn loss<H: Copy + Into<u64>>(heaps: &[H], k: u32, convention: Convention) -> bool {
    if convention == Convention::Misere && heaps.iter().all(|&h| h.into() <= 1) {
        let ones = heaps.iter().filter(|&&h| h.into() == 1).count() as u64;
        return ones % (k as u64 + 1) == 1;
    }
    divisible(heaps, k)
}

/// A winning move in Nim_k straight from Moore's theorem, for heaps of any size (u64), or
/// `None` from a loss (or from the empty position, a misère win with no move). No move is
/// listed: the work is 64 column passes over the heaps.
///
/// * A move that lowers one heap is preferred when one wins: lowering heap i wins exactly
///   when every column of the other heaps sums to 0 or k (mod k + 1), and then its new
///   binary digits are fixed; the first such heap in the order given (nimdb gives heaps
///   largest first, so this is the first one-heap winning move in move order).
/// * Otherwise Moore's construction, digit by digit from the top: a heap already lowered at
///   a higher digit may take any lower digits (it is free); at digit j, with r the column
///   sum of the untouched heaps mod k + 1, set that digit in as many free heaps as make the
///   column ≡ 0 (as many as possible, so that fewest tokens go), and if there are too few
///   free heaps, clear the digit in r untouched heaps that have it (largest first), which
///   lowers them and frees them. That happens only while the free heaps number at most
///   k − r, so at most k heaps change.
/// * Misère play is the same while some heap above 1 remains; when the move would leave
///   only heaps ≤ 1 (so at most k heaps exceeded 1, all lowered), lower the big heaps to 0
///   or 1 and take whole 1-heaps (fewest first) to leave a count ≡ 1 (mod k + 1) of 1-heaps.
pub fn moore_move(heaps: &[u64], k: u32, convention: Convention) -> Option<Vec<Lowering>> {
    if loss(heaps, k, convention) {
        return None;
    }
    let m = k as u64 + 1;
    let misere = convention == Convention::Misere;
    if misere && heaps.iter().all(|&h| h <= 1) {
        // An endgame of 1-heaps: take t of them, 1 ≤ t ≤ k, to leave a count ≡ 1.
        let ones: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] == 1).collect();
        let t = ((ones.len() as u64 % m) + m - 1) % m;
        if ones.is_empty() || t == 0 {
            return None;
        }
        return Some(ones[..t as usize].iter().map(|&i| Lowering::of(heaps, i, 0)).collect());
    }
    let counts = column_counts(heaps);
    let big = heaps.iter().filter(|&&h| h >= 2).count();
    if let Some(one) = one_heap_move(heaps, &counts, m, |from, to| {
        !misere || big - usize::from(from >= 2) + usize::from(to >= 2) > 0
    }) {
        return Some(vec![one]);
    }
    let built = construct(heaps, m);
    let leaves_big = || {
        let changed: Vec<usize> = built.iter().map(|l| l.index).collect();
        built.iter().any(|l| l.to >= 2) || (0..heaps.len()).any(|i| heaps[i] >= 2 && !changed.contains(&i))
    };
    if !misere || leaves_big() {
        return Some(built);
    }
    misere_endgame(heaps, k)
}

/// The first heap whose lowering alone makes every column ≡ 0 (mod m) and that `allowed`
/// accepts (given the old and the new size).
fn one_heap_move(
    heaps: &[u64],
    counts: &[u64; 64],
    m: u64,
    allowed: impl Fn(u64, u64) -> bool,
) -> Option<Lowering> {
    'heaps: for (i, &h) in heaps.iter().enumerate() {
        if i > 0 && heaps[i - 1] == h {
            continue;
        }
        let mut to = 0u64;
        for (j, &c) in counts.iter().enumerate() {
            let others = c - (h >> j & 1);
            match others % m {
                0 => {}
                r if r == m - 1 => to |= 1 << j,
                _ => continue 'heaps,
            }
        }
        if to < h && allowed(h, to) {
            return Some(Lowering::of(heaps, i, to));
        }
    }
    None
}

/// Moore's construction (see [`moore_move`]): at most m − 1 heaps lowered so that every
/// column sum is ≡ 0 (mod m). The position must not already be so.
fn construct(heaps: &[u64], m: u64) -> Vec<Lowering> {
    let mut changed = vec![false; heaps.len()];
    // Heaps lowered so far, with their new sizes (the digits decided so far).
    let mut lowered: Vec<(usize, u64)> = Vec::new();
    for j in (0..64).rev() {
        let bit = 1u64 << j;
        let untouched = (0..heaps.len()).filter(|&i| !changed[i] && heaps[i] & bit != 0);
        let r = untouched.clone().count() as u64 % m;
        let free = lowered.len() as u64;
        let need = (m - r) % m;
        if need <= free {
            // Set the digit in `need` free heaps, plus whole multiples of m while they last.
            let ones = need + (free - need) / m * m;
            for (_, to) in lowered.iter_mut().take(ones as usize) {
                *to |= bit;
            }
        } else {
            // Too few free heaps: clear the digit in r untouched heaps (largest first).
            let keep_above = if j == 63 { 0 } else { !((bit << 1) - 1) };
            let fresh: Vec<usize> = untouched.take(r as usize).collect();
            for i in fresh {
                changed[i] = true;
                lowered.push((i, heaps[i] & keep_above));
            }
        }
    }
    debug_assert!(lowered.len() < m as usize);
    lowered.sort_unstable();
    lowered.into_iter().map(|(i, to)| Lowering::of(heaps, i, to)).collect()
}

/// Misère play when Moore's normal-play move would leave only heaps ≤ 1: lower every heap
/// above 1 (there are at most k) to 0 or 1 and take whole 1-heaps, fewest first, so that the
/// 1-heaps left number ≡ 1 (mod k + 1); among those, the most heaps lowered to 1.
fn misere_endgame(heaps: &[u64], k: u32) -> Option<Vec<Lowering>> {
    let m = k as u64 + 1;
    let big: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] >= 2).collect();
    let ones: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] == 1).collect();
    let room = (k as usize).checked_sub(big.len())?;
    for w in 0..=room.min(ones.len()) {
        for z in (0..=big.len()).rev() {
            if (ones.len() - w + z) as u64 % m == 1 {
                let mut out: Vec<Lowering> = big
                    .iter()
                    .enumerate()
                    .map(|(n, &i)| Lowering::of(heaps, i, u64::from(n < z)))
                    .chain(ones[..w].iter().map(|&i| Lowering::of(heaps, i, 0)))
                    .collect();
                out.sort_unstable_by_key(|l| l.index);
                return Some(out);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bouton::{misere_nim_loss, normal_nim_loss};

    #[test]
    fn nim_1_is_bouton() {
        for a in 0..12u32 {
            for b in 0..12 {
                for c in 0..6 {
                    let h = [a, b, c];
                    assert_eq!(moore_loss(&h, 1, Convention::Normal), normal_nim_loss(&h), "{h:?}");
                    let nonzero: Vec<u32> = h.iter().copied().filter(|&x| x > 0).collect();
                    assert_eq!(
                        moore_loss(&nonzero, 1, Convention::Misere),
                        misere_nim_loss(&nonzero),
                        "{h:?}"
                    );
                }
            }
        }
    }

    /// Every position of up to `n` heaps of at most `top`, largest first, zeros dropped.
    fn positions(n: usize, top: u64) -> Vec<Vec<u64>> {
        let mut out = vec![vec![]];
        for _ in 0..n {
            let mut next = out.clone();
            for p in &out {
                for h in 1..=top {
                    if p.last().is_none_or(|&l| h <= l) {
                        let mut q = p.clone();
                        q.push(h);
                        next.push(q);
                    }
                }
            }
            next.sort();
            next.dedup();
            out = next;
        }
        out
    }

    #[test]
    fn moore_moves_reach_losses_and_change_at_most_k_heaps() {
        for k in 1..=4 {
            for convention in [Convention::Normal, Convention::Misere] {
                for p in positions(5, 9) {
                    match moore_move(&p, k, convention) {
                        None => assert!(
                            moore_loss_u64(&p, k, convention)
                                || (p.is_empty() && convention == Convention::Misere),
                            "k={k} {convention} {p:?}: a win with no move"
                        ),
                        Some(m) => {
                            assert!(!m.is_empty() && m.len() <= k as usize, "k={k} {p:?}: {m:?}");
                            assert!(m.iter().all(|l| l.to < l.from && p[l.index] == l.from));
                            let after = crate::lowering::lowered(&p, &m);
                            assert!(
                                moore_loss_u64(&after, k, convention),
                                "k={k} {convention} {p:?} -> {after:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn moore_moves_on_huge_heaps() {
        let heaps = [u64::MAX, u64::MAX - 12345, 1 << 63, 999_999_999_999, 7];
        for k in 1..=6 {
            for convention in [Convention::Normal, Convention::Misere] {
                let Some(m) = moore_move(&heaps, k, convention) else {
                    assert!(moore_loss_u64(&heaps, k, convention));
                    continue;
                };
                let after = crate::lowering::lowered(&heaps, &m);
                assert!(moore_loss_u64(&after, k, convention), "k={k} {convention}");
                assert!(m.len() <= k as usize);
            }
        }
    }

    #[test]
    fn column_sums() {
        // 1, 2, 3: columns 2 and 2: divisible by 2 and not by 3.
        assert!(columns_divisible(&[1, 2, 3], 1));
        assert!(!columns_divisible(&[1, 2, 3], 2));
        assert!(columns_divisible(&[5, 5, 5], 2));
        assert!(moore_loss(&[1], 2, Convention::Misere));
        assert!(!moore_loss(&[1, 1], 2, Convention::Misere));
        assert!(moore_loss(&[1, 1, 1, 1], 2, Convention::Misere));
        assert!(moore_loss(&[], 2, Convention::Normal));
        assert!(!moore_loss(&[], 2, Convention::Misere));
    }
}
