//! Restriction: the quotient of heaps 1..n read off a quotient of more heaps (or a proven
//! one), so a database that keeps one quotient per game still answers every smaller range.
//!
//! Let Φ map the closure of heaps 1..m onto Q (P its P-positions' image). The closure A of
//! heaps 1..n ≤ m maps onto the submonoid S of Q that the images of heaps 1..n generate,
//! and two positions of A are indistinguishable within A exactly when their images x, y
//! satisfy x·z ∈ P ⟺ y·z ∈ P for every z of S. So the quotient of heaps 1..n is S reduced
//! by that congruence: Moore's refinement ([`reduce`]) with the heap images as letters. It
//! is numbered as the computation of heaps 1..n numbers it (breadth first from the
//! identity through the images of the heaps up to the last one that enlarged the quotient,
//! in heap order), and, like every stored quotient taken up again, checked by the exact
//! closure check before it is returned.

use super::candidate::Submonoid;
use super::monoid::{BipartiteMonoid, reduce};
use super::{ClosureCheck, Quotient, QuotientError, certify, compute, tame};
use crate::game::{HeapFamily, HeapRules};

/// The submonoid of `q` the elements `gens` generate: its elements (the identity first, in
/// breadth-first order) and each element's index among them (`u32::MAX` outside).
fn generated(q: &BipartiteMonoid, gens: &[u32]) -> (Vec<u32>, Vec<u32>) {
    Submonoid::generated(q, gens).into_parts()
}

/// The distinct elements among `images[1..=h]` other than the identity, in heap order.
fn letters(images: &[u32], h: u32) -> Vec<u32> {
    let mut gens: Vec<u32> = Vec::new();
    for &x in &images[1..=h as usize] {
        if x != 0 && !gens.contains(&x) {
            gens.push(x);
        }
    }
    gens
}

/// |Q| of heaps 1..h, from `q` and the heap images in it.
fn size_at(q: &BipartiteMonoid, images: &[u32], h: u32) -> usize {
    let gens = letters(images, h);
    let (elements, index) = generated(q, &gens);
    let dense: Vec<u32> = gens.iter().map(|&g| index[g as usize]).collect();
    reduce(
        elements.len(),
        0,
        &dense,
        |d| q.is_p(elements[d as usize]),
        |d, g| index[q.mul(elements[d as usize], elements[g as usize]) as usize],
    )
    .0
}

impl Quotient {
    /// The verified quotient of heaps 1..=`n`, read off this one (which must cover heap
    /// `n`: `n` ≤ its heaps, or any `n` when its period is proven) rather than computed
    /// again: the same quotient, numbered alike, with the same certificate, apparent period,
    /// tameness and closure check as `compute_quotient` to heap `n` gives (the closure
    /// check, of at most `max_states` states, is run again on the result).
    pub fn restricted(&self, n: u32, max_states: usize) -> Result<Quotient, QuotientError> {
        if n == 0 || n > super::MAX_QUOTIENT_HEAP {
            return Err(QuotientError::BadMaxHeap { given: n.into(), max: super::MAX_QUOTIENT_HEAP });
        }
        let q = &self.monoid;
        let images: Vec<u32> = (0..=n).map(|h| self.image(h)).collect::<Result<_, _>>()?;
        // The computation numbers its last enlargement's quotient; |Q| of heaps 1..h only
        // grows with h, so that heap is the least h whose quotient is as large as heap n's.
        let full = size_at(q, &images, n);
        let (mut lo, mut hi) = (0u32, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if mid > 0 && size_at(q, &images, mid) == full { hi = mid } else { lo = mid + 1 }
        }
        let last = lo.max(1);
        // S and its congruence: classes in any order first.
        let gens = letters(&images, n);
        let (elements, index) = generated(q, &gens);
        let dense: Vec<u32> = gens.iter().map(|&g| index[g as usize]).collect();
        let (size, class) = reduce(
            elements.len(),
            0,
            &dense,
            |d| q.is_p(elements[d as usize]),
            |d, g| index[q.mul(elements[d as usize], elements[g as usize]) as usize],
        );
        debug_assert_eq!(size, full);
        let class_of = |x: u32| class[index[x as usize] as usize];
        let mut rep = vec![u32::MAX; size];
        for (d, &c) in class.iter().enumerate() {
            if rep[c as usize] == u32::MAX {
                rep[c as usize] = elements[d];
            }
        }
        let mul = |a: u32, b: u32| class_of(q.mul(rep[a as usize], rep[b as usize]));
        // Numbered breadth first from the identity through heaps 1..last's images.
        let steps: Vec<u32> = letters(&images, last).into_iter().map(class_of).collect();
        let mut number = vec![u32::MAX; size];
        let mut order = vec![class_of(0)];
        number[class_of(0) as usize] = 0;
        let mut i = 0;
        while i < order.len() {
            let x = order[i];
            for &g in &steps {
                let y = mul(x, g);
                if number[y as usize] == u32::MAX {
                    number[y as usize] = order.len() as u32;
                    order.push(y);
                }
            }
            i += 1;
        }
        if order.len() != size {
            return Err(QuotientError::Internal(format!(
                "heaps 1..{last} generate {} of the {size} elements of heaps 1..{n}",
                order.len()
            )));
        }
        let mut table = vec![0u32; size * size];
        for a in 0..size {
            for b in a..size {
                let v = number[mul(order[a], order[b]) as usize];
                table[a * size + b] = v;
                table[b * size + a] = v;
            }
        }
        let p: Vec<bool> = order.iter().map(|&c| q.is_p(rep[c as usize])).collect();
        let monoid = BipartiteMonoid::from_table(size, table, p)
            .map_err(|e| QuotientError::Internal(e.to_string()))?;
        let heap_images: Vec<u32> = images.iter().map(|&x| number[class_of(x) as usize]).collect();
        let heap_options = compute::option_images(&self.code, &monoid, &heap_images);
        let check: ClosureCheck = certify::closure_check(&monoid, &heap_images, &heap_options, max_states)
            .map_err(QuotientError::Unverified)?;
        let certificate = certify::period_rule(self.code.last_nonzero(), self.code.splits())
            .and_then(|rule| certify::proven_period(&heap_images, rule));
        let apparent = if certificate.is_none() { certify::apparent_period(&heap_images) } else { None };
        let g = crate::nim_values(&HeapFamily::TakeBreak(self.code.clone()), n);
        let tame = tame::is_tame(&monoid, &heap_images, &g);
        Ok(Quotient {
            code: self.code.clone(),
            monoid,
            heap_images,
            heap_options,
            max_heap: n,
            certificate,
            apparent,
            check,
            tame,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::game::GameSpec;
    use crate::quotient::{Computed, QuotientOptions, compute_quotient, compute_quotient_from};

    fn to(spec: &str, n: Option<u32>) -> super::Quotient {
        let spec: GameSpec = spec.parse().unwrap();
        let opts = match n {
            Some(n) => QuotientOptions::to_heap(n.into()).unwrap(),
            None => QuotientOptions::default(),
        };
        compute_quotient(spec.octal().unwrap(), opts, &mut |_, _| true).unwrap()
    }

    /// Every smaller range read off a larger quotient, or off a proven one (past its heaps
    /// too), is the quotient computed for that range: the same table, numbering, P, images,
    /// options, certificate, apparent period, tameness and closure check.
    #[test]
    fn a_restricted_quotient_is_the_computed_one() {
        let dawson = to("dawson", Some(27));
        for n in [1, 2, 3, 5, 8, 9, 12, 15, 17, 20, 23, 26, 27] {
            let r = dawson.restricted(n, 4_000_000).unwrap();
            assert_eq!(r.to_data(), to("dawson", Some(n)).to_data(), "dawson, heaps 1..{n}");
        }
        for spec in ["kayles", "octal:0.75", "octal:0.3124", "octal:0.4134"] {
            let proven = to(spec, None);
            assert!(proven.proven(), "{spec}");
            let top = proven.max_heap;
            for n in [1, 4, 11, top / 2, top - 1, top, top + 1, top + 37] {
                let r = proven.restricted(n, 4_000_000).unwrap();
                assert_eq!(r.to_data(), to(spec, Some(n)).to_data(), "{spec}, heaps 1..{n}");
            }
        }
        // Beyond what an unproven quotient covers: refused.
        let err = dawson.restricted(28, 4_000_000).unwrap_err();
        assert!(err.to_string().contains("beyond"), "{err}");
        assert!(dawson.restricted(0, 4_000_000).is_err());
    }

    /// Going on from a stored quotient gives what a computation from heap 1 gives, to a
    /// heap and open-ended; a quotient of another code, or a proven one, is not gone on from.
    #[test]
    fn going_on_from_a_quotient_is_computing_from_heap_one() {
        let spec: GameSpec = "dawson".parse().unwrap();
        let code = spec.octal().unwrap();
        let from = to("dawson", Some(19));
        let mut heard = Vec::new();
        let on = compute_quotient_from(
            code,
            QuotientOptions::to_heap(26).unwrap(),
            &mut |h, _| {
                heard.push(h);
                true
            },
            Some(&from),
        )
        .unwrap();
        let Computed::Complete(on) = on else { panic!("{on:?}") };
        assert_eq!(heard, (20..=26).collect::<Vec<_>>());
        assert_eq!(on.to_data(), to("dawson", Some(26)).to_data());
        for (spec, n) in [("kayles", 9), ("octal:0.3124", 30), ("octal:0.7152", 101)] {
            let s: GameSpec = spec.parse().unwrap();
            let from = to(spec, Some(n));
            let Computed::Complete(q) = compute_quotient_from(
                s.octal().unwrap(),
                QuotientOptions::default(),
                &mut |_, _| true,
                Some(&from),
            )
            .unwrap() else {
                panic!("{spec}")
            };
            assert_eq!(q.to_data(), to(spec, None).to_data(), "{spec} from heap {n}");
        }
        // Another code's quotient is ignored: heap 1 on.
        let mut first = None;
        compute_quotient_from(
            code,
            QuotientOptions::to_heap(5).unwrap(),
            &mut |h, _| {
                first.get_or_insert(h);
                true
            },
            Some(&to("kayles", Some(4))),
        )
        .unwrap();
        assert_eq!(first, Some(1));
    }
}
