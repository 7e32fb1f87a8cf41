//! The heap games as a family: a position is a multiset of heaps (largest first, zeros
//! dropped), ranked as a partition. Their tier solvers are specialised (`TierRules`, the
//! retrograde solver's incremental ranks); through this trait the generic solver, checks
//! and faces see them exactly as they see every other family, and the generic solver's
//! tiers equal the specialised ones byte for byte (tests/spaced.rs).

use crate::game::{Convention, GameRules, GameSpec, MAX_INPUT_HEAP, Position};

use crate::game::Formula;
use crate::game::family::{Family, LabelledMove, PositionError, SpaceLayout};

impl Family for GameSpec {
    fn layout(&self) -> SpaceLayout {
        SpaceLayout::Multiset
    }
    fn loopy(&self) -> bool {
        false
    }
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        if let Some(&h) = counts.iter().find(|&&h| h > MAX_INPUT_HEAP) {
            return Err(PositionError::NotACount { word: h.to_string(), max: MAX_INPUT_HEAP });
        }
        Ok(Position::new(counts).heaps().to_vec())
    }
    fn show(&self, position: &[u32]) -> String {
        Position::from_sorted(position.to_vec()).to_string()
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        let from = Position::from_sorted(position.to_vec());
        self.rules()
            .moves(&from)
            .into_iter()
            .map(|m| LabelledMove { to: m.apply(&from).heaps().to_vec(), text: m.words() })
            .collect()
    }
    /// The children straight from the heap rules, without describing the moves.
    fn for_each_child(&self, position: &[u32], _buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        let from = Position::from_sorted(position.to_vec());
        for m in self.rules().moves(&from) {
            visit(m.apply(&from).heaps());
        }
    }
    fn move_bound(&self, position: &[u32]) -> u64 {
        let bound = self.rules().move_bound(&Position::from_sorted(position.to_vec()));
        u64::try_from(bound).unwrap_or(u64::MAX)
    }
    fn rules_text(&self) -> String {
        crate::game::rules_in_words(self)
    }
    /// The theorem the game's rules declare (Bouton, Moore, Wythoff), under either
    /// convention: each has its misère form.
    fn formula(&self, _convention: Convention) -> Option<Formula> {
        self.rules().theory().formula
    }
}
