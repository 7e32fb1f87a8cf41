//! The `nimdb` command line: parses arguments and hands each subcommand to the library.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    restore_sigpipe();
    cli::main()
}

/// Lets a closed pipe end the process the Unix way (`nimdb … | head -1` exits quietly, with
/// status 141 from the shell) instead of a panic on the next write. Rust ignores SIGPIPE by
/// default; every write nimdb makes to a database is a transaction, so being stopped
/// between writes loses nothing stored.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default at start-up, before any thread
    // exists, has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
