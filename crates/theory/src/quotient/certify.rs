//! Certificates: the exact check that a computed quotient predicts every outcome of the
//! closure, and the periodicity theorem that carries the heap images to every heap size.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::monoid::BipartiteMonoid;

use super::pretension::{Pretension, SearchBudget, Verdict};

/// The result of [`closure_check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureCheck {
    /// The states (an image and a minimal signature of option images) the walk kept; every
    /// position of the closure is covered by one of them.
    pub states: usize,
}

/// Proves that `q` predicts the misère outcome of **every** position of the closure of the
/// heaps (a sum of heaps h with image `images[h]` and option images `options[h]`), or finds
/// the least position where it does not.
///
/// The prediction "G is a P-position iff Φ(G) ∈ P" holds for every G (by induction on G)
/// if and only if no position is a *failure*: predicted P with an option predicted P, or
/// predicted N with options all predicted N (or predicted P with no option at all). The
/// first kind is found per element and heap; the second by the exact walk of
/// [`Pretension::n_search`] over (image, signature) states, which drops a position only
/// when a smaller one with the same image and a smaller signature covers it. The test is
/// finite and exact, so a quotient that passes it needs no trust in how it was built.
///
/// `max_states` bounds the walk; `Err` says why the check did not pass.
pub fn closure_check(
    q: &BipartiteMonoid,
    images: &[u32],
    options: &[Vec<u32>],
    max_states: usize,
) -> Result<ClosureCheck, String> {
    let p = Pretension::new(q.clone(), images.to_vec(), options.to_vec());
    let budget = SearchBudget { max_states, stop: &|| false, heap: images.len().saturating_sub(1) as u32 };
    match p.verify(&budget) {
        Ok(Verdict::Holds { states, .. }) => Ok(ClosureCheck { states }),
        Ok(Verdict::Fails(w)) => Err(format!("the position {w} is predicted wrongly")),
        Err(e) => Err(e.to_string()),
    }
}

/// Which theorem certifies the period of the heap images.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum PeriodRule {
    /// Plambeck–Siegel's periodicity theorem for misère quotients of finite octal games
    /// (the misère analogue of Guy–Smith), with last nonzero code digit at `k`.
    PlambeckSiegel {
        /// The position of the last nonzero digit.
        k: u32,
    },
    /// The window rule for finite codes that never split, with largest removal `k`.
    Window {
        /// The largest removal.
        k: u32,
    },
}

/// A proof that the heap images are periodic: Φ(H_{n+p}) = Φ(H_n) was checked for every
/// `from ≤ n < to` in the verified quotient of heaps 1..=`needs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodCertificate {
    /// The theorem used.
    #[serde(flatten)]
    pub rule: PeriodRule,
    /// The period p.
    pub period: u32,
    /// The least preperiod n₀ (0 when the identity recurs at heap p).
    pub from: u32,
    /// One past the last heap n checked.
    pub to: u32,
    /// The last heap the quotient must cover: to − 1 + p.
    pub needs: u32,
}

impl fmt::Display for PeriodCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.rule {
            PeriodRule::PlambeckSiegel { k } => format!("Plambeck–Siegel periodicity theorem, k = {k}"),
            PeriodRule::Window { k } => format!("window of k = {k}, no splits"),
        };
        write!(
            f,
            "Φ(H[n+{}]) = Φ(H[n]) checked for {} ≤ n < {} in the verified quotient of heaps 1..{} ({name})",
            self.period, self.from, self.to, self.needs
        )
    }
}

/// The rule for a finite octal code: `k` is its last nonzero digit's position, `splits`
/// whether any digit allows a split. Codes with a repeated digit get none.
pub fn period_rule(k: Option<u32>, splits: bool) -> Option<PeriodRule> {
    let k = k?;
    Some(if splits { PeriodRule::PlambeckSiegel { k } } else { PeriodRule::Window { k } })
}

/// The end `to` of the range to check for preperiod `e` and period `p`.
///
/// * Plambeck–Siegel: checked for n₀ ≤ n < 2n₀ + p + k. For m beyond, every option of
///   H_m leaves a heap (or the larger of two heaps) of at least n₀ + p, which shortens by p
///   to an option of H_{m−p} with the same image, and every option of H_{m−p} lengthens
///   back; equal option sets make H_m equivalent to H_{m−p} (the identification lemma of
///   [`compute`](super::compute)), so the quotient stops growing and the images repeat.
/// * Window (no splits): checked for n₀ ≤ n < n₀ + k: the k heaps below m determine H_m.
pub fn check_end(rule: PeriodRule, e: u32, p: u32) -> u64 {
    let e = e.max(1) as u64;
    match rule {
        PeriodRule::PlambeckSiegel { k } => 2 * e + p as u64 + k as u64,
        PeriodRule::Window { k } => e + k as u64,
    }
}

/// The least preperiod n₀ ≥ 0 for period `p` seen in the images: Φ(H\[n+p\]) = Φ(H\[n\]) for
/// every n ≥ n₀ in range (heap 0, the empty position, has the identity as its image, so
/// n₀ = 0 means the identity recurs at heap p). This is the least preperiod `nimdb heaps`
/// reports for the misère values.
pub fn preperiod_for(images: &[u32], p: u32) -> u32 {
    let p = p as usize;
    let last = images.len().saturating_sub(1);
    if p == 0 || p > last {
        return last as u32 + 1;
    }
    (0..=last - p).rev().find(|&n| images[n + p] != images[n]).map_or(0, |n| n as u32 + 1)
}

/// The smallest period that the images of heaps 0..=N prove under `rule`, with its
/// certificate.
pub fn proven_period(images: &[u32], rule: PeriodRule) -> Option<PeriodCertificate> {
    let last = images.len().saturating_sub(1) as u64;
    (1..=(last / 2) as u32).find_map(|p| {
        let e = preperiod_for(images, p);
        let to = check_end(rule, e, p);
        (to - 1 + p as u64 <= last).then_some(PeriodCertificate {
            rule,
            period: p,
            from: e,
            to: to as u32,
            needs: (to - 1 + p as u64) as u32,
        })
    })
}

/// The smallest apparent period of `images[1..]` (at least three periods and twelve heaps
/// repeat at the end), with no proof.
pub fn apparent_period(images: &[u32]) -> Option<(u32, u32)> {
    let len = images.len().saturating_sub(1) as u32;
    (1..=len / 3).find_map(|p| {
        let e = preperiod_for(images, p);
        let run = len + 1 - e;
        (run >= 3 * p && run >= 12).then_some((p, e))
    })
}
