//! A game whose moves a program defines (the Python package's `nimdb.define`): its rules
//! are any [`Family`] the program hands in, named by the user and fingerprinted by its
//! moves, so that a stored solve is never read under other rules.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::game::Convention;
use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout};
use crate::game::stated::Stated;

/// The longest name of a defined game.
pub const MAX_DEFINED_NAME: usize = 40;

/// A game defined by a program: a name, a fingerprint of its moves, and its rules (the
/// program's [`Family`], whose layout, loopiness and heap cap the game keeps).
#[derive(Clone)]
pub struct Defined {
    name: String,
    fingerprint: u64,
    rules: Arc<dyn Family>,
    /// Whether the fingerprint and the rules' layout are the game's own (`false` for a
    /// name given on a command line, before it is looked up in a database).
    resolved: bool,
    /// The theorems (and conjectures) the program states of it: not part of its identity
    /// (its storage id, equality and hash are its rules').
    theorems: Vec<Arc<dyn Stated>>,
}

/// Why a defined game's name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a name for a defined game: use 1 to {MAX_DEFINED_NAME} lower-case letters, digits, '-' or '_', starting with a letter"
)]
pub struct BadName(pub String);

impl Defined {
    /// The game `name` with `rules`, whose moves have `fingerprint` (a hash of the moves of a
    /// fixed sample of positions, computed by the program that defines it).
    pub fn new(name: &str, fingerprint: u64, rules: Arc<dyn Family>) -> Result<Self, BadName> {
        let ok = (1..=MAX_DEFINED_NAME).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !ok {
            return Err(BadName(crate::game::echo(name, 60)));
        }
        Ok(Defined { name: name.to_string(), fingerprint, rules, resolved: true, theorems: Vec::new() })
    }

    /// The same game with the theorems (and conjectures) the program states of it.
    pub fn with_theorems(self, theorems: Vec<Arc<dyn Stated>>) -> Self {
        Defined { theorems, ..self }
    }

    /// The theorems and conjectures the program states of it, in the order given.
    pub fn theorems(&self) -> &[Arc<dyn Stated>] {
        &self.theorems
    }

    /// The first theorem the program states of it under `convention` and marks proven: what
    /// answers a position no stored solve holds.
    pub fn proven(&self, convention: Convention) -> Option<&Arc<dyn Stated>> {
        self.theorems.iter().find(|t| t.proven() && t.convention() == convention)
    }

    /// The game named `name` (`defined:NAME` on a command line), before it is looked up in
    /// a database: its layout, fingerprint and rules are the stored solve's, read then
    /// (`nimdb::stored::resolve`). Until then no stored solve matches it.
    pub fn unresolved(name: &str) -> Result<Self, BadName> {
        Ok(Defined { resolved: false, ..Defined::new(name, 0, Arc::new(Unnamed))? })
    }

    /// Whether the game is its stored or defined self (not a bare name).
    pub fn is_resolved(&self) -> bool {
        self.resolved
    }

    /// The name the user gave.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The fingerprint of its moves.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The prefix of the storage id of every game defined under `name`, whatever its rules:
    /// what a solve under the same name with other rules is found by.
    pub fn storage_prefix(name: &str) -> String {
        format!("{}defined:{name}@", crate::game::spec::STORAGE_ID_PREFIX)
    }

    /// The storage id: the name, the fingerprint, and what a reader needs to rank its
    /// positions without the rules: the layout, whether it is loopy, and the heap cap
    /// (`v1:defined:NAME@0123456789abcdef:multiset:acyclic:-`, `…:row4:loopy:3`).
    pub fn storage_id(&self) -> String {
        if !self.resolved {
            return format!("{}unresolved", Self::storage_prefix(&self.name));
        }
        let layout = match self.rules.layout() {
            SpaceLayout::Multiset => "multiset".to_string(),
            SpaceLayout::Staircase => "staircase".to_string(),
            SpaceLayout::DistinctSet => "set".to_string(),
            SpaceLayout::Row { heaps, .. } => format!("row{heaps}"),
        };
        format!(
            "{}{:016x}:{layout}:{}:{}",
            Self::storage_prefix(&self.name),
            self.fingerprint,
            if self.rules.loopy() { "loopy" } else { "acyclic" },
            self.rules.heap_cap().map_or("-".to_string(), |c| c.to_string())
        )
    }

    /// The game stored under `id` (a [`Defined::storage_id`]), without its rules: what a
    /// reader of its stored solves (the command line, a server) knows of it. Its positions
    /// are read, ranked and shown; its moves are not known ([`Family::moves_known`]).
    pub fn from_storage_id(id: &str) -> Option<Defined> {
        let rest = id.strip_prefix(crate::game::spec::STORAGE_ID_PREFIX)?.strip_prefix("defined:")?;
        let (name, rest) = rest.split_once('@')?;
        let mut parts = rest.split(':');
        let fingerprint = u64::from_str_radix(parts.next().filter(|f| f.len() == 16)?, 16).ok()?;
        let layout = match parts.next()? {
            "multiset" => SpaceLayout::Multiset,
            "staircase" => SpaceLayout::Staircase,
            "set" => SpaceLayout::DistinctSet,
            row => SpaceLayout::Row {
                heaps: row.strip_prefix("row")?.parse().ok().filter(|n| (1..=16).contains(n))?,
                sorted: false,
            },
        };
        let loopy = match parts.next()? {
            "loopy" => true,
            "acyclic" => false,
            _ => return None,
        };
        let cap = match parts.next()? {
            "-" => None,
            c => Some(c.parse::<u32>().ok().filter(|c| (1..=64).contains(c))?),
        };
        if parts.next().is_some() {
            return None;
        }
        let rules = Arc::new(Recorded { name: name.to_string(), layout, loopy, cap });
        let game = Defined::new(name, fingerprint, rules).ok()?;
        (game.storage_id() == id).then_some(game)
    }
}

/// What a reader knows of a defined game from its storage id: its layout, loopiness and
/// cap, not its moves (they are the defining program's).
#[derive(Debug)]
struct Recorded {
    name: String,
    layout: SpaceLayout,
    loopy: bool,
    cap: Option<u32>,
}

impl Family for Recorded {
    fn layout(&self) -> SpaceLayout {
        self.layout
    }
    fn loopy(&self) -> bool {
        self.loopy
    }
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        canonical_capped(self.layout, self.cap, &self.name, counts)
    }
    fn show(&self, position: &[u32]) -> String {
        show_tuple(position)
    }
    fn moves(&self, _position: &[u32]) -> Vec<LabelledMove> {
        Vec::new()
    }
    fn rules_text(&self) -> String {
        format!(
            "defined:{}: a game defined in Python (nimdb.define); its moves are the defining function's, which only Python has",
            self.name
        )
    }
    fn formula(&self, _convention: Convention) -> Option<Formula> {
        None
    }
    fn heap_cap(&self) -> Option<u32> {
        self.cap
    }
    fn moves_known(&self) -> bool {
        false
    }
}

/// The rules of a defined game known by its name alone: a position's counts are kept as
/// written (in order) until the game is resolved and its layout puts them in canonical
/// form; nothing else is known.
#[derive(Debug)]
struct Unnamed;

impl Family for Unnamed {
    fn layout(&self) -> SpaceLayout {
        SpaceLayout::Staircase
    }
    fn loopy(&self) -> bool {
        false
    }
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        Ok(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        show_tuple(position)
    }
    fn moves(&self, _position: &[u32]) -> Vec<LabelledMove> {
        Vec::new()
    }
    fn rules_text(&self) -> String {
        "a game defined in Python, known here by its name alone".to_string()
    }
    fn formula(&self, _convention: Convention) -> Option<Formula> {
        None
    }
    fn moves_known(&self) -> bool {
        false
    }
}

/// [`canonical_in`], with every heap at most `cap` (when the rules of `name` cap heaps).
pub fn canonical_capped(
    layout: SpaceLayout,
    cap: Option<u32>,
    name: &str,
    counts: Vec<u32>,
) -> Result<Vec<u32>, PositionError> {
    if let Some((cap, &h)) = cap.and_then(|c| counts.iter().find(|&&h| h > c).map(|h| (c, h))) {
        return Err(PositionError::Illegal(format!("a heap of {h}: {name} caps heaps at {cap}")));
    }
    canonical_in(layout, counts)
}

/// A defined game's position as a tuple: `(3, 0, 2)`, `()`.
pub fn show_tuple(position: &[u32]) -> String {
    format!("({})", position.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))
}

impl fmt::Debug for Defined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Defined({}@{:016x})", self.name, self.fingerprint)
    }
}

impl fmt::Display for Defined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "defined:{}", self.name)
    }
}

/// Two defined games are the same game when their names, moves' fingerprints and spaces
/// agree.
impl PartialEq for Defined {
    fn eq(&self, other: &Self) -> bool {
        self.resolved == other.resolved
            && self.name == other.name
            && self.fingerprint == other.fingerprint
            && self.rules.layout() == other.rules.layout()
            && self.rules.loopy() == other.rules.loopy()
            && self.rules.heap_cap() == other.rules.heap_cap()
    }
}

impl Eq for Defined {}

impl Hash for Defined {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.fingerprint.hash(state);
    }
}

impl Family for Defined {
    fn layout(&self) -> SpaceLayout {
        self.rules.layout()
    }
    fn loopy(&self) -> bool {
        self.rules.loopy()
    }
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        self.rules.canonical(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        self.rules.show(position)
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        self.rules.moves(position)
    }
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        self.rules.for_each_child(position, buf, visit)
    }
    fn rules_text(&self) -> String {
        self.rules.rules_text()
    }
    fn formula(&self, _convention: Convention) -> Option<Formula> {
        // A program's theorem is not one nimdb can cite: every answer comes from a solve.
        None
    }
    fn heap_cap(&self) -> Option<u32> {
        self.rules.heap_cap()
    }
    fn move_bound(&self, position: &[u32]) -> u64 {
        self.rules.move_bound(position)
    }
    fn moves_known(&self) -> bool {
        self.rules.moves_known()
    }
}

/// The canonical form of `counts` in `layout`, for a program's rules that keep to one of
/// nimdb's layouts: a multiset (or a sorted row) largest first with its zeros dropped; a
/// staircase or a row without its trailing zeros (a row of at most `heaps` heaps); a set
/// of distinct heaps largest first.
pub fn canonical_in(layout: SpaceLayout, mut counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
    match layout {
        SpaceLayout::Multiset | SpaceLayout::Row { sorted: true, .. } => {
            counts.retain(|&c| c > 0);
            counts.sort_unstable_by(|a, b| b.cmp(a));
            if let SpaceLayout::Row { heaps, .. } = layout
                && counts.len() > heaps as usize
            {
                return Err(PositionError::Illegal(format!(
                    "{} heaps: a row holds at most {heaps}",
                    counts.len()
                )));
            }
        }
        SpaceLayout::Staircase | SpaceLayout::Row { sorted: false, .. } => {
            while counts.last() == Some(&0) {
                counts.pop();
            }
            if let SpaceLayout::Row { heaps, .. } = layout
                && counts.len() > heaps as usize
            {
                return Err(PositionError::Illegal(format!(
                    "{} heaps: a row holds at most {heaps}",
                    counts.len()
                )));
            }
        }
        SpaceLayout::DistinctSet => {
            counts.sort_unstable_by(|a, b| b.cmp(a));
            if counts.windows(2).any(|w| w[0] == w[1]) {
                return Err(PositionError::Illegal(
                    "two equal heaps: the heaps of a set are distinct".into(),
                ));
            }
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn a_stored_id_gives_back_the_game_without_its_moves() {
        for (layout, loopy, cap) in [
            (SpaceLayout::Multiset, false, None),
            (SpaceLayout::Row { heaps: 4, sorted: false }, true, Some(3)),
            (SpaceLayout::Staircase, false, None),
            (SpaceLayout::DistinctSet, false, None),
        ] {
            let rules = Arc::new(Recorded { name: "g".into(), layout, loopy, cap });
            let game = Defined::new("my-game_2", 0x0123_4567_89ab_cdef, rules).unwrap();
            let id = game.storage_id();
            let back = Defined::from_storage_id(&id).expect(&id);
            assert_eq!(back, game);
            assert_eq!((back.layout(), back.loopy(), back.heap_cap()), (layout, loopy, cap));
            assert!(!back.moves_known() && back.moves(&[1]).is_empty());
            assert_eq!(Game::from_storage_id(&id), Some(Game::Defined(back)));
        }
        for bad in [
            "v1:defined:g@0123456789abcdef:multiset:acyclic",
            "v1:defined:g@0123456789abcde:multiset:acyclic:-",
            "v1:defined:g@0123456789abcdef:row17:acyclic:-",
            "v1:defined:G@0123456789abcdef:multiset:acyclic:-",
            "v1:defined:g@0123456789abcdef:multiset:acyclic:0",
            "v1:defined:g@0123456789abcdef:multiset:maybe:-",
        ] {
            assert_eq!(Defined::from_storage_id(bad), None, "{bad}");
        }
        // A name on a command line matches no stored solve until it is resolved, and a name
        // is checked.
        let named = Game::parse_stored("defined:my-game_2").unwrap();
        assert_eq!(named.unresolved_name(), Some("my-game_2"));
        assert!(named.storage_id().ends_with("@unresolved"));
        assert!(Game::parse_stored("defined:Bad").is_err());
        assert!("defined:my-game_2".parse::<Game>().is_err(), "only the readers take a defined game");
        assert_eq!(
            canonical_in(SpaceLayout::Row { heaps: 3, sorted: false }, vec![0, 2, 0]).unwrap(),
            vec![0, 2]
        );
        assert!(canonical_in(SpaceLayout::DistinctSet, vec![2, 2]).is_err());
        assert_eq!(canonical_in(SpaceLayout::Multiset, vec![0, 1, 3]).unwrap(), vec![3, 1]);
    }
}
