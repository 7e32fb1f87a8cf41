//! Positions of a closure as words: how many copies of each heap a position holds.
//!
//! Words are ordered by their largest heap first: the word with more copies of the largest
//! heap where they differ is the larger. Every option of a position is smaller than the
//! position in this order (a move replaces one heap by smaller ones), and the order is a
//! monomial order (W < W′ implies W + Y < W′ + Y), which is what lets the failure search
//! and the marking of a candidate walk positions in increasing order and stop early.

use std::cmp::Ordering;
use std::fmt;

/// A position as the number of copies of each heap size (index = heap size).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Word {
    /// `exps[h]` copies of heap h; no trailing zeros.
    exps: Vec<u32>,
}

impl Word {
    /// The empty position.
    pub fn zero() -> Self {
        Word::default()
    }

    /// The word with these multiplicities (trailing zeros are dropped).
    pub fn from_exponents(exps: &[u32]) -> Self {
        let len = exps.iter().rposition(|&e| e != 0).map_or(0, |i| i + 1);
        Word { exps: exps[..len].to_vec() }
    }

    /// The word of a list of heaps (zeros ignored).
    pub fn from_heaps(heaps: &[u32]) -> Self {
        let mut exps = Vec::new();
        for &h in heaps.iter().filter(|&&h| h > 0) {
            if exps.len() <= h as usize {
                exps.resize(h as usize + 1, 0);
            }
            exps[h as usize] += 1;
        }
        Word::from_exponents(&exps)
    }

    /// Copies of heap `h`.
    pub fn exponent(&self, h: u32) -> u32 {
        self.exps.get(h as usize).copied().unwrap_or(0)
    }

    /// The heap sizes present, increasing.
    pub fn heaps_present(&self) -> Vec<u32> {
        (0..self.exps.len() as u32).filter(|&h| h > 0 && self.exps[h as usize] > 0).collect()
    }

    /// The heaps, one entry per copy, increasing.
    pub fn heaps(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (h, &e) in self.exps.iter().enumerate() {
            out.extend(std::iter::repeat_n(h as u32, e as usize));
        }
        out
    }
}

impl Ord for Word {
    fn cmp(&self, other: &Self) -> Ordering {
        self.exps
            .len()
            .cmp(&other.exps.len())
            .then_with(|| self.exps.iter().rev().cmp(other.exps.iter().rev()))
    }
}

impl PartialOrd for Word {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Word {
    /// As a heap list, largest first: `[33,25,14]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut hs = self.heaps();
        hs.reverse();
        let parts: Vec<String> = hs.iter().map(|h| h.to_string()).collect();
        write!(f, "[{}]", parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_smaller_and_the_order_is_monomial() {
        let w = Word::from_heaps(&[5, 3]);
        // 5 → 2 + 2 (a split) gives a smaller word.
        assert!(Word::from_heaps(&[3, 2, 2]) < w);
        assert!(Word::from_heaps(&[4, 4, 4, 3]) < w);
        assert!(Word::from_heaps(&[5, 1]) < w);
        assert!(Word::from_heaps(&[5, 3, 1]) > w);
        let y = Word::from_heaps(&[7, 2]);
        let a = Word::from_heaps(&[4, 4, 4]);
        let b = Word::from_heaps(&[5]);
        assert!(a < b);
        let ay = Word::from_heaps(&[4, 4, 4, 7, 2]);
        let by = Word::from_heaps(&[5, 7, 2]);
        assert!(ay < by);
        assert_eq!(y.to_string(), "[7,2]");
        assert_eq!(Word::from_exponents(&[0, 2, 0, 0]), Word::from_heaps(&[1, 1]));
    }
}
