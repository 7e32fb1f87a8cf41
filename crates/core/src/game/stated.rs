//! A theorem a program states of its own game (the Python package's `nimdb.Theorem`): a
//! formula giving each position's nim-value or outcome under one convention, named by the
//! program with its citation. nimdb cannot prove it, so it is kept apart from the theorems
//! nimdb names itself ([`Formula`](super::Formula)): it is checked against a stored solve
//! on request, and it answers positions past the stored solves only when the program marks
//! it proven, each such answer naming it as the program's.

use std::fmt;

use super::convention::Convention;
use super::outcome::Outcome;

/// What a stated formula gives of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Claim {
    /// Its nim-value (its misère nim-value under misère play: 1 at a position with no move,
    /// else the mex of its options'); 0 exactly at a loss.
    NimValue,
    /// Its outcome for the player to move: win, loss or (a loopy game's) draw.
    Outcome,
}

impl Claim {
    /// The claim in words, as reports print it: `nim-value` or `outcome`.
    pub fn word(self) -> &'static str {
        match self {
            Claim::NimValue => "nim-value",
            Claim::Outcome => "outcome",
        }
    }
}

/// What a stated formula says of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claimed {
    /// The outcome it gives (from a nim-value: a loss exactly at 0).
    pub outcome: Outcome,
    /// The nim-value it gives, when it gives one.
    pub nim_value: Option<u64>,
}

/// A theorem (or conjecture) a program states of its own game.
pub trait Stated: Send + Sync + fmt::Debug {
    /// The name and citation the program gives, e.g. "Jenkyns and Mayberry 1980, Thm. 2";
    /// what an answer from it names as its source.
    fn citation(&self) -> &str;
    /// The convention it is stated under.
    fn convention(&self) -> Convention;
    /// What it gives of a position.
    fn claim(&self) -> Claim;
    /// Whether the program marks it proven: only then does it answer positions no stored
    /// solve holds (a conjecture is only checked).
    fn proven(&self) -> bool;
    /// Its value at `position` (in the game's canonical form), or why it gave none: an
    /// error the formula raised or an answer that is not a value, in words that name the
    /// position.
    fn value(&self, position: &[u32]) -> Result<Claimed, String>;
}
