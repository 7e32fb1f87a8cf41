//! Property tests: random octal games against the reference search, and the round trips of
//! spec printing, position parsing and tier ranking.

use nimdb::game::{Convention, GameSpec, HeapFamily, Position, Rules, TakeBreakCode};
use nimdb::index::{PartitionTable, Universe};
use nimdb::solve::reference::ReferenceSearch;
use nimdb::solve::{SolveOptions, Strategy as SolveStrategy, solve_in_memory};
use proptest::prelude::*;

/// Any octal code: d0 ∈ {0, 4}, up to four digits, maybe a repeated last digit.
fn octal_code() -> impl Strategy<Value = TakeBreakCode> {
    (prop_oneof![Just(0u8), Just(4u8)], prop::collection::vec(0u8..8, 0..5), prop::option::of(0u8..8))
        .prop_filter_map("a code with no move", |(d0, digits, repeat)| {
            TakeBreakCode::new(d0, &digits, repeat).ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The retrograde solver agrees with the forward search on every position of a random
    /// octal game, under both conventions.
    #[test]
    fn random_octal_games_match_the_reference(code in octal_code(), misere in any::<bool>()) {
        let spec = GameSpec::from_rules(Rules::Heap(HeapFamily::TakeBreak(code)));
        let convention = Convention::from_misere(misere);
        let universe = Universe::new(spec.rules(), "g", Some(14), None, None).unwrap();
        let table = universe.table().unwrap();
        let options = SolveOptions { convention, universe, nim_values: false, strategy: SolveStrategy::Retrograde };
        let solved = solve_in_memory(&spec, &options).unwrap();
        let mut reference = ReferenceSearch::new(spec.rules(), convention);
        for tier in universe.tiers() {
            for (rank, p) in table.positions(tier).enumerate() {
                let (_, r) = reference.solve(&p);
                prop_assert_eq!(solved.tiers[&tier].remoteness[rank] as u32, r, "{} {} {}", spec, convention, p);
            }
        }
    }

    /// A spec prints in a canonical form that parses back to the same rules.
    #[test]
    fn specs_round_trip(code in octal_code()) {
        let spec = GameSpec::from_rules(Rules::Heap(HeapFamily::TakeBreak(code)));
        let again: GameSpec = spec.to_string().parse().unwrap();
        prop_assert_eq!(&again, &spec);
        prop_assert_eq!(again.to_string(), spec.to_string());
    }

    /// Positions parse from any order and either separator, and print back canonically.
    #[test]
    fn positions_round_trip(heaps in prop::collection::vec(0u32..1000, 0..12), commas in any::<bool>()) {
        let sep = if commas { "," } else { " " };
        let mut text = heaps.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(sep);
        if text.is_empty() {
            // No heaps at all is written `[]` (an empty list is refused as a typo).
            text = "[]".to_string();
        }
        let p: Position = text.parse().unwrap();
        let mut want: Vec<u32> = heaps.into_iter().filter(|&h| h > 0).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        prop_assert_eq!(p.heaps(), &want[..]);
        prop_assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
    }

    /// Ranking a random partition and unranking the rank gives it back, below the tier size.
    #[test]
    fn rank_round_trips(parts in prop::collection::vec(1u32..=40, 1..9)) {
        let mut parts = parts;
        parts.sort_unstable_by(|a, b| b.cmp(a));
        let total: u32 = parts.iter().sum();
        let table = PartitionTable::new(total, 8, 40).unwrap();
        let rank = table.rank(&parts);
        prop_assert!(rank < table.tier_size(total, parts.len() as u32));
        let mut back = Vec::new();
        table.unrank(total, parts.len() as u32, rank, &mut back);
        prop_assert_eq!(back, parts);
    }
}
