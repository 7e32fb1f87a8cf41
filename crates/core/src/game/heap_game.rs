//! The game model for heap games: every family given by [`HeapRules`] (a move replaces one
//! heap by up to three) is a [`GameRules`] and a [`TierRules`] through this one
//! implementation.

use super::model::{Formula, GameRules, HeapCountChange, ParentBounds, Theory, TierRules, insert_sorted};
use super::moves::{HeapResult, Move, MoveTable, for_each_three, heap_moves, result_bound};
use super::position::Position;
use super::rules::HeapRules;

impl<R: HeapRules> GameRules for R {
    fn moves(&self, position: &Position) -> Vec<Move> {
        heap_moves(self, position)
    }

    fn move_bound(&self, position: &Position) -> u128 {
        let mut distinct = position.heaps().to_vec();
        distinct.dedup();
        distinct.iter().map(|&h| result_bound(self, h)).sum()
    }

    fn max_take(&self) -> Option<u32> {
        HeapRules::max_take(self)
    }

    fn heap_change(&self) -> HeapCountChange {
        let more = if self.splits_three() { 2 } else { u32::from(self.splits()) };
        HeapCountChange { fewer: 1, more }
    }

    fn always_takes(&self) -> bool {
        !self.splits_taking(0) && !self.splits_three_taking(0)
    }

    fn theory(&self) -> Theory {
        Theory { sum_of_heaps: true, formula: self.is_nim().then_some(Formula::Bouton) }
    }

    fn single_heap(&self) -> Option<&dyn HeapRules> {
        Some(self)
    }
}

impl<R: HeapRules> TierRules for R {
    type ChildTable = MoveTable;
    const ONE_HEAP_MOVES: bool = true;

    fn child_table(&self, max_heap: u32) -> MoveTable {
        MoveTable::new(self, max_heap)
    }

    #[inline]
    fn for_each_child<F: FnMut(&[u32], u32)>(
        &self,
        table: &MoveTable,
        heaps: &[u32],
        buf: &mut Vec<u32>,
        mut visit: F,
    ) -> u64 {
        let mut n = 0;
        let mut last = 0;
        for (i, &h) in heaps.iter().enumerate() {
            if h == last {
                continue;
            }
            last = h;
            for &result in table.results(h) {
                child_into(heaps, i, result, buf);
                visit(buf, h - result.tokens());
                n += 1;
            }
        }
        n
    }

    #[inline]
    fn children_taking<F: FnMut(&[u32])>(
        &self,
        heaps: &[u32],
        taken: u32,
        buf: &mut Vec<u32>,
        mut visit: F,
    ) -> u64 {
        let mut n = 0;
        let mut last = 0;
        let splits = self.splits_taking(taken);
        let splits_three = self.splits_three_taking(taken);
        for (i, &h) in heaps.iter().enumerate() {
            if h == last || h < taken {
                continue;
            }
            last = h;
            if h == taken {
                if self.vanishes(h) {
                    child_into(heaps, i, HeapResult::VANISH, buf);
                    visit(buf);
                    n += 1;
                }
                continue;
            }
            let left = h - taken;
            if self.leaves_one(h, left) {
                child_into(heaps, i, HeapResult::one(left), buf);
                visit(buf);
                n += 1;
            }
            if splits {
                for b in 1..=left / 2 {
                    if self.leaves_two(h, left - b, b) {
                        child_into(heaps, i, HeapResult::two(left - b, b), buf);
                        visit(buf);
                        n += 1;
                    }
                }
            }
            if splits_three {
                for_each_three(left, |a, b, c| {
                    if self.leaves_three(h, a, b, c) {
                        child_into(heaps, i, HeapResult::three(a, b, c), buf);
                        visit(buf);
                        n += 1;
                    }
                });
            }
        }
        n
    }

    /// A parent with one more heap adds a heap of `added` that may vanish; one with as many
    /// heaps grows a heap by `added`; one with one (two) fewer joins two (three) heaps and
    /// `added` more tokens into one heap that may split into them.
    #[inline]
    fn parents_adding<F: FnMut(&[u32])>(
        &self,
        heaps: &[u32],
        added: u32,
        parent_heaps: u32,
        bounds: ParentBounds,
        buf: &mut Vec<u32>,
        mut visit: F,
    ) -> u64 {
        let mut n = 0;
        let k = heaps.len();
        let top = bounds.max_heap;
        let kinds = parent_heaps as i64 - k as i64;
        if kinds == 1 {
            // A heap that vanishes entirely.
            if added >= 1 && (k as u32) < bounds.max_heaps && added <= top && self.vanishes(added) {
                buf.clear();
                buf.extend_from_slice(heaps);
                insert_sorted(buf, added);
                visit(buf);
                n += 1;
            }
        } else if kinds == 0 {
            // Heap a grown to h = a + added, which may be reduced to a.
            if added == 0 {
                return 0;
            }
            let mut last = 0;
            for i in 0..k {
                let a = heaps[i];
                let h = a + added;
                if a == last || h > top {
                    last = a;
                    continue;
                }
                last = a;
                if self.leaves_one(h, a) {
                    buf.clear();
                    buf.extend_from_slice(heaps);
                    let mut at = i;
                    while at > 0 && buf[at - 1] < h {
                        buf[at] = buf[at - 1];
                        at -= 1;
                    }
                    buf[at] = h;
                    visit(buf);
                    n += 1;
                }
            }
        } else if kinds == -1 {
            // Heaps a ≥ b joined into h = a + b + added, which may be split into a and b.
            if k < 2 || !self.splits_taking(added) {
                return 0;
            }
            let mut last_a = 0;
            for i in 0..k {
                let a = heaps[i];
                if a == last_a {
                    continue;
                }
                last_a = a;
                let mut last_b = 0;
                for j in i + 1..k {
                    let b = heaps[j];
                    if b == last_b {
                        continue;
                    }
                    last_b = b;
                    let h = a + b + added;
                    if h <= top && self.leaves_two(h, a, b) {
                        buf.clear();
                        buf.extend(
                            heaps.iter().enumerate().filter(|&(x, _)| x != i && x != j).map(|(_, &v)| v),
                        );
                        insert_sorted(buf, h);
                        visit(buf);
                        n += 1;
                    }
                }
            }
        } else if kinds == -2 {
            // Heaps a ≥ b ≥ c joined into h = a + b + c + added, which may split into them.
            if k < 3 || !self.splits_three_taking(added) {
                return 0;
            }
            let mut last_a = 0;
            for i in 0..k {
                let a = heaps[i];
                if a == last_a {
                    continue;
                }
                last_a = a;
                let mut last_b = 0;
                for j in i + 1..k {
                    let b = heaps[j];
                    if b == last_b {
                        continue;
                    }
                    last_b = b;
                    let mut last_c = 0;
                    for l in j + 1..k {
                        let c = heaps[l];
                        if c == last_c {
                            continue;
                        }
                        last_c = c;
                        let h = a + b + c + added;
                        if h <= top && self.leaves_three(h, a, b, c) {
                            buf.clear();
                            buf.extend(
                                heaps
                                    .iter()
                                    .enumerate()
                                    .filter(|&(x, _)| x != i && x != j && x != l)
                                    .map(|(_, &v)| v),
                            );
                            insert_sorted(buf, h);
                            visit(buf);
                            n += 1;
                        }
                    }
                }
            }
        }
        n
    }

    #[inline]
    fn shrinks_to(&self, heap: u32, left: u32) -> bool {
        self.leaves_one(heap, left)
    }

    #[inline]
    fn splits_to(&self, heap: u32, a: u32, b: u32) -> bool {
        self.leaves_two(heap, a, b)
    }

    #[inline]
    fn heap_vanishes(&self, heap: u32) -> bool {
        self.vanishes(heap)
    }

    #[inline]
    fn may_split(&self, taken: u32) -> bool {
        self.splits_taking(taken)
    }

    #[inline]
    fn may_split_three(&self, taken: u32) -> bool {
        self.splits_three_taking(taken)
    }

    #[inline]
    fn splits_three_to(&self, heap: u32, a: u32, b: u32, c: u32) -> bool {
        self.leaves_three(heap, a, b, c)
    }
}

/// Writes into `out` the child of `heaps` where the heap at index `i` became `result`, in
/// one merging pass (the new heaps are no larger than the old one, so they go after it).
#[inline]
pub fn child_into(heaps: &[u32], i: usize, result: HeapResult, out: &mut Vec<u32>) {
    out.clear();
    out.extend_from_slice(&heaps[..i]);
    let pending = result.parts();
    let mut next = 0;
    for &h in &heaps[i + 1..] {
        while next < pending.len() && pending[next] > h {
            out.push(pending[next]);
            next += 1;
        }
        out.push(h);
    }
    out.extend_from_slice(&pending[next..]);
}
