//! Playing through a misère quotient on heaps of any size (u64): a position's outcome and
//! the first winning move in nimdb's move order, found without listing every move.
//!
//! A position is a misère loss exactly when the product of its heaps' images lies in P.
//! A move replaces one heap h by its option (nothing, one heap, or two heaps), so it wins
//! when rest(h) · Φ(option) ∈ P, where rest(h) is the product over the other heaps. Heaps
//! are tried largest first and each heap's options in move order (fewest tokens taken
//! first; one heap before two; splits by larger part first), as [`crate::game::heap_results`]
//! lists them. A finite code takes at most k tokens, and when the heap images are periodic
//! from n₀ with period p, a split of h − t into a ≥ b with b ≥ max(n₀, 1) + p has the same
//! images as the split with b − p (and a + p), which comes earlier: so only splits with
//! b < max(n₀, 1) + p need trying, and a heap costs O(k·(n₀ + p)) products whatever its size.

use crate::game::{BigChange, BigMove, TakeBreakCode};

use super::quotient::{Quotient, QuotientError};

/// What a quotient says about a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotientPlay {
    /// Whether the position is a misère P-position (a loss for the player to move).
    pub loss: bool,
    /// From a win, the first winning move in move order; from a loss, the first move;
    /// `None` when there is no move.
    pub best_move: Option<BigMove>,
}

/// The digit of `code` for taking `k` tokens, for any k.
fn digit(code: &TakeBreakCode, k: u64) -> u8 {
    match u32::try_from(k) {
        Ok(k) => code.digit(k),
        Err(_) => code.repeat().unwrap_or(0),
    }
}

/// Calls `visit(parts)` for the results of a heap of `heap` tokens in move order (see the
/// module documentation), skipping splits whose smaller part exceeds `split_cap`, until
/// `visit` returns true. Returns whether it did.
fn each_option(
    code: &TakeBreakCode,
    heap: u64,
    split_cap: u64,
    visit: &mut dyn FnMut(&[u64]) -> Result<bool, QuotientError>,
) -> Result<bool, QuotientError> {
    let most = code.last_nonzero().map_or(heap, |k| (k as u64).min(heap));
    for taken in 0..=most {
        let left = heap - taken;
        let d = digit(code, taken);
        if left == 0 {
            if taken > 0 && digit(code, heap) & 1 != 0 && visit(&[])? {
                return Ok(true);
            }
            continue;
        }
        if taken > 0 && d & 2 != 0 && visit(&[left])? {
            return Ok(true);
        }
        if d & 4 != 0 {
            for b in 1..=(left / 2).min(split_cap) {
                if visit(&[left - b, b])? {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// How many moves a position has in `code` (one per distinct heap size and result), counted
/// without listing them.
pub fn move_count(code: &TakeBreakCode, heaps: &[u64]) -> u128 {
    let mut total = 0u128;
    for (i, &h) in heaps.iter().enumerate() {
        if i > 0 && heaps[i - 1] == h {
            continue;
        }
        total = total.saturating_add(heap_move_count(code, h));
    }
    total
}

/// How many results a heap of `heap` tokens has in `code`.
fn heap_move_count(code: &TakeBreakCode, heap: u64) -> u128 {
    if heap == 0 {
        return 0;
    }
    let h = heap as u128;
    let finite = code.finite_digits().len() as u64;
    let most = code.last_nonzero().map_or(heap, |k| (k as u64).min(heap));
    // Taking t < h tokens: leave one heap (t ≥ 1, digit bit 2), or split h − t in two
    // (digit bit 4) in ⌊(h − t)/2⌋ ways; taking all h: vanish (digit of h, bit 1).
    let per_take = |t: u64| -> u128 {
        let d = digit(code, t);
        u128::from(t > 0 && d & 2 != 0) + if d & 4 != 0 { ((heap - t) / 2) as u128 } else { 0 }
    };
    let mut count = u128::from(most == heap && heap > 0 && digit(code, heap) & 1 != 0);
    let last_take = most.min(heap - 1);
    let explicit = last_take.min(finite);
    for t in 0..=explicit {
        count += per_take(t);
    }
    if last_take > explicit {
        // Takes finite..=last_take all have the repeated digit r (an infinite code).
        let r = code.repeat().unwrap_or(0);
        let (from, to) = (explicit as u128 + 1, last_take as u128);
        if r & 2 != 0 {
            count += to - from + 1;
        }
        if r & 4 != 0 {
            // Σ_{t=from}^{to} ⌊(h − t)/2⌋ = S(h − from) − S(h − to − 1), S(M) = Σ_{m≤M} ⌊m/2⌋ = ⌊M/2⌋·⌈M/2⌉.
            let s = |m: u128| (m / 2) * m.div_ceil(2);
            count += s(h - from) - s(h - to - 1);
        }
    }
    count
}

/// Whether the position `heaps` (any sizes) is a misère loss according to `q`, or `None`
/// when `q` does not cover one of its heaps. No move is looked for.
pub fn quotient_loss(q: &Quotient, heaps: &[u64]) -> Result<Option<bool>, QuotientError> {
    let stand_ins: Option<Vec<u32>> = heaps.iter().map(|&h| q.equivalent_heap(h)).collect();
    match stand_ins {
        Some(s) => Ok(Some(q.is_p(&s)?)),
        None => Ok(None),
    }
}

/// The outcome and best move of the position `heaps` (largest first, any sizes) through
/// `q`, or `None` when `q` does not cover one of its heaps. `code` is the quotient's game.
pub fn quotient_play(
    q: &Quotient,
    code: &TakeBreakCode,
    heaps: &[u64],
) -> Result<Option<QuotientPlay>, QuotientError> {
    // Distinct heap sizes (largest first) with their counts and a covered stand-in.
    let mut groups: Vec<(u64, usize, u32)> = Vec::new();
    for &h in heaps {
        match groups.last_mut() {
            Some((s, c, _)) if *s == h => *c += 1,
            _ => match q.equivalent_heap(h) {
                Some(r) => groups.push((h, 1, r)),
                None => return Ok(None),
            },
        }
    }
    let copies = |r: u32, c: usize| q.element(&vec![r; c]);
    let one = q.element(&[])?;
    let full: Vec<u32> = groups.iter().map(|&(_, c, r)| copies(r, c)).collect::<Result<_, _>>()?;
    let mut suffix = vec![one; groups.len() + 1];
    for i in (0..groups.len()).rev() {
        suffix[i] = q.sum_element(full[i], suffix[i + 1]);
    }
    let loss = q.element_is_p(suffix[0]);
    // Splits with b ≥ max(n₀, 1) + p repeat an earlier split's images (b − p ≥ 1 must stay a
    // heap, which matters when the preperiod n₀ is 0).
    let split_cap = match q.heap_period() {
        Some((from, period)) => from.max(1) as u64 + period as u64 - 1,
        None => u64::MAX,
    };
    let image = |p: u64| -> Result<u32, QuotientError> {
        // Options are smaller than their heap, which the quotient covers.
        let stand_in = q
            .equivalent_heap(p)
            .ok_or_else(|| QuotientError::Internal(format!("the option heap {p} is beyond the quotient")))?;
        q.image(stand_in)
    };
    let mut best = None;
    let mut prefix = one;
    for (i, &(h, c, r)) in groups.iter().enumerate() {
        let mut chosen: Option<Vec<u64>> = None;
        if loss {
            // Every move loses: the first one (a split's first form has b = 1).
            each_option(code, h, 1, &mut |parts| {
                chosen = Some(parts.to_vec());
                Ok(true)
            })?;
        } else {
            let rest = q.sum_element(q.sum_element(prefix, suffix[i + 1]), copies(r, c - 1)?);
            each_option(code, h, split_cap, &mut |parts| {
                let mut after = rest;
                for &p in parts {
                    after = q.sum_element(after, image(p)?);
                }
                let wins = q.element_is_p(after);
                if wins {
                    chosen = Some(parts.to_vec());
                }
                Ok(wins)
            })?;
        }
        if let Some(parts) = chosen {
            best = Some(BigMove::of(vec![BigChange { heap: h, parts }]));
            break;
        }
        prefix = q.sum_element(prefix, full[i]);
    }
    Ok(Some(QuotientPlay { loss, best_move: best }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{BigPosition, GameSpec, Position, all_moves};
    use crate::quotient::{QuotientOptions, compute_quotient};

    fn code(game: &str) -> TakeBreakCode {
        game.parse::<GameSpec>().unwrap().octal().unwrap().clone()
    }

    fn quotient(game: &str, max_heap: Option<u32>) -> Quotient {
        let opts = QuotientOptions { max_heap, ..Default::default() };
        compute_quotient(&code(game), opts, &mut |_, _| true).unwrap()
    }

    /// A small pseudo-random generator (no dependence on a crate's stream).
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *state >> 17
    }

    fn positions(seed: u64, count: usize, heaps: u64, top: u64) -> Vec<Position> {
        let mut s = seed;
        (0..count)
            .map(|_| {
                let n = 1 + next(&mut s) % heaps;
                Position::new((0..n).map(|_| (1 + next(&mut s) % top) as u32).collect())
            })
            .collect()
    }

    #[test]
    fn counts_match_the_listed_moves() {
        for game in
            ["kayles", "dawson", "lines", "octal:4.7", "octal:0.75", "subtraction:1,3,4", "octal:0.4[6]"]
        {
            let c = code(game);
            for p in positions(7, 200, 4, 60) {
                let wide = BigPosition::from(&p);
                assert_eq!(move_count(&c, wide.heaps()), all_moves(&c, &p).len() as u128, "{game} {p}");
            }
        }
    }

    #[test]
    fn agrees_with_the_quotients_own_answers() {
        for (game, max_heap) in [
            ("kayles", None),
            ("octal:0.75", None),
            ("octal:0.15", None),
            ("lines", Some(60)),
            ("dawson", Some(24)),
        ] {
            let q = quotient(game, max_heap);
            let c = code(game);
            for p in positions(11, 400, 6, 60) {
                let wide = BigPosition::from(&p);
                let play = quotient_play(&q, &c, wide.heaps()).unwrap();
                if !p.heaps().iter().all(|&h| q.covers(h)) {
                    assert_eq!(play, None, "{game} {p}");
                    continue;
                }
                let play = play.unwrap();
                assert_eq!(play.loss, q.is_p(p.heaps()).unwrap(), "{game} {p}");
                let want = if play.loss {
                    all_moves(&c, &p).into_iter().next()
                } else {
                    q.winning_move(&p).unwrap()
                };
                assert_eq!(play.best_move.map(|m| m.narrow().unwrap()), want, "{game} {p}");
            }
        }
    }

    #[test]
    fn huge_heaps_get_winning_moves_through_the_period() {
        let q = quotient("kayles", None);
        let c = code("kayles");
        let mut s = 5;
        for _ in 0..300 {
            let n = 1 + next(&mut s) % 5;
            let heaps: Vec<u64> = (0..n)
                .map(|i| if i % 2 == 0 { next(&mut s) << 17 | next(&mut s) } else { 1 + next(&mut s) % 200 })
                .collect();
            let p = BigPosition::new(heaps);
            let play = quotient_play(&q, &c, p.heaps()).unwrap().unwrap();
            let m = play.best_move.expect("huge heaps have moves");
            let after = m.apply(&p);
            let next_play = quotient_play(&q, &c, after.heaps()).unwrap().unwrap();
            if !play.loss {
                assert!(next_play.loss, "{p}: {} leaves a win", m.describe(&p));
            }
            // The stand-ins agree with the quotient's own image of a covered heap.
            let small = m.changes()[0].parts.iter().all(|&x| x <= 2000);
            if small {
                assert!(m.changes()[0].parts.iter().all(|&x| q.image(x as u32).is_ok()));
            }
        }
    }
}
