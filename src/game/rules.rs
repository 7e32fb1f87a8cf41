//! Heap rules: how one heap may be replaced by zero, one or two heaps.

use std::fmt;

/// The rules of a heap game, stated for one heap.
///
/// A move picks one heap of size `heap` and replaces it by nothing ([`vanishes`]), by one
/// smaller heap ([`leaves_one`]) or by two nonempty heaps ([`leaves_two`]). These three
/// predicates are the whole game: forward moves, the retrograde solver's un-moves and the
/// theory tools are all derived from them. Implementations must be cheap, since the solver
/// calls them in its inner loops.
///
/// [`vanishes`]: HeapRules::vanishes
/// [`leaves_one`]: HeapRules::leaves_one
/// [`leaves_two`]: HeapRules::leaves_two
pub trait HeapRules: Send + Sync {
    /// Whether a heap of size `heap` (≥ 1) may be removed entirely.
    fn vanishes(&self, heap: u32) -> bool;
    /// Whether a heap of size `heap` may be reduced to one heap of size `left`, 1 ≤ left < heap.
    fn leaves_one(&self, heap: u32, left: u32) -> bool;
    /// Whether a heap of size `heap` may be replaced by two nonempty heaps `a ≥ b ≥ 1`,
    /// with `a + b ≤ heap`.
    fn leaves_two(&self, heap: u32, a: u32, b: u32) -> bool;
    /// Whether any move leaves two heaps. A cap on the number of heaps is only closed under
    /// moves for games that never split.
    fn splits(&self) -> bool;
    /// Whether some move that removes exactly `taken` tokens may leave two heaps. Lets the
    /// solver skip whole families of splits; the default is [`splits`](HeapRules::splits).
    fn splits_taking(&self, _taken: u32) -> bool {
        self.splits()
    }
    /// The most tokens one move can remove, or `None` when unbounded (a heap may vanish or
    /// shrink by any amount). Bounds how far apart in total a position and its children are.
    fn max_take(&self) -> Option<u32>;
}

/// An octal take-and-break code `d0.d1d2d3…`, optionally with a last digit repeated forever.
///
/// Digit `d_k` says what removing `k` tokens from a heap may leave: bit 1 nothing (only when
/// the heap has exactly `k`), bit 2 one heap, bit 4 two nonempty heaps. `d0` is 0 or 4.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OctalCode {
    /// `d0` followed by the finite digits `d1..dn` (trailing copies of `repeat` stripped).
    digits: Vec<u8>,
    /// The digit repeated forever after the finite part, if any (never 0).
    repeat: Option<u8>,
}

impl OctalCode {
    /// Builds a code from `d0`, the finite digits `d1..dn` and an optional repeated digit,
    /// normalising it (a repeated 0 is dropped, trailing digits equal to the repeated digit
    /// or trailing zeros are stripped), so that equal games have equal codes.
    pub fn new(d0: u8, finite: &[u8], repeat: Option<u8>) -> Result<Self, String> {
        if d0 != 0 && d0 != 4 {
            return Err(format!("the first octal digit d0 must be 0 or 4, not {d0}"));
        }
        if let Some(&bad) = finite.iter().find(|&&d| d > 7) {
            return Err(format!("{bad} is not an octal digit (0-7)"));
        }
        let repeat = match repeat {
            Some(d) if d > 7 => return Err(format!("{d} is not an octal digit (0-7)")),
            Some(0) => None,
            r => r,
        };
        let mut digits = Vec::with_capacity(finite.len() + 1);
        digits.push(d0);
        digits.extend_from_slice(finite);
        let tail = repeat.unwrap_or(0);
        while digits.len() > 1 && *digits.last().unwrap() == tail {
            digits.pop();
        }
        if repeat.is_none() && digits.iter().all(|&d| d == 0) {
            return Err("this octal code allows no move at all".to_string());
        }
        Ok(OctalCode { digits, repeat })
    }

    /// Nim: `0.[3]`.
    pub fn nim() -> Self {
        OctalCode::new(0, &[], Some(3)).unwrap()
    }

    /// The subtraction game with set `set`: digit 3 at every `s ∈ set`.
    pub fn subtraction(set: &[u32]) -> Result<Self, String> {
        let max = *set.iter().max().ok_or("a subtraction set needs at least one number")?;
        let mut finite = vec![0u8; max as usize];
        for &s in set {
            if s == 0 {
                return Err("a subtraction set may not contain 0".to_string());
            }
            finite[s as usize - 1] = 3;
        }
        OctalCode::new(0, &finite, None)
    }

    /// Digit `d_k`.
    #[inline]
    pub fn digit(&self, k: u32) -> u8 {
        match self.digits.get(k as usize) {
            Some(&d) => d,
            None => self.repeat.unwrap_or(0),
        }
    }

    /// The finite digits `d0, d1, …, dn`.
    pub fn finite_digits(&self) -> &[u8] {
        &self.digits
    }

    /// The repeated digit, if the code is infinite.
    pub fn repeat(&self) -> Option<u8> {
        self.repeat
    }

    /// For a finite code, the position of its last nonzero digit (Guy–Smith's `k`).
    pub fn last_nonzero(&self) -> Option<u32> {
        if self.repeat.is_some() {
            return None;
        }
        Some(self.digits.len() as u32 - 1)
    }

    /// If this code is a subtraction game (only digits 0 and 3, `d0 = 0`, finite), its set.
    pub fn as_subtraction_set(&self) -> Option<Vec<u32>> {
        if self.repeat.is_some() || self.digits[0] != 0 {
            return None;
        }
        if self.digits[1..].iter().any(|&d| d != 0 && d != 3) {
            return None;
        }
        Some((1..self.digits.len() as u32).filter(|&k| self.digit(k) == 3).collect())
    }
}

impl fmt::Display for OctalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.", self.digits[0])?;
        for d in &self.digits[1..] {
            write!(f, "{d}")?;
        }
        if let Some(r) = self.repeat {
            write!(f, "[{r}]")?;
        }
        Ok(())
    }
}

impl HeapRules for OctalCode {
    #[inline]
    fn vanishes(&self, heap: u32) -> bool {
        heap >= 1 && self.digit(heap) & 1 != 0
    }
    #[inline]
    fn leaves_one(&self, heap: u32, left: u32) -> bool {
        left >= 1 && left < heap && self.digit(heap - left) & 2 != 0
    }
    #[inline]
    fn leaves_two(&self, heap: u32, a: u32, b: u32) -> bool {
        b >= 1 && a >= b && a + b <= heap && self.digit(heap - a - b) & 4 != 0
    }
    fn splits(&self) -> bool {
        self.digits.iter().any(|d| d & 4 != 0) || self.repeat.is_some_and(|d| d & 4 != 0)
    }
    fn max_take(&self) -> Option<u32> {
        self.last_nonzero()
    }
    #[inline]
    fn splits_taking(&self, taken: u32) -> bool {
        self.digit(taken) & 4 != 0
    }
}

/// Grundy's game: split one heap into two unequal nonempty heaps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GrundyRules;

impl HeapRules for GrundyRules {
    #[inline]
    fn vanishes(&self, _heap: u32) -> bool {
        false
    }
    #[inline]
    fn leaves_one(&self, _heap: u32, _left: u32) -> bool {
        false
    }
    #[inline]
    fn leaves_two(&self, heap: u32, a: u32, b: u32) -> bool {
        b >= 1 && a > b && a + b == heap
    }
    fn splits(&self) -> bool {
        true
    }
    fn max_take(&self) -> Option<u32> {
        Some(0)
    }
    #[inline]
    fn splits_taking(&self, taken: u32) -> bool {
        taken == 0
    }
}

/// The rule families nimdb knows, as one value. Hot loops dispatch once on this enum (see
/// [`Rules::with`]) and then run code monomorphised for the concrete rule type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    /// An octal take-and-break code (covers Nim and subtraction games).
    Octal(OctalCode),
    /// Grundy's game.
    Grundy(GrundyRules),
}

/// A computation generic over the rule type, run by [`Rules::with`].
pub trait RulesVisitor {
    /// What the computation returns.
    type Output;
    /// Runs the computation for the concrete rules `rules`.
    fn visit<R: HeapRules>(self, rules: &R) -> Self::Output;
}

impl Rules {
    /// Runs `visitor` with the concrete rule type, so its inner loops are monomorphised.
    pub fn with<V: RulesVisitor>(&self, visitor: V) -> V::Output {
        match self {
            Rules::Octal(code) => visitor.visit(code),
            Rules::Grundy(g) => visitor.visit(g),
        }
    }
}

impl HeapRules for Rules {
    #[inline]
    fn vanishes(&self, heap: u32) -> bool {
        match self {
            Rules::Octal(c) => c.vanishes(heap),
            Rules::Grundy(g) => g.vanishes(heap),
        }
    }
    #[inline]
    fn leaves_one(&self, heap: u32, left: u32) -> bool {
        match self {
            Rules::Octal(c) => c.leaves_one(heap, left),
            Rules::Grundy(g) => g.leaves_one(heap, left),
        }
    }
    #[inline]
    fn leaves_two(&self, heap: u32, a: u32, b: u32) -> bool {
        match self {
            Rules::Octal(c) => c.leaves_two(heap, a, b),
            Rules::Grundy(g) => g.leaves_two(heap, a, b),
        }
    }
    fn splits(&self) -> bool {
        match self {
            Rules::Octal(c) => c.splits(),
            Rules::Grundy(g) => g.splits(),
        }
    }
    fn max_take(&self) -> Option<u32> {
        match self {
            Rules::Octal(c) => c.max_take(),
            Rules::Grundy(g) => g.max_take(),
        }
    }
    fn splits_taking(&self, taken: u32) -> bool {
        match self {
            Rules::Octal(c) => c.splits_taking(taken),
            Rules::Grundy(g) => g.splits_taking(taken),
        }
    }
}
