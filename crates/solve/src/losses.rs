//! How many losses each tier of a heap game holds, counted before the solve from the
//! Sprague–Grundy theorem, for the memory estimate.
//!
//! The retrograde solver's window keeps every loss of the tiers it holds (its rank, and
//! where heaps are few its decoded heaps, rank terms and remoteness: dozens of bytes a
//! loss), so the share of losses sets much of a solve's peak. In a game whose moves change
//! one heap and never split it, a position is a sum of single heaps; under normal play it
//! is a loss exactly when the XOR of its heaps' nim-values is 0 (Sprague–Grundy). The
//! losses of each tier are then counted without solving: multisets of heap sizes, by heap
//! count, total and XOR. Under misère play the count is the normal-play one, which is exact
//! for Nim up to the positions whose heaps are all 1 (Bouton) and an estimate otherwise.

use nimdb_core::game::{HeapRules, heap_results};
use nimdb_core::mex::mex;

/// The most steps (heap sizes × heaps × totals × nim-values, about a nanosecond each) the
/// count may take; past it the estimate assumes its generic share of losses instead.
const COUNT_MAX_STEPS: u64 = 1_000_000_000;

/// The most counters (heaps × totals × nim-values, 8 bytes each) the count may hold.
const COUNT_MAX_CELLS: u64 = 1 << 22;

/// The nim-values of single heaps 0..=`cap` of a game whose moves leave at most one heap,
/// or `None` when a move of some heap up to `cap` splits it.
fn heap_nim_values(rules: &dyn HeapRules, cap: u32) -> Option<Vec<u32>> {
    let mut values = vec![0u32; cap as usize + 1];
    for heap in 1..=cap {
        let mut seen = Vec::new();
        for result in heap_results(rules, heap) {
            match result.parts() {
                [] => seen.push(0),
                [left] => seen.push(values[*left as usize]),
                _ => return None,
            }
        }
        values[heap as usize] = mex(&mut seen);
    }
    Some(values)
}

/// The normal-play losses of each tier (total ≤ `max_total`, heaps ≤ `max_heaps`, each heap
/// 1..=`cap`): `losses[total][heaps]`. `None` where a move splits a heap or the count would
/// take more than [`COUNT_MAX_STEPS`] or [`COUNT_MAX_CELLS`].
pub(crate) fn losses_by_tier(
    rules: &dyn HeapRules,
    max_total: u32,
    max_heaps: u32,
    cap: u32,
) -> Option<Vec<Vec<u64>>> {
    let cap = cap.min(max_total);
    let values = heap_nim_values(rules, cap)?;
    let span = values.iter().max().map_or(1, |&v| (v + 1).next_power_of_two()) as usize;
    let (totals, heaps) = (max_total as usize + 1, max_heaps as usize + 1);
    let steps = cap as u64 * heaps as u64 * totals as u64 * span as u64;
    if steps > COUNT_MAX_STEPS || (heaps * totals * span) as u64 > COUNT_MAX_CELLS {
        return None;
    }
    // count[(heaps · totals + total) · span + xor]: multisets of the heap sizes added so
    // far. Adding size v one copy at a time, in increasing heaps and total, counts any
    // number of copies of it.
    let at = |k: usize, t: usize| (k * totals + t) * span;
    let mut count = vec![0u64; heaps * totals * span];
    count[0] = 1;
    // The XORs reached so far: below the power of two above every nim-value added.
    let mut reached = 1usize;
    for (v, &g) in values.iter().enumerate().skip(1) {
        let g = g as usize;
        reached = reached.max((g + 1).next_power_of_two());
        for k in 1..heaps {
            // k heaps of at most v tokens hold at most k · v.
            for t in v..totals.min(k * v + 1) {
                let (from, to) = (at(k - 1, t - v), at(k, t));
                for x in 0..reached {
                    count[to + x] = count[to + x].saturating_add(count[from + (x ^ g)]);
                }
            }
        }
    }
    Some((0..totals).map(|t| (0..heaps).map(|k| count[at(k, t)]).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nimdb_core::game::{GameRules, GameSpec};
    use nimdb_core::index::{PartitionTable, TierId};

    /// Counts, by brute force over a tier's positions, the ones whose nim-values XOR to 0.
    fn brute(values: &[u32], total: u32, heaps: u32, cap: u32) -> u64 {
        fn walk(values: &[u32], left: u32, heaps: u32, most: u32, xor: u32) -> u64 {
            if heaps == 0 {
                return u64::from(left == 0 && xor == 0);
            }
            (1..=most.min(left)).map(|h| walk(values, left - h, heaps - 1, h, xor ^ values[h as usize])).sum()
        }
        walk(values, total, heaps, cap, 0)
    }

    #[test]
    fn nim_s_losses_are_the_positions_whose_heaps_xor_to_zero() {
        let nim = GameSpec::nim();
        let rules = nim.rules().single_heap().unwrap();
        let losses = losses_by_tier(rules, 40, 5, 12).unwrap();
        let values: Vec<u32> = (0..=12).collect();
        let table = PartitionTable::new(40, 5, 12).unwrap();
        for total in 0..=40u32 {
            for heaps in 0..=5u32 {
                let expected = brute(&values, total, heaps, 12);
                assert_eq!(losses[total as usize][heaps as usize], expected, "tier ({total}, {heaps})");
                assert!(expected <= table.size(TierId { total, heaps }));
            }
        }
        // Two equal heaps are a loss, two different ones a win.
        assert_eq!(losses[10][2], 1);
        assert_eq!(losses[11][2], 0);
    }

    #[test]
    fn a_subtraction_game_s_losses_follow_its_periodic_nim_values() {
        // Subtraction {1, 2, 3}: nim-values n mod 4.
        let game = "subtraction:1,2,3".parse::<GameSpec>().unwrap();
        let rules = game.rules().single_heap().unwrap();
        let values = heap_nim_values(rules, 20).unwrap();
        assert_eq!(values, (0..=20).map(|n| n % 4).collect::<Vec<_>>());
        let losses = losses_by_tier(rules, 30, 4, 20).unwrap();
        for total in 0..=30u32 {
            for heaps in 0..=4u32 {
                assert_eq!(losses[total as usize][heaps as usize], brute(&values, total, heaps, 20));
            }
        }
    }

    #[test]
    fn a_game_that_splits_heaps_is_not_counted() {
        let kayles: GameSpec = "kayles".parse().unwrap();
        assert!(losses_by_tier(kayles.rules().single_heap().unwrap(), 20, 4, 20).is_none());
    }
}
