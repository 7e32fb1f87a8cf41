//! Without the `mpi` feature the MPI tests (`tests/mpi.rs`) are not even compiled, and their
//! binary reported "0 passed" without a word; this ignored test says so in the report.
//! Run on its own (`--ignored`) it fails, naming the command that runs them.

#[cfg(not(feature = "mpi"))]
#[test]
#[ignore = "the MPI tests need the `mpi` feature and Open MPI: cargo test --release --features mpi --test mpi (.ci/run runs it)"]
fn the_mpi_tests_need_the_mpi_feature() {
    panic!(
        "the MPI tests are compiled only with the `mpi` feature: cargo test --release --features mpi --test mpi"
    );
}
