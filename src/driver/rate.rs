//! The CPU time a solve is expected to take: its positions at the rate measured for its kind
//! of game. The rates are whole-process figures (`nimdb solve … --quiet`, user + system CPU,
//! one run each) on the project's 2-core reference machine while it was shared with other
//! work, so a quiet machine is faster; they are given so that a suggested solve says what it
//! costs before anyone starts it, not as a promise.

use crate::game::{Game, HeapRules, Rules};

/// A solve's expected CPU time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuTime {
    /// Expected CPU seconds (user + system).
    pub seconds: f64,
    /// The rate it is computed at: CPU nanoseconds a position.
    pub ns_per_position: f64,
    /// The measured solve the rate comes from, in words.
    pub measured: &'static str,
}

/// A measured rate: CPU nanoseconds a position, and the solve it was measured on.
struct Rate(f64, &'static str);

/// Misère Kayles to total 100, 1,642,992,568 positions in 303.6 CPU s (the median of five
/// runs at b63c6b6, two threads, a quiet machine, 2026-11-28; 335.1 at 969e252; issue 33's
/// first figure, on 7940685, was 640.6 CPU s).
const SPLITTING: Rate = Rate(185.0, "misère Kayles to total 100");
/// Misère subtraction:1,2,3 to total 60: 6,639,349 positions in 2.03 CPU s (the games that
/// never split, in a universe bounded by the total; Nim itself is faster, 140 ns a position
/// to total 60 and 67 with 8 heaps of at most 32).
const NOT_SPLITTING: Rate = Rate(306.0, "misère subtraction:1,2,3 to total 60");
/// Staircase Nim to total 70: 30,053,954 positions in 30.8 CPU s.
const STAIRCASE: Rate = Rate(1_020.0, "staircase to total 70");
/// Welter's game to total 100: 10,544,350 positions in 31.5 CPU s.
const WELTER: Rate = Rate(2_990.0, "welter to total 100");
/// Hypergraph Nim, exact 2 of 4 heaps, each at most 40: 135,751 positions in 0.10 CPU s.
const HYPER: Rate = Rate(740.0, "hyper:4:exact:2 with heaps ≤ 40");
/// Nim with raising, cap 2, 400 heaps: 80,601 positions (a tier each) in 9.06 CPU s.
const RAISE: Rate = Rate(112_000.0, "raise:2 with 400 heaps");

/// The expected CPU time of solving `positions` positions of `game`; `None` for a game
/// defined by a program, whose time is the program's.
pub fn cpu_time(game: &Game, positions: u64) -> Option<CpuTime> {
    let Rate(ns, measured) = match game {
        Game::Heaps(spec) if matches!(spec.rules(), Rules::Heap(h) if h.splits()) => SPLITTING,
        Game::Heaps(_) => NOT_SPLITTING,
        Game::Staircase(_) => STAIRCASE,
        Game::Welter(_) => WELTER,
        Game::Hyper(_) => HYPER,
        Game::Raise(_) => RAISE,
        Game::Defined(_) => return None,
    };
    Some(CpuTime { seconds: positions as f64 * ns * 1e-9, ns_per_position: ns, measured })
}

/// A duration in the unit that reads best: `40 s`, `12 min`, `3.5 h`, `2.1 days`.
pub fn duration_words(seconds: f64) -> String {
    if seconds < 1.0 {
        "under a second".to_string()
    } else if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 90.0 * 60.0 {
        format!("{:.0} min", seconds / 60.0)
    } else if seconds < 48.0 * 3600.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else {
        format!("{:.1} days", seconds / 86_400.0)
    }
}

impl CpuTime {
    /// "~3.5 h of CPU at ~185 ns a position, the rate measured on misère Kayles to total 100".
    pub fn words(&self) -> String {
        format!(
            "~{} of CPU at ~{:.0} ns a position, the rate measured on {}",
            duration_words(self.seconds),
            self.ns_per_position,
            self.measured
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(duration_words(0.2), "under a second");
        assert_eq!(duration_words(40.0), "40 s");
        assert_eq!(duration_words(720.0), "12 min");
        assert_eq!(duration_words(3.5 * 3600.0), "3.5 h");
        assert_eq!(duration_words(3.0 * 86_400.0), "3.0 days");
    }

    #[test]
    fn each_kind_has_its_rate() {
        let kayles: Game = "kayles".parse().unwrap();
        let t = cpu_time(&kayles, 1_642_992_568).unwrap();
        // The figure the rate was taken from comes back.
        assert!((t.seconds - 303.6).abs() < 1.0, "{t:?}");
        let nim: Game = "nim".parse().unwrap();
        assert_eq!(cpu_time(&nim, 1).unwrap().measured, NOT_SPLITTING.1);
        for (game, rate) in [("staircase", STAIRCASE.0), ("welter", WELTER.0), ("raise:2", RAISE.0)] {
            let g: Game = game.parse().unwrap();
            assert_eq!(cpu_time(&g, 1_000).unwrap().ns_per_position, rate, "{game}");
        }
    }
}
