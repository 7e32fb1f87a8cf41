//! Children and parents of a position in sorted-heap form, for the solver's inner loops.
//!
//! Positions here are plain slices of heap sizes sorted largest first. These helpers build
//! neighbouring positions in caller-owned buffers so the hot loops allocate nothing.

use crate::game::{HeapResult, HeapRules, MoveTable};

/// Inserts `v` into `heaps` (sorted largest first), keeping the order.
#[inline]
pub fn insert_sorted(heaps: &mut Vec<u32>, v: u32) {
    let at = heaps.iter().position(|&h| h < v).unwrap_or(heaps.len());
    heaps.insert(at, v);
}

/// Writes into `out` the child of `heaps` where the heap at index `i` became `result`.
#[inline]
pub fn child_into(heaps: &[u32], i: usize, result: HeapResult, out: &mut Vec<u32>) {
    out.clear();
    out.extend_from_slice(&heaps[..i]);
    out.extend_from_slice(&heaps[i + 1..]);
    match result {
        HeapResult::Vanish => {}
        HeapResult::One(a) => insert_sorted(out, a),
        HeapResult::Two(a, b) => {
            insert_sorted(out, a);
            insert_sorted(out, b);
        }
    }
}

/// Calls `visit(child, tokens_taken)` for every child of `heaps`, one per distinct heap size
/// and result. Returns the number of children.
#[inline]
pub fn for_each_child(
    table: &MoveTable,
    heaps: &[u32],
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32], u32),
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

/// Bounds on the parents the solver may generate.
#[derive(Clone, Copy, Debug)]
pub struct ParentBounds {
    /// Parents may have at most this many more tokens than the child.
    pub extra_tokens: u32,
    /// The largest heap allowed.
    pub max_heap: u32,
    /// The most heaps allowed.
    pub max_heaps: u32,
}

/// Calls `visit(parent, tokens_added)` for every parent of `heaps` (every position with a move to it) in
/// the bounds: a heap added that may vanish, one heap grown, or two heaps joined (with
/// tokens added) into one. Returns the number of parents visited.
#[inline]
pub fn for_each_parent<R: HeapRules>(
    rules: &R,
    heaps: &[u32],
    bounds: ParentBounds,
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32], u32),
) -> u64 {
    let mut n = 0;
    let k = heaps.len();
    let top = bounds.max_heap;
    // A heap h that vanishes entirely.
    if (k as u32) < bounds.max_heaps {
        for h in 1..=top.min(bounds.extra_tokens) {
            if rules.vanishes(h) {
                buf.clear();
                buf.extend_from_slice(heaps);
                insert_sorted(buf, h);
                visit(buf, h);
                n += 1;
            }
        }
    }
    // Heap a grown to h, which may be reduced to a. Grow in place, sliding h leftwards.
    let mut last = 0;
    for i in 0..k {
        let a = heaps[i];
        if a == last {
            continue;
        }
        last = a;
        buf.clear();
        buf.extend_from_slice(heaps);
        let mut at = i;
        for h in a + 1..=top.min(a + bounds.extra_tokens) {
            while at > 0 && buf[at - 1] < h {
                buf[at] = buf[at - 1];
                at -= 1;
            }
            buf[at] = h;
            if rules.leaves_one(h, a) {
                visit(buf, h - a);
                n += 1;
            }
        }
    }
    // Heaps a ≥ b joined into h, which may be split into a and b.
    if rules.splits() && k >= 2 {
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
                for h in a + b..=top.min(a + b + bounds.extra_tokens) {
                    if rules.leaves_two(h, a, b) {
                        buf.clear();
                        buf.extend(
                            heaps.iter().enumerate().filter(|&(x, _)| x != i && x != j).map(|(_, &v)| v),
                        );
                        insert_sorted(buf, h);
                        visit(buf, h - a - b);
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameSpec, Position, all_moves};
    use std::collections::BTreeSet;

    /// Every parent found by un-moves has the child among its children, and every position
    /// in range with the child among its children is found.
    #[test]
    fn parents_invert_children() {
        for game in
            ["nim", "kayles", "dawson", "lines", "grundy", "octal:4.7", "octal:0.137", "subtraction:2,3"]
        {
            let spec: GameSpec = game.parse().unwrap();
            let rules = spec.rules();
            let max = 9u32;
            let table = MoveTable::new(rules, max);
            // All positions with total ≤ max.
            let mut all = Vec::new();
            let mut stack = vec![(Vec::<u32>::new(), 0u32, max)];
            while let Some((p, total, cap)) = stack.pop() {
                all.push(p.clone());
                for h in 1..=cap.min(max - total) {
                    let mut q = p.clone();
                    q.push(h);
                    stack.push((q, total + h, h));
                }
            }
            let mut buf = Vec::new();
            for child in &all {
                let t: u32 = child.iter().sum();
                let bounds = ParentBounds { extra_tokens: max - t, max_heap: max, max_heaps: max };
                let mut found = BTreeSet::new();
                for_each_parent(rules, child, bounds, &mut buf, |p, added| {
                    assert_eq!(p.iter().sum::<u32>(), t + added);
                    assert!(found.insert(p.to_vec()), "{game}: parent {p:?} of {child:?} twice");
                });
                let want: BTreeSet<Vec<u32>> = all
                    .iter()
                    .filter(|p| {
                        let pos = Position::from_sorted(p.to_vec());
                        all_moves(rules, &pos).iter().any(|m| m.apply(&pos).heaps() == &child[..])
                    })
                    .cloned()
                    .collect();
                assert_eq!(found, want, "{game}: parents of {child:?}");
                let mut kids = BTreeSet::new();
                for_each_child(&table, child, &mut buf, |c, _| {
                    kids.insert(c.to_vec());
                });
                let pos = Position::from_sorted(child.clone());
                let want: BTreeSet<Vec<u32>> =
                    all_moves(rules, &pos).iter().map(|m| m.apply(&pos).heaps().to_vec()).collect();
                assert_eq!(kids, want, "{game}: children of {child:?}");
            }
        }
    }
}
