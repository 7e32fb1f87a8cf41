//! Hypergraph Nim: n labelled heaps and a set H of nonempty sets of heaps (the edges); a
//! move chooses an edge and lowers every heap of it, each by any positive amount.
//!
//! It holds Nim (H the singletons), Moore's Nim_k (every set of at most k heaps), exact
//! k-Nim (every set of exactly k heaps) and Circular Nim (k consecutive heaps of n on a
//! circle) (Boros, Gurvich, Ho, Makino and Mursić, "Tetris hypergraphs and combinations of
//! impartial games", "On the Sprague–Grundy function of exact k-Nim", 2015–2019).
//!
//! A spec is `hyper:N:EDGES`: `N` heaps (1 to [`MAX_HYPER_HEAPS`]) and the edges, either
//! listed (`1+2,2+3`: edges separated by commas, the heaps of an edge, numbered from 1, by
//! `+`) or named: `singletons`, `moore:K`, `exact:K`, `circular:K`. A hypergraph is a set:
//! an edge listed twice, a heap named twice in one edge, an empty edge or a heap outside
//! 1..N is refused. It prints back by name when it is one of the named shapes (whatever
//! way it was written), else as its edges sorted (by size, then heap by heap); its storage
//! id always lists the edges.

use std::fmt;

use crate::game::Convention;
use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout};

/// The most heaps of a hypergraph.
pub const MAX_HYPER_HEAPS: u32 = 16;

/// A named shape of hypergraph, as it prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Shape {
    /// Every single heap: Nim.
    Singletons,
    /// Every set of at most k heaps (k ≥ 2): Moore's Nim_k.
    Moore(u32),
    /// Every set of exactly k heaps (2 ≤ k): exact k-Nim.
    Exact(u32),
    /// The n sets of k consecutive heaps on a circle (2 ≤ k < n − 1).
    Circular(u32),
    /// Listed edges.
    Listed,
}

/// What [`Hypergraph::each_move`] hands each move: the child, the edge's heaps and the
/// row's new sizes.
type MoveVisit<'a> = dyn FnMut(&[u32], &[usize], &[u32]) + 'a;

/// Hypergraph Nim on `n` labelled heaps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hypergraph {
    n: u32,
    /// The edges as bit sets of heaps (bit i = heap i + 1), in canonical order: by size,
    /// then by their heaps in increasing order.
    edges: Vec<u32>,
    shape: Shape,
    /// Whether every permutation of the heaps maps H onto itself (H is a union of whole
    /// layers: every set of some sizes), so positions are kept sorted.
    symmetric: bool,
}

/// The heaps of an edge, numbered from 0.
fn heaps_of(edge: u32) -> impl Iterator<Item = usize> {
    (0..32usize).filter(move |&i| edge >> i & 1 == 1)
}

/// The canonical order of edges: by size, then heap by heap (of two sets of one size, the
/// one holding the lowest heap they do not share comes first).
fn edge_key(edge: u32) -> (u32, std::cmp::Reverse<u32>) {
    (edge.count_ones(), std::cmp::Reverse(edge.reverse_bits()))
}

fn sorted(mut edges: Vec<u32>) -> Vec<u32> {
    edges.sort_by_key(|&e| edge_key(e));
    edges.dedup();
    edges
}

fn binomial(n: u32, k: u32) -> u64 {
    (0..k as u64).fold(1u64, |acc, i| acc * (n as u64 - i) / (i + 1))
}

fn layers(n: u32, sizes: impl Fn(u32) -> bool) -> Vec<u32> {
    sorted((1u32..(1u32 << n)).filter(|e| sizes(e.count_ones())).collect())
}

fn circular(n: u32, k: u32) -> Vec<u32> {
    sorted((0..n).map(|i| (0..k).fold(0u32, |e, j| e | 1 << ((i + j) % n))).collect())
}

/// Reads a whole number from 1 to `max` written in plain digits.
fn number(word: &str, what: &str, max: u32) -> Result<u32, String> {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit());
    match word.parse::<u32>() {
        Ok(v) if plain && (1..=max).contains(&v) => Ok(v),
        _ => Err(format!("{what} is a whole number from 1 to {max}, not '{}'", crate::game::echo(word, 20))),
    }
}

impl Hypergraph {
    /// The hypergraph of `edges` (bit sets) on `n` heaps; `None` unless `n` is from 1 to
    /// [`MAX_HYPER_HEAPS`] and the edges are nonempty sets of those heaps.
    pub fn new(n: u32, edges: Vec<u32>) -> Option<Hypergraph> {
        if !(1..=MAX_HYPER_HEAPS).contains(&n) || edges.is_empty() {
            return None;
        }
        if edges.iter().any(|&e| e == 0 || e >> n != 0) {
            return None;
        }
        let edges = sorted(edges);
        let mut sizes = [0u64; MAX_HYPER_HEAPS as usize + 1];
        for &e in &edges {
            sizes[e.count_ones() as usize] += 1;
        }
        let symmetric = (1..=n).all(|s| sizes[s as usize] == 0 || sizes[s as usize] == binomial(n, s));
        let full = |s: u32| sizes[s as usize] == binomial(n, s);
        let empty = |s: u32| sizes[s as usize] == 0;
        let shape = if full(1) && (2..=n).all(empty) {
            Shape::Singletons
        } else if let Some(k) = (2..=n).find(|&k| (1..=k).all(full) && (k + 1..=n).all(empty)) {
            Shape::Moore(k)
        } else if let Some(k) = (2..=n).find(|&k| full(k) && (1..=n).all(|s| s == k || empty(s))) {
            Shape::Exact(k)
        } else if let Some(k) = (2..n).find(|&k| edges == circular(n, k)) {
            Shape::Circular(k)
        } else {
            Shape::Listed
        };
        Some(Hypergraph { n, edges, shape, symmetric })
    }

    /// Reads what follows `hyper:` in a spec: `N:EDGES` (see the module's documentation).
    pub fn parse(rest: &str) -> Result<Hypergraph, String> {
        let usage = "hyper:N:EDGES takes the number of heaps and the edges, as in hyper:3:1+2,2+3 or \
                     hyper:4:exact:2 (named: singletons, moore:K, exact:K, circular:K)";
        let Some((n, edges)) = rest.split_once(':') else { return Err(usage.to_string()) };
        let n = number(n, "the number of heaps N of hyper:N:EDGES", MAX_HYPER_HEAPS)?;
        let named = |k: &str| number(k, "K", n);
        let edges = match edges.split_once(':') {
            Some(("moore", k)) => {
                let k = named(k)?;
                layers(n, |s| s <= k)
            }
            Some(("exact", k)) => {
                let k = named(k)?;
                layers(n, |s| s == k)
            }
            Some(("circular", k)) => circular(n, named(k)?),
            Some((name, _)) => {
                return Err(format!(
                    "unknown hypergraph '{}' (named: singletons, moore:K, exact:K, circular:K)",
                    crate::game::echo(name, 20)
                ));
            }
            None if edges == "singletons" => layers(n, |s| s == 1),
            None => listed(edges, n)?,
        };
        Hypergraph::new(n, edges).ok_or_else(|| usage.to_string())
    }

    /// The number of heaps.
    pub fn heaps(&self) -> u32 {
        self.n
    }

    /// The edges, each as its heaps numbered from 1, in canonical order.
    pub fn edges(&self) -> Vec<Vec<u32>> {
        self.edges.iter().map(|&e| heaps_of(e).map(|i| i as u32 + 1).collect()).collect()
    }

    /// Whether positions are kept sorted: every permutation of the heaps maps the edges onto
    /// themselves.
    pub fn symmetric(&self) -> bool {
        self.symmetric
    }

    /// The edges written out, as the storage id has them: `1+2,2+3`.
    pub fn listed(&self) -> String {
        self.edges()
            .iter()
            .map(|e| e.iter().map(u32::to_string).collect::<Vec<_>>().join("+"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The position as a full row of n heaps.
    fn row(&self, position: &[u32]) -> [u32; MAX_HYPER_HEAPS as usize] {
        let mut row = [0u32; MAX_HYPER_HEAPS as usize];
        row[..position.len()].copy_from_slice(position);
        row
    }

    /// A full row in canonical form: sorted largest first with zeros dropped when the
    /// hypergraph is symmetric, else without its trailing zeros.
    fn canon(&self, buf: &mut Vec<u32>) {
        if self.symmetric {
            buf.sort_unstable_by(|a, b| b.cmp(a));
        }
        while buf.last() == Some(&0) {
            buf.pop();
        }
    }

    /// Whether an edge is worth trying on a sorted row: among equal heaps it takes the
    /// first ones (the others give the same positions again).
    fn first_of_equals(&self, row: &[u32], edge: u32) -> bool {
        !self.symmetric
            || (1..self.n as usize)
                .all(|j| !(edge >> j & 1 == 1 && edge >> (j - 1) & 1 == 0 && row[j] == row[j - 1]))
    }

    /// Calls `visit(child, edge heaps, new sizes)` for every move, in move order: edges in
    /// canonical order, and within an edge the new sizes counting down, the first heap
    /// slowest.
    fn each_move(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut MoveVisit<'_>) {
        let row = self.row(position);
        let n = self.n as usize;
        let mut idx = [0usize; MAX_HYPER_HEAPS as usize];
        for &e in &self.edges {
            if !self.first_of_equals(&row, e) {
                continue;
            }
            let mut s = 0;
            for i in heaps_of(e) {
                idx[s] = i;
                s += 1;
            }
            let idx = &idx[..s];
            if idx.iter().any(|&i| row[i] == 0) {
                continue;
            }
            let mut cur = row;
            for &i in idx {
                cur[i] = row[i] - 1;
            }
            'moves: loop {
                buf.clear();
                buf.extend_from_slice(&cur[..n]);
                self.canon(buf);
                visit(buf, idx, &cur);
                let mut j = s;
                loop {
                    if j == 0 {
                        break 'moves;
                    }
                    j -= 1;
                    if cur[idx[j]] > 0 {
                        cur[idx[j]] -= 1;
                        continue 'moves;
                    }
                    cur[idx[j]] = row[idx[j]] - 1;
                }
            }
        }
    }

    /// Grows heaps `idx[j..]` of `row` by at least one each, within `budget` tokens and the
    /// cap, and visits each parent.
    #[allow(clippy::too_many_arguments)]
    fn grow(
        &self,
        row: &mut [u32; MAX_HYPER_HEAPS as usize],
        idx: &[usize],
        j: usize,
        budget: u32,
        cap: u32,
        buf: &mut Vec<u32>,
        visit: &mut dyn FnMut(&[u32]),
    ) {
        if j == idx.len() {
            buf.clear();
            buf.extend_from_slice(&row[..self.n as usize]);
            self.canon(buf);
            visit(buf);
            return;
        }
        let i = idx[j];
        let base = row[i];
        let rest = (idx.len() - j - 1) as u32;
        let mut d = 1u32;
        while d + rest <= budget && base.saturating_add(d) <= cap {
            row[i] = base + d;
            self.grow(row, idx, j + 1, budget - d, cap, buf, visit);
            d += 1;
        }
        row[i] = base;
    }
}

/// Reads listed edges (`1+2,2+3`) on `n` heaps.
fn listed(list: &str, n: u32) -> Result<Vec<u32>, String> {
    let mut edges = Vec::new();
    for item in list.split(',') {
        if item.is_empty() {
            return Err(
                "an empty edge (write the edges as 1+2,2+3: heaps joined by +, edges by commas)".into()
            );
        }
        let mut edge = 0u32;
        for heap in item.split('+') {
            let plain = !heap.is_empty() && heap.bytes().all(|b| b.is_ascii_digit());
            let i = heap.parse::<u32>().ok().filter(|_| plain).ok_or_else(|| {
                format!(
                    "'{}' in edge {} is not a heap number",
                    crate::game::echo(heap, 20),
                    crate::game::echo(item, 40)
                )
            })?;
            if !(1..=n).contains(&i) {
                return Err(format!("heap {i} in edge {item} is out of range: the heaps are 1 to {n}"));
            }
            if edge >> (i - 1) & 1 == 1 {
                return Err(format!("edge {item} names heap {i} twice"));
            }
            edge |= 1 << (i - 1);
        }
        if edges.contains(&edge) {
            let shown: Vec<String> = heaps_of(edge).map(|i| (i + 1).to_string()).collect();
            return Err(format!("edge {} is listed twice (a hypergraph is a set of edges)", shown.join("+")));
        }
        edges.push(edge);
    }
    Ok(edges)
}

impl fmt::Display for Hypergraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.n;
        match self.shape {
            Shape::Singletons => write!(f, "hyper:{n}:singletons"),
            Shape::Moore(k) => write!(f, "hyper:{n}:moore:{k}"),
            Shape::Exact(k) => write!(f, "hyper:{n}:exact:{k}"),
            Shape::Circular(k) => write!(f, "hyper:{n}:circular:{k}"),
            Shape::Listed => write!(f, "hyper:{n}:{}", self.listed()),
        }
    }
}

impl Family for Hypergraph {
    fn layout(&self) -> SpaceLayout {
        SpaceLayout::Row { heaps: self.n, sorted: self.symmetric }
    }
    fn loopy(&self) -> bool {
        false
    }
    fn canonical(&self, mut counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        if counts.len() > self.n as usize {
            return Err(PositionError::Illegal(format!(
                "{} counts: {self} has {} heaps (fewer counts leave the last heaps empty)",
                counts.len(),
                self.n
            )));
        }
        self.canon(&mut counts);
        Ok(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        let row = self.row(position);
        let words: Vec<String> = row[..self.n as usize].iter().map(u32::to_string).collect();
        format!("[{}]", words.join(" "))
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let row = self.row(position);
        let symmetric = self.symmetric;
        self.each_move(position, &mut Vec::new(), &mut |to, idx, sizes| {
            if symmetric && !seen.insert(to.to_vec()) {
                return;
            }
            let parts: Vec<String> = idx
                .iter()
                .map(|&i| {
                    if symmetric {
                        format!("a heap of {} to {}", row[i], sizes[i])
                    } else {
                        format!("heap {} from {} to {}", i + 1, row[i], sizes[i])
                    }
                })
                .collect();
            out.push(LabelledMove { to: to.to_vec(), text: format!("lower {}", parts.join(" and ")) });
        });
        out
    }
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        self.each_move(position, buf, &mut |to, _, _| visit(to));
    }
    fn for_each_parent(
        &self,
        position: &[u32],
        max_total: u32,
        max_heap: u32,
        buf: &mut Vec<u32>,
        visit: &mut dyn FnMut(&[u32]),
    ) -> bool {
        let total: u64 = position.iter().map(|&h| h as u64).sum();
        let Some(budget) = (max_total as u64).checked_sub(total) else { return true };
        let mut row = self.row(position);
        let mut idx = [0usize; MAX_HYPER_HEAPS as usize];
        for &e in &self.edges {
            if !self.first_of_equals(&row, e) {
                continue;
            }
            let mut s = 0;
            for i in heaps_of(e) {
                idx[s] = i;
                s += 1;
            }
            self.grow(&mut row, &idx[..s], 0, budget as u32, max_heap, buf, visit);
        }
        true
    }
    fn rules_text(&self) -> String {
        let kind = match self.shape {
            Shape::Singletons => " (this is Nim)".to_string(),
            Shape::Moore(k) => format!(" (every set of at most {k} heaps: Moore's Nim_{k})"),
            Shape::Exact(k) => format!(" (every set of exactly {k} heaps: exact {k}-Nim)"),
            Shape::Circular(k) => format!(" (each {k} consecutive heaps on a circle: Circular Nim)"),
            Shape::Listed => String::new(),
        };
        format!(
            "Hypergraph Nim on {n} heaps numbered 1 to {n}, with the edges {edges}{kind}: a move \
             chooses an edge and lowers every heap of it, each by any positive amount (so every \
             heap of the edge must be nonempty). A position is written heap 1 first, all {n} \
             heaps: `[3 0 2]`{sorted}.",
            n = self.n,
            edges = self.listed(),
            sorted = if self.symmetric {
                "; the rules do not tell the heaps apart, so a position is kept largest first"
            } else {
                ""
            }
        )
    }
    /// Bouton's theorem for the singletons, Moore's for every set of at most k heaps
    /// (both conventions: each has its misère form), and under normal play the longest play
    /// of exact k-Nim when 2k > n (Boros, Gurvich, Ho, Makino and Mursić 2018; no misère
    /// form is known); no other hypergraph declares one.
    fn formula(&self, convention: Convention) -> Option<Formula> {
        match self.shape {
            Shape::Singletons => Some(Formula::Bouton),
            Shape::Moore(k) => Some(Formula::Moore { k }),
            Shape::Exact(k) if 2 * k > self.n && convention == Convention::Normal => {
                Some(Formula::ExactNim { k })
            }
            _ => None,
        }
    }
    /// Σ over the edges of the product of their heaps.
    fn move_bound(&self, position: &[u32]) -> u64 {
        let row = self.row(position);
        self.edges
            .iter()
            .map(|&e| heaps_of(e).fold(1u64, |p, i| p.saturating_mul(row[i] as u64)))
            .fold(0u64, u64::saturating_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Hypergraph {
        Hypergraph::parse(s).unwrap()
    }

    #[test]
    fn specs_print_back_by_shape_and_list() {
        assert_eq!(h("3:1,2,3").to_string(), "hyper:3:singletons");
        assert_eq!(h("3:1+2,1,2,3,2+3,1+3").to_string(), "hyper:3:moore:2");
        assert_eq!(h("4:exact:2").to_string(), "hyper:4:exact:2");
        assert_eq!(h("4:circular:2").to_string(), "hyper:4:circular:2");
        assert_eq!(h("3:circular:2").to_string(), "hyper:3:exact:2");
        assert_eq!(h("4:3+4,1+2,2").to_string(), "hyper:4:2,1+2,3+4");
        assert_eq!(h("4:3+4,1+2,2").listed(), "2,1+2,3+4");
        assert_eq!(h("3:moore:3").edges().len(), 7);
        for bad in [
            "3:",
            "3:1,,2",
            "3:1+",
            "3:4",
            "3:0",
            "3:1+1",
            "3:1+2,2+1",
            "17:singletons",
            "0:1",
            "x:1",
            "3:moore:4",
            "3:exact:0",
            "3:circular:x",
            "3:clique:2",
            "3",
            "3:+1",
            "3:01x",
        ] {
            assert!(Hypergraph::parse(bad).is_err(), "{bad}");
        }
        assert!(Hypergraph::parse("3:1+2,2+1").unwrap_err().contains("listed twice"));
        assert!(Hypergraph::parse("3:1+4").unwrap_err().contains("out of range"));
    }

    #[test]
    fn symmetric_hypergraphs_sort_their_positions() {
        assert!(h("3:moore:2").symmetric() && h("5:exact:3").symmetric() && !h("4:1+2+3+4,1").symmetric());
        assert!(!h("4:circular:2").symmetric());
        assert_eq!(h("3:exact:2").canonical(vec![0, 3, 5]).unwrap(), vec![5, 3]);
        assert_eq!(h("4:circular:2").canonical(vec![0, 3, 0, 0]).unwrap(), vec![0, 3]);
        assert!(h("2:singletons").canonical(vec![1, 2, 3]).is_err());
        assert_eq!(h("4:circular:2").show(&[0, 3]), "[0 3 0 0]");
    }

    #[test]
    fn moves_lower_every_heap_of_an_edge() {
        let g = h("3:1+2,3");
        let to: Vec<Vec<u32>> = g.moves(&[2, 1, 1]).into_iter().map(|m| m.to).collect();
        assert_eq!(to, vec![vec![2, 1], vec![1, 0, 1], vec![0, 0, 1]]);
        assert_eq!(g.moves(&[2, 1, 1])[1].text, "lower heap 1 from 2 to 1 and heap 2 from 1 to 0");
        // A sorted position lists each resulting position once.
        let e = h("3:exact:2");
        let to: Vec<Vec<u32>> = e.moves(&[1, 1, 1]).into_iter().map(|m| m.to).collect();
        assert_eq!(to, vec![vec![1]]);
    }

    #[test]
    fn parents_are_exactly_the_positions_with_a_move_back() {
        for spec in ["3:1+2,3", "3:exact:2", "4:circular:2", "3:moore:2", "4:1+2+3,2+4"] {
            let g = h(spec);
            let n = g.heaps() as usize;
            let (cap, total) = (4u32, 7u32);
            let mut all = Vec::new();
            let mut row = vec![0u32; n];
            loop {
                if row.iter().sum::<u32>() <= total {
                    let c = g.canonical(row.clone()).unwrap();
                    if !all.contains(&c) {
                        all.push(c);
                    }
                }
                let mut j = 0;
                while j < n && row[j] == cap {
                    row[j] = 0;
                    j += 1;
                }
                if j == n {
                    break;
                }
                row[j] += 1;
            }
            for p in &all {
                let mut got = std::collections::BTreeSet::new();
                assert!(g.for_each_parent(p, total, cap, &mut Vec::new(), &mut |q| {
                    got.insert(q.to_vec());
                }));
                let want: std::collections::BTreeSet<Vec<u32>> = all
                    .iter()
                    .filter(|q| {
                        let mut kids = Vec::new();
                        g.for_each_child(q, &mut Vec::new(), &mut |c| kids.push(c.to_vec()));
                        kids.contains(p)
                    })
                    .cloned()
                    .collect();
                assert_eq!(got, want, "{spec} {p:?}");
            }
        }
    }
}
