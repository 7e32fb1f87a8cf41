//! The outcome of a position for the player to move: the one outcome type of every game
//! and every face (stored solves, theorems, quotients, play), draws included.

use std::fmt;

use super::convention::Convention;

/// A position's outcome for the player to move. Acyclic games have only wins and losses;
/// a loopy game's position may also be a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A forced win (an N-position).
    Win,
    /// A forced loss (a P-position).
    Loss,
    /// Neither player can force a win (only in a loopy game).
    Draw,
}

impl Outcome {
    /// The outcome of a finite remoteness under `convention`: its parity decides.
    pub fn from_remoteness(convention: Convention, remoteness: u32) -> Self {
        if convention.is_win(remoteness) { Outcome::Win } else { Outcome::Loss }
    }

    /// The outcome of a stored remoteness under `convention`: [`DRAW`](super::DRAW) is a
    /// draw, any other value decides by its parity.
    pub fn of_stored(convention: Convention, remoteness: u16) -> Self {
        if remoteness == super::DRAW {
            Outcome::Draw
        } else {
            Outcome::from_remoteness(convention, remoteness as u32)
        }
    }

    /// The outcome's word: `win`, `loss` or `draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remoteness_parity_and_draws() {
        assert_eq!(Outcome::of_stored(Convention::Normal, 0), Outcome::Loss);
        assert_eq!(Outcome::of_stored(Convention::Misere, 0), Outcome::Win);
        assert_eq!(Outcome::of_stored(Convention::Normal, 3), Outcome::Win);
        assert_eq!(Outcome::of_stored(Convention::Misere, 3), Outcome::Loss);
        assert_eq!(Outcome::of_stored(Convention::Normal, super::super::DRAW), Outcome::Draw);
        assert_eq!(Outcome::Draw.to_string(), "draw");
    }
}
