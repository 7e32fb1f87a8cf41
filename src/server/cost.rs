//! What a request will cost, estimated before it runs: the [`Class`] whose pool runs it.
//!
//! Only requests that a stored record does not answer are classed (the lookup pool tries
//! those first, and defers theory). A theory answer is [`Class::Theorem`] when its work is
//! bounded by a small constant whatever the position: a theorem decides it (Bouton, Moore,
//! Wythoff: the outcome and a winning move without a search, at most
//! [`THEORY_MOVE_LIMIT`](crate::query::THEORY_MOVE_LIMIT) moves listed), no theory applies
//! (the refusal is immediate), or the heap values it needs are kept already or few
//! (predicted at most [`CHEAP_READS`] option reads). A family's theorem answer is one when listing and judging its moves
//! is at most [`CHEAP_MOVE_WORK`]. Everything else is [`Class::Computed`].

use crate::game::{BigPosition, Convention, Game, GameRules, GameSpec};
use crate::theory;

use super::schedule::Class;

/// The most option reads ([`theory::cost`]) the heap values of a theorem answer on the
/// theorem pool may be predicted to need: about 10 ms. The prediction is the plain mex's
/// for games that split heaps three ways, else the plain method's, which bounds what the
/// other engines read (they read fewer pairs, not more): about 2,800 heaps of Kayles or
/// `octal:0.74`, 4,000 of Grundy's game, 150 of `hex:0.[F]`.
pub const CHEAP_READS: f64 = 4.0e6;

/// The most work (moves times the cost of building and judging one, as
/// [`moves_fit`](crate::game::moves_fit) counts it) a family's theorem answer may do on the
/// theorem pool: a few milliseconds.
pub const CHEAP_MOVE_WORK: u64 = 1_000_000;

/// The most positions a batch needing theory may hold to be answered on the theorem pool.
pub const CHEAP_BATCH: usize = 16;

/// The class of a position of any game (cells in its notation) that no stored record holds.
pub fn query(game: &Game, convention: Convention, position: &[u64]) -> Class {
    match game.heaps() {
        Some(spec) => heap_query(spec, convention, &BigPosition::new(position.to_vec())),
        None => {
            let counts: Vec<u32> = position.iter().map(|&c| c.min(u64::from(u32::MAX)) as u32).collect();
            family_query(game, convention, &counts)
        }
    }
}

/// The class of a batch of any game whose positions need theory: [`Class::Theorem`] when it
/// is small and every position is.
pub fn batch_of(game: &Game, convention: Convention, positions: &[&Vec<u64>]) -> Class {
    if positions.len() <= CHEAP_BATCH
        && positions.iter().all(|p| query(game, convention, p) != Class::Computed)
    {
        Class::Theorem
    } else {
        Class::Computed
    }
}

/// The class of a heap game's position that no stored record holds.
pub fn heap_query(game: &GameSpec, convention: Convention, position: &BigPosition) -> Class {
    let Some(bounded) = position.narrow() else {
        // Beyond every database: a theorem alone answers, on the lookup pool.
        return Class::Lookup;
    };
    // A theorem that decides it: no heap values, no search; its moves are listed (each a
    // copy of the position) when there are at most THEORY_MOVE_LIMIT of them.
    match theory::decide(game, convention, position, None) {
        Ok(Some(decision)) => {
            let listed = decision.moves <= crate::query::THEORY_MOVE_LIMIT;
            let cells = decision.moves.saturating_mul(position.len() as u128 + 1);
            return if listed && cells > u128::from(CHEAP_MOVE_WORK) {
                Class::Computed
            } else {
                Class::Theorem
            };
        }
        Err(_) => return Class::Theorem,
        Ok(None) => {}
    }
    let theory = game.rules().theory();
    let Some(rules) = game.heap_rules() else { return Class::Theorem };
    if convention == Convention::Misere || !theory.sum_of_heaps {
        // No theory answers it (a stored quotient was tried on the lookup pool): refused at once.
        return Class::Theorem;
    }
    let n = bounded.largest();
    let kept = theory::recent::kept_len(&game.canonical());
    if kept > n as usize {
        return Class::Theorem;
    }
    // Heaps kept..=n to compute, predicted by the method's closed form.
    let from = kept.min(u32::MAX as usize) as u32;
    let shape = theory::shape::HeapShape::of(rules);
    let reads = if shape.three_way {
        theory::cost::plain_mex_reads(rules, from, n)
    } else {
        theory::cost::plain_method_reads(&shape, from, n)
    };
    if reads <= CHEAP_READS { Class::Theorem } else { Class::Computed }
}

/// The class of a batch whose positions need theory: [`Class::Theorem`] when it is small
/// and every position is.
pub fn batch(game: &GameSpec, convention: Convention, positions: &[&BigPosition]) -> Class {
    if positions.len() <= CHEAP_BATCH
        && positions.iter().all(|p| heap_query(game, convention, p) != Class::Computed)
    {
        Class::Theorem
    } else {
        Class::Computed
    }
}

/// The class of a family's position that no stored solve holds (answered by the family's
/// theorem): [`Class::Theorem`] when listing and judging its moves is cheap.
pub fn family_query(game: &Game, convention: Convention, position: &[u32]) -> Class {
    let family = game.family();
    let Some(formula) = family.formula(convention) else { return Class::Theorem };
    let per_move = position.len() as u64 + 1 + theory::families::evaluation_cost(formula, position);
    let work = family.move_bound(position).saturating_mul(per_move);
    if work <= CHEAP_MOVE_WORK { Class::Theorem } else { Class::Computed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heap(game: &str, convention: Convention, position: &str) -> Class {
        heap_query(&game.parse().unwrap(), convention, &position.parse().unwrap())
    }

    /// Issue 34 H2: nim `1000000,3` (Bouton) and wythoff `1000,999` waited behind heap
    /// values; Kayles normal [60,50,3] behind them too. They are theorem answers; heap
    /// values past the cheap heaps are computed work.
    #[test]
    fn theorems_and_few_heap_values_are_cheap_and_long_heap_values_are_not() {
        use Convention::{Misere, Normal};
        for (game, convention, position) in [
            ("nim", Normal, "1000000,3"),
            ("nim", Misere, "1000000,3,2"),
            ("wythoff", Normal, "1000,999"),
            ("kayles", Normal, "60,50,3"),
            ("kayles", Misere, "60,50,3"),
            ("hex:0.[F]", Normal, "40"),
            ("grundy", Normal, "1500"),
        ] {
            assert_eq!(heap(game, convention, position), Class::Theorem, "{game} {position}");
        }
        for (game, position) in [("hex:0.[F]", "1335"), ("grundy", "40000"), ("kayles", "900000")] {
            assert_eq!(heap(game, Normal, position), Class::Computed, "{game} {position}");
        }
        // Issue 34, round five: the plain method's heap values were classed by heap count
        // alone, so octal:0.74 at 20,000 (about 0.5 CPU s) ran on the theorem pool.
        assert_eq!(heap("octal:0.74", Normal, "2000"), Class::Theorem);
        assert_eq!(heap("octal:0.74", Normal, "20000"), Class::Computed);
        assert_eq!(heap("hex:0.[F]", Normal, "200"), Class::Computed);
        assert_eq!(heap("nim", Normal, "99999999999999,3"), Class::Lookup);
        // Bouton's rule over 85,050 listed moves, each a copy of 100 heaps: computed work;
        // over 500,000 moves none are listed: a theorem answer again.
        let heaps =
            |sizes: std::ops::RangeInclusive<u32>| sizes.map(|h| h.to_string()).collect::<Vec<_>>().join(",");
        assert_eq!(heap("nim", Normal, &heaps(801..=900)), Class::Computed);
        assert_eq!(heap("nim", Normal, &heaps(1..=1000)), Class::Theorem);
        let kayles: GameSpec = "kayles".parse().unwrap();
        let few: BigPosition = "5,4".parse().unwrap();
        let long: BigPosition = "900000".parse().unwrap();
        assert_eq!(batch(&kayles, Normal, &[&few; 16]), Class::Theorem);
        assert_eq!(batch(&kayles, Normal, &[&few; 17]), Class::Computed);
        assert_eq!(batch(&kayles, Normal, &[&few, &long]), Class::Computed);
    }

    /// Issue 34 H1: a staircase of four steps of 1048576 coins (about 4 million moves, 3 s
    /// and 663 MB) ran on the lookup pool. A family's theorem over few moves is a theorem
    /// answer, over millions computed work.
    #[test]
    fn a_family_s_theorem_over_millions_of_moves_is_computed_work() {
        let staircase: Game = "staircase".parse().unwrap();
        let welter: Game = "welter".parse().unwrap();
        let big = [1_048_576; 4];
        assert_eq!(family_query(&staircase, Convention::Normal, &big), Class::Computed);
        assert_eq!(family_query(&staircase, Convention::Normal, &[30, 0, 20, 5]), Class::Theorem);
        assert_eq!(family_query(&welter, Convention::Normal, &[20, 9, 3]), Class::Theorem);
        assert_eq!(family_query(&welter, Convention::Normal, &[1 << 20, 1 << 19, 3]), Class::Computed);
    }
}
