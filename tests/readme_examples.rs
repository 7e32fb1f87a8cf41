//! The README's examples that are marked `<!-- readme-test: SETUP -->` are re-run and must
//! print exactly what the README shows, so they cannot drift. SETUP is a `;`-separated list
//! of commands run first in a fresh directory (`nimdb` is the binary under test, the database
//! is `nimdb.sqlite` there). In the block that follows, each `$ COMMAND` line is run with
//! `sh -c` and its stdout and stderr must equal the lines up to the next `$ ` line.

use std::path::Path;
use std::process::Command;

fn sh(dir: &Path, command: &str) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_nimdb")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("NIMDB_DB")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn marked_readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let mut checked = 0;
    let mut i = 0;
    while i < lines.len() {
        let Some(setup) =
            lines[i].trim().strip_prefix("<!-- readme-test:").and_then(|s| s.strip_suffix("-->"))
        else {
            i += 1;
            continue;
        };
        assert!(
            lines[i + 1].starts_with("```"),
            "line {}: a marked example must be followed by a code block",
            i + 1
        );
        let dir = tempfile::tempdir().unwrap();
        for command in setup.split(';').map(str::trim).filter(|c| !c.is_empty()) {
            sh(dir.path(), &format!("{command} > /dev/null 2>&1"));
        }
        let mut j = i + 2;
        let mut current: Option<(usize, String, Vec<&str>)> = None;
        let mut run = |c: Option<(usize, String, Vec<&str>)>| {
            if let Some((line, command, expected)) = c {
                let got = sh(dir.path(), &command);
                let want: String = expected.iter().map(|l| format!("{l}\n")).collect();
                assert_eq!(got.trim_end(), want.trim_end(), "README line {}: $ {command}", line + 1);
                checked += 1;
            }
        };
        while !lines[j].starts_with("```") {
            if let Some(command) = lines[j].strip_prefix("$ ") {
                run(current.take());
                current = Some((j, command.to_string(), Vec::new()));
            } else if let Some((_, _, expected)) = current.as_mut() {
                expected.push(lines[j]);
            }
            j += 1;
        }
        run(current.take());
        i = j + 1;
    }
    assert!(checked >= 3, "only {checked} README examples are marked");
}
