//! A game whose moves a program defines (the Python package's `nimdb.define`): its rules
//! are any [`Family`] the program hands in, named by the user and fingerprinted by its
//! moves, so that a stored solve is never read under other rules.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::game::Convention;
use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout};

/// The longest name of a defined game.
pub const MAX_DEFINED_NAME: usize = 40;

/// A game defined by a program: a name, a fingerprint of its moves, and its rules (the
/// program's [`Family`], whose layout, loopiness and heap cap the game keeps).
#[derive(Clone)]
pub struct Defined {
    name: String,
    fingerprint: u64,
    rules: Arc<dyn Family>,
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
        Ok(Defined { name: name.to_string(), fingerprint, rules })
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

    /// The storage id: the name and the fingerprint (`v1:defined:NAME@0123456789abcdef`).
    pub fn storage_id(&self) -> String {
        format!("{}{:016x}", Self::storage_prefix(&self.name), self.fingerprint)
    }
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
        self.name == other.name
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
