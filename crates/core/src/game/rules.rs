//! Heap rules: how one heap may be replaced by zero, one, two or three heaps.

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
    /// Whether a heap of size `heap` may be replaced by three nonempty heaps
    /// `a ≥ b ≥ c ≥ 1`, with `a + b + c ≤ heap` (hexadecimal codes). None by default.
    fn leaves_three(&self, _heap: u32, _a: u32, _b: u32, _c: u32) -> bool {
        false
    }
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
    /// Whether any move leaves three heaps.
    fn splits_three(&self) -> bool {
        false
    }
    /// Whether some move that removes exactly `taken` tokens may leave three heaps.
    fn splits_three_taking(&self, _taken: u32) -> bool {
        self.splits_three()
    }
    /// Whether these are the rules of Nim (so Bouton's theorem applies).
    fn is_nim(&self) -> bool {
        false
    }
}

/// A take-and-break code `d0.d1d2d3…`, octal or hexadecimal, optionally with a last digit
/// repeated forever.
///
/// Digit `d_k` says what removing `k` tokens from a heap may leave: bit 1 nothing (only when
/// the heap has exactly `k`), bit 2 one heap, bit 4 two nonempty heaps, bit 8 three
/// nonempty heaps. Octal codes are the codes without bit 8; a code with bit 8 somewhere is
/// hexadecimal. `d0` is 0 or 4 (or 8 or C for hexadecimal codes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TakeBreakCode {
    /// `d0` followed by the finite digits `d1..dn` (trailing copies of `repeat` stripped).
    digits: Vec<u8>,
    /// The digit repeated forever after the finite part, if any (never 0).
    repeat: Option<u8>,
}

/// Why a take-and-break code is not a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// `d0` may only say "split without taking".
    #[error("the first digit d0 must be 0 or 4 (or 8 or C in a hexadecimal code), not {0:X}")]
    BadFirstDigit(u8),
    /// A digit above F.
    #[error("{0} is not a hexadecimal digit (0-F)")]
    NotADigit(u32),
    /// Every digit is 0.
    #[error("this code allows no move at all")]
    NoMove,
    /// A subtraction set with no numbers.
    #[error("a subtraction set needs at least one number")]
    EmptySet,
    /// A subtraction set containing 0.
    #[error("a subtraction set may not contain 0")]
    ZeroInSet,
}

impl TakeBreakCode {
    /// Builds a code from `d0`, the finite digits `d1..dn` and an optional repeated digit,
    /// normalising it (a repeated 0 is dropped, trailing digits equal to the repeated digit
    /// or trailing zeros are stripped), so that equal games have equal codes.
    pub fn new(d0: u8, finite: &[u8], repeat: Option<u8>) -> Result<Self, CodeError> {
        if d0 & 3 != 0 || d0 > 15 {
            return Err(CodeError::BadFirstDigit(d0));
        }
        if let Some(&bad) = finite.iter().find(|&&d| d > 15) {
            return Err(CodeError::NotADigit(bad as u32));
        }
        let repeat = match repeat {
            Some(d) if d > 15 => return Err(CodeError::NotADigit(d as u32)),
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
            return Err(CodeError::NoMove);
        }
        Ok(TakeBreakCode { digits, repeat })
    }

    /// Nim: `0.[3]`.
    pub fn nim() -> Self {
        TakeBreakCode::new(0, &[], Some(3)).unwrap()
    }

    /// The subtraction game with set `set`: digit 3 at every `s ∈ set`.
    pub fn subtraction(set: &[u32]) -> Result<Self, CodeError> {
        let max = *set.iter().max().ok_or(CodeError::EmptySet)?;
        let mut finite = vec![0u8; max as usize];
        for &s in set {
            if s == 0 {
                return Err(CodeError::ZeroInSet);
            }
            finite[s as usize - 1] = 3;
        }
        TakeBreakCode::new(0, &finite, None)
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

    /// Whether this is an octal code (no digit has bit 8: no heap splits in three).
    pub fn is_octal(&self) -> bool {
        self.digits.iter().chain(self.repeat.iter()).all(|&d| d & 8 == 0)
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

impl fmt::Display for TakeBreakCode {
    /// Octal codes print their octal digits (`0.77`); hexadecimal codes print digits 0-F
    /// (`0.F`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}.", self.digits[0])?;
        for d in &self.digits[1..] {
            write!(f, "{d:X}")?;
        }
        if let Some(r) = self.repeat {
            write!(f, "[{r:X}]")?;
        }
        Ok(())
    }
}

impl HeapRules for TakeBreakCode {
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
    #[inline]
    fn leaves_three(&self, heap: u32, a: u32, b: u32, c: u32) -> bool {
        c >= 1 && a >= b && b >= c && a + b + c <= heap && self.digit(heap - a - b - c) & 8 != 0
    }
    fn splits(&self) -> bool {
        self.digits.iter().chain(self.repeat.iter()).any(|d| d & 4 != 0)
    }
    fn splits_three(&self) -> bool {
        !self.is_octal()
    }
    fn max_take(&self) -> Option<u32> {
        self.last_nonzero()
    }
    #[inline]
    fn splits_taking(&self, taken: u32) -> bool {
        self.digit(taken) & 4 != 0
    }
    #[inline]
    fn splits_three_taking(&self, taken: u32) -> bool {
        self.digit(taken) & 8 != 0
    }
    fn is_nim(&self) -> bool {
        self.digits == [0] && self.repeat == Some(3)
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

/// The heap-rule families nimdb knows, as one value: games in which a move changes one
/// heap. Theory tools (nim-values, genus, periodicity) take these.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeapFamily {
    /// A take-and-break code, octal or hexadecimal (covers Nim and subtraction games).
    TakeBreak(TakeBreakCode),
    /// Grundy's game.
    Grundy(GrundyRules),
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            HeapFamily::TakeBreak($r) => $e,
            HeapFamily::Grundy($r) => $e,
        }
    };
}

impl HeapRules for HeapFamily {
    #[inline]
    fn vanishes(&self, heap: u32) -> bool {
        dispatch!(self, r => r.vanishes(heap))
    }
    #[inline]
    fn leaves_one(&self, heap: u32, left: u32) -> bool {
        dispatch!(self, r => r.leaves_one(heap, left))
    }
    #[inline]
    fn leaves_two(&self, heap: u32, a: u32, b: u32) -> bool {
        dispatch!(self, r => r.leaves_two(heap, a, b))
    }
    #[inline]
    fn leaves_three(&self, heap: u32, a: u32, b: u32, c: u32) -> bool {
        dispatch!(self, r => r.leaves_three(heap, a, b, c))
    }
    fn splits(&self) -> bool {
        dispatch!(self, r => r.splits())
    }
    fn splits_three(&self) -> bool {
        dispatch!(self, r => r.splits_three())
    }
    fn max_take(&self) -> Option<u32> {
        dispatch!(self, r => r.max_take())
    }
    fn splits_taking(&self, taken: u32) -> bool {
        dispatch!(self, r => r.splits_taking(taken))
    }
    fn splits_three_taking(&self, taken: u32) -> bool {
        dispatch!(self, r => r.splits_three_taking(taken))
    }
    fn is_nim(&self) -> bool {
        dispatch!(self, r => r.is_nim())
    }
}
