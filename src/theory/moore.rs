//! Moore's theorem for Nim_k (E. H. Moore, "A generalization of the game called Nim",
//! Annals of Mathematics 11 (1910)).
//!
//! Write every heap in binary and add up each column (without carrying). Under normal
//! play a position is a loss for the player to move iff every column sum is divisible by
//! `k + 1`. Under misère play the same holds, except when every heap is at most 1: then a
//! position is a loss iff the number of heaps is ≡ 1 (mod `k + 1`). Nim_1 is Nim, and the
//! rule is Bouton's.

use crate::game::Convention;

/// Whether every binary column sum of `heaps` is divisible by `k + 1`.
pub fn columns_divisible(heaps: &[u32], k: u32) -> bool {
    let m = k as u64 + 1;
    (0..32).all(|bit| (heaps.iter().filter(|&&h| h >> bit & 1 == 1).count() as u64).is_multiple_of(m))
}

/// Whether `heaps` is a loss for the player to move in Nim_k under `convention` (Moore's
/// theorem).
pub fn moore_loss(heaps: &[u32], k: u32, convention: Convention) -> bool {
    if convention == Convention::Misere && heaps.iter().all(|&h| h <= 1) {
        let ones = heaps.iter().filter(|&&h| h == 1).count() as u64;
        return ones % (k as u64 + 1) == 1;
    }
    columns_divisible(heaps, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::bouton::{misere_nim_loss, normal_nim_loss};

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
