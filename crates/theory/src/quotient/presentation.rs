//! Presentations in the usual a, b, c… notation: generators, relations and each element as
//! a word.
//!
//! The generators are the heap images that the earlier heaps do not already generate,
//! named a, b, c, … in heap order. Every element is written as its least word in the
//! graded lexicographic order (fewest letters first, then alphabetical: `aab` before
//! `abb`). A word that is not the least word of its element is *reducible*; the relations
//! are the reducible words all of whose one-letter-shorter subwords are least words, each
//! set equal to its element's least word. Since the order is a monomial order, reducible
//! words are exactly the multiples of a relation's left side, so the relations rewrite any
//! word to its least word: they present the monoid.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::Serialize;

use super::monoid::BipartiteMonoid;

/// A presentation of a quotient.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Presentation {
    /// The generator names, a, b, c…
    pub generators: Vec<String>,
    /// For each generator, the heap whose image it is.
    pub generator_heaps: Vec<u32>,
    /// Relations `left = right`, e.g. `a^2 = 1`.
    pub relations: Vec<String>,
    /// Each element as its least word, indexed by element (`1` for the identity).
    pub words: Vec<String>,
}

fn name(i: usize) -> String {
    if i < 26 { ((b'a' + i as u8) as char).to_string() } else { format!("x{}", i + 1) }
}

fn word_text(exps: &[u32], names: &[String]) -> String {
    let parts: Vec<String> = exps
        .iter()
        .enumerate()
        .filter(|&(_, &e)| e > 0)
        .map(|(i, &e)| if e == 1 { names[i].clone() } else { format!("{}^{e}", names[i]) })
        .collect();
    if parts.is_empty() { "1".to_string() } else { parts.join("") }
}

/// Graded lexicographic comparison: fewer letters first, then more a's, then more b's…
fn grlex_less(u: &[u32], v: &[u32]) -> bool {
    let (du, dv): (u32, u32) = (u.iter().sum(), v.iter().sum());
    if du != dv {
        return du < dv;
    }
    for (a, b) in u.iter().zip(v) {
        if a != b {
            return a > b;
        }
    }
    false
}

/// The presentation of `q` with heap images `images` (heap 0 first).
pub fn present(q: &BipartiteMonoid, images: &[u32]) -> Presentation {
    // Generators: heap images not in the submonoid of the earlier ones.
    let mut gens: Vec<u32> = Vec::new();
    let mut heaps: Vec<u32> = Vec::new();
    let mut sub: HashSet<u32> = HashSet::from([0]);
    for (h, &img) in images.iter().enumerate().skip(1) {
        if sub.contains(&img) {
            continue;
        }
        gens.push(img);
        heaps.push(h as u32);
        // Close the submonoid under the new generator.
        let mut queue: VecDeque<u32> = sub.iter().copied().collect();
        while let Some(x) = queue.pop_front() {
            for &g in &gens {
                let y = q.mul(x, g);
                if sub.insert(y) {
                    queue.push_back(y);
                }
            }
        }
    }
    let names: Vec<String> = (0..gens.len()).map(name).collect();
    let k = gens.len();
    // Least words, degree by degree.
    let mut word: Vec<Option<Vec<u32>>> = vec![None; q.size()];
    word[0] = Some(vec![0; k]);
    let mut frontier: Vec<u32> = vec![0];
    while !frontier.is_empty() {
        let mut best: HashMap<u32, Vec<u32>> = HashMap::new();
        for &x in &frontier {
            let w = word[x as usize].clone().unwrap();
            for (i, &g) in gens.iter().enumerate() {
                let y = q.mul(x, g);
                if word[y as usize].is_some() {
                    continue;
                }
                let mut nw = w.clone();
                nw[i] += 1;
                match best.get(&y) {
                    Some(old) if !grlex_less(&nw, old) => {}
                    _ => {
                        best.insert(y, nw);
                    }
                }
            }
        }
        let mut next: Vec<u32> = best.keys().copied().collect();
        next.sort_unstable();
        for &y in &next {
            word[y as usize] = best.remove(&y);
        }
        frontier = next;
    }
    let normal: HashMap<Vec<u32>, u32> =
        word.iter().enumerate().filter_map(|(x, w)| w.clone().map(|w| (w, x as u32))).collect();
    // Minimal reducible words.
    let mut rels: Vec<(Vec<u32>, u32)> = Vec::new();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    for (w, &x) in &normal {
        for (i, &g) in gens.iter().enumerate() {
            let mut nw = w.clone();
            nw[i] += 1;
            if normal.contains_key(&nw) || !seen.insert(nw.clone()) {
                continue;
            }
            let minimal = (0..k).filter(|&j| nw[j] > 0).all(|j| {
                let mut sub = nw.clone();
                sub[j] -= 1;
                normal.contains_key(&sub)
            });
            if minimal {
                rels.push((nw, q.mul(x, g)));
            }
        }
    }
    rels.sort_by(|a, b| {
        if grlex_less(&a.0, &b.0) {
            std::cmp::Ordering::Less
        } else if grlex_less(&b.0, &a.0) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    let words: Vec<String> =
        word.iter().map(|w| w.as_ref().map_or("?".to_string(), |w| word_text(w, &names))).collect();
    let relations =
        rels.iter().map(|(l, x)| format!("{} = {}", word_text(l, &names), words[*x as usize])).collect();
    Presentation { generators: names, generator_heaps: heaps, relations, words }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z2_is_a_squared_is_one() {
        let z2 = BipartiteMonoid::from_table(2, vec![0, 1, 1, 0], vec![false, true]).unwrap();
        let p = present(&z2, &[0, 1, 1]);
        assert_eq!(p.generators, ["a"]);
        assert_eq!(p.generator_heaps, [1]);
        assert_eq!(p.relations, ["a^2 = 1"]);
        assert_eq!(p.words, ["1", "a"]);
    }
}
