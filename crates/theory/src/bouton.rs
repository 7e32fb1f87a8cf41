//! Bouton's rule for Nim, normal and misère, and its Sprague–Grundy generalisation.
//!
//! * Normal Nim: a position is a loss for the player to move iff the XOR (nim-sum) of its
//!   heaps is 0.
//! * Misère Nim: a loss iff either some heap is ≥ 2 and the nim-sum is 0, or every heap is
//!   ≤ 1 and the nim-sum is 1 (an odd number of 1-heaps).
//! * Any impartial heap game under normal play: a loss iff the nim-sum of the heaps'
//!   nim-values g(heap) is 0 (Sprague–Grundy).
//! * [`tame_misere_loss`] applies the misère-Nim rule to nim-values. That is exact for sums
//!   of *tame* heaps (see [`crate::genus`]) and is a hypothesis to be checked against
//!   the database otherwise.

/// The nim-sum (XOR) of `values`.
pub fn nim_sum(values: &[u32]) -> u32 {
    values.iter().fold(0, |x, &v| x ^ v)
}

/// Normal-play Nim: whether the player to move loses (the nim-sum is 0).
pub fn normal_nim_loss(heaps: &[u32]) -> bool {
    nim_sum(heaps) == 0
}

/// Misère Nim (the last mover loses): whether the player to move loses, i.e. (some heap ≥ 2
/// and the nim-sum is 0) or (every heap ≤ 1 and the nim-sum is 1).
pub fn misere_nim_loss(heaps: &[u32]) -> bool {
    misere_nim_rule(nim_sum(heaps), heaps.iter().any(|&h| h >= 2))
}

/// The misère-Nim rule from a position's summary: its nim-sum and whether some heap is ≥ 2.
pub fn misere_nim_rule(nim_sum: u32, some_heap_above_one: bool) -> bool {
    if some_heap_above_one { nim_sum == 0 } else { nim_sum == 1 }
}

/// Bouton's rule under `convention`: whether the Nim position `heaps` (in any order) is a
/// loss for the player to move.
pub fn nim_loss(heaps: &[u32], convention: crate::game::Convention) -> bool {
    match convention {
        crate::game::Convention::Normal => normal_nim_loss(heaps),
        crate::game::Convention::Misere => misere_nim_loss(heaps),
    }
}

/// The misère-Nim rule applied to the nim-values of the heaps of a position.
///
/// Precisely: with `values[i] = g(heap_i)` (normal-play nim-values), the position is called a
/// misère loss iff (some nim-value is ≥ 2 and their nim-sum is 0) or (every nim-value is ≤ 1
/// and their nim-sum is 1). A heap with nim-value 0 counts as an empty heap, one with
/// nim-value 1 as a 1-heap. This is the exact misère outcome when every heap is tame
/// (genus 0^120, 1^031 or g^{g, g⊕2} for the heap and all its followers); for wild games it is
/// only a hypothesis, and the first position where it fails is what the database can show.
pub fn tame_misere_loss(values: &[u32]) -> bool {
    misere_nim_loss(values)
}

/// Normal-play Sprague–Grundy: whether the position with these heaps is a loss, given the
/// single-heap nim-value sequence `g` (which must cover every heap).
pub fn sprague_grundy_loss(g: &[u32], heaps: &[u32]) -> bool {
    position_nim_value(g, heaps) == 0
}

/// The normal-play nim-value of a position: the nim-sum of `g(heap)` over its heaps.
pub fn position_nim_value(g: &[u32], heaps: &[u32]) -> u32 {
    heaps.iter().fold(0, |x, &h| x ^ g[h as usize])
}

/// A Nim move: reduce `heaps[index]` from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NimMove {
    /// Which heap (index into the slice given).
    pub index: usize,
    /// Its size before the move.
    pub from: u32,
    /// Its size after the move (`to < from`).
    pub to: u32,
}

/// The winning normal-play Nim move (make the nim-sum 0), or `None` from a loss.
///
/// Ties: the first heap (lowest index) that can be reduced is chosen.
pub fn normal_nim_move(heaps: &[u32]) -> Option<NimMove> {
    let x = nim_sum(heaps);
    if x == 0 {
        return None;
    }
    heaps.iter().enumerate().find(|&(_, &h)| h ^ x < h).map(|(index, &from)| NimMove {
        index,
        from,
        to: from ^ x,
    })
}

/// The winning misère-Nim move, or `None` from a loss (or from a position with no tokens,
/// which under misère play is a win with no move to make).
///
/// Play as in normal Nim, except when that move would leave only heaps ≤ 1: then leave an
/// odd number of 1-heaps instead. Ties: the first suitable heap (lowest index).
pub fn misere_nim_move(heaps: &[u32]) -> Option<NimMove> {
    if misere_nim_loss(heaps) {
        return None;
    }
    let big: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] >= 2).collect();
    match big.as_slice() {
        [] => {
            // Only 0- and 1-heaps and an even number of 1s: take a whole 1-heap.
            let index = heaps.iter().position(|&h| h == 1)?;
            Some(NimMove { index, from: 1, to: 0 })
        }
        [only] => {
            // Reduce the one big heap to 0 or 1 so that an odd number of 1-heaps remain.
            let ones = heaps.iter().filter(|&&h| h == 1).count();
            let to = if ones % 2 == 1 { 0 } else { 1 };
            Some(NimMove { index: *only, from: heaps[*only], to })
        }
        _ => normal_nim_move(heaps),
    }
}

/// Bouton's rule on heaps of any size (u64): whether the Nim position is a loss for the player
/// to move under `convention`.
pub fn bouton_loss(heaps: &[u64], convention: crate::game::Convention) -> bool {
    let x = heaps.iter().fold(0, |x, &h| x ^ h);
    match convention {
        crate::game::Convention::Normal => x == 0,
        crate::game::Convention::Misere => {
            if heaps.iter().any(|&h| h >= 2) {
                x == 0
            } else {
                x == 1
            }
        }
    }
}

/// Bouton's winning move on heaps of any size (u64), or `None` from a loss (or from the empty
/// position, a misère win with no move). Normal play: lower the first heap `h` with
/// `h ⊕ x < h` (x the nim-sum) to `h ⊕ x`. Misère play: the same while at least two heaps
/// exceed 1; with one such heap, lower it to 0 or 1 so that an odd number of 1-heaps remain;
/// with none, take a 1-heap. Every winning Nim move lowers one heap to a value fixed by the
/// others, so with `heaps` largest first (as positions hold them) this is the first winning
/// move in nimdb's move order.
pub fn bouton_move(heaps: &[u64], convention: crate::game::Convention) -> Option<super::Lowering> {
    use super::Lowering;
    if bouton_loss(heaps, convention) {
        return None;
    }
    let big: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] >= 2).collect();
    if convention == crate::game::Convention::Misere && big.len() < 2 {
        return match big[..] {
            [] => heaps.iter().position(|&h| h == 1).map(|i| Lowering::of(heaps, i, 0)),
            [only] => {
                let ones = heaps.iter().filter(|&&h| h == 1).count();
                Some(Lowering::of(heaps, only, if ones % 2 == 1 { 0 } else { 1 }))
            }
            _ => unreachable!(),
        };
    }
    let x = heaps.iter().fold(0, |x, &h| x ^ h);
    heaps.iter().position(|&h| h ^ x < h).map(|i| Lowering::of(heaps, i, heaps[i] ^ x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Brute-force outcome of a Nim position (sorted heaps) under either convention.
    fn brute_loss(heaps: Vec<u32>, misere: bool, memo: &mut HashMap<(Vec<u32>, bool), bool>) -> bool {
        if let Some(&l) = memo.get(&(heaps.clone(), misere)) {
            return l;
        }
        let mut any_move = false;
        let mut loss = true;
        for i in 0..heaps.len() {
            for to in 0..heaps[i] {
                any_move = true;
                let mut child = heaps.clone();
                child[i] = to;
                child.sort_unstable();
                if brute_loss(child, misere, memo) {
                    loss = false;
                }
            }
        }
        let result = if any_move { loss } else { !misere };
        memo.insert((heaps, misere), result);
        result
    }

    fn all_positions(max_heaps: usize, max_heap: u32) -> Vec<Vec<u32>> {
        let mut out = vec![vec![]];
        for _ in 0..max_heaps {
            let mut next = out.clone();
            for p in &out {
                for h in 0..=max_heap {
                    if p.last().is_none_or(|&l| h >= l) {
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
    fn bouton_rules_match_brute_force() {
        let mut memo = HashMap::new();
        for p in all_positions(4, 6) {
            assert_eq!(normal_nim_loss(&p), brute_loss(p.clone(), false, &mut memo), "normal {p:?}");
            assert_eq!(misere_nim_loss(&p), brute_loss(p.clone(), true, &mut memo), "misère {p:?}");
        }
    }

    #[test]
    fn best_moves_reach_losses() {
        for p in all_positions(4, 6) {
            match normal_nim_move(&p) {
                None => assert!(normal_nim_loss(&p)),
                Some(m) => {
                    let mut q = p.clone();
                    assert_eq!(q[m.index], m.from);
                    assert!(m.to < m.from);
                    q[m.index] = m.to;
                    assert!(normal_nim_loss(&q), "{p:?} -> {q:?}");
                }
            }
            match misere_nim_move(&p) {
                None => assert!(misere_nim_loss(&p) || p.iter().all(|&h| h == 0)),
                Some(m) => {
                    let mut q = p.clone();
                    assert!(m.to < m.from && q[m.index] == m.from);
                    q[m.index] = m.to;
                    assert!(misere_nim_loss(&q), "{p:?} -> {q:?}");
                }
            }
        }
    }

    #[test]
    fn wide_rules_agree_with_the_u32_rules() {
        use crate::game::Convention;
        for p in all_positions(4, 6) {
            let mut wide: Vec<u64> = p.iter().rev().map(|&h| h as u64).filter(|&h| h > 0).collect();
            wide.sort_unstable_by(|a, b| b.cmp(a));
            let narrow: Vec<u32> = wide.iter().map(|&h| h as u32).collect();
            assert_eq!(bouton_loss(&wide, Convention::Normal), normal_nim_loss(&narrow), "{p:?}");
            assert_eq!(bouton_loss(&wide, Convention::Misere), misere_nim_loss(&narrow), "{p:?}");
            for convention in [Convention::Normal, Convention::Misere] {
                match bouton_move(&wide, convention) {
                    None => assert!(bouton_loss(&wide, convention) || wide.is_empty()),
                    Some(m) => {
                        let after = crate::lowering::lowered(&wide, &[m]);
                        assert!(bouton_loss(&after, convention), "{convention} {wide:?} -> {after:?}");
                    }
                }
            }
        }
        let huge = [u64::MAX, u64::MAX - 1, 5];
        let m = bouton_move(&huge, Convention::Normal).unwrap();
        // The nim-sum is 1 ⊕ 5 = 4: the largest heap goes to MAX ⊕ 4.
        assert_eq!((m.index, m.to), (0, u64::MAX ^ 4));
    }

    #[test]
    fn examples() {
        assert!(normal_nim_loss(&[1, 2, 3]));
        assert!(misere_nim_loss(&[1, 2, 3]));
        assert!(misere_nim_loss(&[1]));
        assert!(!misere_nim_loss(&[]));
        assert!(!misere_nim_loss(&[1, 1]));
        assert_eq!(normal_nim_move(&[3, 4, 5]), Some(NimMove { index: 0, from: 3, to: 1 }));
        assert_eq!(misere_nim_move(&[5, 1, 1]), Some(NimMove { index: 0, from: 5, to: 1 }));
        assert!(tame_misere_loss(&[0, 1, 0]));
        assert_eq!(position_nim_value(&[0, 1, 2, 3, 1], &[4, 2]), 3);
    }
}
