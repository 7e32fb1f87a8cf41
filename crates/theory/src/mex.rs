//! Small sets used by mex loops: a set cleared in O(1) between heaps, an insert-only set that
//! finds the next absent value quickly, and a fast hasher for memo tables. The mex of a list
//! is nimdb-core's ([`nimdb_core::mex::mex`]).

use std::hash::{BuildHasherDefault, Hasher};

/// A set of small values, cleared in O(1) between heaps: each member carries the stamp of
/// the round it was inserted in.
#[derive(Clone, Debug)]
pub(crate) struct StampSet {
    stamp: Vec<u32>,
    now: u32,
}

impl StampSet {
    /// An empty set.
    pub(crate) fn new() -> Self {
        StampSet { stamp: vec![0; 64], now: 1 }
    }

    /// Empties the set.
    #[inline]
    pub(crate) fn clear(&mut self) {
        if self.now == u32::MAX {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.now = 0;
        }
        self.now += 1;
    }

    /// Adds `v`.
    #[inline]
    pub(crate) fn insert(&mut self, v: u32) {
        let v = v as usize;
        if v >= self.stamp.len() {
            self.stamp.resize((v + 1).next_power_of_two(), 0);
        }
        self.stamp[v] = self.now;
    }

    /// Whether `v` was added since the last [`clear`](Self::clear).
    #[inline]
    pub(crate) fn contains(&self, v: u32) -> bool {
        self.stamp.get(v as usize).is_some_and(|&s| s == self.now)
    }

    /// The least value not in the set (the mex).
    pub(crate) fn mex(&self) -> u32 {
        let mut v = 0;
        while self.contains(v) {
            v += 1;
        }
        v
    }
}

/// An insert-only set of values that answers "the least absent value ≥ v" in near-constant
/// amortised time (a union–find over "next absent" pointers). Used for the options an
/// infinite octal digit adds, which only ever grow from one heap to the next.
#[derive(Clone, Debug, Default)]
pub(crate) struct GrowingSet {
    /// `next[v] == v` when `v` is absent; otherwise a pointer to a larger value, on the way
    /// to the next absent one.
    next: Vec<u32>,
}

impl GrowingSet {
    /// An empty set.
    pub(crate) fn new() -> Self {
        GrowingSet { next: Vec::new() }
    }

    fn grow(&mut self, len: usize) {
        if len > self.next.len() {
            let start = self.next.len() as u32;
            let new_len = len.next_power_of_two();
            self.next.extend(start..new_len as u32);
        }
    }

    /// Adds `v`.
    pub(crate) fn insert(&mut self, v: u32) {
        self.grow(v as usize + 2);
        if self.next[v as usize] == v {
            self.next[v as usize] = v + 1;
        }
    }

    /// Whether `v` is in the set.
    #[inline]
    pub(crate) fn contains(&self, v: u32) -> bool {
        self.next.get(v as usize).is_some_and(|&n| n != v)
    }

    /// The least value ≥ `v` that is not in the set.
    pub(crate) fn next_absent(&mut self, v: u32) -> u32 {
        let mut root = v;
        while (root as usize) < self.next.len() && self.next[root as usize] != root {
            root = self.next[root as usize];
        }
        let mut x = v;
        while (x as usize) < self.next.len() && self.next[x as usize] != x {
            let up = self.next[x as usize];
            self.next[x as usize] = root;
            x = up;
        }
        root
    }
}

/// A fast, non-cryptographic hasher (the multiply–rotate scheme used by rustc) for memo
/// tables keyed by small integers and byte strings.
#[derive(Clone, Copy, Default)]
pub(crate) struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `HashMap` with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_set_clears_in_rounds() {
        let mut s = StampSet::new();
        s.insert(0);
        s.insert(1);
        s.insert(300);
        assert_eq!(s.mex(), 2);
        assert!(s.contains(300));
        s.clear();
        assert!(!s.contains(300));
        assert_eq!(s.mex(), 0);
    }

    #[test]
    fn growing_set_finds_next_absent() {
        let mut s = GrowingSet::new();
        for v in [0, 1, 2, 5, 6, 3] {
            s.insert(v);
        }
        assert_eq!(s.next_absent(0), 4);
        assert_eq!(s.next_absent(5), 7);
        assert_eq!(s.next_absent(4), 4);
        assert!(s.contains(3) && !s.contains(4) && !s.contains(1000));
        s.insert(4);
        assert_eq!(s.next_absent(0), 7);
    }
}
