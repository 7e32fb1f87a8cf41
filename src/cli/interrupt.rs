//! Ctrl-C for long computations. The first SIGINT (for a rank of an MPI job, also SIGTERM
//! or SIGUSR1) only sets a flag, which the computation polls between steps, so it stops at
//! a clean point and keeps what is complete; a second signal of the same kind ends the
//! process at once (the default action is restored by the first).

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

extern "C" fn on_stop_signal(signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // SAFETY: signal(2) is async-signal-safe; restoring the default action lets a second
    // signal of the same kind stop the process at once.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
    }
}

/// Makes `signal` set the flag once (see [`on_stop_signal`]).
fn catch(signal: libc::c_int) {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic and calls signal(2), both
    // async-signal-safe.
    unsafe {
        libc::signal(signal, on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// Installs the handler; from now on [`interrupted`] reports a Ctrl-C.
pub fn install() {
    catch(libc::SIGINT);
}

/// For a rank of an MPI job: SIGTERM and SIGUSR1 stop it at a tier boundary too, as SIGINT
/// does. `mpirun` answers Ctrl-C by sending every rank SIGTERM (and SIGKILL
/// `odls_base_sigkill_timeout` seconds later), SLURM's `scancel` sends SIGTERM, and
/// `mpirun` forwards SIGUSR1 to every rank and kills nothing. The first of them sets the
/// flag; a second of the same kind ends the rank at once.
#[cfg(feature = "mpi")]
pub fn install_for_rank() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGUSR1] {
        catch(signal);
    }
}

/// Whether Ctrl-C was pressed since [`install`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Makes a write past the file-size limit (`ulimit -f`) fail with an error (EFBIG, which
/// SQLite reports and the command turns into one line) instead of killing the process with
/// SIGXFSZ and no word.
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// For a solve stopped by Ctrl-C: says on stderr what is stored and how to resume, and gives
/// the exit status; `None` for any other result. A loopy family's solve (`whole`) is whole
/// or nothing (a draw is what no round of the retrograde analysis decides, known only at the
/// end), so it says nothing was stored and a rerun starts over.
pub fn stopped_solve<T>(
    result: &Result<T, nimdb::driver::DriverError>,
    db: &std::path::Path,
    whole: bool,
) -> Option<std::process::ExitCode> {
    use nimdb::driver::DriverError;
    use nimdb::solve::SolveError;
    let Err(DriverError::Solve(SolveError::Interrupted { tiers, positions })) = result else {
        return None;
    };
    if whole {
        eprintln!(
            "nimdb: interrupted: a loopy game is solved whole, so nothing of this run is stored; the same command starts over"
        );
    } else {
        eprintln!(
            "nimdb: interrupted: the {tiers} tiers ({positions} positions) solved in this run are stored in {}; run the same command again to resume",
            db.display()
        );
    }
    Some(std::process::ExitCode::from(EXIT_INTERRUPTED))
}
