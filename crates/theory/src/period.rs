//! Periodicity of nim-value sequences: the period p and preperiod e with g(n + p) = g(n) for
//! every n ≥ e, and when that is proven.
//!
//! Certificates (both are theorems, so a certified period holds for all n, not just the n
//! computed):
//! * **Guy–Smith** (finite octal codes whose last nonzero digit is at position k): if
//!   g(n + p) = g(n) for every e ≤ n < 2e + p + k, the sequence is periodic from e onward.
//!   (For n ≥ 2e + p + k, every split of n + p has a part ≥ e + p that can be shortened by p,
//!   and every split of n a part ≥ e that can be lengthened, so both heaps have the same
//!   option values.) This needs g up to 2e + 2p + k − 1.
//! * **Window** (finite codes that never split, such as subtraction games, with largest
//!   removal k): beyond k a heap's value is the mex of the k values before it, so k
//!   consecutive repeats suffice: if g(n + p) = g(n) for every e ≤ n ≤ max(e + k − 1, k), the
//!   sequence is periodic from e onward. This needs g up to max(e + k − 1, k) + p.
//!
//! Codes with a repeated digit and Grundy's game get no certificate: an apparent period (or
//! an arithmetic period, g(n + p) = g(n) + s, as Nim's g(n) = n) is reported with
//! `proven = false`. Grundy's game is excluded from Guy–Smith because its parts must be
//! unequal, which shortening a part by p can break.

use std::fmt;

use super::shape::HeapShape;

/// Which theorem certifies a period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CertificateRule {
    /// Guy–Smith, for a finite octal code with last nonzero digit at `k`.
    GuySmith {
        /// The position of the last nonzero digit.
        k: u32,
    },
    /// The window rule for finite codes that never split, with largest removal `k`.
    Window {
        /// The largest removal.
        k: u32,
    },
}

/// A proof of periodicity: g(n + period) = g(n) was checked for every `from ≤ n < to`, which
/// by `rule` implies it for every n ≥ `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The theorem used.
    pub rule: CertificateRule,
    /// The first heap checked (the preperiod).
    pub from: u32,
    /// One past the last heap checked.
    pub to: u32,
}

impl fmt::Display for Certificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.rule {
            CertificateRule::GuySmith { k } => format!("Guy–Smith, k = {k}"),
            CertificateRule::Window { k } => format!("window of k = {k}, no splits"),
        };
        write!(f, "g(n+p) = g(n) checked for {} ≤ n < {} ({name})", self.from, self.to)
    }
}

/// An arithmetic period: g(n + period) = g(n) + saltus for every n ≥ preperiod.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ArithmeticPeriod {
    /// The period.
    pub period: u32,
    /// The preperiod.
    pub preperiod: u32,
    /// The amount the values grow by each period (nonzero).
    pub saltus: i64,
}

/// What is known about the periodicity of g(0..=N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periodicity {
    /// The (smallest) period found, if any.
    pub period: Option<u32>,
    /// The (least, for that period) preperiod.
    pub preperiod: Option<u32>,
    /// Whether a certificate proves the period for every n.
    pub proven: bool,
    /// The certificate, when proven.
    pub certificate: Option<Certificate>,
    /// An apparent arithmetic period, when no ordinary one was found.
    pub arithmetic: Option<ArithmeticPeriod>,
    /// The largest heap examined (N).
    pub checked_to: u32,
}

impl fmt::Display for Periodicity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.period, self.preperiod) {
            (Some(p), Some(e)) if self.proven => {
                write!(f, "period {p}, preperiod {e}, proven")?;
                if let Some(c) = self.certificate {
                    write!(f, " [{c}]")?;
                }
                Ok(())
            }
            (Some(p), Some(e)) => write!(
                f,
                "period {p}, preperiod {e}, not proven (apparent in g(0..={}), no certificate yet)",
                self.checked_to
            ),
            _ => match self.arithmetic {
                Some(a) => write!(
                    f,
                    "no period; apparently arithmetic-periodic: g(n+{}) = g(n) {:+} for n ≥ {} (not proven)",
                    a.period, a.saltus, a.preperiod
                ),
                None => write!(f, "no period found in g(0..={}), not proven", self.checked_to),
            },
        }
    }
}

/// The least preperiod for period `p` seen in `g`: one past the last n with
/// g(n + p) ≠ g(n) (0 if none). Scans from the end, so a wrong `p` costs little.
pub fn preperiod_for<T: Copy + PartialEq>(g: &[T], p: u32) -> u32 {
    let p = p as usize;
    if p == 0 || p >= g.len() {
        return g.len() as u32;
    }
    (0..g.len() - p).rev().find(|&n| g[n + p] != g[n]).map_or(0, |n| n as u32 + 1)
}

/// The certificate rule that applies to a game shape, if any (finite codes only).
pub fn certificate_rule(shape: &HeapShape) -> Option<CertificateRule> {
    if !shape.is_finite() || !shape.equal_parts || shape.three_way {
        return None;
    }
    let k = shape.vanish.iter().chain(&shape.take_one).chain(&shape.split).copied().max().unwrap_or(0);
    Some(if shape.split.is_empty() { CertificateRule::Window { k } } else { CertificateRule::GuySmith { k } })
}

/// The certificate for period `p` and preperiod `e` if `g` is long enough to give one
/// (assumes g(n + p) = g(n) for every n ≥ e in `g`).
pub fn certify<T>(g: &[T], rule: CertificateRule, p: u32, e: u32) -> Option<Certificate> {
    let n_max = g.len() as u64 - 1;
    let to = match rule {
        // Guy–Smith's bound 2e + p + k, with e at least 1: the proof shortens the larger part
        // of a split by p and needs it to stay a nonempty heap (with e = 0 it could vanish,
        // which a last digit without bit 2 does not allow: 0.04 has g = 0,0,0,0,1).
        CertificateRule::GuySmith { k } => 2 * e.max(1) as u64 + p as u64 + k as u64,
        CertificateRule::Window { k } => (e as u64 + k as u64).max(k as u64 + 1),
    };
    // Checked n < to needs g up to to − 1 + p.
    (to - 1 + p as u64 <= n_max).then_some(Certificate { rule, from: e, to: to as u32 })
}

/// The smallest period that `g` proves by the certificate rule, with its least preperiod
/// and certificate.
pub fn proven_period<T: Copy + PartialEq>(g: &[T], rule: CertificateRule) -> Option<(u32, u32, Certificate)> {
    let n = g.len() as u32;
    (1..=n / 2).find_map(|p| {
        let e = preperiod_for(g, p);
        certify(g, rule, p, e).map(|c| (p, e, c))
    })
}

/// Whether a stretch of `len` repeating values is enough evidence to call period `p`
/// apparent: at least three periods and twelve values.
fn apparent(len: u32, p: u32) -> bool {
    len >= 3 * p && len >= 12
}

/// Periodicity of g(0..=N) for a game of this shape: the smallest certified period if any;
/// otherwise the smallest apparent one (the last three periods or more repeat); otherwise an
/// apparent arithmetic period.
pub fn analyse<T: Copy + PartialEq + Into<u32>>(g: &[T], shape: &HeapShape) -> Periodicity {
    let checked_to = g.len().saturating_sub(1) as u32;
    let mut out = Periodicity {
        period: None,
        preperiod: None,
        proven: false,
        certificate: None,
        arithmetic: None,
        checked_to,
    };
    if let Some((p, e, c)) = certificate_rule(shape).and_then(|rule| proven_period(g, rule)) {
        out.period = Some(p);
        out.preperiod = Some(e);
        out.proven = true;
        out.certificate = Some(c);
        return out;
    }
    let len = g.len() as u32;
    for p in 1..=len / 3 {
        let e = preperiod_for(g, p);
        if apparent(len - e, p) {
            out.period = Some(p);
            out.preperiod = Some(e);
            return out;
        }
    }
    out.arithmetic = arithmetic_period(g);
    out
}

/// The smallest apparent arithmetic period of `g` (g(n + p) − g(n) equal to the same nonzero
/// saltus over at least three periods and twelve values at the end).
pub fn arithmetic_period<T: Copy + Into<u32>>(g: &[T]) -> Option<ArithmeticPeriod> {
    let len = g.len();
    (1..=len / 3).find_map(|p| {
        let at = |i: usize| -> i64 { g[i].into() as i64 };
        let saltus = at(len - 1) - at(len - 1 - p);
        if saltus == 0 {
            return None;
        }
        let e = (0..len - p).rev().find(|&n| at(n + p) - at(n) != saltus).map_or(0, |n| n + 1);
        apparent((len - e) as u32, p as u32).then_some(ArithmeticPeriod {
            period: p as u32,
            preperiod: e as u32,
            saltus,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;
    use crate::sequence::mex_values;

    fn run(game: &str, n: u32) -> Periodicity {
        let spec: GameSpec = game.parse().unwrap();
        analyse(&mex_values(spec.heap_rules().unwrap(), n), &HeapShape::of(spec.heap_rules().unwrap()))
    }

    #[test]
    fn kayles_period_needs_enough_data() {
        let short = run("kayles", 120);
        assert_eq!((short.period, short.preperiod, short.proven), (Some(12), Some(71), false));
        let edge = run("kayles", 166);
        assert!(!edge.proven);
        let full = run("kayles", 167);
        assert_eq!((full.period, full.preperiod, full.proven), (Some(12), Some(71), true));
        assert_eq!(full.certificate.unwrap().to, 2 * 71 + 12 + 2);
        assert_eq!(run("kayles", 20).period, None);
    }

    #[test]
    fn subtraction_games_use_the_window() {
        let p = run("subtraction:1,2,3", 20);
        assert_eq!((p.period, p.preperiod, p.proven), (Some(4), Some(0), true));
        assert!(matches!(p.certificate.unwrap().rule, CertificateRule::Window { k: 3 }));
    }

    #[test]
    fn nim_is_arithmetic() {
        let p = run("nim", 50);
        assert_eq!(p.period, None);
        assert!(!p.proven);
        assert_eq!(p.arithmetic, Some(ArithmeticPeriod { period: 1, preperiod: 0, saltus: 1 }));
    }
}
