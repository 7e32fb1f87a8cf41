//! Bouton's theorem: every position of Nim with up to 8 heaps of up to 32 (all 76,904,685)
//! matches the XOR rule under normal play and the misère-Nim rule under misère play.

use std::collections::BTreeSet;

use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, TierWalk, Universe};
use nimdb::solve::{Silent, SinkError, SolveOptions, SolvedTier, Strategy, TierStore, solve};

/// Checks each tier against theory as it is stored, and keeps nothing.
struct BoutonCheck {
    convention: Convention,
    max_heap: u32,
    checked: u64,
}

fn theory_says_win(convention: Convention, heaps: &[u32]) -> bool {
    let xor = heaps.iter().fold(0, |x, &h| x ^ h);
    match convention {
        Convention::Normal => xor != 0,
        Convention::Misere => {
            if heaps.iter().all(|&h| h <= 1) {
                xor == 0
            } else {
                xor != 0
            }
        }
    }
}

impl TierStore for BoutonCheck {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        Ok(BTreeSet::new())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        Err(SinkError::new(format!("nothing stored for {tier}")))
    }
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        let mut walk = TierWalk::new(solved.tier.total, solved.tier.heaps, self.max_heap);
        for &r in &solved.remoteness {
            let heaps = walk.next().unwrap();
            let win = self.convention.is_win(r as u32);
            assert_eq!(win, theory_says_win(self.convention, heaps), "{} {heaps:?}", self.convention);
            self.checked += 1;
        }
        assert!(walk.next().is_none());
        Ok(())
    }
}

fn check(convention: Convention) {
    let nim = GameSpec::nim();
    let universe = Universe::new(nim.rules(), "nim", None, Some(32), Some(8)).unwrap();
    let mut store = BoutonCheck { convention, max_heap: 32, checked: 0 };
    let options = SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
    solve(&nim, &options, &mut store, &Silent).unwrap();
    assert_eq!(store.checked, 76_904_685);
}

#[test]
fn normal_nim_8x32_is_bouton() {
    check(Convention::Normal);
}

#[test]
fn misere_nim_8x32_is_misere_bouton() {
    check(Convention::Misere);
}
