use std::fmt;

/// Who wins at the end: under `Normal` play the player who makes the last move wins, under
/// `Misere` play the player who makes the last move loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// Last move wins.
    Normal,
    /// Last move loses.
    Misere,
}

impl Convention {
    /// `Misere` when `misere` is true, `Normal` otherwise.
    pub fn from_misere(misere: bool) -> Self {
        if misere { Convention::Misere } else { Convention::Normal }
    }

    /// The name stored in the database and printed: `normal` or `misere`.
    pub fn as_str(self) -> &'static str {
        match self {
            Convention::Normal => "normal",
            Convention::Misere => "misere",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "normal" => Some(Convention::Normal),
            "misere" | "misère" => Some(Convention::Misere),
            _ => None,
        }
    }

    /// Whether the player to move at a terminal position (no moves left) wins.
    pub fn terminal_is_win(self) -> bool {
        self == Convention::Misere
    }

    /// Whether a position with this remoteness is a win for the player to move.
    ///
    /// Outcome and remoteness parity agree: a terminal has remoteness 0, a win is one more
    /// than a loss and a loss one more than a win, so under normal play losses are even and
    /// under misère play losses are odd.
    pub fn is_win(self, remoteness: u32) -> bool {
        (remoteness % 2 == 1) ^ self.terminal_is_win()
    }

    /// Whether a stored remoteness is a loss for the player to move: not a win, and not a
    /// draw (which loopy games store as [`DRAW`](super::DRAW)).
    pub fn loses(self, remoteness: u16) -> bool {
        remoteness != super::DRAW && !self.is_win(remoteness as u32)
    }
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
