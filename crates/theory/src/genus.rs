//! Conway's genus of a heap, and tameness.
//!
//! The genus of a game G is g^{γ0 γ1 γ2 …} where g is G's normal-play nim-value and γk is the
//! misère nim-value of G + *2 + … + *2 with k Nim heaps of size 2 (On Numbers and Games,
//! ch. 12; Winning Ways, ch. 13). The superscript sequence ends up alternating, and it is
//! written up to the point where its last two digits alternate forever: *0 has genus 0^120
//! (γ = 1, 2, 0, 2, 0, …), *1 has 1^031 and *g (g ≥ 2) has g^{g, g⊕2}, e.g. 2^20, 3^31, 4^46.
//!
//! What is computed here: γ0..=γK for a fixed depth K ([`DEFAULT_DEPTH`]), exactly, by
//! [`MisereSolver`]. The written form is shortened at the first j from which every computed γi
//! equals γ(i+2), written through γ(j+1), and called *settled* only if at least two more
//! computed terms confirm the alternation. (The alternating pair is {g, g⊕2} in every case
//! seen, in either order: Kayles' heap of 5 has genus 4^146.) When the alternation starts is
//! not bounded here by a theorem, so "settled" means "observed to depth K"; an unsettled genus
//! prints every computed γ followed by `?`.
//!
//! Tameness (Winning Ways, ch. 13): the genera of Nim positions are the *fickle* 0^120 and
//! 1^031 (every heap ≤ 1) and the *firm* g^{g, g⊕2}: 0^02, 1^13, 2^20, 3^31, … (some heap
//! ≥ 2). A position is *tame* iff it and every position reachable from it have one of these
//! genera. A sum of tame positions is a misère loss iff (some part is firm and the nim-sum
//! of their nim-values is 0) or (every part is fickle and the nim-sum is 1)
//! ([`tame_sum_loss`]): misère Nim with "fickle" for "heap ≤ 1".
//!
//! A heap is *nim-like* when its genus is that of the Nim heap with the same nim-value (0^120,
//! 1^031, g^{g, g⊕2} for g ≥ 2); for tame, nim-like heaps that rule is exactly the misère-Nim
//! rule applied to their nim-values
//! ([`tame_misere_loss`](super::bouton::tame_misere_loss)).

use std::fmt;
use std::str::FromStr;

use crate::game::HeapRules;

use super::mex::FxHashMap;
use super::misere::{MisereSolver, MixedPosition};

/// The number of added *2s (K) the genus is computed to by default: γ0..=γ8.
pub const DEFAULT_DEPTH: u16 = 8;

/// Conway's genus g^{γ0 γ1 …} in shortened form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Genus {
    /// g: the normal-play nim-value.
    pub nim_value: u32,
    /// The written superscripts: through the first alternating pair when settled, otherwise
    /// every computed γ.
    pub written: Vec<u32>,
    /// Whether the alternation g, g⊕2 was confirmed by at least two more computed terms.
    pub settled: bool,
}

impl Genus {
    /// The genus with normal value `g` and computed misère values γ0..=γK.
    pub fn from_gammas(g: u32, gammas: &[u32]) -> Self {
        let len = gammas.len();
        // The first j from which every computed term repeats two later.
        let mut j = len.saturating_sub(2);
        while j > 0 && gammas[j - 1] == gammas[j + 1] {
            j -= 1;
        }
        let written_len = j + 2;
        if written_len + 2 <= len {
            Genus { nim_value: g, written: gammas[..written_len].to_vec(), settled: true }
        } else {
            Genus { nim_value: g, written: gammas.to_vec(), settled: false }
        }
    }

    /// The genus of the Nim heap *g: 0^120, 1^031, or g^{g, g⊕2}.
    pub fn nim_heap(g: u32) -> Self {
        let written = match g {
            0 => vec![1, 2, 0],
            1 => vec![0, 3, 1],
            _ => vec![g, g ^ 2],
        };
        Genus { nim_value: g, written, settled: true }
    }

    /// γk, as far as known: the written digits, then the alternation of the last two when
    /// settled.
    pub fn gamma(&self, k: usize) -> Option<u32> {
        match self.written.get(k) {
            Some(&v) => Some(v),
            None if self.settled => {
                let base = self.written.len() - 2;
                Some(self.written[base + (k - base) % 2])
            }
            None => None,
        }
    }

    /// γ0: the misère nim-value of the game alone.
    pub fn misere_value(&self) -> u32 {
        self.written[0]
    }

    /// Whether the genus is that of the Nim heap with the same nim-value.
    pub fn is_nim_like(&self) -> bool {
        self.settled && *self == Genus::nim_heap(self.nim_value)
    }

    /// Fickle: 0^120 or 1^031, the genera of Nim positions whose heaps are all ≤ 1.
    pub fn is_fickle(&self) -> bool {
        self.settled && self.nim_value <= 1 && *self == Genus::nim_heap(self.nim_value)
    }

    /// Firm: g^{g, g⊕2}, the genera of Nim positions with a heap ≥ 2.
    pub fn is_firm(&self) -> bool {
        self.settled && self.written == [self.nim_value, self.nim_value ^ 2]
    }

    /// Whether this is the genus of some Nim position (fickle or firm); a tame position and
    /// all its followers have such genera.
    pub fn is_tame_form(&self) -> bool {
        self.is_fickle() || self.is_firm()
    }
}

/// The misère outcome of a sum of tame positions from their genera: a loss iff (some part is
/// firm and the nim-sum of the nim-values is 0) or (every part is fickle and the nim-sum is
/// 1). `None` if some genus is not of a tame form (then the genera do not decide it).
pub fn tame_sum_loss(genera: &[Genus]) -> Option<bool> {
    if !genera.iter().all(Genus::is_tame_form) {
        return None;
    }
    let values: Vec<u32> = genera.iter().map(|g| g.nim_value).collect();
    Some(super::bouton::misere_nim_rule(super::bouton::nim_sum(&values), genera.iter().any(Genus::is_firm)))
}

impl fmt::Display for Genus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}^", self.nim_value)?;
        if self.written.iter().all(|&v| v < 10) {
            for v in &self.written {
                write!(f, "{v}")?;
            }
        } else {
            let list: Vec<String> = self.written.iter().map(|v| v.to_string()).collect();
            write!(f, "{{{}}}", list.join(","))?;
        }
        if !self.settled {
            f.write_str("?")?;
        }
        Ok(())
    }
}

/// A string that is not a genus in its printed form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad genus '{0}' (expected e.g. 0^120 or 8^{{8,10}})")]
pub struct BadGenus(pub String);

impl FromStr for Genus {
    type Err = BadGenus;

    /// Parses the printed form: `0^120`, `8^{8,10}`, `2^1420?`.
    fn from_str(s: &str) -> Result<Self, BadGenus> {
        let bad = || BadGenus(s.to_string());
        let (g, rest) = s.split_once('^').ok_or_else(bad)?;
        let nim_value: u32 = g.parse().map_err(|_| bad())?;
        let (rest, settled) = match rest.strip_suffix('?') {
            Some(r) => (r, false),
            None => (rest, true),
        };
        let written: Vec<u32> = match rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(list) => {
                list.split(',').map(|v| v.trim().parse().map_err(|_| bad())).collect::<Result<_, _>>()?
            }
            None => rest.chars().map(|c| c.to_digit(10).ok_or_else(bad)).collect::<Result<_, _>>()?,
        };
        if written.is_empty() {
            return Err(bad());
        }
        Ok(Genus { nim_value, written, settled })
    }
}

/// Genus and tameness of a game's positions, on top of a [`MisereSolver`].
pub struct GenusSolver<'r, R: HeapRules + ?Sized> {
    misere: MisereSolver<'r, R>,
    depth: u16,
    tame: FxHashMap<MixedPosition, bool>,
}

impl<'r, R: HeapRules + ?Sized> GenusSolver<'r, R> {
    /// A solver computing γ0..=γ`depth`.
    pub fn new(rules: &'r R, depth: u16) -> Self {
        GenusSolver { misere: MisereSolver::new(rules), depth, tame: FxHashMap::default() }
    }

    /// The misère solver underneath (its memo is shared).
    pub fn misere(&mut self) -> &mut MisereSolver<'r, R> {
        &mut self.misere
    }

    /// The genus of a keyed position, given the single-heap nim-values `g`.
    pub fn genus_of(&mut self, p: MixedPosition, g: &[u32]) -> Genus {
        let gammas: Vec<u32> = (0..=self.depth).map(|k| self.misere.value_of(p.plus_twos(k))).collect();
        Genus::from_gammas(self.misere.normal_value(p, g), &gammas)
    }

    /// The genus of the position with these heaps (`g` must cover every heap).
    pub fn genus(&mut self, heaps: &[u32], g: &[u32]) -> Genus {
        let p = self.misere.position(heaps);
        self.genus_of(p, g)
    }

    /// Whether the position with these heaps is tame: it and every position reachable from
    /// it have fickle or firm genus.
    pub fn is_tame(&mut self, heaps: &[u32], g: &[u32]) -> bool {
        let p = self.misere.position(heaps);
        self.tame_of(p, g)
    }

    fn tame_of(&mut self, p: MixedPosition, g: &[u32]) -> bool {
        if let Some(&t) = self.tame.get(&p) {
            return t;
        }
        let tame = self.genus_of(p, g).is_tame_form() && {
            let children = self.misere.children(p);
            children.into_iter().all(|c| self.tame_of(c, g))
        };
        self.tame.insert(p, tame);
        tame
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;
    use crate::sequence::mex_values;

    #[test]
    fn shortened_forms() {
        assert_eq!(Genus::from_gammas(0, &[1, 2, 0, 2, 0, 2, 0]).to_string(), "0^120");
        assert_eq!(Genus::from_gammas(1, &[0, 3, 1, 3, 1, 3, 1]).to_string(), "1^031");
        assert_eq!(Genus::from_gammas(2, &[2, 0, 2, 0, 2, 0, 2]).to_string(), "2^20");
        assert_eq!(Genus::from_gammas(2, &[1, 4, 2, 0, 2, 0, 2]).to_string(), "2^1420");
        assert_eq!(Genus::from_gammas(2, &[1, 4, 2, 0, 2, 0]).to_string(), "2^1420");
        assert_eq!(Genus::from_gammas(2, &[1, 4, 2, 0, 2]).to_string(), "2^14202?");
        assert_eq!(Genus::from_gammas(4, &[1, 4, 6, 4, 6, 4, 6]).to_string(), "4^146");
        assert_eq!(Genus::from_gammas(4, &[1, 4, 6, 4, 6, 4, 6]).gamma(9), Some(4));
        assert_eq!(Genus::from_gammas(0, &[0, 2, 0, 2, 0]).to_string(), "0^02");
        assert_eq!(Genus::from_gammas(8, &[8, 10, 8, 10, 8]).to_string(), "8^{8,10}");
        for s in ["0^120", "8^{8,10}", "2^14202?"] {
            assert_eq!(s.parse::<Genus>().unwrap().to_string(), s);
        }
        assert!("0^120".parse::<Genus>().unwrap().is_nim_like());
        assert!(!"0^02".parse::<Genus>().unwrap().is_nim_like());
        assert_eq!("0^120".parse::<Genus>().unwrap().gamma(5), Some(2));
    }

    #[test]
    fn nim_heaps_have_nim_genus_and_are_tame() {
        let nim: GameSpec = "nim".parse().unwrap();
        let g = mex_values(nim.heap_rules().unwrap(), 12);
        let mut s = GenusSolver::new(nim.heap_rules().unwrap(), DEFAULT_DEPTH);
        for n in 0..=12 {
            let genus = s.genus(&[n], &g);
            assert_eq!(genus, Genus::nim_heap(n), "heap {n}: {genus}");
            assert!(s.is_tame(&[n], &g));
        }
        assert_eq!(s.genus(&[0], &g).to_string(), "0^120");
        assert_eq!(s.genus(&[1], &g).to_string(), "1^031");
        assert_eq!(s.genus(&[4], &g).to_string(), "4^46");
        // Sums of Nim heaps are tame too, but not with the genus of their nim-sum: *3 + *2 is
        // firm (1^13), *1 is fickle (1^031).
        assert_eq!(s.genus(&[3, 2], &g).to_string(), "1^13");
        assert_eq!(s.genus(&[2, 2], &g).to_string(), "0^02");
        assert!(s.is_tame(&[5, 3, 2, 1], &g));
    }

    #[test]
    fn tame_sums_follow_misere_nim() {
        let nim: GameSpec = "nim".parse().unwrap();
        let g = mex_values(nim.heap_rules().unwrap(), 8);
        let mut s = GenusSolver::new(nim.heap_rules().unwrap(), DEFAULT_DEPTH);
        for heaps in [vec![1, 1], vec![1], vec![2, 2], vec![3, 2, 1], vec![4, 1], vec![1, 1, 1]] {
            let genera: Vec<Genus> = heaps.iter().map(|&h| s.genus(&[h], &g)).collect();
            let v = s.misere().value(&heaps);
            assert_eq!(tame_sum_loss(&genera), Some(v == 0), "{heaps:?}");
        }
    }
}
