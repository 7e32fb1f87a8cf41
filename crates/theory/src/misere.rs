//! Misère nim-values of positions, by memoized mex over the positions themselves.
//!
//! The misère nim-value of a position is the mex of its children's misère values, and 1 for a
//! position with no move (a loss for the player to move iff the value is 0). Unlike normal
//! play, the value of a sum is *not* the nim-sum of its parts, so a heap's misère value needs
//! the values of the multi-heap positions it can reach. [`MisereSolver`] computes them
//! exactly, memoized by position, for positions made of game heaps plus Nim heaps of size 1
//! and 2 (the extra `*2`s are what Conway's genus adds, see [`genus`](super::genus)).
//!
//! Reductions (both exact, since they replace a heap by an isomorphic game):
//! * a heap with no move is the game 0 and is dropped (a Dawson's Kayles heap of 1);
//! * a heap whose options are exactly {0} is `*1`, and one whose options are exactly
//!   {0, *1} is `*2`; such heaps are counted with the Nim heaps (Kayles heaps of 1 and 2).
//!
//! How far it goes: the positions reachable from a heap of n are (roughly) the partitions of
//! numbers up to n, so the work grows like the partition numbers: a few thousand positions
//! for n = 20, some 10⁵ for n = 40 in splitting games. Games that never split reach only
//! single heaps and go much further. Heaps are limited to [`MAX_HEAP`].

use std::rc::Rc;

use crate::game::{HeapResult, HeapRules, heap_results};

use super::mex::FxHashMap;
use nimdb_core::mex::mex;

/// The largest heap the misère solver accepts.
pub const MAX_HEAP: u32 = 255;

/// What a single heap is, as a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Heap {
    /// No move: the game 0.
    Dead,
    /// Options exactly {0}: the Nim heap *1.
    Star1,
    /// Options exactly {0, *1}: the Nim heap *2.
    Star2,
    /// Anything else.
    Game,
}

/// A position as the solver keys it: the game heaps (interned, largest first) and how many
/// Nim heaps of size 1 and 2 are added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MixedPosition {
    part: u32,
    ones: u16,
    twos: u16,
}

impl MixedPosition {
    fn key(self) -> u64 {
        self.part as u64 | (self.ones as u64) << 32 | (self.twos as u64) << 48
    }

    /// The same position with `k` more Nim heaps of size 2.
    pub fn plus_twos(self, k: u16) -> Self {
        MixedPosition { twos: self.twos + k, ..self }
    }
}

/// One move of the game heaps of a position: to `part`, adding `ones` *1s and `twos` *2s.
type PartMove = (u32, u16, u16);

/// Memoized misère nim-values for one game.
pub struct MisereSolver<'r, R: HeapRules + ?Sized> {
    rules: &'r R,
    kind: Vec<Heap>,
    results: Vec<Vec<HeapResult>>,
    part_ids: FxHashMap<Box<[u8]>, u32>,
    parts: Vec<Box<[u8]>>,
    part_moves: Vec<Option<Rc<[PartMove]>>>,
    memo: FxHashMap<u64, u16>,
}

impl<'r, R: HeapRules + ?Sized> MisereSolver<'r, R> {
    /// A solver for the game with these rules.
    pub fn new(rules: &'r R) -> Self {
        let mut s = MisereSolver {
            rules,
            kind: vec![Heap::Dead],
            results: vec![Vec::new()],
            part_ids: FxHashMap::default(),
            parts: Vec::new(),
            part_moves: Vec::new(),
            memo: FxHashMap::default(),
        };
        s.intern(Vec::new());
        s
    }

    /// How many positions have a memoized value.
    pub fn positions(&self) -> usize {
        self.memo.len()
    }

    fn intern(&mut self, heaps: Vec<u8>) -> u32 {
        if let Some(&id) = self.part_ids.get(heaps.as_slice()) {
            return id;
        }
        let id = self.parts.len() as u32;
        let boxed: Box<[u8]> = heaps.into_boxed_slice();
        self.part_ids.insert(boxed.clone(), id);
        self.parts.push(boxed);
        self.part_moves.push(None);
        id
    }

    /// Classifies heap sizes up to `n` (each needs the smaller ones).
    fn prepare(&mut self, n: u32) {
        assert!(n <= MAX_HEAP, "the misère solver handles heaps up to {MAX_HEAP}, not {n}");
        while self.kind.len() as u32 <= n {
            let h = self.kind.len() as u32;
            let results = heap_results(self.rules, h);
            let opts: Vec<MixedPosition> =
                results.iter().map(|r| self.normalize(&[], result_heaps(*r))).collect();
            let zero = MixedPosition { part: 0, ones: 0, twos: 0 };
            let one = MixedPosition { part: 0, ones: 1, twos: 0 };
            let kind = if opts.is_empty() {
                Heap::Dead
            } else if opts.iter().all(|&o| o == zero) {
                Heap::Star1
            } else if opts.iter().all(|&o| o == zero || o == one)
                && opts.contains(&one)
                && opts.contains(&zero)
            {
                Heap::Star2
            } else {
                Heap::Game
            };
            self.kind.push(kind);
            self.results.push(results);
        }
    }

    /// The position made of the game heaps `kept` (already game heaps, any order) and the
    /// heaps `extra` (any sizes, classified), as the solver keys it.
    fn normalize(&mut self, kept: &[u8], extra: impl IntoIterator<Item = u32>) -> MixedPosition {
        let mut heaps: Vec<u8> = kept.to_vec();
        let (mut ones, mut twos) = (0u16, 0u16);
        for h in extra {
            match self.kind[h as usize] {
                Heap::Dead => {}
                Heap::Star1 => ones += 1,
                Heap::Star2 => twos += 1,
                Heap::Game => heaps.push(h as u8),
            }
        }
        heaps.sort_unstable_by(|a, b| b.cmp(a));
        MixedPosition { part: self.intern(heaps), ones, twos }
    }

    /// The key of a position given by its heaps (any order, zeros allowed).
    pub fn position(&mut self, heaps: &[u32]) -> MixedPosition {
        let max = heaps.iter().copied().max().unwrap_or(0);
        self.prepare(max);
        self.normalize(&[], heaps.iter().copied().filter(|&h| h > 0))
    }

    fn moves(&mut self, part: u32) -> Rc<[PartMove]> {
        if let Some(m) = &self.part_moves[part as usize] {
            return m.clone();
        }
        let heaps = self.parts[part as usize].clone();
        let mut out: Vec<PartMove> = Vec::new();
        for i in 0..heaps.len() {
            if i > 0 && heaps[i] == heaps[i - 1] {
                continue;
            }
            let mut rest: Vec<u8> = heaps.to_vec();
            rest.remove(i);
            for r in self.results[heaps[i] as usize].clone() {
                let p = self.normalize(&rest, result_heaps(r));
                out.push((p.part, p.ones, p.twos));
            }
        }
        out.sort_unstable();
        out.dedup();
        let rc: Rc<[PartMove]> = out.into();
        self.part_moves[part as usize] = Some(rc.clone());
        rc
    }

    /// The misère nim-value of a keyed position.
    pub fn value_of(&mut self, p: MixedPosition) -> u32 {
        if let Some(&v) = self.memo.get(&p.key()) {
            return v as u32;
        }
        let mut seen: Vec<u32> = Vec::new();
        for &(part, ones, twos) in self.moves(p.part).iter() {
            seen.push(self.value_of(MixedPosition { part, ones: p.ones + ones, twos: p.twos + twos }));
        }
        if p.twos > 0 {
            seen.push(self.value_of(MixedPosition { ones: p.ones + 1, twos: p.twos - 1, ..p }));
            seen.push(self.value_of(MixedPosition { twos: p.twos - 1, ..p }));
        }
        if p.ones > 0 {
            seen.push(self.value_of(MixedPosition { ones: p.ones - 1, ..p }));
        }
        let v = if seen.is_empty() { 1 } else { mex(&mut seen) };
        self.memo.insert(p.key(), v as u16);
        v
    }

    /// The misère nim-value of the position with these heaps.
    pub fn value(&mut self, heaps: &[u32]) -> u32 {
        let p = self.position(heaps);
        self.value_of(p)
    }

    /// The misère nim-value of the single heap `n`.
    pub fn heap_value(&mut self, n: u32) -> u32 {
        self.value(&[n])
    }

    /// The children of a keyed position (moves in game heaps, then in the Nim heaps).
    pub fn children(&mut self, p: MixedPosition) -> Vec<MixedPosition> {
        let mut out: Vec<MixedPosition> = self
            .moves(p.part)
            .iter()
            .map(|&(part, ones, twos)| MixedPosition { part, ones: p.ones + ones, twos: p.twos + twos })
            .collect();
        if p.twos > 0 {
            out.push(MixedPosition { ones: p.ones + 1, twos: p.twos - 1, ..p });
            out.push(MixedPosition { twos: p.twos - 1, ..p });
        }
        if p.ones > 0 {
            out.push(MixedPosition { ones: p.ones - 1, ..p });
        }
        out
    }

    /// The normal-play nim-value of a keyed position, given the single-heap sequence `g`.
    pub fn normal_value(&self, p: MixedPosition, g: &[u32]) -> u32 {
        let heaps = self.parts[p.part as usize].iter().fold(0, |x, &h| x ^ g[h as usize]);
        heaps ^ (p.ones as u32 & 1) ^ (2 * (p.twos as u32 & 1))
    }

    /// The game heaps of a keyed position with its *1 and *2 counts, for display.
    pub fn describe(&self, p: MixedPosition) -> (Vec<u32>, u16, u16) {
        (self.parts[p.part as usize].iter().map(|&h| h as u32).collect(), p.ones, p.twos)
    }
}

fn result_heaps(r: HeapResult) -> impl Iterator<Item = u32> {
    let parts = r.parts().to_vec();
    parts.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bouton::misere_nim_loss;
    use crate::game::{GameSpec, Position, all_moves};
    use std::collections::HashMap;

    fn spec(s: &str) -> GameSpec {
        s.parse().unwrap()
    }

    /// Independent misère outcome by plain memoized search over whole positions.
    fn brute_loss(rules: &crate::game::HeapFamily, p: &Position, memo: &mut HashMap<Position, bool>) -> bool {
        if let Some(&l) = memo.get(p) {
            return l;
        }
        let moves = all_moves(rules, p);
        let loss = !moves.is_empty() && moves.iter().all(|m| !brute_loss(rules, &m.apply(p), memo));
        memo.insert(p.clone(), loss);
        loss
    }

    #[test]
    fn misere_nim_values() {
        let nim = spec("nim");
        let mut s = MisereSolver::new(nim.heap_rules().unwrap());
        for heaps in
            [vec![], vec![1], vec![1, 1], vec![2], vec![3, 2], vec![1, 1, 1], vec![5, 4, 1], vec![6, 6]]
        {
            let v = s.value(&heaps);
            let xor = heaps.iter().fold(0, |x, &h| x ^ h);
            let want = if heaps.iter().any(|&h| h >= 2) { xor } else { xor ^ 1 };
            assert_eq!(v, want, "{heaps:?}");
            assert_eq!(v == 0, misere_nim_loss(&heaps));
        }
    }

    #[test]
    fn losses_match_brute_force() {
        for game in ["kayles", "dawson", "grundy", "octal:0.137", "lines", "subtraction:1,3,4"] {
            let sp = spec(game);
            let mut s = MisereSolver::new(sp.heap_rules().unwrap());
            let mut memo = HashMap::new();
            for heaps in
                [vec![7], vec![9], vec![4, 3], vec![5, 2, 1], vec![6, 6], vec![3, 3, 3], vec![8, 1, 1]]
            {
                let p = Position::new(heaps.clone());
                assert_eq!(
                    s.value(&heaps) == 0,
                    brute_loss(sp.heap_rules().unwrap(), &p, &mut memo),
                    "{game} {heaps:?}"
                );
            }
        }
    }

    #[test]
    fn kayles_small_heaps() {
        let k = spec("kayles");
        let mut s = MisereSolver::new(k.heap_rules().unwrap());
        // [] = 1; heap 1 = *1 → 0; heap 2 = *2 → 2; heap 3 → mex{2, 0, value([1,1]) = 1} = 3.
        let v: Vec<u32> = (0..4).map(|n| s.heap_value(n)).collect();
        assert_eq!(v, [1, 0, 2, 3]);
    }
}
