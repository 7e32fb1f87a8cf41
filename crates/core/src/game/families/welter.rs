//! Welter's game: a set of distinct heaps.

use crate::game::Convention;

use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout, list};

/// Welter's game: coins on distinct squares 0, 1, 2, …; a move moves one coin to any lower
/// empty square (equivalently: distinct heaps, one lowered to a size no other heap has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Welter;

impl Family for Welter {
    fn layout(&self) -> SpaceLayout {
        SpaceLayout::DistinctSet
    }
    fn loopy(&self) -> bool {
        false
    }
    fn canonical(&self, mut counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        counts.sort_unstable_by(|a, b| b.cmp(a));
        if let Some(w) = counts.windows(2).find(|w| w[0] == w[1]) {
            return Err(PositionError::Illegal(format!(
                "two heaps of {}: Welter's heaps are distinct (two coins never share a square)",
                w[0]
            )));
        }
        Ok(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        format!("[{}]", list(position))
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        let mut out = Vec::new();
        for (i, &h) in position.iter().enumerate() {
            for to_size in (0..h).rev() {
                if position.contains(&to_size) {
                    continue;
                }
                let mut to = position.to_vec();
                to[i] = to_size;
                to.sort_unstable_by(|a, b| b.cmp(a));
                out.push(LabelledMove { to, text: format!("lower the heap of {h} to {to_size}") });
            }
        }
        out
    }
    fn describe_move(&self, position: &[u32], to: &[u32]) -> Option<String> {
        match crate::game::family::changed_heap(position, to) {
            (Some(h), Some(to_size)) => Some(format!("lower the heap of {h} to {to_size}")),
            _ => None,
        }
    }
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        for i in 0..position.len() {
            let h = position[i];
            for to_size in (0..h).rev() {
                if position.contains(&to_size) {
                    continue;
                }
                // Lowering heap i keeps the order except past the heaps between: shift them up.
                buf.clear();
                buf.extend_from_slice(position);
                let mut j = i;
                while j + 1 < buf.len() && buf[j + 1] > to_size {
                    buf[j] = buf[j + 1];
                    j += 1;
                }
                buf[j] = to_size;
                visit(buf);
            }
        }
    }
    fn rules_text(&self) -> String {
        "Welter's game: coins on distinct squares 0, 1, 2, … of a strip; a move moves one coin \
         to any lower empty square (it may jump). Written as the squares, largest first: heaps \
         that are all different, a move lowering one to a size no other heap has."
            .into()
    }
    fn formula(&self, convention: Convention) -> Option<Formula> {
        (convention == Convention::Normal).then_some(Formula::Welter)
    }
}
