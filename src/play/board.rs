//! Drawing a position as numbered rows of marks, one row per heap, largest first.

use crate::game::Position;

/// The most marks drawn for one heap; larger heaps are cut short with `…`.
pub const MAX_MARKS: u32 = 60;

/// The position as rows like `  1: ||||||| (7)`, one per heap in canonical (largest first)
/// order, with the sizes lined up. The row numbers only label the rows: moves name heaps
/// by their size. The empty position is drawn as `  (no heaps left)`.
pub fn render_board(position: &Position) -> String {
    if position.is_empty() {
        return "  (no heaps left)\n".to_string();
    }
    let marks = |h: u32| {
        let mut row = "|".repeat(h.min(MAX_MARKS) as usize);
        if h > MAX_MARKS {
            row.push('…');
        }
        row
    };
    let width = marks(position.largest()).chars().count();
    let number_width = position.len().to_string().len();
    let mut out = String::new();
    for (i, &h) in position.heaps().iter().enumerate() {
        let row = marks(h);
        let pad = " ".repeat(width - row.chars().count());
        out += &format!("  {:>number_width$}: {row}{pad} ({h})\n", i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_rows_largest_first_with_sizes_aligned() {
        let board = render_board(&"3 7 4".parse().unwrap());
        assert_eq!(board, "  1: ||||||| (7)\n  2: ||||    (4)\n  3: |||     (3)\n");
        assert_eq!(render_board(&Position::default()), "  (no heaps left)\n");
    }

    #[test]
    fn cuts_huge_heaps_short() {
        let board = render_board(&"1000 2".parse().unwrap());
        let first = board.lines().next().unwrap();
        assert!(first.ends_with("|… (1000)"), "{first}");
        assert_eq!(first.matches('|').count(), MAX_MARKS as usize);
        let rows: Vec<usize> = board.lines().map(|l| l.chars().position(|c| c == '(').unwrap()).collect();
        assert_eq!(rows[0], rows[1]);
    }

    #[test]
    fn numbers_many_rows_in_one_column() {
        let board = render_board(&Position::new(vec![1; 12]));
        assert!(board.starts_with("   1: | (1)\n"), "{board}");
        assert!(board.ends_with("  12: | (1)\n"), "{board}");
    }
}
