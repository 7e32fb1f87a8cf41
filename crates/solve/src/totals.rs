//! Partition counts laid out with the total last, so that the counts of several
//! consecutive totals (a loss's parents for as many consecutive totals above it) are one
//! contiguous read: see [`Shape::parents_in_lanes`](super::shape::Shape::parents_in_lanes).

use crate::index::PartitionTable;

/// Consecutive totals read at once: as many as the solver marks together.
pub(super) const LANES: usize = 8;

/// `count(s, j, p)` of a [`PartitionTable`] for `s` and the next `LANES − 1` totals in one
/// read (totals past the table's count as 0).
#[derive(Debug)]
pub(super) struct CountsByTotal {
    /// Index stride of one more part `j`.
    stride_parts: usize,
    /// Index stride of one more part size `p`: a row of totals, padded by `LANES`.
    stride_part: usize,
    counts: Vec<u32>,
}

impl CountsByTotal {
    /// The counts of `table`, rearranged.
    pub fn new(table: &PartitionTable) -> Self {
        let (max_total, max_parts, max_part) = (table.max_total(), table.max_parts(), table.max_part());
        let stride_part = max_total as usize + 1 + LANES;
        let stride_parts = (max_part as usize + 1) * stride_part;
        let mut counts = vec![0; (max_parts as usize + 1) * stride_parts];
        for j in 0..=max_parts {
            for p in 0..=max_part {
                let row = j as usize * stride_parts + p as usize * stride_part;
                for s in 0..=max_total {
                    counts[row + s as usize] = table.count_within(s, j, p);
                }
            }
        }
        CountsByTotal { stride_parts, stride_part, counts }
    }

    /// `count(s + i, j, p)` for `i < LANES`.
    #[inline(always)]
    pub fn lanes(&self, s: u32, j: u32, p: u32) -> [u32; LANES] {
        let at = j as usize * self.stride_parts + p as usize * self.stride_part + s as usize;
        self.counts[at..at + LANES].try_into().expect("LANES counts")
    }
}

/// Adds `b` to `a` lane by lane (wrapping, as rank terms are summed).
#[inline(always)]
pub(super) fn add(a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
    std::array::from_fn(|i| a[i].wrapping_add(b[i]))
}

/// Subtracts `b` from `a` lane by lane (wrapping).
#[inline(always)]
pub(super) fn sub(a: [u32; LANES], b: [u32; LANES]) -> [u32; LANES] {
    std::array::from_fn(|i| a[i].wrapping_sub(b[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_the_table_counts_of_consecutive_totals() {
        let table = PartitionTable::new(40, 9, 12).unwrap();
        let by_total = CountsByTotal::new(&table);
        for j in 0..=9 {
            for p in 0..=12 {
                for s in 0..=40 {
                    let lanes = by_total.lanes(s, j, p);
                    for (i, &count) in lanes.iter().enumerate() {
                        let s = s + i as u32;
                        let expected = if s <= 40 { table.count_within(s, j, p) } else { 0 };
                        assert_eq!(count, expected, "count({s}, {j}, {p})");
                    }
                }
            }
        }
    }
}
