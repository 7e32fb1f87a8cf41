//! Tameness: whether a quotient is the quotient of misère Nim on the game's nim-values.
//!
//! In misère Nim a position is a P-position iff its nim-sum is 0 and some heap is 2 or more,
//! or its nim-sum is 1 and every heap is 0 or 1 (Bouton). Its quotient on the heaps below 2ᵐ
//! is the *tame* quotient: the pairs (v, big) with v a nim-sum and big whether a heap ≥ 2 is
//! present (v ∈ {0, 1} when not), multiplied by (v ⊕ v′, big ∨ big′). A game is tame when
//! its quotient is isomorphic to a tame one through its heaps: heap h goes to
//! (g(h), big(h)), where big(h) is false exactly when Φ(h) is the identity or squares to it
//! (the heap plays like ∗0 or ∗1).

use std::collections::{HashMap, VecDeque};

use super::monoid::BipartiteMonoid;

/// Whether `q` with heap images `images` is the tame quotient of the nim-values `g`
/// (`g[h]` for every heap h of `images`).
pub fn is_tame(q: &BipartiteMonoid, images: &[u32], g: &[u32]) -> bool {
    let tame_p = |(v, big): (u32, bool)| if big { v == 0 } else { v == 1 };
    let letters: Vec<(u32, (u32, bool))> = images
        .iter()
        .enumerate()
        .skip(1)
        .map(|(h, &x)| {
            let small = x == 0 || q.mul(x, x) == 0;
            (x, (g[h], !small))
        })
        .collect();
    if letters.iter().any(|&(_, (v, big))| !big && v > 1) {
        return false;
    }
    let mut to_tame: HashMap<u32, (u32, bool)> = HashMap::from([(0, (0, false))]);
    let mut from_tame: HashMap<(u32, bool), u32> = HashMap::from([((0, false), 0)]);
    let mut queue = VecDeque::from([(0u32, (0u32, false))]);
    while let Some((x, t)) = queue.pop_front() {
        if q.is_p(x) != tame_p(t) {
            return false;
        }
        for &(img, (v, big)) in &letters {
            let nx = q.mul(x, img);
            let nt = (t.0 ^ v, t.1 || big);
            match (to_tame.get(&nx), from_tame.get(&nt)) {
                (None, None) => {
                    to_tame.insert(nx, nt);
                    from_tame.insert(nt, nx);
                    queue.push_back((nx, nt));
                }
                (Some(&a), Some(&b)) if a == nt && b == nx => {}
                _ => return false,
            }
        }
    }
    to_tame.len() == q.size()
}
