//! Wythoff's game: take any positive number of tokens from one heap, or the same positive
//! number from two heaps. On two heaps this is Wythoff's game (1907); on three or more it
//! is an open generalization.

use std::cmp::Reverse;
use std::collections::HashSet;

use super::model::{
    Formula, GameRules, HeapCountChange, ParentBounds, Theory, TierRules, children_by_tokens, insert_sorted,
    sort_heaps,
};
use super::moves::{HeapChange, HeapResult, Move};
use super::position::Position;

/// Wythoff's game on any number of heaps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WythoffRules;

fn change(heap: u32, taken: u32) -> HeapChange {
    let left = heap - taken;
    HeapChange { heap, result: if left == 0 { HeapResult::VANISH } else { HeapResult::one(left) } }
}

/// Calls `visit(i, j)` for every pair of indices `i < j` of `heaps` (sorted largest first)
/// once per distinct pair of sizes.
#[inline]
fn each_pair(heaps: &[u32], mut visit: impl FnMut(usize, usize)) {
    let mut last_a = 0;
    for i in 0..heaps.len() {
        if heaps[i] == last_a {
            continue;
        }
        last_a = heaps[i];
        let mut last_b = 0;
        for (j, &b) in heaps.iter().enumerate().skip(i + 1) {
            if b == last_b {
                continue;
            }
            last_b = b;
            visit(i, j);
        }
    }
}

impl GameRules for WythoffRules {
    /// One-heap moves first (larger heap first, then fewer tokens taken), then two-heap
    /// moves (larger pair first, then fewer tokens taken).
    fn moves(&self, position: &Position) -> Vec<Move> {
        let heaps = position.heaps();
        let mut moves = Vec::new();
        let mut last = 0;
        for &h in heaps {
            if h != last {
                last = h;
                moves.extend((1..=h).map(|t| Move::single(h, change(h, t).result)));
            }
        }
        let mut pairs = Vec::new();
        each_pair(heaps, |i, j| {
            let (a, b) = (heaps[i], heaps[j]);
            for t in 1..=b {
                pairs.push(Move::of(vec![change(a, t), change(b, t)]));
            }
        });
        pairs.sort_by_key(|m| (Reverse(m.changes()[0].heap), Reverse(m.changes()[1].heap), m.taken()));
        moves.extend(pairs);
        let mut seen = HashSet::new();
        moves.retain(|m| seen.insert(m.apply(position)));
        moves
    }

    fn move_bound(&self, position: &Position) -> u128 {
        let heaps = position.heaps();
        let n = heaps.len() as u128;
        let largest = position.largest() as u128;
        n * largest + n * n.saturating_sub(1) / 2 * largest
    }

    fn max_take(&self) -> Option<u32> {
        None
    }

    fn heap_change(&self) -> HeapCountChange {
        HeapCountChange { fewer: 2, more: 0 }
    }

    fn always_takes(&self) -> bool {
        true
    }

    fn theory(&self) -> Theory {
        Theory { sum_of_heaps: false, formula: Some(Formula::Wythoff) }
    }
}

impl TierRules for WythoffRules {
    type ChildTable = ();
    const ONE_HEAP_MOVES: bool = false;

    fn child_table(&self, _max_heap: u32) {}

    fn for_each_child<F: FnMut(&[u32], u32)>(
        &self,
        _: &(),
        heaps: &[u32],
        buf: &mut Vec<u32>,
        visit: F,
    ) -> u64 {
        children_by_tokens(self, heaps, buf, visit)
    }

    fn children_taking<F: FnMut(&[u32])>(
        &self,
        heaps: &[u32],
        taken: u32,
        buf: &mut Vec<u32>,
        mut visit: F,
    ) -> u64 {
        if taken == 0 {
            return 0;
        }
        let mut n = 0;
        let mut last = 0;
        for (i, &h) in heaps.iter().enumerate() {
            if h == last || h < taken {
                continue;
            }
            last = h;
            buf.clear();
            buf.extend_from_slice(heaps);
            buf[i] = h - taken;
            sort_heaps(buf);
            visit(buf);
            n += 1;
        }
        if taken.is_multiple_of(2) {
            let t = taken / 2;
            each_pair(heaps, |i, j| {
                if heaps[j] >= t {
                    buf.clear();
                    buf.extend_from_slice(heaps);
                    buf[i] -= t;
                    buf[j] -= t;
                    sort_heaps(buf);
                    visit(buf);
                    n += 1;
                }
            });
        }
        n
    }

    fn parents_adding<F: FnMut(&[u32])>(
        &self,
        heaps: &[u32],
        added: u32,
        parent_heaps: u32,
        bounds: ParentBounds,
        buf: &mut Vec<u32>,
        mut visit: F,
    ) -> u64 {
        let k = heaps.len() as u32;
        if added == 0 || parent_heaps < k || parent_heaps > k + 2 || parent_heaps > bounds.max_heaps {
            return 0;
        }
        let top = bounds.max_heap;
        let half = added.is_multiple_of(2).then_some(added / 2);
        let mut n = 0;
        let mut emit = |buf: &mut Vec<u32>| {
            sort_heaps(buf);
            visit(buf);
            n += 1;
        };
        match parent_heaps - k {
            0 => {
                // One heap grown by `added`.
                let mut last = 0;
                for (i, &h) in heaps.iter().enumerate() {
                    if h != last && h + added <= top {
                        buf.clear();
                        buf.extend_from_slice(heaps);
                        buf[i] += added;
                        emit(buf);
                    }
                    last = h;
                }
                // Two heaps grown by half each.
                if let Some(t) = half {
                    each_pair(heaps, |i, j| {
                        if heaps[i] + t <= top {
                            buf.clear();
                            buf.extend_from_slice(heaps);
                            buf[i] += t;
                            buf[j] += t;
                            emit(buf);
                        }
                    });
                }
            }
            1 => {
                // A heap of `added` that vanished.
                if added <= top {
                    buf.clear();
                    buf.extend_from_slice(heaps);
                    insert_sorted(buf, added);
                    emit(buf);
                }
                // A heap of half that vanished, and another heap grown by half.
                if let Some(t) = half {
                    let mut last = 0;
                    for (i, &h) in heaps.iter().enumerate() {
                        if h != last && h + t <= top {
                            buf.clear();
                            buf.extend_from_slice(heaps);
                            buf[i] += t;
                            buf.push(t);
                            emit(buf);
                        }
                        last = h;
                    }
                }
            }
            _ => {
                // Two heaps of half each that vanished.
                if let Some(t) = half.filter(|&t| t <= top) {
                    buf.clear();
                    buf.extend_from_slice(heaps);
                    buf.extend([t, t]);
                    emit(buf);
                }
            }
        }
        n
    }
}
