//! Moore's Nim_k: take a positive number of tokens from each of at least one and at most
//! `k` heaps. Nim_1 is Nim.

use std::cmp::Reverse;
use std::collections::HashSet;

use super::model::{
    Formula, GameRules, HeapCountChange, ParentBounds, Theory, TierRules, children_by_tokens, sort_heaps,
};
use super::moves::{HeapChange, HeapResult, Move};
use super::position::Position;

/// Moore's Nim_k.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MooreRules {
    k: u32,
}

/// The largest `k` accepted (a move never changes more heaps than a position can hold, so
/// larger values only rename the same games).
pub const MAX_MOORE_K: u32 = 64;

impl MooreRules {
    /// Nim_k, for `1 ≤ k ≤ MAX_MOORE_K`.
    pub fn new(k: u32) -> Option<Self> {
        (1..=MAX_MOORE_K).contains(&k).then_some(MooreRules { k })
    }

    /// The most heaps one move changes.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Calls `visit(new_sizes)` for every way to take exactly `taken ≥ 1` tokens from at
    /// most `k` heaps of `heaps`, once per distinct result: `new_sizes[i]` is what heap `i`
    /// becomes (0 when it vanishes). Among equal heaps the new sizes never increase, which
    /// picks one representative of each multiset.
    fn each_take(&self, heaps: &[u32], taken: u32, mut visit: impl FnMut(&[u32])) {
        let mut suffix = vec![0u64; heaps.len() + 1];
        for i in (0..heaps.len()).rev() {
            suffix[i] = suffix[i + 1] + heaps[i] as u64;
        }
        let mut cur = Vec::with_capacity(heaps.len());
        take_rec(heaps, &suffix, 0, taken, self.k, u32::MAX, &mut cur, &mut visit);
    }
}

#[allow(clippy::too_many_arguments)]
fn take_rec(
    heaps: &[u32],
    suffix: &[u64],
    i: usize,
    remaining: u32,
    changes_left: u32,
    group_cap: u32,
    cur: &mut Vec<u32>,
    visit: &mut impl FnMut(&[u32]),
) {
    if remaining == 0 {
        let len = cur.len();
        cur.extend_from_slice(&heaps[i..]);
        visit(cur);
        cur.truncate(len);
        return;
    }
    if i == heaps.len() || changes_left == 0 {
        return;
    }
    // The most that can still be taken: the next `changes_left` heaps whole (they are the
    // largest left).
    let most = suffix[i] - suffix[(i + changes_left as usize).min(heaps.len())];
    if most < remaining as u64 {
        return;
    }
    let h = heaps[i];
    let cap = if i > 0 && heaps[i - 1] == h { group_cap } else { h };
    let lowest = h.saturating_sub(remaining);
    for new in (lowest..=cap.min(h)).rev() {
        let t = h - new;
        cur.push(new);
        take_rec(heaps, suffix, i + 1, remaining - t, changes_left - u32::from(t > 0), new, cur, visit);
        cur.pop();
    }
}

#[allow(clippy::too_many_arguments)]
fn grow_rec(
    heaps: &[u32],
    i: usize,
    remaining: u32,
    changes_left: u32,
    group_cap: u32,
    top: u32,
    cur: &mut Vec<u32>,
    visit: &mut impl FnMut(&[u32]),
) {
    if remaining == 0 {
        let len = cur.len();
        cur.extend_from_slice(&heaps[i..]);
        visit(cur);
        cur.truncate(len);
        return;
    }
    if i == heaps.len() || changes_left == 0 {
        return;
    }
    let h = heaps[i];
    // Among equal heaps the grown sizes never increase: grown ones first.
    let cap = if i > 0 && heaps[i - 1] == h { group_cap } else { u32::MAX };
    let highest = (h + remaining).min(top).min(cap);
    for new in (h..=highest).rev() {
        let t = new - h;
        cur.push(new);
        grow_rec(heaps, i + 1, remaining - t, changes_left - u32::from(t > 0), new, top, cur, visit);
        cur.pop();
    }
}

/// Calls `visit(sizes)` for every non-increasing list of `count` heap sizes in `1..=top`
/// summing to `sum`, each at most `cap`.
fn new_heaps_rec(count: u32, sum: u32, cap: u32, cur: &mut Vec<u32>, visit: &mut impl FnMut(&[u32])) {
    if count == 0 {
        if sum == 0 {
            visit(cur);
        }
        return;
    }
    if sum < count || (cap as u64) * (count as u64) < sum as u64 {
        return;
    }
    let high = cap.min(sum - (count - 1));
    let low = sum.div_ceil(count);
    for s in (low..=high).rev() {
        cur.push(s);
        new_heaps_rec(count - 1, sum - s, s, cur, visit);
        cur.pop();
    }
}

impl GameRules for MooreRules {
    /// Moves that change fewer heaps come first; then larger heaps first; then fewer tokens
    /// taken. One move per distinct resulting position.
    fn moves(&self, position: &Position) -> Vec<Move> {
        let heaps = position.heaps();
        let total = position.total() as u32;
        let mut moves = Vec::new();
        for taken in 1..=total {
            self.each_take(heaps, taken, |new| {
                let changes: Vec<HeapChange> = heaps
                    .iter()
                    .zip(new)
                    .filter(|(h, n)| h != n)
                    .map(|(&heap, &n)| HeapChange {
                        heap,
                        result: if n == 0 { HeapResult::VANISH } else { HeapResult::one(n) },
                    })
                    .collect();
                moves.push(Move::of(changes));
            });
        }
        moves.sort_by_key(|m| {
            let heaps: Vec<Reverse<u32>> = m.changes().iter().map(|c| Reverse(c.heap)).collect();
            (m.changes().len(), heaps, m.taken(), Reverse(m.apply(position)))
        });
        let mut seen = HashSet::new();
        moves.retain(|m| seen.insert(m.apply(position)));
        moves
    }

    fn move_bound(&self, position: &Position) -> u128 {
        // Choose j ≤ k heaps and a smaller size for each: Σ_j e_j(h_1, …, h_n), the
        // elementary symmetric sums of the heap sizes, by the usual recurrence.
        let k = self.k as usize;
        let mut e = vec![0u128; k + 1];
        e[0] = 1;
        for &h in position.heaps() {
            for j in (1..=k).rev() {
                e[j] = e[j].saturating_add(e[j - 1].saturating_mul(h as u128));
            }
        }
        e[1..].iter().fold(0u128, |acc, &x| acc.saturating_add(x))
    }

    fn max_take(&self) -> Option<u32> {
        None
    }

    fn heap_change(&self) -> HeapCountChange {
        HeapCountChange { fewer: self.k, more: 0 }
    }

    fn always_takes(&self) -> bool {
        true
    }

    fn theory(&self) -> Theory {
        Theory { sum_of_heaps: self.k == 1, formula: Some(Formula::Moore { k: self.k }) }
    }
}

impl TierRules for MooreRules {
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
        self.each_take(heaps, taken, |new| {
            buf.clear();
            buf.extend_from_slice(new);
            sort_heaps(buf);
            visit(buf);
            n += 1;
        });
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
        if added == 0 || parent_heaps < k || parent_heaps - k > self.k || parent_heaps > bounds.max_heaps {
            return 0;
        }
        let vanished = parent_heaps - k;
        let top = bounds.max_heap;
        let mut n = 0;
        let mut grown = Vec::with_capacity(heaps.len());
        let mut fresh = Vec::with_capacity(vanished as usize);
        // The heaps that vanish take `in_new` of the added tokens; the rest grows at most
        // k − vanished existing heaps.
        for in_new in vanished..=added {
            let grow = added - in_new;
            if grow > 0 && vanished == self.k {
                continue;
            }
            new_heaps_rec(vanished, in_new, top, &mut fresh, &mut |new: &[u32]| {
                grow_rec(heaps, 0, grow, self.k - vanished, u32::MAX, top, &mut grown, &mut |g: &[u32]| {
                    buf.clear();
                    buf.extend_from_slice(g);
                    buf.extend_from_slice(new);
                    sort_heaps(buf);
                    visit(buf);
                    n += 1;
                });
            });
        }
        n
    }
}
