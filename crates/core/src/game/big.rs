//! Positions and moves with heaps of any size that fits in u64.
//!
//! A [`Position`] holds heaps of at most [`MAX_INPUT_HEAP`] tokens: what a database, a solve
//! or a table of nim-values can reach. Theorems (Bouton's rule, Moore's theorem, Wythoff's
//! pairs, a misère quotient with a proven period) decide positions of any size, so the
//! theory path reads and answers positions as [`BigPosition`]s and their moves as
//! [`BigMove`]s. Both print exactly as their bounded counterparts do.

use std::fmt;
use std::str::FromStr;

use super::moves::{HeapResult, Move, describe_parts, join_and};
use super::position::{HeapListError, MAX_INPUT_HEAP, Position, parse_counts};

/// A position whose heaps may be as large as `u64::MAX`: the multiset of heap sizes, sorted
/// largest first, with no zero heaps.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BigPosition(Vec<u64>);

impl BigPosition {
    /// The canonical position holding these heaps (zeros dropped, sorted largest first).
    pub fn new(mut heaps: Vec<u64>) -> Self {
        heaps.retain(|&h| h != 0);
        heaps.sort_unstable_by(|a, b| b.cmp(a));
        BigPosition(heaps)
    }

    /// The heaps, largest first.
    pub fn heaps(&self) -> &[u64] {
        &self.0
    }

    /// The number of heaps.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no heaps.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The total number of tokens.
    pub fn total(&self) -> u128 {
        self.0.iter().map(|&h| h as u128).sum()
    }

    /// The largest heap, 0 for the empty position.
    pub fn largest(&self) -> u64 {
        self.0.first().copied().unwrap_or(0)
    }

    /// The same position as a [`Position`], when every heap is at most [`MAX_INPUT_HEAP`]
    /// (the positions databases, solves and nim-value tables reach).
    pub fn narrow(&self) -> Option<Position> {
        (self.largest() <= MAX_INPUT_HEAP as u64)
            .then(|| Position::from_sorted(self.0.iter().map(|&h| h as u32).collect()))
    }

    /// Parses a heap list from command-line words, as [`Position::parse_words`] does, with
    /// heaps up to `u64::MAX`.
    pub fn parse_words<S: AsRef<str>>(words: &[S]) -> Result<Self, HeapListError> {
        if let [word] = words {
            // One word (a batch line, a query string): read as it is, without a copy.
            return word.as_ref().parse();
        }
        let joined: Vec<&str> = words.iter().map(|w| w.as_ref()).collect();
        joined.join(" ").parse()
    }

    /// The heaps, largest first, as a vector (without a copy).
    pub fn into_heaps(self) -> Vec<u64> {
        self.0
    }
}

impl From<&Position> for BigPosition {
    fn from(p: &Position) -> Self {
        BigPosition(p.heaps().iter().map(|&h| h as u64).collect())
    }
}

impl FromStr for BigPosition {
    type Err = HeapListError;

    /// `3 4 7`, `3,4,7` or `[3,4,7]`, heaps up to `u64::MAX`; the same errors as
    /// [`Position`]'s parser otherwise.
    fn from_str(raw: &str) -> Result<Self, HeapListError> {
        Ok(BigPosition::new(parse_counts(raw)?))
    }
}

impl fmt::Display for BigPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, h) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{h}")?;
        }
        f.write_str("]")
    }
}

impl serde::Serialize for BigPosition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// One heap's part in a [`BigMove`]: the heap of size `heap` becomes `parts` (largest first;
/// empty when it vanishes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BigChange {
    /// The size of the heap moved in.
    pub heap: u64,
    /// What it becomes, largest first (at most three heaps, none when it vanishes).
    pub parts: Vec<u64>,
}

impl BigChange {
    /// The change that lowers a heap of `heap` tokens to `to` (`to < heap`; 0: it vanishes).
    pub fn lower(heap: u64, to: u64) -> Self {
        debug_assert!(to < heap);
        BigChange { heap, parts: if to == 0 { Vec::new() } else { vec![to] } }
    }

    /// Tokens this change removes.
    pub fn taken(&self) -> u64 {
        self.heap - self.parts.iter().sum::<u64>()
    }
}

/// A move on a [`BigPosition`]: one or more heaps change at once, listed larger heap first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BigMove {
    changes: Vec<BigChange>,
}

impl BigMove {
    /// The move made of these changes (at least one), listed larger heap first.
    pub fn of(mut changes: Vec<BigChange>) -> Self {
        debug_assert!(!changes.is_empty());
        changes.sort_by(|a, b| (b.heap, &b.parts).cmp(&(a.heap, &a.parts)));
        BigMove { changes }
    }

    /// The heaps changed and what each becomes, larger heap first.
    pub fn changes(&self) -> &[BigChange] {
        &self.changes
    }

    /// The largest heap moved in.
    pub fn heap(&self) -> u64 {
        self.changes[0].heap
    }

    /// The number of tokens this move removes (several heaps may together hold more than
    /// `u64::MAX`).
    pub fn taken(&self) -> u128 {
        self.changes.iter().map(|c| c.taken() as u128).sum()
    }

    /// The position after playing this move from `from` (which must hold the heaps it
    /// changes).
    pub fn apply(&self, from: &BigPosition) -> BigPosition {
        let mut heaps = from.heaps().to_vec();
        for c in &self.changes {
            let i = heaps.iter().position(|&h| h == c.heap).expect("move from a heap the position lacks");
            heaps.swap_remove(i);
        }
        for c in &self.changes {
            heaps.extend_from_slice(&c.parts);
        }
        BigPosition::new(heaps)
    }

    /// The move in words, as [`Move::describe`] puts it.
    pub fn describe(&self, from: &BigPosition) -> String {
        let to = self.apply(from);
        let parts: Vec<String> =
            self.changes.iter().map(|c| describe_parts(c.heap, c.taken(), &c.parts)).collect();
        format!("{} → {to}", join_and(&parts))
    }

    /// The same move as a [`Move`], when every heap it touches fits one.
    pub fn narrow(&self) -> Option<Move> {
        let fits = |h: u64| u32::try_from(h).ok();
        let mut changes = Vec::with_capacity(self.changes.len());
        for c in &self.changes {
            let parts: Vec<u32> = c.parts.iter().map(|&p| fits(p)).collect::<Option<_>>()?;
            changes.push(super::moves::HeapChange {
                heap: fits(c.heap)?,
                result: HeapResult::from_parts(&parts)?,
            });
        }
        Some(Move::of(changes))
    }
}

impl From<&Move> for BigMove {
    fn from(m: &Move) -> Self {
        BigMove {
            changes: m
                .changes()
                .iter()
                .map(|c| BigChange {
                    heap: c.heap as u64,
                    parts: c.result.parts().iter().map(|&p| p as u64).collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_heaps_of_any_u64_size() {
        let p: BigPosition = "[7, 18446744073709551615, 0, 3]".parse().unwrap();
        assert_eq!(p.heaps(), &[u64::MAX, 7, 3]);
        assert_eq!(p.to_string(), "[18446744073709551615,7,3]");
        assert_eq!(p.total(), u64::MAX as u128 + 10);
        assert!(p.narrow().is_none());
        let e = "18446744073709551616".parse::<BigPosition>().unwrap_err().to_string();
        assert!(e.contains("larger than 18446744073709551615"), "{e}");
        for (s, needle) in [("3 -1", "negative"), ("3 x", "'x'"), ("[3,4", "brackets")] {
            assert!(s.parse::<BigPosition>().unwrap_err().to_string().contains(needle), "{s}");
        }
        let small: BigPosition = "1000000 5".parse().unwrap();
        assert_eq!(small.narrow(), Some(Position::new(vec![1_000_000, 5])));
        assert!("1000001".parse::<BigPosition>().unwrap().narrow().is_none());
    }

    #[test]
    fn moves_describe_and_narrow_as_bounded_moves_do() {
        let from = Position::new(vec![9, 4]);
        let m = Move::single(9, HeapResult::two(5, 3));
        let big = BigMove::from(&m);
        let wide = BigPosition::from(&from);
        assert_eq!(big.describe(&wide), m.describe(&from));
        assert_eq!(big.apply(&wide), BigPosition::from(&m.apply(&from)));
        assert_eq!(big.narrow(), Some(m));
        let two = BigMove::of(vec![BigChange::lower(4, 0), BigChange::lower(u64::MAX, 5)]);
        let p = BigPosition::new(vec![u64::MAX, 4]);
        assert_eq!(two.heap(), u64::MAX);
        assert_eq!(two.taken(), u64::MAX as u128 - 5 + 4);
        assert_eq!(two.apply(&p).heaps(), &[5]);
        assert_eq!(
            two.describe(&p),
            format!("take {} from the {}-heap and take all 4 from the 4-heap → [5]", u64::MAX - 5, u64::MAX)
        );
        assert!(two.narrow().is_none());
    }
}
