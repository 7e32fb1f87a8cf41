//! Nim with raising: a loopy game.

use crate::game::Convention;

use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout, list};

/// Nim with raising, capped at `cap`: a move lowers one heap to any smaller size (0 takes
/// it away), or adds one token to a nonempty heap below `cap`. Loopy: a heap can go up and
/// down for ever, so a position may be a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Raise {
    /// The largest heap.
    pub cap: u32,
}

impl Family for Raise {
    fn layout(&self) -> SpaceLayout {
        SpaceLayout::Multiset
    }
    fn loopy(&self) -> bool {
        true
    }
    fn canonical(&self, mut counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        if let Some(&h) = counts.iter().find(|&&h| h > self.cap) {
            return Err(PositionError::Illegal(format!(
                "a heap of {h}: raise:{} caps heaps at {}",
                self.cap, self.cap
            )));
        }
        counts.retain(|&h| h > 0);
        counts.sort_unstable_by(|a, b| b.cmp(a));
        Ok(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        format!("[{}]", list(position))
    }
    /// Every heap size counted at the cap: equal heaps have the same moves, a position has
    /// at most `cap` heap sizes and at most one per heap, and a heap of h has at most h + 1
    /// moves. A bound for every position the game can reach, since heaps never outgrow the
    /// cap and are never added.
    fn move_bound(&self, position: &[u32]) -> u64 {
        position.len().min(self.cap as usize) as u64 * (self.cap as u64 + 1)
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        let mut out = Vec::new();
        for (i, &h) in position.iter().enumerate() {
            if i > 0 && position[i - 1] == h {
                continue;
            }
            let with = |size: u32| {
                let mut to = position.to_vec();
                to[i] = size;
                to.retain(|&x| x > 0);
                to.sort_unstable_by(|a, b| b.cmp(a));
                to
            };
            for left in (0..h).rev() {
                let text = if left == 0 {
                    format!("take the whole heap of {h}")
                } else {
                    format!("take {} from a heap of {h}, leaving {left}", h - left)
                };
                out.push(LabelledMove { to: with(left), text });
            }
            if h < self.cap {
                out.push(LabelledMove {
                    to: with(h + 1),
                    text: format!("add 1 to a heap of {h}, making {}", h + 1),
                });
            }
        }
        out
    }
    fn describe_move(&self, position: &[u32], to: &[u32]) -> Option<String> {
        match crate::game::family::changed_heap(position, to) {
            (Some(h), None) => Some(format!("take the whole heap of {h}")),
            (Some(h), Some(made)) if made == h + 1 => Some(format!("add 1 to a heap of {h}, making {made}")),
            (Some(h), Some(left)) => Some(format!("take {} from a heap of {h}, leaving {left}", h - left)),
            _ => None,
        }
    }
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        for (i, &h) in position.iter().enumerate() {
            if i > 0 && position[i - 1] == h {
                continue;
            }
            let sizes = (0..h).rev().chain((h < self.cap).then_some(h + 1));
            for size in sizes {
                buf.clear();
                buf.extend_from_slice(position);
                buf[i] = size;
                buf.retain(|&x| x > 0);
                buf.sort_unstable_by(|a, b| b.cmp(a));
                visit(buf);
            }
        }
    }
    fn rules_text(&self) -> String {
        format!(
            "Nim with raising (cap {c}): a move takes any number of tokens from one heap, or adds \
             one token to a nonempty heap smaller than {c}. The game can go on for ever; a \
             position from which neither player can force a win is a draw.",
            c = self.cap
        )
    }
    fn formula(&self, convention: Convention) -> Option<Formula> {
        (convention == Convention::Normal).then_some(Formula::Smith { cap: self.cap })
    }
    fn heap_cap(&self) -> Option<u32> {
        Some(self.cap)
    }
}
