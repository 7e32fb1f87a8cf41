//! An independent plain forward sweep for Nim: the baseline the solver is measured against.
//!
//! It shares no code with nimdb's solvers (nor with nimdb's own sweep, `Strategy::Sweep`):
//! its own partition counts, ranks and tier walk, written from the definitions. One pass
//! per tier, totals ascending (every child has fewer tokens), each tier's positions in rank
//! order; every child of every position is built, ranked and looked up, and a position's
//! outcome and remoteness come from all its children: a win if some child is a loss (one
//! more than the quickest such loss), else a loss (one more than the longest child), and a
//! terminal has remoteness 0. No retrograde tricks, no early exit, no parallelism; every
//! solved tier is kept. Plain, but not slowed on purpose: the counts are a flat `u32`
//! table, a child is ranked whole (a table read per heap) as its heaps are walked, without
//! copying them, and nothing is allocated per position.
//!
//! A tier's positions are its partitions (heaps largest first) in lexicographic order, so a
//! position's rank is `Σ_i count(s_i, k − i, p_i − 1)`: the partitions that agree on the
//! heaps before `i` and have a smaller heap `i`, where `s_i` is the tokens in heaps `i..`.
//! This is the order nimdb stores, so the tiers compare value for value
//! (`tests/plain_sweep.rs`).

/// Every solved tier of a Nim universe: remoteness by rank.
pub struct Solved {
    /// `tiers[total][heaps]`: the tier's remoteness values in rank order.
    pub tiers: Vec<Vec<Vec<u16>>>,
    /// Children looked up (edges followed).
    pub edges: u64,
    /// Positions solved.
    pub positions: u64,
    /// Losses for the player to move.
    pub losses: u64,
}

/// Partition counts: `count(s, j, p)`, the partitions of `s` into exactly `j` parts each at
/// most `p`, for `s ≤ max_total`, `j ≤ max_parts`, `p ≤ max_part`.
struct Counts {
    max_total: usize,
    max_part: usize,
    counts: Vec<u32>,
}

impl Counts {
    fn new(max_total: u32, max_parts: u32, max_part: u32) -> Self {
        let (t, j_max, p_max) = (max_total as usize, max_parts as usize, max_part as usize);
        let mut c =
            Counts { max_total: t, max_part: p_max, counts: vec![0; (j_max + 1) * (t + 1) * (p_max + 1)] };
        for j in 0..=j_max {
            for s in 0..=t {
                for p in 0..=p_max {
                    let v = if j == 0 {
                        u64::from(s == 0)
                    } else if p == 0 {
                        0
                    } else {
                        // Every part below p, or one part p and the rest.
                        let below = c.get(s, j, p - 1) as u64;
                        let with_p = if s >= p { c.get(s - p, j - 1, p) as u64 } else { 0 };
                        below + with_p
                    };
                    let i = c.at(s, j, p);
                    c.counts[i] = u32::try_from(v).expect("every tier holds fewer than 2^32 positions");
                }
            }
        }
        c
    }

    #[inline]
    fn at(&self, s: usize, j: usize, p: usize) -> usize {
        (j * (self.max_total + 1) + s) * (self.max_part + 1) + p
    }

    #[inline]
    fn get(&self, s: usize, j: usize, p: usize) -> u32 {
        self.counts[self.at(s, j, p)]
    }

    /// The rank of `heaps` (largest first, nonzero, `total` tokens) among the partitions of
    /// `total` into as many parts.
    #[inline]
    fn rank(&self, total: u32, heaps: &[u32]) -> usize {
        let k = heaps.len();
        let mut s = total as usize;
        let mut rank = 0;
        for (i, &p) in heaps.iter().enumerate() {
            rank += self.get(s, k - i, p as usize - 1) as usize;
            s -= p as usize;
        }
        rank
    }
}

/// Calls `visit` with every partition of `total` into exactly `parts` parts each at most
/// `cap`, largest first, in lexicographic order (rank order).
fn for_each_partition(total: u32, parts: u32, cap: u32, visit: &mut impl FnMut(&[u32])) {
    fn go(prefix: &mut Vec<u32>, left: u32, parts: u32, cap: u32, visit: &mut impl FnMut(&[u32])) {
        if parts == 0 {
            if left == 0 {
                visit(prefix);
            }
            return;
        }
        // The first part is at least an even share and leaves at least 1 for each other part.
        let lowest = left.div_ceil(parts);
        let highest = cap.min(left - (parts - 1));
        for p in lowest..=highest {
            prefix.push(p);
            go(prefix, left - p, parts - 1, p, visit);
            prefix.pop();
        }
    }
    if parts > total || (parts > 0 && total > parts * cap) || (parts == 0 && total > 0) {
        return;
    }
    go(&mut Vec::with_capacity(parts as usize), total, parts, cap, visit);
}

/// Solves Nim with at most `max_heaps` heaps of at most `max_heap` (misère play when
/// `misere`), every tier by a forward pass over every child.
pub fn solve_nim(max_heaps: u32, max_heap: u32, misere: bool) -> Solved {
    let max_total = max_heaps * max_heap;
    let counts = Counts::new(max_total, max_heaps, max_heap);
    // Under misère play the player to move at a terminal wins; remoteness and outcome then
    // alternate, so a loss has odd remoteness (misère) or even (normal).
    let is_win = |r: u16| (r % 2 == 1) ^ misere;
    let mut tiers: Vec<Vec<Vec<u16>>> = Vec::with_capacity(max_total as usize + 1);
    let (mut edges, mut positions, mut losses) = (0u64, 0u64, 0u64);
    for total in 0..=max_total {
        let mut by_heaps: Vec<Vec<u16>> = Vec::with_capacity(max_heaps as usize + 1);
        for heaps in 0..=max_heaps {
            let mut tier = Vec::new();
            for_each_partition(total, heaps, max_heap, &mut |p: &[u32]| {
                debug_assert_eq!(counts.rank(total, p), tier.len());
                let mut quickest_loss = u16::MAX;
                let mut longest = 0u16;
                let mut any = false;
                for i in 0..p.len() {
                    // Equal heaps give the same children: the first of each run.
                    if i > 0 && p[i] == p[i - 1] {
                        continue;
                    }
                    for left in 0..p[i] {
                        // The child: heap i replaced by `left`, kept largest first (the
                        // heaps after i that are at least `left`, then `left`, then the
                        // rest), ranked whole as it is walked.
                        let child_total = total - (p[i] - left);
                        let child_heaps = p.len() - usize::from(left == 0);
                        let (mut s, mut j, mut rank) = (child_total as usize, child_heaps, 0usize);
                        let mut term = |h: u32| {
                            rank += counts.get(s, j, h as usize - 1) as usize;
                            s -= h as usize;
                            j -= 1;
                        };
                        p[..i].iter().for_each(|&h| term(h));
                        let mut x = i + 1;
                        while x < p.len() && p[x] >= left {
                            term(p[x]);
                            x += 1;
                        }
                        if left > 0 {
                            term(left);
                        }
                        p[x..].iter().for_each(|&h| term(h));
                        debug_assert_eq!((s, j), (0, 0));
                        let r = tiers[child_total as usize][child_heaps][rank];
                        any = true;
                        edges += 1;
                        if is_win(r) {
                            longest = longest.max(r);
                        } else {
                            quickest_loss = quickest_loss.min(r);
                        }
                    }
                }
                let r = if !any {
                    0
                } else if quickest_loss != u16::MAX {
                    quickest_loss + 1
                } else {
                    longest + 1
                };
                if !is_win(r) {
                    losses += 1;
                }
                tier.push(r);
            });
            positions += tier.len() as u64;
            by_heaps.push(tier);
        }
        tiers.push(by_heaps);
    }
    Solved { tiers, edges, positions, losses }
}
