//! What is said at the end: who made the last move, who wins under the convention, and a
//! winner's message picked at random from a small set for each kind of winner.

use rand::Rng;
use rand::seq::IndexedRandom;

use crate::game::Convention;

use super::seats::{Controller, Players, Seat, capitalized};
use super::session::Session;

/// Said when a human beats the computer (after the verdict, which names the winner).
pub const HUMAN_WINS: &[&str] = &[
    "Well played: you beat the database!",
    "Congratulations!",
    "A flawless finish. The computer tips its hat.",
    "Bouton would be proud.",
];

/// Said when the computer beats a human.
pub const COMPUTER_WINS: &[&str] = &[
    "Perfect play prevails.",
    "The database saw this coming.",
    "Better luck next game; 'hint' is there when you are stuck.",
    "Every position was already solved. Try again?",
];

/// Said when one of two humans (or two computers) wins; `{name}` is the winner.
pub const PLAYER_WINS: &[&str] =
    &["Well played, {name}!", "Congratulations, {name}!", "The game goes to {name}.", "Victory for {name}!"];

/// The verdict of a finished game, e.g. "Game over: the computer made the last move, and
/// under normal play the last move wins. The computer wins." `None` while moves remain.
pub fn verdict(session: &Session) -> Option<String> {
    let winner = session.winner()?;
    let last = session.last_mover()?;
    let players = session.players();
    let rule = match session.convention() {
        Convention::Normal => "under normal play the last move wins",
        Convention::Misere => "under misère play the last move loses",
    };
    let wins = match players.name(winner) {
        "you" => "You win.".to_string(),
        name => format!("{} wins.", capitalized(name)),
    };
    Some(format!("Game over: {} made the last move, and {rule}. {wins}", players.name(last)))
}

/// Said when a loopy game is stopped by repetition.
pub fn drawn_message(session: &Session) -> String {
    let name = session.players().name(session.to_move());
    format!(
        "Drawn by repetition: {} has come up {} times with {name} to move.",
        session.show(session.position()),
        session.repetitions()
    )
}

/// A winner's message for `winner`, drawn with `rng`.
pub fn winner_message<R: Rng + ?Sized>(players: Players, winner: Seat, rng: &mut R) -> String {
    let loser = winner.other();
    let set = match (players.controller(winner), players.controller(loser)) {
        (Controller::Human, Controller::Computer) => HUMAN_WINS,
        (Controller::Computer, Controller::Human) => COMPUTER_WINS,
        _ => PLAYER_WINS,
    };
    set.choose(rng).expect("a nonempty set").replace("{name}", players.name(winner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn verdict_names_last_mover_and_winner() {
        for (convention, players, want) in [
            (
                Convention::Normal,
                Players::HumanComputer,
                "Game over: you made the last move, and under normal play the last move wins. You win.",
            ),
            (
                Convention::Misere,
                Players::HumanComputer,
                "Game over: you made the last move, and under misère play the last move loses. The computer wins.",
            ),
            (
                Convention::Misere,
                Players::HumanHuman,
                "Game over: Player 1 made the last move, and under misère play the last move loses. Player 2 wins.",
            ),
        ] {
            let mut s = Session::new(
                crate::game::GameSpec::nim(),
                convention,
                players,
                "1".parse::<Position>().unwrap(),
            )
            .unwrap();
            assert_eq!(verdict(&s), None);
            s.play(&[]).unwrap();
            assert_eq!(verdict(&s).unwrap(), want);
        }
    }

    #[test]
    fn messages_fit_the_winner_and_follow_the_seed() {
        let mut rng = StdRng::seed_from_u64(7);
        let m = winner_message(Players::HumanComputer, Seat::First, &mut rng);
        assert!(HUMAN_WINS.contains(&m.as_str()));
        let m = winner_message(Players::HumanComputer, Seat::Second, &mut rng);
        assert!(COMPUTER_WINS.contains(&m.as_str()));
        let m = winner_message(Players::HumanHuman, Seat::Second, &mut rng);
        assert!(m.contains("Player 2"), "{m}");
        let draw = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            (0..8).map(|_| winner_message(Players::ComputerHuman, Seat::First, &mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
    }
}
