//! Certificates: the exact check that a computed quotient predicts every outcome of the
//! closure, and the periodicity theorem that carries the heap images to every heap size.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::monoid::{BipartiteMonoid, ElementSet};

/// The result of [`closure_check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureCheck {
    /// The distinct (image, option images) states met; every position of the closure has
    /// one of them.
    pub states: usize,
}

/// Proves that `q` predicts the misère outcome of **every** position of the closure of the
/// heaps (a sum of heaps h with image `images[h]` and option images `options[h]`), or finds
/// the first state where it does not.
///
/// A position G of the closure has an image Φ(G) and a set S(G) of option images; adding a
/// heap h maps (Φ(G), S(G)) to (Φ(G)·Φ(h), S(G)·Φ(h) ∪ Φ(G)·O(h)), so the pairs reachable
/// from (1, ∅) are exactly the pairs of the positions, and there are finitely many. The
/// prediction "G is a P-position iff Φ(G) ∈ P" holds for every G (by induction on G) if and
/// only if every reachable pair satisfies Φ(G) ∈ P ⟺ (S(G) ≠ ∅ and S(G) ∩ P = ∅). This is a
/// finite, exact test, so a quotient that passes it needs no trust in how it was built.
///
/// `max_states` bounds the search; `Err` says why the check did not pass.
pub fn closure_check(
    q: &BipartiteMonoid,
    images: &[u32],
    options: &[Vec<u32>],
    max_states: usize,
) -> Result<ClosureCheck, String> {
    let n = q.size();
    let mut pset = ElementSet::new(n);
    for x in q.p_elements() {
        pset.insert(x);
    }
    // Distinct letters: (image, option images).
    let mut letters: Vec<(u32, &[u32])> = Vec::new();
    for h in 1..images.len() {
        let l = (images[h], options[h].as_slice());
        if !letters.contains(&l) {
            letters.push(l);
        }
    }
    let start = (0u32, ElementSet::new(n));
    let mut seen: HashMap<(u32, ElementSet), ()> = HashMap::new();
    let mut queue = VecDeque::new();
    seen.insert(start.clone(), ());
    queue.push_back(start);
    while let Some((x, s)) = queue.pop_front() {
        let predicted = q.is_p(x);
        let actual = !s.is_empty() && !s.meets(&pset);
        if predicted != actual {
            return Err(format!(
                "element {x} is marked {} but a position with it has {}",
                if predicted { "P" } else { "N" },
                if actual { "only N-options" } else { "a P-option or no option" }
            ));
        }
        for &(img, opts) in &letters {
            let nx = q.mul(x, img);
            let mut ns = ElementSet::new(n);
            for e in s.iter() {
                ns.insert(q.mul(e, img));
            }
            for &o in opts {
                ns.insert(q.mul(x, o));
            }
            let key = (nx, ns);
            if !seen.contains_key(&key) {
                if seen.len() >= max_states {
                    return Err(format!("more than {max_states} states; the check was not finished"));
                }
                seen.insert(key.clone(), ());
                queue.push_back(key);
            }
        }
    }
    Ok(ClosureCheck { states: seen.len() })
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
    /// The preperiod n₀ (at least 1).
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

/// The least preperiod (at least 1) for period `p` seen in `images[1..]`.
pub fn preperiod_for(images: &[u32], p: u32) -> u32 {
    let p = p as usize;
    let last = images.len().saturating_sub(1);
    if p == 0 || p >= last {
        return last as u32 + 1;
    }
    (1..=last - p).rev().find(|&n| images[n + p] != images[n]).map_or(1, |n| n as u32 + 1)
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
            from: e.max(1),
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
