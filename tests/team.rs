//! A tier's work split over a team of members gives the same tiers as one process: here
//! the members are threads of one test, combining through shared memory, so the split and
//! the combine are checked without MPI.

use std::sync::{Barrier, Mutex};

use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{MemoryStore, Silent, SolveOptions, Strategy, Team, solve, solve_on_team};

/// Members that meet at a barrier and take the elementwise minimum of their slices.
struct Threads {
    size: usize,
    barrier: Barrier,
    shared: Mutex<Vec<u16>>,
    arrived: Mutex<usize>,
}

struct Member<'a> {
    index: usize,
    team: &'a Threads,
}

impl Team for Member<'_> {
    fn index(&self) -> usize {
        self.index
    }
    fn size(&self) -> usize {
        self.team.size
    }
    fn min_all(&self, values: &mut [u16]) -> Result<(), String> {
        let team = self.team;
        {
            let mut shared = team.shared.lock().unwrap();
            let mut arrived = team.arrived.lock().unwrap();
            if *arrived == 0 {
                *shared = values.to_vec();
            } else {
                if shared.len() != values.len() {
                    return Err("members disagree on the tier".into());
                }
                for (s, &v) in shared.iter_mut().zip(values.iter()) {
                    *s = (*s).min(v);
                }
            }
            *arrived += 1;
        }
        team.barrier.wait();
        values.copy_from_slice(&team.shared.lock().unwrap());
        if team.barrier.wait().is_leader() {
            *team.arrived.lock().unwrap() = 0;
        }
        team.barrier.wait();
        Ok(())
    }
}

fn on_team(game: &GameSpec, options: &SolveOptions, size: usize) -> Vec<MemoryStore> {
    let team =
        Threads { size, barrier: Barrier::new(size), shared: Mutex::new(Vec::new()), arrived: Mutex::new(0) };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..size)
            .map(|index| {
                let team = &team;
                scope.spawn(move || {
                    let mut store = MemoryStore::default();
                    solve_on_team(game, options, &mut store, &Silent, &Member { index, team }).unwrap();
                    store
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn every_team_size_gives_the_tiers_of_one_process() {
    for (spec, convention, total, heap) in [
        ("kayles", Convention::Misere, 26, None),
        ("lines", Convention::Misere, 22, None),
        ("nim", Convention::Normal, 60, Some(10)),
        ("moore:2", Convention::Misere, 18, None),
        ("wythoff", Convention::Normal, 20, None),
    ] {
        let game: GameSpec = spec.parse().unwrap();
        let universe = Universe::new(game.rules(), spec, Some(total), heap, heap.map(|_| 6)).unwrap();
        let options =
            SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
        let mut alone = MemoryStore::default();
        solve(&game, &options, &mut alone, &Silent).unwrap();
        assert!(alone.tiers.len() > 20, "{spec}");
        for size in [2, 3, 5] {
            for (i, member) in on_team(&game, &options, size).into_iter().enumerate() {
                assert_eq!(member.tiers.len(), alone.tiers.len(), "{spec}, team of {size}, member {i}");
                for (tier, solved) in &alone.tiers {
                    assert_eq!(
                        member.tiers[tier].remoteness, solved.remoteness,
                        "{spec}, team of {size}, member {i}, tier {tier}"
                    );
                }
            }
        }
    }
}
