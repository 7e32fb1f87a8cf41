//! Solving one tier with several processes: each member does a share of the tier's work,
//! and the team combines the shares.
//!
//! The retrograde solver's two phases both combine by an elementwise minimum. Marking:
//! each member marks from its share of the source losses into a full copy of the tier
//! (unmarked positions hold [`UNKNOWN`](super::UNKNOWN), the largest value), and the least
//! offer over all members is the least offer overall. Settling: each member settles the
//! unmarked positions in its share of the ranks and leaves the rest [`UNKNOWN`], so the
//! minimum again picks the one member's value. Either way the combined tier is the same
//! for any team size, and every member ends each tier holding all of it.

use std::ops::Range;

/// The processes that solve each tier together (one process alone, or an MPI job).
pub trait Team: Sync {
    /// This member's index, from 0.
    fn index(&self) -> usize;
    /// How many members the team has.
    fn size(&self) -> usize;
    /// Replaces each of `values` by its least value over every member's copy. Every member
    /// calls this at the same point with a slice of the same length.
    fn min_all(&self, values: &mut [u16]) -> Result<(), String>;

    /// Whether work unit `unit` (of any numbering the members share) is this member's.
    fn owns(&self, unit: usize) -> bool {
        unit % self.size() == self.index()
    }

    /// This member's share of `0..len`: contiguous, the shares in member order.
    fn share(&self, len: usize) -> Range<usize> {
        let (i, n) = (self.index(), self.size());
        len * i / n..len * (i + 1) / n
    }
}

/// A team of one: the whole work, nothing to combine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Team for Alone {
    fn index(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn min_all(&self, _values: &mut [u16]) -> Result<(), String> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A team member that owns index `i` of `n`, for checking the shares.
    struct Member(usize, usize);
    impl Team for Member {
        fn index(&self) -> usize {
            self.0
        }
        fn size(&self) -> usize {
            self.1
        }
        fn min_all(&self, _: &mut [u16]) -> Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn shares_cover_every_rank_once() {
        for n in 1..8 {
            for len in [0, 1, 5, 64, 1001] {
                let mut next = 0;
                for i in 0..n {
                    let share = Member(i, n).share(len);
                    assert_eq!(share.start, next);
                    next = share.end;
                }
                assert_eq!(next, len);
                let owned: usize = (0..n).map(|i| (0..100).filter(|&u| Member(i, n).owns(u)).count()).sum();
                assert_eq!(owned, 100);
            }
        }
    }
}
