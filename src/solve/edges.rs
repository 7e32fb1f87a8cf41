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

/// Writes into `out` the child of `heaps` where the heap at index `i` became `result`, in
/// one merging pass (the new heaps are no larger than the old one, so they go after it).
#[inline]
pub fn child_into(heaps: &[u32], i: usize, result: HeapResult, out: &mut Vec<u32>) {
    out.clear();
    out.extend_from_slice(&heaps[..i]);
    // The new heaps, largest first: at most two.
    let (pending, count) = match result {
        HeapResult::Vanish => ([0, 0], 0),
        HeapResult::One(a) => ([a, 0], 1),
        HeapResult::Two(a, b) => ([a, b], 2),
    };
    let mut next = 0;
    for &h in &heaps[i + 1..] {
        while next < count && pending[next] > h {
            out.push(pending[next]);
            next += 1;
        }
        out.push(h);
    }
    while next < count {
        out.push(pending[next]);
        next += 1;
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

/// Calls `visit(child)` for every child of `heaps` reached by a move that removes exactly
/// `taken` tokens, one per distinct heap size and result. Returns the number of children.
#[inline]
pub fn children_taking<R: HeapRules>(
    rules: &R,
    heaps: &[u32],
    taken: u32,
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32]),
) -> u64 {
    let mut n = 0;
    let mut last = 0;
    let splits = rules.splits_taking(taken);
    for (i, &h) in heaps.iter().enumerate() {
        if h == last || h < taken {
            continue;
        }
        last = h;
        if h == taken {
            if rules.vanishes(h) {
                child_into(heaps, i, HeapResult::Vanish, buf);
                visit(buf);
                n += 1;
            }
            continue;
        }
        let left = h - taken;
        if rules.leaves_one(h, left) {
            child_into(heaps, i, HeapResult::One(left), buf);
            visit(buf);
            n += 1;
        }
        if splits {
            for b in 1..=left / 2 {
                if rules.leaves_two(h, left - b, b) {
                    child_into(heaps, i, HeapResult::Two(left - b, b), buf);
                    visit(buf);
                    n += 1;
                }
            }
        }
    }
    n
}

/// Bounds on the parents the solver may generate.
#[derive(Clone, Copy, Debug)]
pub struct ParentBounds {
    /// The largest heap allowed.
    pub max_heap: u32,
    /// The most heaps allowed.
    pub max_heaps: u32,
}

/// Which un-moves to follow: each changes the heap count differently, so each lands in its
/// own tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnMoves {
    /// Every kind.
    All,
    /// Only a heap added that vanishes (the parent has one more heap).
    Vanish,
    /// Only a heap grown (the parent has as many heaps).
    Grow,
    /// Only two heaps joined (the parent has one heap fewer).
    Join,
}

/// Calls `visit(parent)` for every parent of `heaps` (a position with a move to it) that has
/// exactly `added` more tokens, within the bounds: a heap of size `added` that may vanish,
/// one heap grown by `added`, or two heaps joined with `added` more into one (restricted to
/// the kinds `kinds`). Returns the number of parents visited.
#[inline]
pub fn parents_adding<R: HeapRules>(
    rules: &R,
    heaps: &[u32],
    added: u32,
    kinds: UnMoves,
    bounds: ParentBounds,
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32]),
) -> u64 {
    let mut n = 0;
    let k = heaps.len();
    let top = bounds.max_heap;
    let all = kinds == UnMoves::All;
    if added >= 1 {
        // A heap that vanishes entirely.
        if (all || kinds == UnMoves::Vanish)
            && (k as u32) < bounds.max_heaps
            && added <= top
            && rules.vanishes(added)
        {
            buf.clear();
            buf.extend_from_slice(heaps);
            insert_sorted(buf, added);
            visit(buf);
            n += 1;
        }
        // Heap a grown to h = a + added, which may be reduced to a.
        let mut last = 0;
        let grow = all || kinds == UnMoves::Grow;
        for i in 0..k * usize::from(grow) {
            let a = heaps[i];
            let h = a + added;
            if a == last || h > top {
                last = a;
                continue;
            }
            last = a;
            if rules.leaves_one(h, a) {
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
    }
    // Heaps a ≥ b joined into h = a + b + added, which may be split into a and b.
    if (all || kinds == UnMoves::Join) && k >= 2 && rules.splits_taking(added) {
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
                if h <= top && rules.leaves_two(h, a, b) {
                    buf.clear();
                    buf.extend(heaps.iter().enumerate().filter(|&(x, _)| x != i && x != j).map(|(_, &v)| v));
                    insert_sorted(buf, h);
                    visit(buf);
                    n += 1;
                }
            }
        }
    }
    n
}

/// Calls `visit(parent, tokens_added)` for every parent of `heaps` with at most
/// `extra_tokens` more tokens. Returns the number of parents visited.
pub fn for_each_parent<R: HeapRules>(
    rules: &R,
    heaps: &[u32],
    extra_tokens: u32,
    bounds: ParentBounds,
    buf: &mut Vec<u32>,
    mut visit: impl FnMut(&[u32], u32),
) -> u64 {
    (0..=extra_tokens)
        .map(|added| parents_adding(rules, heaps, added, UnMoves::All, bounds, buf, |p| visit(p, added)))
        .sum()
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
                let bounds = ParentBounds { max_heap: max, max_heaps: max };
                let mut found = BTreeSet::new();
                for_each_parent(rules, child, max - t, bounds, &mut buf, |p, added| {
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
                let mut by_take = BTreeSet::new();
                for taken in 0..=t {
                    children_taking(rules, child, taken, &mut buf, |c| {
                        assert_eq!(c.iter().sum::<u32>() + taken, t);
                        assert!(by_take.insert(c.to_vec()), "{game}: child {c:?} twice");
                    });
                }
                assert_eq!(by_take, want, "{game}: children of {child:?} by tokens taken");
            }
        }
    }
}
