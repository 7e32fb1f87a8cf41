//! Marking on several threads without atomic writes: each thread gives its offers to its
//! own copy of the arrays being marked, with plain writes, and the copies are then folded
//! into the arrays by an elementwise minimum.
//!
//! Marking with atomic minimums (a load, and a locked compare-and-swap where the offer
//! improves) cost 1.14× the CPU of the plain writes on one thread (misère Nim 8×32, paired,
//! median of 3), the bulk of what a second thread cost. The least offer does not depend on
//! which thread made it nor on the order of the folding, so the arrays are the same for
//! any thread count. The copies are held between calls (reset as they are folded) and
//! take one byte a position where every remoteness fits one (two otherwise), up to
//! [`COPIES_MAX_BYTES`] for all threads together; past it the caller marks with atomics.

use std::cell::Cell;
use std::sync::Mutex;

use rayon::prelude::*;

use super::UNKNOWN;

/// The most bytes the threads' copies take together. Past it (misère Kayles's largest
/// totals near 100, hundreds of megabytes a total) the memory counts more than the CPU.
pub(crate) const COPIES_MAX_BYTES: u64 = 96 << 20;

/// Positions folded per parallel work unit.
const FOLD_CHUNK: usize = 1 << 15;

/// A cell of a thread's copy: the least offer made to a position, or [`Mark::NONE`].
pub(super) trait Mark: Copy + Ord + Send + Sync + 'static {
    /// No offer made.
    const NONE: Self;
    /// An offer (one more than a loss's remoteness; below 255 for `u8`).
    fn from_offer(offer: u16) -> Self;
    /// The value as the marked arrays hold it ([`UNKNOWN`] for [`Mark::NONE`]).
    fn value(self) -> u16;
    /// A marked array as cells of this type, where they are the same (then the first
    /// thread marks the arrays themselves, and one copy fewer is needed).
    fn in_place(array: &mut [u16]) -> Option<&mut [Self]>;
}

impl Mark for u8 {
    const NONE: Self = u8::MAX;
    #[inline(always)]
    fn from_offer(offer: u16) -> Self {
        debug_assert!(offer < u8::MAX as u16, "offer {offer} does not fit a byte");
        offer as u8
    }
    #[inline(always)]
    fn value(self) -> u16 {
        if self == u8::MAX { UNKNOWN } else { self as u16 }
    }
    fn in_place(_: &mut [u16]) -> Option<&mut [Self]> {
        None
    }
}

impl Mark for u16 {
    const NONE: Self = UNKNOWN;
    #[inline(always)]
    fn from_offer(offer: u16) -> Self {
        offer
    }
    #[inline(always)]
    fn value(self) -> u16 {
        self
    }
    fn in_place(array: &mut [u16]) -> Option<&mut [Self]> {
        Some(array)
    }
}

/// The threads' copies, kept from one call to the next with every cell [`Mark::NONE`].
#[derive(Debug)]
pub(super) struct Copies<T> {
    cells: Mutex<Vec<T>>,
}

impl<T> Default for Copies<T> {
    fn default() -> Self {
        Copies { cells: Mutex::new(Vec::new()) }
    }
}

/// A raw pointer to the copies' cells that threads may share: each thread reaches only its
/// own copy through it (see [`Copies::mark`]).
#[derive(Clone, Copy)]
struct Base<T>(*mut T);
// SAFETY: the pointer is only dereferenced in `Copies::mark`, each thread within its own
// copy, disjoint from every other thread's, while the vector is locked and not resized.
unsafe impl<T: Send> Send for Base<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Base<T> {}

impl<T> Base<T> {
    /// The pointer `n` cells on (a method, so that closures capture the whole `Base`).
    ///
    /// # Safety
    /// As [`pointer::add`]: `n` cells on must lie within the vector.
    #[inline(always)]
    unsafe fn add(self, n: usize) -> *mut T {
        // SAFETY: the caller's.
        unsafe { self.0.add(n) }
    }
}

impl<T: Mark> Copies<T> {
    /// Runs `mark` on every item of `work` in parallel on the current rayon pool, each with
    /// the cells of its thread's own copy of `targets` (all [`Mark::NONE`]; for the first
    /// thread, where [`Mark::in_place`], the targets themselves); then lowers each target
    /// to the least value over the copies, and resets them. Returns the sum of what `mark`
    /// returned, or gives `work` back, with nothing run, when the copies would take more
    /// than `max_bytes` (then they are freed).
    pub(super) fn mark<W: Send>(
        &self,
        targets: &mut [&mut [u16]],
        work: Vec<W>,
        max_bytes: u64,
        mark: impl Fn(W, &[&[Cell<T>]]) -> u64 + Sync,
    ) -> Result<u64, Vec<W>> {
        let threads = rayon::current_num_threads();
        let lens: Vec<usize> = targets.iter().map(|t| t.len()).collect();
        let per_thread: usize = lens.iter().sum();
        // The targets as the first thread's cells, where they are of this type.
        let in_place: Option<Vec<Base<T>>> =
            targets.iter_mut().map(|t| T::in_place(t).map(|t| Base(t.as_mut_ptr()))).collect();
        let copied = threads - usize::from(in_place.is_some());
        let mut cells = self.cells.lock().unwrap_or_else(|e| e.into_inner());
        let needed = per_thread * copied;
        if (needed * size_of::<T>()) as u64 > max_bytes {
            *cells = Vec::new();
            return Err(work);
        }
        if cells.len() < needed {
            cells.resize(needed, T::NONE);
        }
        let base = Base(cells.as_mut_ptr());
        let edges = work
            .into_par_iter()
            .map(|item| {
                let thread = rayon::current_thread_index().filter(|&i| i < threads);
                let thread = thread.expect("marking runs on the threads of the pool it was counted in");
                let arrays: Vec<&[Cell<T>]> = match &in_place {
                    Some(targets) if thread == 0 => targets
                        .iter()
                        .zip(&lens)
                        .map(|(&target, &len)| {
                            // SAFETY: each target is borrowed exclusively for this call, and
                            // only this thread reaches it until every item is done (and no
                            // other item of this thread while this one runs: an item does
                            // not hand work to rayon, so it runs no other item within it).
                            let target = unsafe { std::slice::from_raw_parts_mut(target.add(0), len) };
                            Cell::from_mut(target).as_slice_of_cells()
                        })
                        .collect(),
                    _ => {
                        let copy = thread - (threads - copied);
                        // SAFETY: `cells` holds `copied` copies of `per_thread` cells and
                        // stays locked and unresized until every item is done; this
                        // thread's copy is reached by no other thread, nor (as above) by
                        // another item of this thread while this one runs.
                        let copy: &mut [T] = unsafe {
                            std::slice::from_raw_parts_mut(base.add(copy * per_thread), per_thread)
                        };
                        let mut rest = Cell::from_mut(copy).as_slice_of_cells();
                        lens.iter()
                            .map(|&len| {
                                let (array, after) = rest.split_at(len);
                                rest = after;
                                array
                            })
                            .collect()
                    }
                };
                mark(item, &arrays)
            })
            .sum();
        // Fold every copy into the targets, a stretch of one target at a time.
        let mut stretches = Vec::new();
        let mut start = 0;
        for target in targets.iter_mut() {
            let len = target.len();
            for (i, stretch) in target.chunks_mut(FOLD_CHUNK).enumerate() {
                stretches.push((start + i * FOLD_CHUNK, stretch));
            }
            start += len;
        }
        let copies: Vec<Base<T>> = (0..copied).map(|c| Base(cells[c * per_thread..].as_mut_ptr())).collect();
        stretches.into_par_iter().for_each(|(at, stretch)| {
            for &copy in &copies {
                // SAFETY: the stretches are disjoint, so are the cells of each copy they
                // read; `cells` is locked for the whole fold.
                let copy = unsafe { std::slice::from_raw_parts_mut(copy.add(at), stretch.len()) };
                for (value, cell) in stretch.iter_mut().zip(copy.iter_mut()) {
                    *value = (*value).min(cell.value());
                    *cell = T::NONE;
                }
            }
        });
        Ok(edges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer<T: Mark>(cell: &Cell<T>, offer: u16) {
        cell.set(cell.get().min(T::from_offer(offer)));
    }

    /// Offers to two arrays from many work items, folded into arrays that already hold
    /// some values: the least of everything, whatever the threads and widths.
    fn check<T: Mark>(threads: usize) {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let copies = Copies::<T>::default();
        let (mut a, mut b) = (vec![UNKNOWN; 70_001], vec![UNKNOWN, 25, 19]);
        a[5] = 3;
        let work: Vec<usize> = (0..500).collect();
        let mark = |item: usize, arrays: &[&[Cell<T>]]| {
            for rank in (item..70_001).step_by(97) {
                offer(&arrays[0][rank], (10 + item % 200) as u16);
            }
            offer(&arrays[1][item % 3], (20 + item % 11 + item % 3) as u16);
            1
        };
        for round in 0..2 {
            let edges =
                pool.install(|| copies.mark(&mut [&mut a[..], &mut b[..]], work.clone(), u64::MAX, mark));
            assert_eq!(edges.ok(), Some(500), "round {round}");
        }
        for (rank, &v) in a.iter().enumerate() {
            let least = (0..500).filter(|i| rank >= *i && (rank - i) % 97 == 0).map(|i| 10 + i % 200).min();
            let least = least.map_or(UNKNOWN, |l| l as u16);
            assert_eq!(v, if rank == 5 { least.min(3) } else { least }, "rank {rank}");
        }
        assert_eq!(b, [20, 21, 19]);
        assert!(copies.cells.lock().unwrap().iter().all(|&c| c == T::NONE), "copies reset");
        // Past the bound nothing runs, and the copies are freed (one thread marking the
        // arrays themselves needs none).
        let copied = threads > 1 || T::in_place(&mut []).is_none();
        let none = pool.install(|| copies.mark(&mut [&mut a[..], &mut b[..]], work.clone(), 1000, mark));
        assert_eq!(none.err(), copied.then_some(work));
        assert!(copies.cells.lock().unwrap().is_empty());
    }

    #[test]
    fn folded_copies_hold_the_least_offer_for_any_thread_count() {
        for threads in [1, 2, 3, 7] {
            check::<u8>(threads);
            check::<u16>(threads);
        }
    }
}
