//! The `nimdb` command line: parses arguments and hands each subcommand to the library.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    cli::main()
}
