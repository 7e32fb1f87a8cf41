//! [`Game`]: any game nimdb knows, as one value: what `--game` parses to, what the store
//! keys by its storage id, and what every face hands to the library.

use std::fmt;
use std::str::FromStr;

use super::convention::Convention;
use super::families::{Defined, Hypergraph, Raise, Staircase, Welter};
use super::family::{Family, MAX_COUNT, PositionError};
use super::position::parse_heap_list;
use super::spec::{FAMILY_FORMS, GAME_FORMS, GameSpec, STORAGE_ID_PREFIX, SpecError};

/// Why a position written for a game was refused: a heap list's own error, or a family's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadPosition {
    /// A heap game's heap list.
    #[error(transparent)]
    HeapList(#[from] super::position::HeapListError),
    /// A family's position.
    #[error("bad position: {0}")]
    Family(#[from] PositionError),
}

/// The largest cap of `raise:C`.
pub const MAX_RAISE_CAP: u32 = 64;

/// Any game nimdb knows. Every variant is a [`Family`] ([`Game::family`]); the heap games
/// add the capabilities of a sum of heaps ([`Game::heaps`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    /// A heap game (a multiset of heaps; the specialised tier solvers).
    Heaps(GameSpec),
    /// Staircase Nim.
    Staircase(Staircase),
    /// Welter's game.
    Welter(Welter),
    /// Nim with raising (loopy).
    Raise(Raise),
    /// Hypergraph Nim (`hyper:N:EDGES`).
    Hyper(Hypergraph),
    /// A game whose moves a program defines (never parsed from a name: its rules come
    /// with it).
    Defined(Defined),
}

impl Game {
    /// The game's rules, as the one contract every face and solver speaks to.
    pub fn family(&self) -> &dyn Family {
        match self {
            Game::Heaps(g) => g,
            Game::Staircase(s) => s,
            Game::Welter(w) => w,
            Game::Raise(r) => r,
            Game::Hyper(h) => h,
            Game::Defined(d) => d,
        }
    }

    /// The heap game, when the game is one: the capabilities of a sum of heaps (the
    /// specialised tier solvers, heap-move labels, nim-values of single heaps, misère
    /// quotients).
    pub fn heaps(&self) -> Option<&GameSpec> {
        match self {
            Game::Heaps(g) => Some(g),
            _ => None,
        }
    }

    /// The id the database keys this game by, from its rules alone (never its display name
    /// or an alias): see [`GameSpec::storage_id`]; `v1:staircase`, `v1:welter`,
    /// `v1:raise:C` for the others, and `v1:hyper:N:` with the edges listed for Hypergraph
    /// Nim (`v1:hyper:3:1,2,3` for `hyper:3:singletons`).
    pub fn storage_id(&self) -> String {
        match self {
            Game::Heaps(g) => g.storage_id(),
            Game::Hyper(h) => format!("{STORAGE_ID_PREFIX}hyper:{}:{}", h.heaps(), h.listed()),
            Game::Defined(d) => d.storage_id(),
            _ => format!("{STORAGE_ID_PREFIX}{self}"),
        }
    }

    /// The game whose [storage id](Game::storage_id) is `id`, exactly.
    pub fn from_storage_id(id: &str) -> Option<Game> {
        if let Some(spec) = GameSpec::from_storage_id(id) {
            return Some(Game::Heaps(spec));
        }
        if let Some(defined) = Defined::from_storage_id(id) {
            return Some(Game::Defined(defined));
        }
        let game = parse_family(id.strip_prefix(STORAGE_ID_PREFIX)?).ok()??;
        (game.storage_id() == id).then_some(game)
    }

    /// The theorem the program that defined this game states of it under `convention` and
    /// marks proven (see [`Defined::proven`]); `None` for every game nimdb knows itself,
    /// whose theorems are its own ([`Family::formula`]).
    pub fn proven_stated(&self, convention: Convention) -> Option<&std::sync::Arc<dyn super::Stated>> {
        match self {
            Game::Defined(d) => d.proven(convention),
            _ => None,
        }
    }

    /// The name of a game defined by a program, as a command line names it
    /// (`defined:NAME`), before it is looked up in a database; `None` for every other game.
    pub fn unresolved_name(&self) -> Option<&str> {
        match self {
            Game::Defined(d) if !d.is_resolved() => Some(d.name()),
            _ => None,
        }
    }

    /// Parses a game as a command that reads stored solves takes it: every game
    /// [`Game::from_str`] takes, and `defined:NAME`, a game defined by a program (the Python
    /// package's `nimdb.define`), whose stored solve gives its layout
    /// (`nimdb::stored::resolve`).
    pub fn parse_stored(raw: &str) -> Result<Game, SpecError> {
        match raw.strip_prefix("defined:") {
            Some(name) => {
                Defined::unresolved(name).map(Game::Defined).map_err(|e| SpecError::new(raw, e.to_string()))
            }
            None => raw.parse(),
        }
    }

    /// A position in the game's own notation, given as cells of any size (what an answer
    /// holds): the family's [`show`](Family::show) when every cell fits it, else (heaps of a
    /// heap game past `u32`, which only theorems answer) the heap list as
    /// [`BigPosition`](super::BigPosition) writes it.
    pub fn show(&self, cells: &[u64]) -> String {
        match cells.iter().map(|&c| u32::try_from(c)).collect::<Result<Vec<u32>, _>>() {
            Ok(narrow) => self.family().show(&narrow),
            Err(_) => super::BigPosition::new(cells.to_vec()).to_string(),
        }
    }

    /// A position of the game to show in an example, as a command line writes it (a
    /// raise:C heap is at most C).
    pub fn example_position(&self) -> String {
        match self {
            Game::Heaps(_) => "7 5 3".to_string(),
            Game::Raise(r) => format!("{} 1", r.cap),
            // The first of these the family takes (a hypergraph's row has at most n heaps).
            _ => ["3 0 2 5", "3 0 2", "3 1", "3"]
                .into_iter()
                .find(|w| self.parse_position(&[*w]).is_ok())
                .unwrap_or("0")
                .to_string(),
        }
    }

    /// Reads a position of any game as an answer's cells: a heap game's heaps up to
    /// `u64::MAX` (largest first, zeros dropped; heaps past a database's are answered by
    /// theorems alone), a family's counts in its canonical form ([`Game::parse_position`]).
    /// What every face reads a position with.
    pub fn read_position<S: AsRef<str>>(&self, words: &[S]) -> Result<Vec<u64>, BadPosition> {
        match self.heaps() {
            Some(_) => Ok(super::BigPosition::parse_words(words)?.into_heaps()),
            None => Ok(self.parse_family_counts(words)?.into_iter().map(u64::from).collect()),
        }
    }

    /// A position of any game from counts already read as numbers (a program's list, an
    /// array's row), as an answer's cells: a heap game's heaps in any order (zeros dropped),
    /// a family's counts in its own order, each at most [`MAX_COUNT`], put in its canonical
    /// form (or refused by its rules).
    pub fn position_from_counts(&self, counts: Vec<u64>) -> Result<Vec<u64>, BadPosition> {
        if self.heaps().is_some() {
            return Ok(super::BigPosition::new(counts).into_heaps());
        }
        Ok(self.family_counts(&counts)?.into_iter().map(u64::from).collect())
    }

    /// A family's position from cells (an answer's, a program's numbers): each count at most
    /// [`MAX_COUNT`], put in the family's canonical form, or why it is not one.
    pub fn family_counts(&self, cells: &[u64]) -> Result<Vec<u32>, PositionError> {
        let narrow = cells
            .iter()
            .map(|&c| {
                u32::try_from(c)
                    .ok()
                    .filter(|&c| c <= MAX_COUNT)
                    .ok_or_else(|| PositionError::NotACount { word: c.to_string(), max: MAX_COUNT })
            })
            .collect::<Result<Vec<u32>, _>>()?;
        self.family().canonical(narrow)
    }

    /// Reads a position of any game that a database, a tree or a game in play can hold: a
    /// heap game's heaps up to [`MAX_INPUT_HEAP`](super::MAX_INPUT_HEAP) (largest first,
    /// zeros dropped), a family's counts in its canonical form.
    pub fn parse_position<S: AsRef<str>>(&self, words: &[S]) -> Result<Vec<u32>, BadPosition> {
        match self.heaps() {
            Some(_) => Ok(super::Position::parse_words(words)?.heaps().to_vec()),
            None => Ok(self.parse_family_counts(words)?),
        }
    }

    /// Parses a family's position written in its notation: counts separated by spaces or
    /// commas, optionally in one pair of brackets (`3 0 2 5`, `[7,4,1,0]`; `[]` or `0` for
    /// the empty position), read by the heap lists' rules (as [`parse_counts`](super::parse_counts)) whether the
    /// list comes as one word or several, then put in the family's canonical form. No words
    /// at all are the empty position (the counts of a list already read, such as none).
    fn parse_family_counts<S: AsRef<str>>(&self, words: &[S]) -> Result<Vec<u32>, PositionError> {
        use super::position::HeapListError as E;
        if words.is_empty() {
            return self.family().canonical(Vec::new());
        }
        let joined = words.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(" ");
        let not_a_count = |word: String| PositionError::NotACount { word, max: MAX_COUNT };
        // As many counts as are written (a 20,000-step staircase is still a position); each
        // is checked against the family's largest count below.
        let counts = parse_heap_list(&joined, u64::MAX, usize::MAX, |w| E::OverLargest(super::echo(w, 20)))
            .map_err(|e| match e {
            E::Empty => {
                PositionError::Illegal("nothing written (write [] or 0 for the empty position)".into())
            }
            E::UnbalancedBrackets(list) => PositionError::Illegal(format!("'{list}': unbalanced brackets")),
            E::LoneComma(_) => PositionError::Illegal("a comma with no count beside it".into()),
            E::Negative(word) | E::NotAHeap(word) | E::OverLimit(word) | E::OverLargest(word) => {
                not_a_count(word)
            }
            E::TooMany => PositionError::Illegal("too many counts".into()),
        })?;
        let counts = counts
            .into_iter()
            .map(|n| {
                u32::try_from(n).ok().filter(|&n| n <= MAX_COUNT).ok_or_else(|| not_a_count(n.to_string()))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        self.family().canonical(counts)
    }
}

impl From<GameSpec> for Game {
    fn from(g: GameSpec) -> Game {
        Game::Heaps(g)
    }
}

/// Parses a heap game for a command that takes only heap games: a game that is not a sum
/// of heaps is refused with what it is (rather than as an unknown game).
pub fn parse_heap_game(raw: &str) -> Result<GameSpec, SpecError> {
    match parse_family(&raw.to_ascii_lowercase()) {
        Ok(None) => raw.parse(),
        Err(why) => Err(SpecError::new(raw, why)),
        Ok(Some(other)) => Err(SpecError::new(
            raw,
            format!(
                "{other} is a family with its own position space ({FAMILY_FORMS}), not a sum of heaps: this command takes heap games only"
            ),
        )),
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Heaps(g) => g.fmt(f),
            Game::Staircase(_) => f.write_str("staircase"),
            Game::Welter(_) => f.write_str("welter"),
            Game::Raise(r) => write!(f, "raise:{}", r.cap),
            Game::Hyper(h) => h.fmt(f),
            Game::Defined(d) => d.fmt(f),
        }
    }
}

/// A family's name (`staircase`, `welter`, `raise:C`, `hyper:N:EDGES`, in any case as a
/// heap game's name; numbers in digits alone), `Ok(None)` when it is none of them, or why
/// its parameters are refused.
fn parse_family(raw: &str) -> Result<Option<Game>, String> {
    match raw {
        "staircase" | "staircase-nim" => return Ok(Some(Game::Staircase(Staircase))),
        "welter" | "welters-game" => return Ok(Some(Game::Welter(Welter))),
        _ => {}
    }
    if raw.starts_with("defined:") {
        return Err(
            "defined:NAME is a game defined in Python (nimdb.define): only query, export and serve read its stored solves here; its moves are the Python function's (Database.solve, Database.verify and nimdb.tree take it there)"
                .to_string(),
        );
    }
    if let Some(rest) = raw.strip_prefix("hyper:") {
        super::spec::check_spelling(raw)?;
        return Hypergraph::parse(rest).map(|h| Some(Game::Hyper(h)));
    }
    let Some(cap) = raw.strip_prefix("raise:") else { return Ok(None) };
    let digits = !cap.is_empty() && cap.bytes().all(|b| b.is_ascii_digit());
    match cap.parse::<u32>() {
        Ok(c) if digits && (1..=MAX_RAISE_CAP).contains(&c) => Ok(Some(Game::Raise(Raise { cap: c }))),
        _ => Err(format!("raise:C takes a cap C from 1 to {MAX_RAISE_CAP}, not '{}'", super::echo(cap, 20))),
    }
}

impl FromStr for Game {
    type Err = SpecError;

    /// A family's name first (`staircase`, `welter`, `raise:C`), else a heap game.
    fn from_str(raw: &str) -> Result<Self, SpecError> {
        // Spelled as every spec is (`spec::check_spelling`): any case, no spaces, the cap in
        // plain digits.
        match parse_family(&raw.to_ascii_lowercase()) {
            Ok(Some(g)) => Ok(g),
            Err(why) => Err(SpecError::new(raw, why)),
            // An unknown name is refused with every family named, not the heap games alone.
            Ok(None) => raw.parse().map(Game::Heaps).map_err(|e: SpecError| {
                let reason = e.reason().replace(
                    &format!("(expected {GAME_FORMS})"),
                    &format!("(expected {GAME_FORMS}; or {FAMILY_FORMS})"),
                );
                SpecError::new(raw, reason)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        for s in ["staircase", "welter", "raise:3", "nim", "kayles"] {
            assert_eq!(s.parse::<Game>().unwrap().to_string(), s);
        }
        assert_eq!("RAISE:3".parse::<Game>().unwrap().to_string(), "raise:3");
        for bad in ["raise:0", "raise:x", "raise:65", "raise: 3", "raise:+3", "raise:", "raise:3 ", " welter"]
        {
            assert!(bad.parse::<Game>().is_err(), "{bad}");
        }
        // An unknown name is refused with every family named; where only heap games are
        // taken, with the heap games named, and a family refused for what it is.
        let e = "chess".parse::<Game>().unwrap_err();
        assert!(e.reason().contains("staircase, welter, raise:3 or hyper:3:1+2,2+3"), "{e}");
        let e = parse_heap_game("chess").unwrap_err();
        assert!(!e.reason().contains("staircase"), "{e}");
        let e = parse_heap_game("welter").unwrap_err();
        assert!(e.reason().contains("not a sum of heaps"), "{e}");
        assert_eq!(Game::from_storage_id("v1:raise:3"), Some(Game::Raise(Raise { cap: 3 })));
        assert_eq!(Game::from_storage_id("v1:raise:03"), None);
        assert_eq!(Game::from_storage_id("v1:RAISE:3"), None);
        assert_eq!(Game::from_storage_id("v1:tb:0.77"), Some(Game::Heaps("kayles".parse().unwrap())));
    }

    #[test]
    fn positions_take_each_family_s_canonical_form() {
        let stair: Game = "staircase".parse().unwrap();
        assert_eq!(stair.parse_position(&["3", "0", "2", "5", "0"]).unwrap(), vec![3, 0, 2, 5]);
        let welter: Game = "welter".parse().unwrap();
        assert_eq!(welter.parse_position(&["[1,7,0,4]"]).unwrap(), vec![7, 4, 1, 0]);
        assert!(welter.parse_position(&["3", "3"]).is_err());
        let raise: Game = "raise:4".parse().unwrap();
        assert_eq!(raise.parse_position(&["2", "0", "4"]).unwrap(), vec![4, 2]);
        assert!(raise.parse_position(&["5"]).is_err());
        assert!(raise.parse_position(&["3,,4"]).is_err());
        assert_eq!(stair.parse_position(&["[]"]).unwrap(), Vec::<u32>::new());
        // A list is read as the command line reads a heap list: one pair of brackets.
        for loose in ["]", "[[[[", "[[1]]", "[3", "[3]]"] {
            assert!(stair.parse_position(&[loose]).is_err(), "{loose}");
        }
    }

    /// A position of these families is read by the heap lists' rules (one bracket pair
    /// around the whole list at most, no comma without a count), whether it comes as one word
    /// or several; the hostile round found `]`, `[[[[`, `[[1]]`, `[3` and `[3]]` read as `[]`,
    /// `[1]` or `[3]`, and one word `3 0 2` refused.
    #[test]
    fn loose_positions_are_refused_and_one_word_is_a_list() {
        let stair: Game = "staircase".parse().unwrap();
        for loose in ["]", "[[[[", "[[1]]", "[3", "[3]]", "[", "[]]", "1,,2", ",3", "3 ,", "-1", "+3", "3x"] {
            assert!(stair.parse_position(&[loose]).is_err(), "{loose:?} was read");
        }
        assert!(stair.parse_position(&["[3", "0]]"]).is_err());
        assert!(stair.parse_position(&[""]).is_err(), "an empty word is not a position");
        assert_eq!(
            stair.parse_position::<&str>(&[]).unwrap(),
            Vec::<u32>::new(),
            "no counts: the empty position"
        );
        assert_eq!(stair.parse_position(&["3 0 2"]).unwrap(), vec![3, 0, 2]);
        assert_eq!(stair.parse_position(&["[3", "0", "2]"]).unwrap(), vec![3, 0, 2]);
        assert_eq!(stair.parse_position(&["0"]).unwrap(), Vec::<u32>::new());
        let err = stair.parse_position(&["1,,2"]).unwrap_err().to_string();
        assert!(err.contains("comma with no count"), "{err}");
        let err = stair.parse_position(&["[3"]).unwrap_err().to_string();
        assert!(err.contains("bracket") && !err.contains("heap"), "{err}");
        let big = (MAX_COUNT + 1).to_string();
        assert!(matches!(
            stair.parse_position(&[big.as_str()]),
            Err(BadPosition::Family(PositionError::NotACount { .. }))
        ));
        let welter: Game = "welter".parse().unwrap();
        assert_eq!(welter.parse_position(&["3 0 2"]).unwrap(), vec![3, 2, 0]);
        let many = vec!["1"; 20_000];
        assert_eq!(stair.parse_position(&many).unwrap().len(), 20_000);
    }

    #[test]
    fn moves_follow_the_rules() {
        use crate::game::Family;
        // Staircase [0, 2]: two coins on step 2 go down one or two at a time.
        let m: Vec<Vec<u32>> = Staircase.moves(&[0, 2]).into_iter().map(|m| m.to).collect();
        assert_eq!(m, vec![vec![1, 1], vec![2]]);
        // Welter [2, 0]: the 2 may only go to 1.
        let m: Vec<Vec<u32>> = Welter.moves(&[2, 0]).into_iter().map(|m| m.to).collect();
        assert_eq!(m, vec![vec![1, 0]]);
        // Raise:2 [1, 1]: lower one heap to 0, or raise one to 2.
        let m: Vec<Vec<u32>> = Raise { cap: 2 }.moves(&[1, 1]).into_iter().map(|m| m.to).collect();
        assert_eq!(m, vec![vec![1], vec![2, 1]]);
    }
}
