//! The README and the guide (every `.md` file under `docs/`, the transcripts included) are
//! run as tests, so they cannot drift from the binary, and their links are checked.
//!
//! **Command blocks.** Every fenced block with a line starting `$ ` is run and compared with
//! what it shows. The block runs in a fresh temporary directory (so the database is
//! `nimdb.sqlite` there), with the binary under test first on `PATH`, `NIMDB_DB` unset and
//! two threads (`RAYON_NUM_THREADS=2`, as `info` shows them).
//! Each `$ COMMAND` line is run with `sh -c`, stdout and stderr as one stream, and must print
//! the lines up to the next `$ ` line (trailing spaces and trailing blank lines aside). The
//! line right before the block may be:
//!
//! - `<!-- readme-test: SETUP -->`: SETUP is a `;`-separated list of commands run first in
//!   that directory (each must succeed; their output is not shown);
//! - `<!-- not run: REASON -->`: the block is not run (a long solve, a measurement, keys
//!   typed at a terminal); REASON says why and where it is tested instead.
//!
//! A block with neither is run with no setup. What varies from run to run is written as a
//! placeholder, which matches any text on its line:
//!
//! - `<time>` a duration or a clock time (`0.27 s`, `3.22s`, `2026-11-24 23:22:29`),
//! - `<rate>` a rate's figure (`0.79 M`, `21.5 k/s`),
//! - `<size>` a size in bytes or of memory (`213.5 KB`, `18 GB`, `7.8 MB`);
//!
//! where a command's shown output has a placeholder, runs of spaces match any run of spaces
//! (columns widen with the values). A line `...` stands for any number of lines. A last line
//! `(exit N)` says the command exits with status N (otherwise the status is not checked).
//! A block runs within [`PATIENCE_SECONDS`]; an example that would take longer is written
//! smaller, with the real cost in prose, or marked `not run`.
//!
//! **Links.** Every relative link of the README and the guide (`[text](path#anchor)`, images
//! too) names a file that exists and, for a Markdown file, a heading that it has (GitHub's
//! anchors: the heading in lower case, punctuation dropped, spaces as `-`).
//!
//! **Synopses, games, layout, schema, suggestions.** The command reference's synopses
//! (`docs/commands.md`) list exactly the flags of each command's `--help` (exemptions in
//! `EXEMPT`, each with why); the Games tables of the README and `docs/games.md` have a row for
//! every family `--game`'s help names; the layout (`docs/internals.md`) names every room of
//! `src/` and nothing that is not there; the schema table lists every table the migrations
//! create, and only their columns; and every `nimdb solve` command an error suggests is
//! accepted by `--dry-run` (exit 0, and its budget line says the solve fits).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const PLACEHOLDERS: [&str; 3] = ["<time>", "<rate>", "<size>"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The text of `file`, relative to the repository.
fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The guide: every `.md` file under `docs/`, relative to the repository, sorted.
fn guide() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(root()).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// The longest a command may run (`timeout` ends it and everything it started); a block
/// that takes longer is one to write smaller or mark `not run`.
const PATIENCE_SECONDS: &str = "60";

/// Runs `command` with `sh -c` in `dir`: (exit status, stdout and stderr as one stream).
/// Status 124 means it ran out of time.
fn sh(dir: &Path, command: &str) -> (Option<i32>, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_nimdb")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("timeout")
        .args(["-k", "5", PATIENCE_SECONDS, "sh", "-c"])
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("NIMDB_DB")
        .env("RAYON_NUM_THREADS", "2")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// How a block is marked.
#[derive(Debug)]
enum Mark {
    None,
    Setup(String),
    NotRun(String),
}

/// A fenced block of a markdown file.
struct Block {
    /// The file, relative to the repository.
    file: String,
    /// The 1-based line of the opening fence.
    line: usize,
    mark: Mark,
    lines: Vec<String>,
}

impl Block {
    fn has_commands(&self) -> bool {
        self.lines.iter().any(|l| l.starts_with("$ "))
    }
}

fn marker<'a>(line: &'a str, tag: &str) -> Option<&'a str> {
    line.trim().strip_prefix("<!--")?.trim_start().strip_prefix(tag)?.strip_suffix("-->").map(str::trim)
}

/// The fenced blocks of `file`; a marker that is not right before a block is an error.
fn blocks(file: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let is_marker = marker(lines[i], "readme-test:").is_some() || marker(lines[i], "not run:").is_some();
        assert!(
            !is_marker || lines.get(i + 1).is_some_and(|l| l.starts_with("```")),
            "{file}:{}: a test marker must be right before a code block",
            i + 1
        );
        if !lines[i].starts_with("```") {
            i += 1;
            continue;
        }
        let previous = if i > 0 { lines[i - 1] } else { "" };
        let mark = if let Some(setup) = marker(previous, "readme-test:") {
            Mark::Setup(setup.to_string())
        } else if let Some(reason) = marker(previous, "not run:") {
            Mark::NotRun(reason.to_string())
        } else {
            Mark::None
        };
        let start = i;
        i += 1;
        let mut body = Vec::new();
        while i < lines.len() && !lines[i].starts_with("```") {
            body.push(lines[i].to_string());
            i += 1;
        }
        out.push(Block { file: file.to_string(), line: start + 1, mark, lines: body });
        i += 1;
    }
    out
}

/// Whether `text` matches `pattern`, whose placeholders match any non-empty text.
fn glob(pattern: &str, text: &str) -> bool {
    match PLACEHOLDERS.iter().filter_map(|p| pattern.find(p).map(|at| (at, p.len()))).min() {
        None => pattern == text,
        Some((at, len)) => {
            let (head, rest) = (&pattern[..at], &pattern[at + len..]);
            let Some(tail) = text.strip_prefix(head) else { return false };
            tail.char_indices()
                .skip(1)
                .map(|(k, _)| k)
                .chain([tail.len()])
                .any(|k| k > 0 && glob(rest, &tail[k..]))
        }
    }
}

fn squeeze(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the output lines `got` match the shown lines `want` (see the module's conventions).
fn lines_match(want: &[String], got: &[String], loose: bool) -> bool {
    let Some((first, rest)) = want.split_first() else { return got.is_empty() };
    if first.trim() == "..." {
        return (0..=got.len()).any(|k| lines_match(rest, &got[k..], loose));
    }
    let Some((line, got_rest)) = got.split_first() else { return false };
    let ok = if loose { glob(&squeeze(first), &squeeze(line)) } else { glob(first, line) };
    ok && lines_match(rest, got_rest, loose)
}

fn trimmed_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Runs one command block; the mismatches, in words.
fn run_block(block: &Block, setup: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for command in setup.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let (status, out) = sh(dir.path(), command);
        if status != Some(0) {
            failures.push(format!("{}:{}: setup `{command}` failed:\n{out}", block.file, block.line));
            return failures;
        }
    }
    let mut commands: Vec<(usize, &str, Vec<String>)> = Vec::new();
    for (k, line) in block.lines.iter().enumerate() {
        if let Some(command) = line.strip_prefix("$ ") {
            commands.push((block.line + 1 + k, command, Vec::new()));
        } else if let Some((_, _, shown)) = commands.last_mut() {
            shown.push(line.clone());
        }
    }
    for (line, command, shown) in commands {
        let mut want = trimmed_lines(&shown.join("\n"));
        let status = want.last().and_then(|l| l.strip_prefix("(exit ")).and_then(|l| l.strip_suffix(')'));
        let status: Option<i32> = status.map(|s| s.parse().expect("(exit N) with a number"));
        if status.is_some() {
            want.pop();
        }
        let (code, out) = sh(dir.path(), command);
        let got = trimmed_lines(&out);
        let loose = want.iter().any(|l| PLACEHOLDERS.iter().any(|p| l.contains(p)));
        if !lines_match(&want, &got, loose) {
            let late = if code == Some(124) { " (timed out)" } else { "" };
            failures.push(format!(
                "{}:{line}: $ {command}{late}\n--- shown\n{}\n--- printed\n{}",
                block.file,
                want.join("\n"),
                got.join("\n")
            ));
        } else if let Some(status) = status
            && code != Some(status)
        {
            failures
                .push(format!("{}:{line}: $ {command}: exit status {code:?}, shown {status}", block.file));
        }
    }
    failures
}

/// Runs every command block of `files`: (blocks run, blocks marked not run).
fn run_documents(files: &[String]) -> (usize, usize) {
    let (mut run, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for file in files {
        for block in blocks(file) {
            match (&block.mark, block.has_commands()) {
                (Mark::None, false) => {}
                (_, false) => failures.push(format!(
                    "{}:{}: a test marker on a block with no `$ ` command",
                    block.file, block.line
                )),
                (Mark::NotRun(reason), true) => {
                    assert!(
                        !reason.is_empty(),
                        "{}:{}: say why the block is not run",
                        block.file,
                        block.line
                    );
                    skipped += 1;
                }
                (Mark::Setup(setup), true) => {
                    failures.extend(run_block(&block, setup));
                    run += 1;
                }
                (Mark::None, true) => {
                    failures.extend(run_block(&block, ""));
                    run += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} block(s) drifted:\n\n{}", failures.len(), failures.join("\n\n"));
    (run, skipped)
}

#[test]
fn the_readmes_command_blocks_print_what_they_show() {
    let (run, skipped) = run_documents(&["README.md".to_string()]);
    assert!(run >= 10, "only {run} README blocks ran ({skipped} not run)");
}

#[test]
fn the_guides_command_blocks_print_what_they_show() {
    let files = guide();
    assert!(files.iter().any(|f| f == "docs/README.md"), "the guide has no contents page: {files:?}");
    let (run, skipped) = run_documents(&files);
    assert!(run >= 25, "only {run} blocks of the guide ran ({skipped} not run)");
}

#[test]
fn the_placeholder_conventions_match_as_documented() {
    assert!(glob("in <time> — <rate> positions/s", "in 0.27 s — 0.79 M positions/s"));
    assert!(!glob("in <time> s", "in  s"));
    assert!(!glob("stored: <size> of tier payload", "stored: 2 KB of tier payload, status complete"));
    let s = |v: &[&str]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&s(&["a", "...", "d"]), &s(&["a", "b", "c", "d"]), false));
    assert!(lines_match(&s(&["a", "..."]), &s(&["a"]), false));
    assert!(!lines_match(&s(&["a", "...", "d"]), &s(&["a", "b"]), false));
    assert!(lines_match(&s(&["x  <time>  y"]), &s(&["x 1.0s      y"]), true));
}

// ---------------------------------------------------------------------------------------
// Links.

/// GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `-` and
/// `_` kept), spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a Markdown file outside its fenced blocks, each with its 1-based number.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            if l.starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .map(|(k, l)| (k + 1, l))
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated one gets `-1`, `-2`, … as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, line) in prose(text) {
        let Some(heading) = line.strip_prefix('#').map(|h| h.trim_start_matches('#')) else { continue };
        let Some(heading) = heading.strip_prefix(' ') else { continue };
        let base = anchor(heading);
        let mut name = base.clone();
        let mut k = 0;
        while out.contains(&name) {
            k += 1;
            name = format!("{base}-{k}");
        }
        out.insert(name);
    }
    out
}

/// The link targets of a Markdown line, `[text](target)` (images too), outside code spans.
fn link_targets(line: &str) -> Vec<String> {
    let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    plain
        .match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &plain[at + 2..];
            let end = rest.find(')')?;
            Some(rest[..end].split_whitespace().next().unwrap_or("").to_string())
        })
        .collect()
}

#[test]
fn every_relative_link_points_at_a_file_and_heading_that_exist() {
    let mut files = vec!["README.md".to_string()];
    files.extend(guide());
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = read(file);
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for (number, line) in prose(&text) {
            for target in link_targets(line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
                let linked = if path.is_empty() { PathBuf::from(file) } else { dir.join(path) };
                let full = root().join(&linked);
                if !full.exists() {
                    problems.push(format!("{file}:{number}: {target}: no such file"));
                    continue;
                }
                if fragment.is_empty() || full.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let text = std::fs::read_to_string(&full).unwrap();
                if !anchors(&text).contains(fragment) {
                    problems.push(format!(
                        "{file}:{number}: {target}: {} has no heading #{fragment}",
                        linked.display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} broken link(s):\n{}", problems.len(), problems.join("\n"));
    assert!(checked >= 40, "only {checked} relative links found");
}

#[test]
fn the_link_checker_knows_githubs_anchors() {
    assert_eq!(anchor("`nimdb serve`"), "nimdb-serve");
    assert_eq!(anchor("Games (`--game`)"), "games---game");
    assert_eq!(
        anchor("Reliability: what is guaranteed, and how it is tested"),
        "reliability-what-is-guaranteed-and-how-it-is-tested"
    );
    assert_eq!(anchor("Misère quotients"), "misère-quotients");
    let text = "# A\n```\n# not a heading\n```\n## A\n";
    assert_eq!(anchors(text), ["a", "a-1"].into_iter().map(String::from).collect());
    assert_eq!(link_targets("see [x](a.md#b) and `[y](c)` and ![p](d.png)"), ["a.md#b", "d.png"]);
}

#[test]
fn the_openapi_description_has_exactly_the_servers_routes() {
    let server = read("src/server/mod.rs");
    let routes: BTreeSet<String> =
        server.split(".route(\"").skip(1).map(|r| r[..r.find('"').unwrap()].to_string()).collect();
    let openapi = read("docs/openapi.yaml");
    let paths = openapi
        .split("\npaths:\n")
        .nth(1)
        .expect("openapi.yaml has paths")
        .split("\ncomponents:")
        .next()
        .unwrap();
    // The paths are the keys indented by two spaces.
    let described: BTreeSet<String> = paths
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(':'))
        .filter(|p| p.starts_with('/'))
        .map(str::to_string)
        .collect();
    assert!(routes.len() >= 7, "{routes:?}");
    assert_eq!(described, routes, "docs/openapi.yaml's paths against the routes of src/server/mod.rs");
}

// ---------------------------------------------------------------------------------------
// Synopses against `--help`.

/// The long flags in `text`.
fn long_flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices("--") {
        let name: String =
            text[at + 2..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        if name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            out.insert(format!("--{name}"));
        }
    }
    out
}

/// Flags a command's `--help` shows that its synopsis leaves out, and why.
const EXEMPT: &[(&str, &str, &str)] = &[
    ("*", "--help", "every command has it"),
    ("*", "--read-only", "global: accepted by every command (README, \"The database file\")"),
    (
        "heaps",
        "--misere",
        "shared with the other game flags, and refused by heaps (single-heap values have no convention)",
    ),
];

#[test]
fn every_synopsis_lists_exactly_the_flags_of_help() {
    let commands = read("docs/commands.md");
    // Synopses: the lines of blocks that start with `nimdb ` and have no `$ ` line.
    let mut synopses: Vec<(String, BTreeSet<String>)> = Vec::new();
    let fenced = commands.split("```").skip(1).step_by(2);
    for line in fenced.filter(|b| !b.lines().any(|l| l.starts_with("$ "))).flat_map(str::lines) {
        if let Some(rest) = line.strip_prefix("nimdb ") {
            let command = rest.split_whitespace().next().unwrap().to_string();
            match synopses.iter_mut().find(|(c, _)| *c == command) {
                Some((_, flags)) => flags.extend(long_flags(rest)),
                None => synopses.push((command, long_flags(rest))),
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, top) = sh(dir.path(), "nimdb --help");
    let listed: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    let mut problems = Vec::new();
    for command in &listed {
        if !synopses.iter().any(|(c, _)| c == command) {
            problems.push(format!("nimdb {command} has no synopsis in docs/commands.md"));
        }
    }
    for (command, flags) in &synopses {
        if !listed.contains(command) {
            problems.push(format!(
                "docs/commands.md has a synopsis of nimdb {command}, which `nimdb --help` does not list"
            ));
            continue;
        }
        let (_, help) = sh(dir.path(), &format!("nimdb {command} --help"));
        let helped: BTreeSet<String> = help
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-'))
            .flat_map(|l| long_flags(l.split("  ").next().unwrap()))
            .collect();
        for flag in flags.difference(&helped) {
            problems.push(format!("the synopsis of nimdb {command} lists {flag}, which its --help does not"));
        }
        for flag in helped.difference(flags) {
            if !EXEMPT.iter().any(|(c, f, _)| (*c == "*" || c == command) && f == flag) {
                problems.push(format!("nimdb {command} --help has {flag}, which its synopsis leaves out"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(synopses.len() >= 10, "only {} synopses found", synopses.len());
}

#[test]
fn every_game_family_of_help_is_in_the_games_table() {
    let dir = tempfile::tempdir().unwrap();
    let (_, help) = sh(dir.path(), "nimdb solve --help");
    let game = help.lines().find(|l| l.trim_start().starts_with("-g, --game")).unwrap();
    let list = game.split("The game:").nth(1).unwrap();
    let families: BTreeSet<String> = list
        .split([',', ';', ' '])
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .map(|w| w.split(':').next().unwrap().to_string())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        .filter(|w| !["or", "a", "family", "with", "its", "own", "position", "space"].contains(&w.as_str()))
        .collect();
    assert!(families.len() >= 10, "{families:?}");
    for file in ["README.md", "docs/games.md"] {
        let games = section(&read(file), "## Games (`--game`)");
        // The first cells of the table's rows (`kayles`, `dawson`, `lines` share one).
        let specs: Vec<&str> =
            games.lines().filter_map(|l| l.strip_prefix("| ")?.split(" | ").next()).collect();
        let missing: Vec<_> =
            families.iter().filter(|f| !specs.iter().any(|c| c.contains(&format!("`{f}")))).collect();
        assert!(missing.is_empty(), "the Games table of {file} has no row for {missing:?}");
    }
}

// ---------------------------------------------------------------------------------------
// The layout against `src/`, the schema against the migrations.

/// The section of a Markdown `text` after `heading`, up to the next `## `.
fn section(text: &str, heading: &str) -> String {
    let start = text.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("no {heading}"));
    let rest = &text[start + heading.len() + 2..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}

fn first_block(text: &str) -> Vec<String> {
    text.split("```").nth(1).unwrap().lines().skip(1).map(str::to_string).collect()
}

fn is_room(token: &str) -> bool {
    token.len() > 1
        && (token.ends_with('/') || token.ends_with(".rs"))
        && token.chars().all(|c| c.is_ascii_alphanumeric() || "_/.".contains(c))
}

#[test]
fn the_layout_names_every_room_of_src_and_only_those() {
    let layout = first_block(&section(&read("docs/internals.md"), "## Layout"));
    let mut problems = Vec::new();
    let mut listed = BTreeSet::new();
    let mut room = PathBuf::new();
    for line in &layout {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let mut words = tokens.iter().peekable();
        if !line.starts_with(' ') {
            // The rooms the line is about, then what it says of them.
            let mut first = true;
            let path_line = line.starts_with("src/") || line.starts_with("crates/");
            while let Some(t) = words.next_if(|t| is_room(t) && (first || !path_line)) {
                first = false;
                room = PathBuf::from(t);
                listed.insert(t.trim_end_matches('/').to_string());
                if !root().join(t).exists() {
                    problems.push(format!("the layout lists {t}, which does not exist"));
                }
            }
        }
        // Rooms named inside a description (`words.rs`, `quotient/`) are in the line's room.
        for t in words.map(|t| t.trim_end_matches([',', ';', ':'])).filter(|t| is_room(t)) {
            if !root().join(&room).join(t).exists() {
                problems.push(format!("the layout names {t} in {}, which does not exist", room.display()));
            }
        }
    }
    // Every room of the root crate and every crate of the workspace.
    for dir in ["src", "crates"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if !listed.contains(&format!("{dir}/{name}")) {
                problems.push(format!("{dir}/{name} is not in the layout of docs/internals.md"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_schema_table_lists_every_table_of_the_migrations() {
    let dir = tempfile::tempdir().unwrap();
    let (status, out) = sh(dir.path(), "nimdb solve --game nim --max-total 2 --quiet");
    assert_eq!(status, Some(0), "{out}");
    let conn = rusqlite::Connection::open(dir.path().join("nimdb.sqlite")).unwrap();
    let names = |kind: &str| -> BTreeSet<String> {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = ?1 AND name NOT LIKE 'sqlite_%'")
            .unwrap();
        stmt.query_map([kind], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let tables = names("table");
    // Every table a migration creates is in the database (none dropped on the way).
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(root().join("migrations")).unwrap() {
        let sql = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for piece in sql.split("CREATE TABLE ").skip(1) {
            let name = piece.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next().unwrap();
            if !tables.contains(name) {
                problems.push(format!("a migration creates {name}, which a new database does not have"));
            }
        }
    }
    let schema = section(&read("docs/internals.md"), "## Database schema");
    let mut rows = BTreeSet::new();
    for line in schema.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let table = cells[0].trim_start_matches("| ").trim_matches('`').to_string();
        if !tables.contains(&table) {
            problems.push(format!("the schema table lists {table}, which the migrations do not create"));
            continue;
        }
        let columns: BTreeSet<String> = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let cell = cells.get(2).copied().unwrap_or("");
        // Backquoted names in the columns cell are its columns (or the values of one).
        const VALUES: [&str; 7] =
            ["partial", "complete", "running", "interrupted", "failed", "solved", "open"];
        for named in cell.split('`').skip(1).step_by(2) {
            let plain = named.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            if plain && !columns.contains(named) && !VALUES.contains(&named) && !tables.contains(named) {
                problems
                    .push(format!("the schema table gives {table} a column {named}, which it does not have"));
            }
        }
        rows.insert(table);
    }
    for table in &tables {
        if !rows.contains(table) {
            problems.push(format!("the table {table} is not in the schema table of docs/internals.md"));
        }
    }
    for view in names("view") {
        if !schema.contains(&format!("`{view}`")) {
            problems.push(format!("the view {view} is not named in the schema section of docs/internals.md"));
        }
    }
    // The range of migrations it names.
    let mut files: Vec<String> = std::fs::read_dir(root().join("migrations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let range = format!("`{}` to `{}`", files[0], files[files.len() - 1]);
    if !schema.contains(&range) {
        problems.push(format!("the schema section should name the migrations as {range}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Suggested commands.

/// Every `nimdb solve …` command in `text`, up to the punctuation that ends it.
fn suggested_solves(text: &str) -> Vec<String> {
    text.match_indices("nimdb solve ")
        .map(|(at, _)| {
            let rest = &text[at..];
            let end = rest.find([',', ';', ')', '"', '\n', '`']).unwrap_or(rest.len());
            rest[..end].trim_end_matches('.').trim().to_string()
        })
        .collect()
}

#[test]
fn every_suggested_solve_is_accepted_by_dry_run() {
    // Positions too large to solve on the spot, with no theorem: each error names a solve.
    let triggers = [
        "nimdb query --game grundy --misere 20 20 20",
        "nimdb query --game hex:0.F --misere --json 30 30",
        "nimdb query --game wythoff --misere 400 400 400",
        "nimdb query --game staircase --misere 50 40 30 20",
        "nimdb query --game welter --misere 90 80 70 60 50",
        "nimdb play --game grundy --misere 20 20 20",
    ];
    // A batch line is read by programs: it says in words which solve would hold the
    // position, and names no command.
    let batches = [
        "printf '20 20 20\\n30 30\\n' | nimdb query --game grundy --misere --batch",
        "printf '30 30\\n' | nimdb query --game dawson --misere --batch",
        "printf '400 400 400\\n' | nimdb query --game wythoff --misere --batch",
    ];
    let dir = tempfile::tempdir().unwrap();
    // Batch lines need a database; a small solve of another game makes one.
    let (status, out) = sh(dir.path(), "nimdb solve --game nim --max-total 2 --quiet");
    assert_eq!(status, Some(0), "{out}");
    let mut problems = Vec::new();
    let mut tried = BTreeSet::new();
    for trigger in triggers {
        let (status, out) = sh(dir.path(), trigger);
        let suggested = suggested_solves(&out);
        if status == Some(0) || suggested.is_empty() {
            problems.push(format!("`{trigger}` no longer suggests a solve (status {status:?}):\n{out}"));
        }
        for command in suggested {
            if !tried.insert(command.clone()) {
                continue;
            }
            let (status, out) = sh(dir.path(), &format!("{command} --dry-run"));
            // Accepted: exit 0, and the plan fits the budget (a dry run that does not fit
            // says why on its budget line, and exits 0 too).
            let fits = out.lines().any(|l| l.starts_with("budget:") && l.ends_with(": fits"));
            if status != Some(0) || !fits {
                problems.push(format!("`{trigger}` suggests `{command}`, which --dry-run refuses:\n{out}"));
            }
        }
    }
    for trigger in batches {
        let (status, out) = sh(dir.path(), trigger);
        if status == Some(0) || out.contains("nimdb ") || !out.contains("would hold it") {
            problems.push(format!("`{trigger}` should say which solve holds it, naming no command:\n{out}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(tried.len() >= 4, "only {} distinct suggestions: {tried:?}", tried.len());
}
