//! The rule families of the heap games, as one value.

use super::TierRules;
use super::model::{GameRules, HeapCountChange, Theory};
use super::moore::MooreRules;
use super::moves::Move;
use super::position::Position;
use super::rules::{HeapFamily, HeapRules};
use super::wythoff::WythoffRules;

/// Every rule family, as one value. Faces hold it as a [`GameRules`]; hot loops dispatch
/// once on it (see [`Rules::with`]) and then run code monomorphised for the concrete family.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    /// A heap game: each move replaces one heap (octal and hexadecimal codes, subtraction
    /// games, Grundy's game).
    Heap(HeapFamily),
    /// Moore's Nim_k.
    Moore(MooreRules),
    /// Wythoff's game.
    Wythoff(WythoffRules),
}

/// A computation generic over the rule family, run by [`Rules::with`].
pub trait RulesVisitor {
    /// What the computation returns.
    type Output;
    /// Runs the computation for the concrete rules `rules`.
    fn visit<G: TierRules>(self, rules: &G) -> Self::Output;
}

impl Rules {
    /// Runs `visitor` with the concrete rule type, so its inner loops are monomorphised.
    pub fn with<V: RulesVisitor>(&self, visitor: V) -> V::Output {
        match self {
            Rules::Heap(HeapFamily::TakeBreak(code)) => visitor.visit(code),
            Rules::Heap(HeapFamily::Grundy(g)) => visitor.visit(g),
            Rules::Moore(m) => visitor.visit(m),
            Rules::Wythoff(w) => visitor.visit(w),
        }
    }

    /// The heap rules, for heap games (the families theory of heap values applies to).
    pub fn heap_rules(&self) -> Option<&HeapFamily> {
        match self {
            Rules::Heap(h) => Some(h),
            _ => None,
        }
    }

    fn model(&self) -> &dyn GameRules {
        match self {
            Rules::Heap(h) => h,
            Rules::Moore(m) => m,
            Rules::Wythoff(w) => w,
        }
    }
}

impl GameRules for Rules {
    fn moves(&self, position: &Position) -> Vec<Move> {
        self.model().moves(position)
    }
    fn move_bound(&self, position: &Position) -> u128 {
        self.model().move_bound(position)
    }
    fn max_take(&self) -> Option<u32> {
        GameRules::max_take(self.model())
    }
    fn heap_change(&self) -> HeapCountChange {
        self.model().heap_change()
    }
    fn always_takes(&self) -> bool {
        self.model().always_takes()
    }
    fn theory(&self) -> Theory {
        self.model().theory()
    }
    fn single_heap(&self) -> Option<&dyn HeapRules> {
        self.model().single_heap()
    }
}
