//! Families that own their position space.
//!
//! The heap families ([`Rules`](super::Rules)) all play on an unordered bag of heaps: a
//! position is a sorted multiset and the tier solvers rank it as a partition. The families
//! here say for themselves what a position is, and the rest of nimdb speaks of them only
//! through [`Family`] and the (tier, rank) of a position in the family's space:
//! - [`Staircase`]: Staircase Nim, an **ordered** sequence of coin counts on steps 1..n;
//! - [`Welter`]: Welter's game, a **set** of distinct non-negative heaps;
//! - [`Raise`]: Nim with raising (`raise:C`), a multiset of heaps in which a heap may also
//!   grow by one token up to `C`: a **loopy** game, whose positions may be draws.
//!
//! A family declares its [`SpaceLayout`] (how its positions are ranked, which `index` turns
//! into a position space), whether its game graph has cycles, how positions and moves are
//! written, the rules in words, and which theorem decides its positions
//! ([`SpacedFormula`], ruled on in `theory::spaced`).

use std::fmt;
use std::str::FromStr;

use super::convention::Convention;

mod heaps;
mod raise;
mod staircase;
mod welter;

pub use raise::Raise;
pub use staircase::Staircase;
pub use welter::Welter;

/// The remoteness stored for a draw (a position of a loopy game from which neither player
/// can force a win). No acyclic solve stores it: their remoteness is below
/// 2 × `MAX_SOLVE_TOTAL`.
pub const DRAW: u16 = u16::MAX;

/// How a family's positions are ranked inside their tiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpaceLayout {
    /// An unordered bag of positive heaps, written largest first (zeros dropped); tier =
    /// (tokens, heaps).
    Multiset,
    /// An ordered sequence c₁ … cₙ of counts on steps 1..n, the top step nonempty; tier =
    /// (Σ i·cᵢ, n): every move lowers the weighted sum.
    Staircase,
    /// A set of distinct non-negative heaps, written largest first; tier = (tokens, heaps).
    DistinctSet,
}

/// A theorem that decides positions of a spaced family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "rule")]
pub enum SpacedFormula {
    /// Staircase Nim under normal play: a loss iff the nim-sum of the odd steps is 0.
    OddSteps,
    /// Welter's game under normal play: the nim-value is Welter's function, in Sato's form.
    Welter,
    /// A loopy heap game under normal play: Smith's generalized Sprague–Grundy values of
    /// the heaps decide a sum (win, loss or draw).
    Smith,
}

/// One move of a spaced family: the position it leads to and the move in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpacedMove {
    /// The position after the move, in the family's canonical form.
    pub to: Vec<u32>,
    /// The move in words.
    pub text: String,
}

/// Why a position was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A word is not a number in range.
    #[error("'{word}' is not a count from 0 to {max}")]
    NotACount {
        /// The word (shortened if long).
        word: String,
        /// The largest count accepted.
        max: u32,
    },
    /// The position breaks a rule of the family.
    #[error("{0}")]
    Illegal(String),
}

/// The largest count a spaced position may hold.
pub const MAX_SPACED_COUNT: u32 = 1 << 20;

/// A family that owns its position space (object safe).
pub trait Family: Send + Sync + fmt::Debug {
    /// How its positions are ranked.
    fn layout(&self) -> SpaceLayout;
    /// Whether its game graph has cycles (positions may then be draws).
    fn loopy(&self) -> bool;
    /// The canonical form of a position given as counts, or why it is not one.
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError>;
    /// The position in the family's own notation.
    fn show(&self, position: &[u32]) -> String;
    /// Every move, one per distinct resulting position, in the family's fixed move order.
    fn moves(&self, position: &[u32]) -> Vec<SpacedMove>;
    /// Calls `visit` with every child (the position after each move, in move order),
    /// without describing the moves: what the solvers and checks walk. `buf` is scratch
    /// space. The default goes through [`Family::moves`].
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        let _ = buf;
        for m in self.moves(position) {
            visit(&m.to);
        }
    }
    /// The rules in words.
    fn rules_text(&self) -> String;
    /// The theorem that decides its positions under `convention`, if one is known.
    fn formula(&self, convention: Convention) -> Option<SpacedFormula>;
    /// The largest heap any position may have, when the rules cap it.
    fn heap_cap(&self) -> Option<u32> {
        None
    }
    /// An upper bound on the number of moves from `position`, without listing them. The
    /// default, Σ (cᵢ + 1), holds for every family here: a staircase step of c coins, a
    /// Welter heap of a and a raise heap of h have at most c, a and h + 1 moves.
    fn move_bound(&self, position: &[u32]) -> u64 {
        position.iter().map(|&c| c as u64 + 1).sum()
    }
}

/// The most work listing a position's moves may take: each move's position is built (as
/// many counts as the position has), so a position's moves are listed only when
/// [`Family::move_bound`] × (its length + 1) is at most this (about 200 MB of positions).
pub const MOVES_WORK_LIMIT: u64 = 50_000_000;

/// Whether the moves of `position` may be listed: [`Family::move_bound`] × (its length +
/// 1 + `per_move`) is within [`MOVES_WORK_LIMIT`], where `per_move` is what the caller
/// spends on each move beyond building it (e.g. a theorem's evaluation).
pub fn moves_fit(family: &dyn Family, position: &[u32], per_move: u64) -> bool {
    let per = position.len() as u64 + 1 + per_move;
    family.move_bound(position).saturating_mul(per) <= MOVES_WORK_LIMIT
}

/// The largest cap of `raise:C`.
pub const MAX_RAISE_CAP: u32 = 64;

/// A spaced game, as one value: what `--game staircase`, `welter` and `raise:C` parse to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpacedGame {
    /// Staircase Nim.
    Staircase(Staircase),
    /// Welter's game.
    Welter(Welter),
    /// Nim with raising.
    Raise(Raise),
}

impl SpacedGame {
    /// The family, as the trait every face speaks to.
    pub fn family(&self) -> &dyn Family {
        match self {
            SpacedGame::Staircase(s) => s,
            SpacedGame::Welter(w) => w,
            SpacedGame::Raise(r) => r,
        }
    }

    /// The id the database keys this game by, from its rules alone (never its display
    /// name or an alias): `v1:staircase`, `v1:welter`, `v1:raise:C`.
    pub fn storage_id(&self) -> String {
        format!("{}{self}", super::spec::STORAGE_ID_PREFIX)
    }

    /// The game whose [storage id](SpacedGame::storage_id) is `id`.
    pub fn from_storage_id(id: &str) -> Option<SpacedGame> {
        let game: SpacedGame = id.strip_prefix(super::spec::STORAGE_ID_PREFIX)?.parse().ok()?;
        (game.storage_id() == id).then_some(game)
    }

    /// Parses a position written in the family's notation: counts separated by spaces or
    /// commas, optionally in one pair of brackets (`3 0 2 5`, `[7,4,1,0]`; `[]` or `0` for
    /// the empty position), read by the heap lists' rules ([`parse_counts`](super::parse_counts))
    /// whether the list comes as one word or several. No words at all are the empty position
    /// (the counts of a list already read, such as none).
    pub fn parse_position<S: AsRef<str>>(&self, words: &[S]) -> Result<Vec<u32>, PositionError> {
        use super::HeapListError as E;
        if words.is_empty() {
            return self.family().canonical(Vec::new());
        }
        let joined = words.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(" ");
        let not_a_count = |word: String| PositionError::NotACount { word, max: MAX_SPACED_COUNT };
        // As many counts as are written (a 20,000-step staircase is still a position); each
        // is checked against the family's largest count below.
        let counts = super::position::parse_heap_list(&joined, u64::MAX, usize::MAX, |w| {
            E::OverLargest(super::echo(w, 20))
        })
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
                u32::try_from(n)
                    .ok()
                    .filter(|&n| n <= MAX_SPACED_COUNT)
                    .ok_or_else(|| not_a_count(n.to_string()))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        self.family().canonical(counts)
    }
}

/// Any game nimdb knows: a heap game or a family that owns its position space. What the
/// faces parse `--game` into.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    /// A heap game (a multiset of heaps; the specialised tier solvers).
    Heaps(super::GameSpec),
    /// A family with its own position space.
    Spaced(SpacedGame),
}

impl Game {
    /// The family, as the trait every face can speak to.
    pub fn family(&self) -> &dyn Family {
        match self {
            Game::Heaps(g) => g,
            Game::Spaced(s) => s.family(),
        }
    }

    /// The id the database keys this game by (see [`GameSpec::storage_id`](super::GameSpec::storage_id)).
    pub fn storage_id(&self) -> String {
        match self {
            Game::Heaps(g) => g.storage_id(),
            Game::Spaced(s) => s.storage_id(),
        }
    }

    /// The heap game, when it is one.
    pub fn heaps(&self) -> Option<&super::GameSpec> {
        match self {
            Game::Heaps(g) => Some(g),
            Game::Spaced(_) => None,
        }
    }
}

impl From<super::GameSpec> for Game {
    fn from(g: super::GameSpec) -> Game {
        Game::Heaps(g)
    }
}

impl From<SpacedGame> for Game {
    fn from(g: SpacedGame) -> Game {
        Game::Spaced(g)
    }
}

/// Parses a heap game for a command that takes only heap games: a spaced family's name is
/// refused with what it is and which commands take it (rather than as an unknown game).
pub fn parse_heap_game(raw: &str) -> Result<super::GameSpec, super::SpecError> {
    match raw.parse::<Game>()? {
        Game::Heaps(g) => Ok(g),
        Game::Spaced(s) => Err(super::SpecError::new(
            raw,
            format!(
                "{s} is a family with its own position space ({}): solve, query, verify, export and play take it, this command does not yet",
                super::SPACED_FORMS
            ),
        )),
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Heaps(g) => g.fmt(f),
            Game::Spaced(s) => s.fmt(f),
        }
    }
}

impl FromStr for Game {
    type Err = super::SpecError;

    /// A spaced family's name first (`staircase`, `welter`, `raise:C`), else a heap game.
    fn from_str(raw: &str) -> Result<Self, super::SpecError> {
        match raw.parse::<SpacedGame>() {
            Ok(g) => Ok(Game::Spaced(g)),
            Err(e @ SpacedSpecError::Cap(_)) => Err(super::SpecError::new(raw, e)),
            Err(SpacedSpecError::Unknown) => raw.parse().map(Game::Heaps),
        }
    }
}

impl fmt::Display for SpacedGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpacedGame::Staircase(_) => f.write_str("staircase"),
            SpacedGame::Welter(_) => f.write_str("welter"),
            SpacedGame::Raise(r) => write!(f, "raise:{}", r.cap),
        }
    }
}

/// Why a spaced game spec was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpacedSpecError {
    /// Not a spaced family's name.
    #[error("not staircase, welter or raise:C")]
    Unknown,
    /// `raise:C` with a bad cap.
    #[error("raise:C takes a cap C from 1 to {MAX_RAISE_CAP}, not '{0}'")]
    Cap(String),
}

impl FromStr for SpacedGame {
    type Err = SpacedSpecError;

    fn from_str(raw: &str) -> Result<Self, SpacedSpecError> {
        // Spelled as every spec is (`spec::check_spelling`): any case, no spaces, the cap in
        // plain digits (`raise: 3`, `raise:+3` are not specs).
        let s = raw.to_ascii_lowercase();
        match s.as_str() {
            "staircase" | "staircase-nim" => return Ok(SpacedGame::Staircase(Staircase)),
            "welter" | "welters-game" => return Ok(SpacedGame::Welter(Welter)),
            _ => {}
        }
        let Some(cap) = s.strip_prefix("raise:") else { return Err(SpacedSpecError::Unknown) };
        match cap.parse::<u32>() {
            Ok(c) if super::spec::is_number(cap) && (1..=MAX_RAISE_CAP).contains(&c) => {
                Ok(SpacedGame::Raise(Raise { cap: c }))
            }
            _ => Err(SpacedSpecError::Cap(crate::game::echo(cap, 20))),
        }
    }
}

pub(super) fn list(position: &[u32]) -> String {
    position.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        for s in ["staircase", "welter", "raise:3"] {
            assert_eq!(s.parse::<SpacedGame>().unwrap().to_string(), s);
        }
        assert!("raise:0".parse::<SpacedGame>().is_err());
        assert!("raise:x".parse::<SpacedGame>().is_err());
        assert_eq!("nim".parse::<SpacedGame>(), Err(SpacedSpecError::Unknown));
    }

    #[test]
    fn positions_take_each_family_s_canonical_form() {
        let stair: SpacedGame = "staircase".parse().unwrap();
        assert_eq!(stair.parse_position(&["3", "0", "2", "5", "0"]).unwrap(), vec![3, 0, 2, 5]);
        let welter: SpacedGame = "welter".parse().unwrap();
        assert_eq!(welter.parse_position(&["[1,7,0,4]"]).unwrap(), vec![7, 4, 1, 0]);
        assert!(welter.parse_position(&["3", "3"]).is_err());
        let raise: SpacedGame = "raise:4".parse().unwrap();
        assert_eq!(raise.parse_position(&["2", "0", "4"]).unwrap(), vec![4, 2]);
        assert!(raise.parse_position(&["5"]).is_err());
        assert!(raise.parse_position(&["3,,4"]).is_err());
    }

    /// A position of these families is read by the heap lists' rules (one bracket pair
    /// around the whole list at most, no comma without a count), whether it comes as one word
    /// or several; the hostile round found `]`, `[[[[`, `[[1]]`, `[3` and `[3]]` read as `[]`,
    /// `[1]` or `[3]`, and one word `3 0 2` refused.
    #[test]
    fn loose_positions_are_refused_and_one_word_is_a_list() {
        let stair: SpacedGame = "staircase".parse().unwrap();
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
        assert_eq!(stair.parse_position(&["[]"]).unwrap(), Vec::<u32>::new());
        assert_eq!(stair.parse_position(&["0"]).unwrap(), Vec::<u32>::new());
        let err = stair.parse_position(&["1,,2"]).unwrap_err().to_string();
        assert!(err.contains("comma with no count"), "{err}");
        let err = stair.parse_position(&["[3"]).unwrap_err().to_string();
        assert!(err.contains("bracket") && !err.contains("heap"), "{err}");
        let big = (MAX_SPACED_COUNT + 1).to_string();
        assert!(matches!(stair.parse_position(&[big.as_str()]), Err(PositionError::NotACount { .. })));
        let welter: SpacedGame = "welter".parse().unwrap();
        assert_eq!(welter.parse_position(&["3 0 2"]).unwrap(), vec![3, 2, 0]);
    }

    #[test]
    fn moves_follow_the_rules() {
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
