//! Exact k-Nim with more than half the heaps in every move: the nim-value is the length of
//! the longest play (Boros, Gurvich, Ho, Makino and Mursić, "On the Sprague–Grundy function
//! of exact k-Nim", Discrete Applied Mathematics, 2018; arXiv:1508.04484, whose explicit
//! formula covers 2k ≥ n; this module states the case 2k > n).
//!
//! Exact k-Nim: n heaps, and a move lowers exactly k of them, each by any positive amount.
//! The **height** h(x) of a position x is the length of its longest play. Under normal play,
//! when 2k > n, the nim-value of x is h(x), and
//!
//! h(x) = max { t : Σᵢ min(xᵢ, t) ≥ k·t }.
//!
//! Why (the argument is short, and the tests check the result against the solver):
//! * The height: t moves take at most min(xᵢ, t) tokens' worth of turns from heap i (one a
//!   move), k a move, so Σ min(xᵢ, t) ≥ k·t; conversely, when it holds, write each heap i
//!   min(xᵢ, t) times (fewer where the sum exceeds k·t) down the columns of a t × k grid:
//!   no heap meets a row twice, and each row is a move that takes one token from k heaps.
//! * A move lowers the height by at least 1 (a play from the child is a play from x less
//!   its first move), and taking one token from one heap lowers it by at most 1 (drop, from
//!   a longest play of one-token moves, one move that touches that heap).
//! * From x with h(x) > 0, let e be the heaps of the first move of a longest play, taking one
//!   token from each: that child has height h(x) − 1. Lowering the heaps of e further, one
//!   token at a time, down to 0 passes only through children of x, the height falling by at
//!   most 1 a step, to a position whose nonempty heaps number at most n − k < k: height 0.
//!   So the children's heights cover 0 to h(x) − 1, and by induction their nim-values are
//!   their heights: the mex is h(x).
//!
//! For 2k = n the paper's formula is of another shape (close to Jenkyns and Mayberry's for
//! Moore's Nim_{n−1}), and it is not stated here; for 2k < n the nim-values are open. No
//! misère form is known.

/// The height of exact k-Nim at `heaps` (zeros may be left out): the length of its longest
/// play, max { t : Σ min(heap, t) ≥ k·t }. `k` is at least 1.
pub fn height(heaps: &[u32], k: u32) -> u64 {
    let k = u64::from(k.max(1));
    let fits = |t: u64| heaps.iter().map(|&h| u64::from(h).min(t)).sum::<u64>() >= k * t;
    // The sum of the heaps over k bounds the height; whether t fits falls from true to false.
    let (mut lo, mut hi) = (0u64, heaps.iter().map(|&h| u64::from(h)).sum::<u64>() / k);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The normal-play nim-value of exact `k`-Nim on `n` heaps at `heaps` (at most `n` of them;
/// zeros may be left out), where the theorem gives it: 2k > n (and 1 ≤ k ≤ n). `None`
/// otherwise.
pub fn exact_nim_value(heaps: &[u32], n: u32, k: u32) -> Option<u64> {
    (k >= 1 && k <= n && 2 * k > n && heaps.len() <= n as usize).then(|| height(heaps, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest play by search over one-token moves (what a longest play can be made of).
    fn longest(heaps: &mut Vec<u32>, k: usize, memo: &mut std::collections::HashMap<Vec<u32>, u64>) -> u64 {
        let mut key = heaps.clone();
        key.sort_unstable();
        if let Some(&h) = memo.get(&key) {
            return h;
        }
        let n = heaps.len();
        let mut best = 0;
        for mask in 0u32..1 << n {
            if mask.count_ones() as usize != k || (0..n).any(|i| mask >> i & 1 == 1 && heaps[i] == 0) {
                continue;
            }
            (0..n).filter(|i| mask >> i & 1 == 1).for_each(|i| heaps[i] -= 1);
            best = best.max(1 + longest(heaps, k, memo));
            (0..n).filter(|i| mask >> i & 1 == 1).for_each(|i| heaps[i] += 1);
        }
        memo.insert(key, best);
        best
    }

    #[test]
    fn the_height_is_the_longest_play() {
        for (n, k, top) in [(3usize, 2usize, 7u32), (4, 2, 6), (4, 3, 6), (5, 3, 4), (5, 2, 4), (2, 1, 6)] {
            let mut memo = std::collections::HashMap::new();
            let mut row = vec![0u32; n];
            loop {
                let want = longest(&mut row.clone(), k, &mut memo);
                assert_eq!(height(&row, k as u32), want, "exact {k} of {n}: {row:?}");
                let Some(j) = (0..n).find(|&j| row[j] < top) else { break };
                row[j] += 1;
                row[..j].iter_mut().for_each(|h| *h = 0);
            }
        }
    }

    #[test]
    fn the_theorem_covers_only_more_than_half_the_heaps() {
        assert_eq!(exact_nim_value(&[5, 3, 2], 3, 2), Some(5));
        assert_eq!(exact_nim_value(&[4, 4, 4], 3, 2), Some(6));
        assert_eq!(exact_nim_value(&[9, 4, 7], 3, 3), Some(4), "exact n-Nim: the smallest heap");
        assert_eq!(exact_nim_value(&[5, 3, 2, 1], 4, 2), None, "2k = n is not stated");
        assert_eq!(exact_nim_value(&[5, 3, 2, 1, 1], 5, 2), None, "2k < n is open");
        assert_eq!(exact_nim_value(&[1, 1, 1, 1], 3, 2), None, "more heaps than the game has");
    }

    #[test]
    fn huge_heaps_do_not_overflow() {
        // 16 equal heaps, 9 lowered a move: the tokens over 9 is the longest play.
        let h = [u32::MAX; 16];
        assert_eq!(height(&h, 9), 16 * u64::from(u32::MAX) / 9);
        assert_eq!(height(&[u32::MAX, u32::MAX, 1], 2), u64::from(u32::MAX));
    }
}
