//! Positions: canonical multisets of heap sizes, written largest first.

use std::fmt;
use std::str::FromStr;

/// The largest heap accepted from user input. Anything larger is refused as absurd: no
/// database could cover it, and theory answers for it would be meaningless to print.
pub const MAX_INPUT_HEAP: u32 = 1_000_000;

/// The most characters of one heap-list word an error repeats.
pub(super) const ECHO_LIMIT: usize = 40;

/// The most heaps accepted from user input.
const MAX_INPUT_HEAPS: usize = 10_000;

/// A position: the multiset of heap sizes, sorted largest first, with no zero heaps.
/// `[]` is the empty (terminal in every game) position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position(Vec<u32>);

impl Position {
    /// The position whose heaps are an answer's cells (in any order, zeros dropped); `None`
    /// when a heap does not fit a `u32`.
    pub fn from_cells(cells: &[u64]) -> Option<Position> {
        cells.iter().map(|&h| u32::try_from(h).ok()).collect::<Option<Vec<u32>>>().map(Position::new)
    }

    /// The heaps as an answer's cells (what [`Game::read_position`](super::Game::read_position)
    /// gives and every face's query takes).
    pub fn cells(&self) -> Vec<u64> {
        self.0.iter().map(|&h| u64::from(h)).collect()
    }

    /// The canonical position holding these heaps (zeros dropped, sorted largest first).
    #[inline]
    pub fn new(mut heaps: Vec<u32>) -> Self {
        heaps.retain(|&h| h != 0);
        heaps.sort_unstable_by(|a, b| b.cmp(a));
        Position(heaps)
    }

    /// Wraps heaps already sorted largest first with no zeros.
    #[inline]
    pub fn from_sorted(heaps: Vec<u32>) -> Self {
        debug_assert!(heaps.windows(2).all(|w| w[0] >= w[1]) && heaps.last() != Some(&0));
        Position(heaps)
    }

    /// The heaps, largest first.
    #[inline]
    pub fn heaps(&self) -> &[u32] {
        &self.0
    }

    /// The number of heaps.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no heaps.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The total number of tokens.
    #[inline]
    pub fn total(&self) -> u64 {
        self.0.iter().map(|&h| h as u64).sum()
    }

    /// The largest heap, 0 for the empty position.
    #[inline]
    pub fn largest(&self) -> u32 {
        self.0.first().copied().unwrap_or(0)
    }

    /// Parses a heap list from command-line words: `3 4 7`, `3,4,7` or `[3,4,7]` (or any
    /// mix of spaces and commas). Zero heaps are dropped.
    pub fn parse_words<S: AsRef<str>>(words: &[S]) -> Result<Self, HeapListError> {
        let joined: Vec<&str> = words.iter().map(|w| w.as_ref()).collect();
        joined.join(" ").parse()
    }
}

/// Why a heap list was refused. Each message starts `bad heap list` and repeats at most 40
/// characters of the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeapListError {
    /// Nothing was written.
    #[error("bad heap list: it is empty (write [] or 0 for the position with no heaps)")]
    Empty,
    /// A bracket without its partner.
    #[error("bad heap list '{0}': unbalanced brackets")]
    UnbalancedBrackets(String),
    /// A comma with no heap on one side.
    #[error("bad heap list '{0}': a comma with no heap beside it")]
    LoneComma(String),
    /// A negative number.
    #[error("bad heap list: heap sizes cannot be negative ({0})")]
    Negative(String),
    /// A word that is not a whole number.
    #[error("bad heap list: '{0}' is not a heap size (a whole number)")]
    NotAHeap(String),
    /// A heap above [`MAX_INPUT_HEAP`] (for a [`Position`]).
    #[error("bad heap list: heap {0} is larger than the limit of {MAX_INPUT_HEAP}")]
    OverLimit(String),
    /// A heap above `u64::MAX` (for a [`BigPosition`](super::BigPosition)).
    #[error("bad heap list: heap {0} is larger than {max}, the largest heap size", max = u64::MAX)]
    OverLargest(String),
    /// More heaps than accepted.
    #[error("bad heap list: more than {MAX_INPUT_HEAPS} heaps")]
    TooMany,
}

impl FromStr for Position {
    type Err = HeapListError;

    fn from_str(raw: &str) -> Result<Self, HeapListError> {
        let heaps = parse_heap_list(raw, MAX_INPUT_HEAP as u64, MAX_INPUT_HEAPS, |item| {
            HeapListError::OverLimit(super::echo(item, ECHO_LIMIT))
        })?;
        Ok(Position::new(heaps.into_iter().map(|h| h as u32).collect()))
    }
}

/// The counts of a list written as a heap list is (`3 0 2 5`, `3,0,2,5` or `[3,0,2,5]`), in
/// order and zeros kept, under a heap list's rules and errors: for a family whose position
/// is a list of counts in order (a staircase's steps), as the command line reads it.
pub fn parse_counts(raw: &str) -> Result<Vec<u64>, HeapListError> {
    parse_heap_list(raw, u64::MAX, MAX_INPUT_HEAPS, |item| {
        HeapListError::OverLargest(super::echo(item, ECHO_LIMIT))
    })
}

/// Splits a heap list (`3 4 7`, `3,4,7` or `[3,4,7]`, any mix of spaces and commas) into
/// heap sizes, refusing negative numbers, words that are not whole numbers, more than
/// `most` heaps, and heaps above `limit` (with the message `too_large` makes from the word).
pub(super) fn parse_heap_list(
    raw: &str,
    limit: u64,
    most: usize,
    too_large: impl Fn(&str) -> HeapListError,
) -> Result<Vec<u64>, HeapListError> {
    let s = raw.trim();
    if s.is_empty() {
        return Err(HeapListError::Empty);
    }
    let inner = match (s.strip_prefix('['), s.strip_suffix(']')) {
        (Some(_), Some(_)) => &s[1..s.len() - 1],
        (None, None) => s,
        _ => return Err(HeapListError::UnbalancedBrackets(super::echo(s, ECHO_LIMIT))),
    };
    // `[]` is the position with no heaps; otherwise no comma may stand without a heap.
    if !inner.trim().is_empty() && inner.split(',').any(|piece| piece.trim().is_empty()) {
        return Err(HeapListError::LoneComma(super::echo(s, ECHO_LIMIT)));
    }
    let mut heaps = Vec::new();
    for item in inner.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty()) {
        if item.starts_with('-') && item[1..].chars().all(|c| c.is_ascii_digit()) && item.len() > 1 {
            return Err(HeapListError::Negative(super::echo(item, ECHO_LIMIT)));
        }
        if !item.chars().all(|c| c.is_ascii_digit()) {
            return Err(HeapListError::NotAHeap(super::echo(item, ECHO_LIMIT)));
        }
        match item.parse::<u64>() {
            Ok(n) if n <= limit => heaps.push(n),
            _ => return Err(too_large(item)),
        }
        if heaps.len() > most {
            return Err(HeapListError::TooMany);
        }
    }
    Ok(heaps)
}

impl fmt::Display for Position {
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

impl From<Position> for Vec<u32> {
    /// The heaps, largest first: the position as a [`Family`](super::Family) holds it.
    fn from(p: Position) -> Vec<u32> {
        p.0
    }
}

impl serde::Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let want = Position::new(vec![7, 4, 3]);
        for s in ["3 4 7", "3,4,7", "[3,4,7]", " [ 7, 3 ,4 ] ", "3 0 4 7", "3, 4, 7"] {
            assert_eq!(s.parse::<Position>().unwrap(), want, "{s}");
        }
        assert_eq!(Position::parse_words(&["3", "4,7"]).unwrap(), want);
        assert_eq!("[]".parse::<Position>().unwrap(), Position::default());
        assert_eq!(want.to_string(), "[7,4,3]");
    }

    #[test]
    fn refuses_bad_heaps() {
        for (s, needle) in [
            ("3 -1", "negative"),
            ("3 x", "'x'"),
            ("99999999999999999999", "larger"),
            ("[3,4", "brackets"),
            ("2.5", "'2.5'"),
            ("", "empty"),
            ("  ", "empty"),
            ("[3,,4]", "comma"),
            ("3,,", "comma"),
            (",3", "comma"),
            ("3 4,", "comma"),
            ("[,]", "comma"),
        ] {
            let err = s.parse::<Position>().unwrap_err().to_string();
            assert!(err.contains(needle), "{s}: {err}");
        }
    }
}
