//! The nim-values computed most recently in this process, kept for the next answer.
//!
//! A theory answer needs g(0..=n) of its largest heap, which for games without a shortcut
//! costs seconds (heaps split three ways cost about n⁴). A server answers the same game again
//! and again; this keeps the longest sequence computed for each of the last few games, so an
//! answer within it costs a lookup. A computation stopped part-way (its client left) keeps
//! the values it finished, and the next one computes on from them. Bounded: [`GAMES`] games
//! of at most [`MAX_VALUES`] values each (4 MB apiece, 64 MB in all); `serve` shows what is
//! kept at `/healthz` ([`stats`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::game::MAX_INPUT_HEAP;

/// How many games' sequences are kept (the least recently used goes first).
pub const GAMES: usize = 16;

/// The longest sequence kept for a game: g(0..=[`MAX_INPUT_HEAP`]), 4 MB.
pub const MAX_VALUES: usize = MAX_INPUT_HEAP as usize + 1;

/// The kept games: their keys and g(0..=len − 1), most recently used last.
#[derive(Debug, Default)]
struct Kept(Vec<(String, Arc<Vec<u32>>)>);

impl Kept {
    const fn new() -> Self {
        Kept(Vec::new())
    }

    /// The sequence kept for `game`, marked used.
    fn find(&mut self, game: &str) -> Option<Arc<Vec<u32>>> {
        let i = self.0.iter().position(|(g, _)| g == game)?;
        let entry = self.0.remove(i);
        let values = entry.1.clone();
        self.0.push(entry);
        Some(values)
    }

    /// Keeps the longer of `values` and what is kept for `game`; forgets the least
    /// recently used game past [`GAMES`].
    fn keep(&mut self, game: &str, values: Arc<Vec<u32>>) {
        if let Some(i) = self.0.iter().position(|(g, _)| g == game) {
            let (_, kept) = self.0.remove(i);
            let longer = if kept.len() >= values.len() { kept } else { values };
            self.0.push((game.to_string(), longer));
            return;
        }
        self.0.push((game.to_string(), values));
        if self.0.len() > GAMES {
            self.0.remove(0);
        }
    }
}

static RECENT: Mutex<Kept> = Mutex::new(Kept::new());

/// Asks answered whole from a kept sequence, and asks that found none long enough.
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);

/// What is kept, and how often it answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecentStats {
    /// Games with a kept sequence.
    pub games: usize,
    /// Nim-values kept, all games together.
    pub values: usize,
    /// Their bytes (4 a value).
    pub bytes: usize,
    /// Asks a kept sequence answered whole.
    pub hits: u64,
    /// Asks it did not (nothing kept, or too short: the caller computes on from it).
    pub misses: u64,
}

/// g(0..=n) of `game` (its canonical name) if a sequence that long is kept; marks it used.
pub fn get(game: &str, n: u32) -> Option<Arc<Vec<u32>>> {
    prefix(game, n).filter(|v| v.len() > n as usize)
}

/// The sequence kept for `game`, however long (g(0..len)), to answer from or to compute
/// on from; marks it used. Counts a hit when it reaches heap `n`, else a miss.
pub fn prefix(game: &str, n: u32) -> Option<Arc<Vec<u32>>> {
    let kept = RECENT.lock().ok().and_then(|mut recent| recent.find(game));
    let counter = if kept.as_ref().is_some_and(|v| v.len() > n as usize) { &HITS } else { &MISSES };
    counter.fetch_add(1, Ordering::Relaxed);
    kept
}

/// How many values of `game` are kept (g(0..len); 0 when none), without marking them used
/// or counting a hit or miss: for a caller that only estimates what an answer will cost.
pub fn kept_len(game: &str) -> usize {
    RECENT.lock().ok().and_then(|r| r.0.iter().find(|(g, _)| g == game).map(|(_, v)| v.len())).unwrap_or(0)
}

/// Keeps `values` (g(0..=len − 1), cut to [`MAX_VALUES`]) of `game`, unless a longer
/// sequence is kept already; forgets the least recently used game past [`GAMES`]. Values
/// from a computation stopped part-way may be kept: each finished value is exact.
pub fn keep(game: &str, mut values: Arc<Vec<u32>>) {
    if values.len() > MAX_VALUES {
        values = Arc::new(values[..MAX_VALUES].to_vec());
    }
    if let Ok(mut recent) = RECENT.lock() {
        recent.keep(game, values);
    }
}

/// What is kept now, and the hits and misses so far.
pub fn stats() -> RecentStats {
    let (games, values) =
        RECENT.lock().map(|r| (r.0.len(), r.0.iter().map(|(_, v)| v.len()).sum())).unwrap_or_default();
    RecentStats {
        games,
        values,
        bytes: values * std::mem::size_of::<u32>(),
        hits: HITS.load(Ordering::Relaxed),
        misses: MISSES.load(Ordering::Relaxed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_longest_and_forgets_the_least_recently_used() {
        // A cache of its own: the process's is shared with the other tests.
        let mut kept = Kept::new();
        let key = |i: usize| format!("test-recent-{i}");
        kept.keep(&key(0), Arc::new(vec![0, 1, 2]));
        assert_eq!(kept.find(&key(0)).as_deref(), Some(&vec![0, 1, 2]));
        kept.keep(&key(0), Arc::new(vec![0, 1]));
        assert_eq!(kept.find(&key(0)).unwrap().len(), 3, "a shorter sequence does not replace");
        for i in 1..GAMES {
            kept.keep(&key(i), Arc::new(vec![0]));
        }
        assert!(kept.find(&key(0)).is_some(), "marked used");
        kept.keep(&key(GAMES), Arc::new(vec![0]));
        assert!(kept.find(&key(1)).is_none(), "the least recently used game is forgotten");
        assert!(kept.find(&key(0)).is_some() && kept.find(&key(GAMES)).is_some());
        assert_eq!(kept.0.len(), GAMES);
    }

    #[test]
    fn a_shorter_sequence_is_given_to_compute_on_from() {
        let game = "test-recent-prefix";
        keep(game, Arc::new(vec![0, 1, 2]));
        assert_eq!(get(game, 2).as_deref(), Some(&vec![0, 1, 2]));
        assert!(get(game, 3).is_none(), "too short");
        assert_eq!(prefix(game, 3).unwrap().len(), 3);
        assert_eq!((kept_len(game), kept_len("test-recent-none")), (3, 0));
    }
}
