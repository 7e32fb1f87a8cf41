//! The shape of a game's heap moves, in the form the fast nim-value engines need: which
//! removals leave nothing, one heap or two heaps, each as a finite list plus an optional
//! "every removal from here on" tail.
//!
//! [`HeapRules`](crate::game::HeapRules) answers yes/no questions about single moves; the
//! engines in [`sparse`](super::sparse) need the moves *listed by removal*, so that a heap's
//! options can be enumerated without testing every pair of parts. Every rule family nimdb knows
//! ([`Rules`](crate::game::Rules)) has such a shape.

use crate::game::{HeapFamily, TakeBreakCode};

/// What removing tokens from a heap may leave, listed by removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapShape {
    /// Heap sizes that may be removed entirely (finite part, ascending).
    pub vanish: Vec<u32>,
    /// Every heap of at least this size may be removed entirely.
    pub vanish_from: Option<u32>,
    /// Removals `k ≥ 1` that may leave one nonempty heap of size `n - k` (ascending).
    pub take_one: Vec<u32>,
    /// Every removal `k ≥` this may leave one nonempty heap.
    pub take_one_from: Option<u32>,
    /// Removals `k ≥ 0` that may leave two nonempty heaps with sizes adding to `n - k`.
    pub split: Vec<u32>,
    /// Every removal `k ≥` this may leave two nonempty heaps.
    pub split_from: Option<u32>,
    /// Whether the two heaps left by a split may be equal (false for Grundy's game).
    pub equal_parts: bool,
    /// Whether some move leaves three heaps (hexadecimal codes). The sparse engine and the
    /// periodicity certificates do not cover such games; they take the plain mex.
    pub three_way: bool,
}

impl HeapShape {
    /// The shape of any rule family nimdb knows.
    pub fn of(rules: &HeapFamily) -> Self {
        match rules {
            HeapFamily::TakeBreak(code) => HeapShape::octal(code),
            HeapFamily::Grundy(_) => HeapShape::grundy(),
        }
    }

    /// The shape of a take-and-break code (bit 8, three heaps, only flagged): digit `d_k` bit 1 → a heap of exactly `k` may vanish,
    /// bit 2 → removing `k` may leave one heap, bit 4 → removing `k` may leave two.
    pub fn octal(code: &TakeBreakCode) -> Self {
        let digits = code.finite_digits();
        let len = digits.len() as u32;
        let mut shape = HeapShape {
            vanish: Vec::new(),
            vanish_from: None,
            take_one: Vec::new(),
            take_one_from: None,
            split: Vec::new(),
            split_from: None,
            equal_parts: true,
            three_way: !code.is_octal(),
        };
        for (k, &d) in digits.iter().enumerate() {
            let k = k as u32;
            if k >= 1 && d & 1 != 0 {
                shape.vanish.push(k);
            }
            if k >= 1 && d & 2 != 0 {
                shape.take_one.push(k);
            }
            if d & 4 != 0 {
                shape.split.push(k);
            }
        }
        if let Some(r) = code.repeat() {
            let from = len.max(1);
            if r & 1 != 0 {
                shape.vanish_from = Some(from);
            }
            if r & 2 != 0 {
                shape.take_one_from = Some(from);
            }
            if r & 4 != 0 {
                shape.split_from = Some(len);
            }
        }
        shape
    }

    /// Grundy's game: split a heap into two unequal nonempty heaps, removing nothing.
    pub fn grundy() -> Self {
        HeapShape {
            vanish: Vec::new(),
            vanish_from: None,
            take_one: Vec::new(),
            take_one_from: None,
            split: vec![0],
            split_from: None,
            equal_parts: false,
            three_way: false,
        }
    }

    /// Whether a heap of size `n` may vanish.
    #[inline]
    pub fn vanishes(&self, n: u32) -> bool {
        self.vanish_from.is_some_and(|f| n >= f) || self.vanish.binary_search(&n).is_ok()
    }

    /// Whether every move removes a bounded number of tokens (no repeated digit).
    pub fn is_finite(&self) -> bool {
        self.vanish_from.is_none() && self.take_one_from.is_none() && self.split_from.is_none()
    }

    /// Whether some move splits a heap into two.
    pub fn splits(&self) -> bool {
        !self.split.is_empty() || self.split_from.is_some()
    }

    /// Whether the cost of one heap's options grows with the heap size beyond the sparse
    /// method's reach: a repeated digit that splits means every pair of parts with a small
    /// enough sum is an option, O(n²) work in all.
    pub fn quadratic(&self) -> bool {
        self.split_from.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;

    fn shape(game: &str) -> HeapShape {
        HeapShape::of(game.parse::<GameSpec>().unwrap().heap_rules().unwrap())
    }

    #[test]
    fn octal_shapes() {
        let k = shape("kayles");
        assert_eq!(
            (k.vanish.as_slice(), k.take_one.as_slice(), k.split.as_slice()),
            (&[1, 2][..], &[1, 2][..], &[1, 2][..])
        );
        assert!(k.is_finite() && k.equal_parts);
        let d = shape("dawson");
        assert_eq!(
            (d.vanish.as_slice(), d.take_one.as_slice(), d.split.as_slice()),
            (&[2][..], &[2][..], &[2][..])
        );
        let nim = shape("nim");
        assert_eq!((nim.vanish_from, nim.take_one_from, nim.split_from), (Some(1), Some(1), None));
        let lines = shape("lines");
        assert_eq!(lines.split_from, Some(1));
        assert!(lines.quadratic());
        let daisies = shape("octal:4.7");
        assert_eq!(daisies.split, vec![0, 1]);
        let s = shape("subtraction:2,3,7");
        assert_eq!(s.take_one, vec![2, 3, 7]);
        assert!(!s.splits());
        let g = shape("grundy");
        assert!(!g.equal_parts && g.split == vec![0]);
    }
}
