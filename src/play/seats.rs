//! Who sits where: the two seats, and whether a human or the computer plays each one.

use std::fmt;
use std::str::FromStr;

/// One of the two seats at the table. `First` makes the first move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seat {
    /// The player who moves first.
    First,
    /// The player who moves second.
    Second,
}

impl Seat {
    /// The opponent's seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// The seat to move after `moves` moves have been played.
    pub fn after(moves: usize) -> Seat {
        if moves.is_multiple_of(2) { Seat::First } else { Seat::Second }
    }
}

/// Who makes the decisions for a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Controller {
    /// A person typing moves.
    Human,
    /// The database, playing perfectly.
    Computer,
}

/// The `--players` choice: who sits in each seat, first mover first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Players {
    /// A human moves first against the computer.
    #[default]
    HumanComputer,
    /// The computer moves first against a human.
    ComputerHuman,
    /// Two humans share the keyboard.
    HumanHuman,
    /// The computer plays both seats (no input is read).
    ComputerComputer,
}

impl Players {
    /// Every choice, in the order the help lists them.
    pub const ALL: [Players; 4] =
        [Players::HumanComputer, Players::ComputerHuman, Players::HumanHuman, Players::ComputerComputer];

    /// The `--players` spelling, e.g. `human-computer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Players::HumanComputer => "human-computer",
            Players::ComputerHuman => "computer-human",
            Players::HumanHuman => "human-human",
            Players::ComputerComputer => "computer-computer",
        }
    }

    /// Who controls `seat`.
    pub fn controller(self, seat: Seat) -> Controller {
        use Controller::{Computer, Human};
        let (first, second) = match self {
            Players::HumanComputer => (Human, Computer),
            Players::ComputerHuman => (Computer, Human),
            Players::HumanHuman => (Human, Human),
            Players::ComputerComputer => (Computer, Computer),
        };
        match seat {
            Seat::First => first,
            Seat::Second => second,
        }
    }

    /// Whether any seat is played by a human (and so input is read).
    pub fn has_human(self) -> bool {
        self != Players::ComputerComputer
    }

    /// How `seat` is named inside a sentence: `you`, `the computer`, `Player 1`,
    /// `Computer 2`. See [`label`](Self::label) for the start of a line.
    pub fn name(self, seat: Seat) -> &'static str {
        let number = |first, second| if seat == Seat::First { first } else { second };
        match self {
            Players::HumanHuman => number("Player 1", "Player 2"),
            Players::ComputerComputer => number("Computer 1", "Computer 2"),
            _ => match self.controller(seat) {
                Controller::Human => "you",
                Controller::Computer => "the computer",
            },
        }
    }

    /// How `seat` is named at the start of a line or sentence: `You`, `Computer`,
    /// `Player 1`, `Computer 2`.
    pub fn label(self, seat: Seat) -> &'static str {
        match self.name(seat) {
            "you" => "You",
            "the computer" => "Computer",
            other => other,
        }
    }
}

impl fmt::Display for Players {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is none of the [`Players`] settings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown players '{given}' (expected one of: {expected})")]
pub struct UnknownPlayers {
    /// The name given.
    pub given: String,
    /// The names known, comma-separated.
    pub expected: String,
}

impl FromStr for Players {
    type Err = UnknownPlayers;

    fn from_str(s: &str) -> Result<Self, UnknownPlayers> {
        let wanted = s.trim().to_ascii_lowercase();
        Players::ALL.into_iter().find(|p| p.as_str() == wanted).ok_or_else(|| {
            let names: Vec<&str> = Players::ALL.iter().map(|p| p.as_str()).collect();
            UnknownPlayers { given: s.to_string(), expected: names.join(", ") }
        })
    }
}

/// `s` with its first letter in upper case, for names that start a sentence.
pub fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_alternate() {
        assert_eq!(Seat::after(0), Seat::First);
        assert_eq!(Seat::after(3), Seat::Second);
        assert_eq!(Seat::First.other(), Seat::Second);
    }

    #[test]
    fn players_parse_and_name_seats() {
        for p in Players::ALL {
            assert_eq!(p.as_str().parse::<Players>().unwrap(), p);
        }
        assert_eq!(" Computer-Human ".parse::<Players>().unwrap(), Players::ComputerHuman);
        let err = "robots".parse::<Players>().unwrap_err().to_string();
        assert!(err.contains("'robots'") && err.contains("human-human"), "{err}");
        assert_eq!(Players::ComputerHuman.name(Seat::Second), "you");
        assert_eq!(Players::ComputerHuman.label(Seat::First), "Computer");
        assert_eq!(Players::HumanHuman.name(Seat::Second), "Player 2");
        assert_eq!(capitalized("the computer"), "The computer");
    }
}
