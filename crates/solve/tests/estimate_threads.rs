//! A solve's estimate counts the threads of the pool the solve will run on, as its caller
//! gives them, and not the pool the estimate happens to be made in: a server or a Python
//! query plans on one thread and solves on a pool of its own.

use nimdb_core::game::{Convention, GameSpec};
use nimdb_core::index::Universe;
use nimdb_solve::{SolveOptions, Strategy, estimate};

#[test]
fn the_estimate_counts_the_threads_it_is_given_wherever_it_is_made() {
    // Misère Nim, heaps up to 20, at most 8 of them: marked in each thread's own copies
    // (Kayles is not: its losses mark the totals above them as they are settled).
    let nim: GameSpec = "nim".parse().unwrap();
    let universe = Universe::new(nim.rules(), "nim", None, Some(20), Some(8)).unwrap();
    let table = universe.table().unwrap();
    let options = SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    };
    let memory = |threads| estimate(&nim, &options, &table, threads).memory_bytes;
    // Each marking thread past the first keeps its own copies of the arrays it marks.
    let (one, two, four) = (memory(1), memory(2), memory(4));
    assert!(one < two && two < four, "1, 2, 4 threads: {one}, {two}, {four} bytes");
    // Made on a pool of another size, it is the same: the pool the solve runs on is named.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let inside = pool.install(|| (rayon::current_num_threads(), memory(1), memory(4)));
    assert_eq!(inside, (3, one, four));
    // Sweeping keeps no copies.
    let sweep = SolveOptions { strategy: Strategy::Sweep, ..options };
    let swept = |threads| estimate(&nim, &sweep, &table, threads).memory_bytes;
    assert_eq!(swept(1), swept(4));
}
