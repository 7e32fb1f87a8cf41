//! Which theorem decides a position, and what it says: the outcome and a winning move, for
//! heaps of any size that fits in u64, without listing moves.
//!
//! * Nim (normal and misère): Bouton's rule ([`bouton_move`]);
//! * Nim_k: Moore's theorem and construction ([`moore_move`]);
//! * Wythoff's game on at most two heaps: Wythoff's pairs ([`wythoff_move`]);
//! * misère play of an octal game: a misère quotient that covers every heap (through its
//!   proven period for heaps beyond those computed, [`quotient_play`]).
//!
//! From a loss the move given is the first move in move order (every move loses): take one
//! token from the largest heap, or the quotient game's first result of it.

use crate::game::{BigChange, BigMove, BigPosition, Convention, Formula, GameRules, GameSpec};

use super::lowering::as_move;
use super::quotient::{Quotient, QuotientError};
use super::quotient_play::{move_count, quotient_play};
use super::{bouton_loss, bouton_move, moore_loss_u64, moore_move, wythoff_loss_u64, wythoff_move};

/// The theorem that decided a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theorem {
    /// Bouton's rule for Nim.
    Bouton,
    /// Moore's theorem for Nim_k.
    Moore,
    /// Wythoff's pairs.
    Wythoff,
    /// A misère quotient (Plambeck–Siegel).
    Quotient,
}

/// What a theorem says about a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The theorem used.
    pub theorem: Theorem,
    /// Whether the position is a loss for the player to move.
    pub loss: bool,
    /// The nim-value, where the theorem gives it (normal-play Nim: the nim-sum).
    pub nim_value: Option<u64>,
    /// From a win, a winning move; from a loss, the first move; `None` when there is none.
    pub best_move: Option<BigMove>,
    /// How many moves the position has (exact for heap games; for Nim_k and Wythoff's game
    /// the bound their rules give), saturating.
    pub moves: u128,
}

/// The decision of the theorem that applies to `position` in `game` under `convention`, or
/// `None` when none does: Nim, Nim_k and two-heap Wythoff always; misère play of an octal
/// game other than Nim when `quotient` (its misère quotient) covers every heap.
pub fn decide(
    game: &GameSpec,
    convention: Convention,
    position: &BigPosition,
    quotient: Option<&Quotient>,
) -> Result<Option<Decision>, QuotientError> {
    let heaps = position.heaps();
    let first_move = || heaps.first().map(|&h| BigMove::of(vec![BigChange::lower(h, h - 1)]));
    let decision = |theorem, loss: bool, nim_value, win: Option<BigMove>, moves| Decision {
        theorem,
        loss,
        nim_value,
        best_move: if loss { first_move() } else { win },
        moves,
    };
    if game.is_nim() {
        let loss = bouton_loss(heaps, convention);
        let nim_value = (convention == Convention::Normal).then(|| heaps.iter().fold(0, |x, &h| x ^ h));
        let win = bouton_move(heaps, convention).map(|l| as_move(&[l]));
        let moves = distinct(heaps).map(|h| h as u128 + 1).fold(0u128, u128::saturating_add);
        return Ok(Some(decision(Theorem::Bouton, loss, nim_value, win, moves)));
    }
    match game.rules().theory().formula {
        Some(Formula::Moore { k }) => {
            let loss = moore_loss_u64(heaps, k, convention);
            let win = moore_move(heaps, k, convention).map(|l| as_move(&l));
            return Ok(Some(decision(Theorem::Moore, loss, None, win, moore_bound(heaps, k))));
        }
        Some(Formula::Wythoff) => {
            let Some(loss) = wythoff_loss_u64(heaps, convention) else { return Ok(None) };
            let win = wythoff_move(heaps, convention).map(|l| as_move(&l));
            let (n, top) = (heaps.len() as u128, position.largest() as u128);
            let moves = n * top + n * n.saturating_sub(1) / 2 * top;
            return Ok(Some(decision(Theorem::Wythoff, loss, None, win, moves)));
        }
        _ => {}
    }
    let (Some(code), Some(q), Convention::Misere) = (game.octal(), quotient, convention) else {
        return Ok(None);
    };
    Ok(quotient_play(q, code, heaps)?.map(|play| Decision {
        theorem: Theorem::Quotient,
        loss: play.loss,
        nim_value: None,
        best_move: play.best_move,
        moves: move_count(code, heaps),
    }))
}

/// The distinct heap sizes of `heaps` (largest first).
fn distinct(heaps: &[u64]) -> impl Iterator<Item = u64> + '_ {
    heaps.iter().enumerate().filter(|&(i, &h)| i == 0 || heaps[i - 1] != h).map(|(_, &h)| h)
}

/// The bound on Nim_k's moves that its rules give: choose j ≤ k heaps and a smaller size for
/// each, Σ_j e_j(h_1, …, h_n) (elementary symmetric sums), saturating.
fn moore_bound(heaps: &[u64], k: u32) -> u128 {
    let k = k as usize;
    let mut e = vec![0u128; k + 1];
    e[0] = 1;
    for &h in heaps {
        for j in (1..=k).rev() {
            e[j] = e[j].saturating_add(e[j - 1].saturating_mul(h as u128));
        }
    }
    e[1..].iter().fold(0u128, |acc, &x| acc.saturating_add(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;

    #[test]
    fn bounds_match_the_rules_bounds() {
        for game in ["moore:2", "moore:3", "wythoff", "nim"] {
            let spec: GameSpec = game.parse().unwrap();
            for heaps in [vec![9, 4], vec![7, 7, 3], vec![12], vec![5, 4]] {
                let p = Position::new(heaps);
                if game == "wythoff" && p.len() > 2 {
                    continue;
                }
                let d = decide(&spec, Convention::Normal, &BigPosition::from(&p), None).unwrap().unwrap();
                let bound = spec.rules().move_bound(&p);
                if game == "nim" {
                    let exact = crate::game::all_moves(spec.rules(), &p).len() as u128;
                    assert!(d.moves >= exact, "{game} {p}");
                } else {
                    assert_eq!(d.moves, bound, "{game} {p}");
                }
            }
        }
    }

    #[test]
    fn no_theorem_for_other_games_or_three_heap_wythoff() {
        let p = BigPosition::new(vec![5, 4, 3]);
        for (game, convention) in [("wythoff", Convention::Normal), ("kayles", Convention::Normal)] {
            assert_eq!(decide(&game.parse().unwrap(), convention, &p, None).unwrap(), None, "{game}");
        }
        assert_eq!(decide(&"kayles".parse().unwrap(), Convention::Misere, &p, None).unwrap(), None);
    }
}
