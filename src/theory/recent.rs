//! The nim-values computed most recently in this process, kept for the next answer.
//!
//! A theory answer needs g(0..=n) of its largest heap, which for games without a shortcut
//! costs seconds (heaps split three ways cost about n⁴). A server answers the same game again
//! and again; this keeps the longest sequence computed for each of the last few games, so an
//! answer within it costs a lookup. Bounded: [`GAMES`] games of at most
//! [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP) + 1 values each (4 MB apiece).

use std::sync::{Arc, Mutex};

/// How many games' sequences are kept (the least recently used goes first).
pub const GAMES: usize = 16;

/// Each kept game: its key and g(0..=len − 1), most recently used last.
static RECENT: Mutex<Vec<(String, Arc<Vec<u32>>)>> = Mutex::new(Vec::new());

/// g(0..=n) of `game` (its canonical name) if a sequence that long is kept; marks it used.
pub fn get(game: &str, n: u32) -> Option<Arc<Vec<u32>>> {
    let mut recent = RECENT.lock().ok()?;
    let i = recent.iter().position(|(g, v)| g == game && v.len() > n as usize)?;
    let entry = recent.remove(i);
    let values = entry.1.clone();
    recent.push(entry);
    Some(values)
}

/// Keeps `values` (g(0..=len − 1)) of `game`, unless a longer sequence is kept already;
/// forgets the least recently used game past [`GAMES`].
pub fn keep(game: &str, values: Arc<Vec<u32>>) {
    let Ok(mut recent) = RECENT.lock() else { return };
    if let Some(i) = recent.iter().position(|(g, _)| g == game) {
        let (_, kept) = recent.remove(i);
        let longer = if kept.len() >= values.len() { kept } else { values };
        recent.push((game.to_string(), longer));
        return;
    }
    recent.push((game.to_string(), values));
    if recent.len() > GAMES {
        recent.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_longest_and_forgets_the_least_recently_used() {
        let key = |i: usize| format!("test-recent-{i}");
        keep(&key(0), Arc::new(vec![0, 1, 2]));
        assert_eq!(get(&key(0), 2).as_deref(), Some(&vec![0, 1, 2]));
        assert!(get(&key(0), 3).is_none(), "too short");
        keep(&key(0), Arc::new(vec![0, 1]));
        assert_eq!(get(&key(0), 2).unwrap().len(), 3, "a shorter sequence does not replace");
        // Other tests may keep games meanwhile: fill the cache well past its size.
        for i in 1..=2 * GAMES {
            keep(&key(i), Arc::new(vec![0]));
        }
        assert!(get(&key(0), 0).is_none(), "the least recently used game is forgotten");
        assert!(get(&key(2 * GAMES), 0).is_some());
    }
}
