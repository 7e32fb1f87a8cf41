//! The theorems of the families with their own position space (`game::families`), each
//! deciding a position without a search:
//! - **Staircase Nim** (normal play): the coins on odd steps are Nim heaps and the even
//!   steps do not matter, since a move from an even step down to an odd one can be undone
//!   by moving the same coins on down; a position is a loss iff the nim-sum of the odd
//!   steps is 0 (Sprague 1937; Berlekamp, Conway and Guy, *Winning Ways*, ch. 16).
//! - **Welter's game** (normal play): the nim-value is Welter's function, which Sato wrote
//!   as a₁ ⊕ … ⊕ aₙ ⊕ ⨁ᵢ<ⱼ (2^(ord₂(aᵢ − aⱼ) + 1) − 1), ord₂ the number of times 2 divides
//!   (Welter 1954; Sato; Conway, *On Numbers and Games*, ch. 13; the form used by Abuku,
//!   arXiv:1701.08928).
//! - **Loopy heap games** (normal play): Smith's generalized Sprague–Grundy function γ
//!   (Smith 1966; Fraenkel and Yesha): each heap gets a finite value or ∞(K), K the finite
//!   values of its options; a sum's γ is the nim-sum of finite values, ∞(K ⊕ b) for one
//!   infinite heap ∞(K) beside finite b, and ∞(∅) for two or more infinite heaps. A position
//!   is a loss iff γ = 0, a draw iff γ = ∞(K) with 0 ∉ K, and a win otherwise.
//! - **Exact k-Nim with 2k > n** (Hypergraph Nim on every set of exactly k of n heaps,
//!   normal play): the nim-value is the length of the longest play (Boros, Gurvich, Ho,
//!   Makino and Mursić 2018; [`crate::exact_nim`]).

use crate::game::{Convention, Family, Formula, Outcome, Raise};

/// What a theorem says of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyDecision {
    /// The outcome.
    pub outcome: Outcome,
    /// The nim-value, where the theorem gives one (finite).
    pub nim_value: Option<u64>,
    /// A best move's result (to a loss from a win, to a draw from a draw), first in move
    /// order; `None` at a loss or a terminal position.
    pub best: Option<Vec<u32>>,
    /// The theorem.
    pub formula: Formula,
}

/// The most options a decision examines to find its winning move (Welter's and the loopy
/// game's move is found among the options by the formula); the options' work, judged by
/// [`evaluation_cost`], must also fit [`MOVES_WORK_LIMIT`](crate::game::MOVES_WORK_LIMIT).
pub const MOVE_SEARCH_LIMIT: u64 = 1_000_000;

/// What a theorem says of one position: its outcome under the convention asked, and its
/// (normal-play, finite) nim-value where the theorem gives one.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Judged {
    outcome: Outcome,
    nim_value: Option<u64>,
}

/// The theorem's value of `position` under `convention`, for the theorems this module
/// rules on: the families' (normal play), and Bouton's and Moore's for a family whose
/// positions are rows of Nim heaps (Hypergraph Nim on the singletons, or on every set of at
/// most k heaps; both conventions, zeros being no heaps), and the longest play of exact
/// k-Nim with 2k > n (normal play; [`crate::exact_nim`]). The heap games' theorems are
/// `decide`'s.
fn value_by(formula: Formula, p: &[u32], convention: Convention) -> Option<Judged> {
    let gamma = |g: Gamma| Judged { outcome: g.outcome(), nim_value: finite(&g) };
    let heaps = || p.iter().copied().filter(|&h| h > 0).collect::<Vec<u32>>();
    let loss = |l: bool| if l { Outcome::Loss } else { Outcome::Win };
    match formula {
        Formula::OddSteps => Some(gamma(Gamma::Finite(odd_steps(p)))),
        Formula::Welter => Some(gamma(Gamma::Finite(welter(p)))),
        Formula::Smith { cap } => Some(gamma(smith_sum(&heap_gammas(Raise { cap }), p))),
        Formula::Bouton => {
            let x = p.iter().fold(0u64, |x, &h| x ^ h as u64);
            let nim_value = (convention == Convention::Normal).then_some(x);
            Some(Judged { outcome: loss(crate::bouton::nim_loss(&heaps(), convention)), nim_value })
        }
        Formula::Moore { k } => {
            Some(Judged { outcome: loss(crate::moore::moore_loss(&heaps(), k, convention)), nim_value: None })
        }
        Formula::ExactNim { k } if convention == Convention::Normal => {
            Some(gamma(Gamma::Finite(crate::exact_nim::height(p, k))))
        }
        Formula::ExactNim { .. } => None,
        Formula::Wythoff => None,
    }
}

fn finite(g: &Gamma) -> Option<u64> {
    match g {
        Gamma::Finite(v) => Some(*v),
        Gamma::Infinite(_) => None,
    }
}

/// What one evaluation of the theorem's value of `position` costs, in steps: the odd
/// steps' nim-sum and Smith's sum are linear in the position's length; Welter's function
/// takes its pairs one by one for a few heaps, else a sort and a pass for each bit.
pub fn evaluation_cost(formula: Formula, position: &[u32]) -> u64 {
    let n = position.len() as u64;
    match formula {
        Formula::Welter if position.len() <= WELTER_PAIRS_UP_TO => n * n / 2 + 1,
        Formula::Welter => n * (WELTER_PASSES + n.ilog2() as u64) + 1,
        // The height's search over t: a pass over the heaps for each of up to 64 halvings.
        Formula::ExactNim { .. } => n * 64 + 1,
        _ => n + 1,
    }
}

/// Up to this many heaps Welter's function sums Sato's terms pair by pair.
const WELTER_PAIRS_UP_TO: usize = 64;

/// The passes Welter's function makes over more heaps: one for each count of low bits
/// two heaps may share (0 to 32).
const WELTER_PASSES: u64 = 33;

/// The theorem's outcome of `position` under `convention` alone (no winning move is
/// searched for), if the family has a theorem.
pub fn outcome_by_theorem(family: &dyn Family, position: &[u32], convention: Convention) -> Option<Outcome> {
    evaluate(family, position, convention).map(|v| v.outcome)
}

/// What a theorem says of a position's value alone: its outcome and nim-value, no move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Valuation {
    /// The outcome.
    pub outcome: Outcome,
    /// The nim-value, where the theorem gives one (finite).
    pub nim_value: Option<u64>,
    /// The theorem.
    pub formula: Formula,
}

/// The theorem's value of `position` under `convention`, if the family has a theorem: one
/// evaluation, no search among the moves (what lookups and checks need).
pub fn evaluate(family: &dyn Family, position: &[u32], convention: Convention) -> Option<Valuation> {
    let formula = family.formula(convention)?;
    let here = value_by(formula, position, convention)?;
    Some(Valuation { outcome: here.outcome, nim_value: here.nim_value, formula })
}

/// The outcome a best move leads to from a position of outcome `outcome`: a loss from a
/// win, a draw from a draw; none from a loss (every move is as good).
pub fn best_target(outcome: Outcome) -> Option<Outcome> {
    match outcome {
        Outcome::Win => Some(Outcome::Loss),
        Outcome::Draw => Some(Outcome::Draw),
        Outcome::Loss => None,
    }
}

/// Whether the search for a best move from `position` may run: at most
/// [`MOVE_SEARCH_LIMIT`] options, listed and each judged within the work allowed.
pub fn move_search_fits(family: &dyn Family, formula: Formula, position: &[u32]) -> bool {
    family.move_bound(position) <= MOVE_SEARCH_LIMIT
        && crate::game::moves_fit(family, position, evaluation_cost(formula, position))
}

/// The theorem's decision of `position` under `convention`, if the family has one: its
/// value, and the first move in move order to the [best target](best_target) when the
/// [search fits](move_search_fits).
pub fn decide(family: &dyn Family, position: &[u32], convention: Convention) -> Option<FamilyDecision> {
    let Valuation { outcome, nim_value, formula } = evaluate(family, position, convention)?;
    let best =
        best_target(outcome).filter(|_| move_search_fits(family, formula, position)).and_then(|want| {
            let judged = |to: &[u32]| value_by(formula, to, convention).map(|g| g.outcome);
            family.moves(position).into_iter().map(|m| m.to).find(|to| judged(to) == Some(want))
        });
    Some(FamilyDecision { outcome, nim_value, best, formula })
}

/// The nim-sum of the coins on the odd steps (1, 3, 5, …).
pub fn odd_steps(steps: &[u32]) -> u64 {
    steps.iter().step_by(2).fold(0u64, |x, &c| x ^ c as u64)
}

/// Welter's function of distinct heaps, in Sato's form: the nim-sum of the heaps and of
/// 2^(k+1) − 1 for every pair whose difference 2 divides exactly k times.
///
/// Only the parity of each k's pairs matters. The pairs that 2 divides exactly k times
/// are those that share their k lowest bits but not the next one, so their count is the
/// pairs sharing k low bits less those sharing k + 1; heaps sorted by their bits reversed
/// fall into runs that share their low bits, and the pairs sharing k bits are the pairs
/// within each run of the top k reversed bits. Beyond a few heaps this takes a sort and 33
/// passes instead of every pair.
pub fn welter(heaps: &[u32]) -> u64 {
    let mut w = heaps.iter().fold(0u64, |x, &a| x ^ a as u64);
    if heaps.len() <= WELTER_PAIRS_UP_TO {
        for (i, &a) in heaps.iter().enumerate() {
            for &b in &heaps[i + 1..] {
                let d = (a as i64 - b as i64).unsigned_abs();
                debug_assert!(d > 0, "Welter's heaps are distinct");
                w ^= (1u64 << (d.trailing_zeros() + 1)) - 1;
            }
        }
        return w;
    }
    let mut reversed: Vec<u64> = heaps.iter().map(|&a| a.reverse_bits() as u64).collect();
    reversed.sort_unstable();
    debug_assert!(reversed.windows(2).all(|p| p[0] != p[1]), "Welter's heaps are distinct");
    // shared[k]: the parity of the pairs sharing their k lowest bits (k = 0..=32).
    let mut shared = [false; 33];
    for (k, parity) in shared.iter_mut().enumerate() {
        let key = |r: u64| r >> (32 - k);
        let mut odd = false;
        let mut run = 0u64;
        for (i, &r) in reversed.iter().enumerate() {
            run = if i > 0 && key(reversed[i - 1]) == key(r) { run + 1 } else { 1 };
            // The run's pairs grow by run − 1 with each heap it takes in.
            odd ^= (run - 1) & 1 == 1;
        }
        *parity = odd;
    }
    for k in 0..32 {
        if shared[k] != shared[k + 1] {
            w ^= (1u64 << (k + 1)) - 1;
        }
    }
    w
}

/// A generalized Sprague–Grundy value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gamma {
    /// A finite value.
    Finite(u64),
    /// ∞(K): K the finite values of the options, sorted.
    Infinite(Vec<u64>),
}

impl Gamma {
    /// The outcome this value means for the player to move.
    pub fn outcome(&self) -> Outcome {
        match self {
            Gamma::Finite(0) => Outcome::Loss,
            Gamma::Finite(_) => Outcome::Win,
            Gamma::Infinite(k) if k.contains(&0) => Outcome::Win,
            Gamma::Infinite(_) => Outcome::Draw,
        }
    }
}

/// Smith's generalized Sprague–Grundy values of a graph given by each vertex's options,
/// labelled in stages m = 0, 1, …: an unlabelled vertex gets m when no option is labelled m,
/// options carry every value below m, and every unlabelled option has an option labelled
/// m; a vertex with an option labelled m can no longer get m. Vertices never labelled are
/// ∞(K).
pub fn smith(options: &[Vec<usize>]) -> Vec<Gamma> {
    let n = options.len();
    let mut label: Vec<Option<u64>> = vec![None; n];
    let mut m = 0u64;
    loop {
        let mut marked = vec![false; n];
        loop {
            let mut changed = false;
            for v in 0..n {
                if label[v].is_some() || marked[v] {
                    continue;
                }
                if options[v].iter().any(|&u| label[u] == Some(m)) {
                    marked[v] = true;
                    changed = true;
                    continue;
                }
                let has_below = (0..m).all(|j| options[v].iter().any(|&u| label[u] == Some(j)));
                let unlabelled_answered = options[v]
                    .iter()
                    .filter(|&&u| label[u].is_none())
                    .all(|&u| options[u].iter().any(|&w| label[w] == Some(m)));
                if has_below && unlabelled_answered {
                    label[v] = Some(m);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Every value a vertex can still get is at most its option count.
        let open = (0..n).filter(|&v| label[v].is_none()).any(|v| options[v].len() as u64 > m);
        if !open {
            break;
        }
        m += 1;
    }
    (0..n)
        .map(|v| match label[v] {
            Some(g) => Gamma::Finite(g),
            None => {
                let mut k: Vec<u64> = options[v].iter().filter_map(|&u| label[u]).collect();
                k.sort_unstable();
                k.dedup();
                Gamma::Infinite(k)
            }
        })
        .collect()
}

/// The γ of each heap size 0..=cap of Nim with raising.
pub fn heap_gammas(rules: Raise) -> Vec<Gamma> {
    let c = rules.cap as usize;
    let options: Vec<Vec<usize>> = (0..=c)
        .map(|h| {
            if h == 0 {
                return Vec::new();
            }
            let mut o: Vec<usize> = (0..h).collect();
            if h < c {
                o.push(h + 1);
            }
            o
        })
        .collect();
    smith(&options)
}

/// The γ of a sum of heaps with these values.
pub fn smith_sum(heaps: &[Gamma], position: &[u32]) -> Gamma {
    let mut finite = 0u64;
    let mut infinite: Option<&Vec<u64>> = None;
    let mut infinities = 0;
    for &h in position {
        match &heaps[h as usize] {
            Gamma::Finite(g) => finite ^= g,
            Gamma::Infinite(k) => {
                infinities += 1;
                infinite = Some(k);
            }
        }
    }
    match (infinities, infinite) {
        (0, _) => Gamma::Finite(finite),
        (1, Some(k)) => {
            let mut k: Vec<u64> = k.iter().map(|x| x ^ finite).collect();
            k.sort_unstable();
            Gamma::Infinite(k)
        }
        _ => Gamma::Infinite(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welter_of_two_heaps_is_their_nim_sum_less_one() {
        // Conway: [a|b] = (a ⊕ b) − 1 for two distinct heaps.
        for a in 0..40u32 {
            for b in 0..a {
                assert_eq!(welter(&[a, b]), ((a ^ b) - 1) as u64, "[{a}|{b}]");
            }
        }
    }

    /// Sato's form term by term, over every pair: the definition the fast count must equal.
    fn welter_by_pairs(heaps: &[u32]) -> u64 {
        let mut w = heaps.iter().fold(0u64, |x, &a| x ^ a as u64);
        for (i, &a) in heaps.iter().enumerate() {
            for &b in &heaps[i + 1..] {
                w ^= (1u64 << ((a as i64 - b as i64).unsigned_abs().trailing_zeros() + 1)) - 1;
            }
        }
        w
    }

    #[test]
    fn welter_s_function_equals_sato_s_form_pair_by_pair() {
        // A fixed pseudo-random walk (no seed from the system): sets of every size up to
        // 300, with heaps up to 2^32 - 1, and in any order.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in (0..=300).chain([1000, 2500]) {
            let top = [16u64, 1 << 12, 1 << 20, 1 << 32][n % 4];
            let mut set = std::collections::BTreeSet::new();
            while set.len() < n.min(top as usize) {
                set.insert((next() % top) as u32);
            }
            let mut heaps: Vec<u32> = set.into_iter().collect();
            heaps.sort_by_key(|&h| h.wrapping_mul(2_654_435_761));
            assert_eq!(welter(&heaps), welter_by_pairs(&heaps), "{n} heaps below {top}");
        }
    }

    #[test]
    fn welter_s_function_costs_little_more_than_the_heaps() {
        // Finding: Sato's form was summed over every pair, so one position of 140,000 heaps
        // (a line of `query --batch`) took six seconds, and a list of them in Python's
        // `query_many` hours. It is counted by the low bits the heaps share instead.
        let heaps: Vec<u32> = (0..100_000).collect();
        assert!(
            evaluation_cost(Formula::Welter, &heaps) <= 64 * heaps.len() as u64,
            "{}",
            evaluation_cost(Formula::Welter, &heaps)
        );
        // A few heaps still cost what their pairs do (the pairs are then the cheaper way).
        assert_eq!(evaluation_cost(Formula::Welter, &[7, 4, 1, 0]), 4 * 4 / 2 + 1);
    }

    #[test]
    fn a_plain_nim_graph_gets_its_mex_values() {
        // Heaps 0..5 of Nim: γ(h) = h.
        let options: Vec<Vec<usize>> = (0..6).map(|h| (0..h).collect()).collect();
        assert_eq!(smith(&options), (0..6).map(Gamma::Finite).collect::<Vec<_>>());
    }

    #[test]
    fn a_two_cycle_is_infinite() {
        // 0 terminal; 1 ↔ 2, each also to 0: both ∞({0}), so a win alone and a draw in pairs.
        let options = vec![vec![], vec![0, 2], vec![0, 1]];
        let g = smith(&options);
        assert_eq!(g[1], Gamma::Infinite(vec![0]));
        assert_eq!(smith_sum(&g, &[1, 1]).outcome(), Outcome::Draw);
        assert_eq!(smith_sum(&g, &[2]).outcome(), Outcome::Win);
    }
}
