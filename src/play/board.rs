//! Drawing a position as numbered rows of marks: one row per heap, largest first, or one
//! row per step of a staircase, the top step first.

use crate::game::SpaceLayout;

/// The most marks drawn for one heap; larger heaps are cut short with `…`.
pub const MAX_MARKS: u32 = 60;

/// The position as rows of marks with the sizes lined up: for heaps (`layout` multiset or
/// distinct set) rows like `  1: ||||||| (7)`, one per heap in canonical (largest first)
/// order, where the row numbers only label the rows (moves name heaps by their size); for
/// a staircase rows like `  step 2: || (2)`, the top step first. The empty position is
/// drawn as `  (no heaps left)` or `  (no coins left)`.
pub fn render_board(layout: SpaceLayout, counts: &[u32]) -> String {
    if counts.is_empty() {
        return match layout {
            SpaceLayout::Staircase => "  (no coins left)\n".to_string(),
            _ => "  (no heaps left)\n".to_string(),
        };
    }
    let marks = |h: u32| {
        let mut row = "|".repeat(h.min(MAX_MARKS) as usize);
        if h > MAX_MARKS {
            row.push('…');
        }
        row
    };
    let width = counts.iter().map(|&h| marks(h).chars().count()).max().unwrap_or(0);
    let number_width = counts.len().to_string().len();
    let rows: Vec<(String, u32)> = match layout {
        SpaceLayout::Staircase => counts
            .iter()
            .enumerate()
            .rev()
            .map(|(i, &c)| (format!("step {:>number_width$}", i + 1), c))
            .collect(),
        _ => counts.iter().enumerate().map(|(i, &h)| (format!("{:>number_width$}", i + 1), h)).collect(),
    };
    let mut out = String::new();
    for (label, h) in rows {
        let row = marks(h);
        let pad = " ".repeat(width - row.chars().count());
        out += &format!("  {label}: {row}{pad} ({h})\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heaps(counts: &[u32]) -> String {
        render_board(SpaceLayout::Multiset, counts)
    }

    #[test]
    fn draws_rows_largest_first_with_sizes_aligned() {
        assert_eq!(heaps(&[7, 4, 3]), "  1: ||||||| (7)\n  2: ||||    (4)\n  3: |||     (3)\n");
        assert_eq!(heaps(&[]), "  (no heaps left)\n");
    }

    #[test]
    fn draws_a_staircase_top_step_first_and_welter_s_empty_heap() {
        let board = render_board(SpaceLayout::Staircase, &[3, 0, 2]);
        assert_eq!(board, "  step 3: ||  (2)\n  step 2:     (0)\n  step 1: ||| (3)\n");
        let board = render_board(SpaceLayout::DistinctSet, &[2, 0]);
        assert_eq!(board, "  1: || (2)\n  2:    (0)\n");
        assert_eq!(render_board(SpaceLayout::Staircase, &[]), "  (no coins left)\n");
    }

    #[test]
    fn cuts_huge_heaps_short() {
        let board = heaps(&[1000, 2]);
        let first = board.lines().next().unwrap();
        assert!(first.ends_with("|… (1000)"), "{first}");
        assert_eq!(first.matches('|').count(), MAX_MARKS as usize);
        let rows: Vec<usize> = board.lines().map(|l| l.chars().position(|c| c == '(').unwrap()).collect();
        assert_eq!(rows[0], rows[1]);
    }

    #[test]
    fn numbers_many_rows_in_one_column() {
        let board = heaps(&[1; 12]);
        assert!(board.starts_with("   1: | (1)\n"), "{board}");
        assert!(board.ends_with("  12: | (1)\n"), "{board}");
    }
}
