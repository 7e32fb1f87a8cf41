//! Staircase Nim: an ordered position.

use crate::game::Convention;

use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout, list};

/// Staircase Nim: coins on steps 1..n; a move takes any positive number of coins from one
/// step down to the step below (from step 1, off the staircase).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Staircase;

impl Staircase {
    /// The move of `k` coins from step `step` (counting from 1) in words, e.g. "move 2 coins
    /// from step 3 to step 2", "move 1 coin from step 1 off the staircase".
    pub fn describe(step: usize, k: u32) -> String {
        let whither =
            if step == 1 { "off the staircase".to_string() } else { format!("to step {}", step - 1) };
        let noun = if k == 1 { "coin" } else { "coins" };
        format!("move {k} {noun} from step {step} {whither}")
    }
}

impl Family for Staircase {
    fn layout(&self) -> SpaceLayout {
        SpaceLayout::Staircase
    }
    fn loopy(&self) -> bool {
        false
    }
    fn canonical(&self, mut counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        while counts.last() == Some(&0) {
            counts.pop();
        }
        Ok(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        format!("[{}]", list(position))
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        let mut out = Vec::new();
        for (i, &coins) in position.iter().enumerate() {
            let step = i + 1;
            for k in 1..=coins {
                let mut to = position.to_vec();
                to[i] -= k;
                if i > 0 {
                    to[i - 1] += k;
                }
                while to.last() == Some(&0) {
                    to.pop();
                }
                out.push(LabelledMove { to, text: Staircase::describe(step, k) });
            }
        }
        out
    }
    fn describe_move(&self, position: &[u32], to: &[u32]) -> Option<String> {
        // The one step that lost coins (the step below gained them).
        let i = (0..position.len()).rev().find(|&i| to.get(i).copied().unwrap_or(0) < position[i])?;
        Some(Staircase::describe(i + 1, position[i] - to.get(i).copied().unwrap_or(0)))
    }
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        for i in 0..position.len() {
            for k in 1..=position[i] {
                buf.clear();
                buf.extend_from_slice(position);
                buf[i] -= k;
                if i > 0 {
                    buf[i - 1] += k;
                }
                while buf.last() == Some(&0) {
                    buf.pop();
                }
                visit(buf);
            }
        }
    }
    fn rules_text(&self) -> String {
        "Staircase Nim: coins lie on steps 1, 2, 3, …; a move takes any positive number of coins \
         from one step down to the step below (from step 1, off the staircase). A position is \
         written step 1 first: `3 0 2 5` has 3 coins on step 1 and 5 on step 4."
            .into()
    }
    fn formula(&self, convention: Convention) -> Option<Formula> {
        (convention == Convention::Normal).then_some(Formula::OddSteps)
    }
}
