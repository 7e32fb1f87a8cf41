//! The `nimdb` command line: parses arguments and hands each subcommand to the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    nimdb::cli::main()
}
