//! The families that own their position space (staircase, welter, raise:C): the solver
//! against an independent forward search under both conventions, the moves against rules
//! written again here, the theorems against the search, and the command line end to end.

mod common;

mod serve_common;

use std::collections::{BTreeMap, BTreeSet};

use nimdb::game::Outcome;
use nimdb::game::{Convention, DRAW, Game};
use nimdb::index::{PositionSpace, SpaceBounds, space_for};
use nimdb::solve::family::solve_family;
use nimdb::solve::{MemoryStore, Silent};
use nimdb::theory::families::{decide, welter};

/// Every position of the space, by unranking.
fn positions(space: &dyn PositionSpace) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut p = Vec::new();
    for tier in space.tiers() {
        for rank in 0..space.size(tier) {
            space.unrank(tier, rank, &mut p);
            out.push(p.clone());
        }
    }
    out
}

/// The rules written again, plainly: the positions one move leads to.
fn children(game: &str, p: &[u32]) -> BTreeSet<Vec<u32>> {
    let mut out = BTreeSet::new();
    match game {
        "staircase" => {
            for i in 0..p.len() {
                for k in 1..=p[i] {
                    let mut q = p.to_vec();
                    q[i] -= k;
                    if i > 0 {
                        q[i - 1] += k;
                    }
                    while q.last() == Some(&0) {
                        q.pop();
                    }
                    out.insert(q);
                }
            }
        }
        "welter" => {
            for i in 0..p.len() {
                for v in 0..p[i] {
                    if !p.contains(&v) {
                        let mut q = p.to_vec();
                        q[i] = v;
                        q.sort_by(|a, b| b.cmp(a));
                        out.insert(q);
                    }
                }
            }
        }
        raise => {
            let cap: u32 = raise.strip_prefix("raise:").unwrap().parse().unwrap();
            for i in 0..p.len() {
                let sizes = (0..p[i]).chain((p[i] < cap).then_some(p[i] + 1));
                for v in sizes {
                    let mut q = p.to_vec();
                    q[i] = v;
                    q.retain(|&x| x > 0);
                    q.sort_by(|a, b| b.cmp(a));
                    out.insert(q);
                }
            }
        }
    }
    out
}

/// The forward search: remoteness decided round by round (a win at k needs a losing child
/// at k − 1; a loss at k needs every child a win, the longest at k − 1), terminal positions
/// at round 0; what no round decides is a draw. No tiers, no ranks, no queue.
fn forward(game: &str, all: &[Vec<u32>], convention: Convention) -> BTreeMap<Vec<u32>, (Outcome, u32)> {
    let kids: BTreeMap<Vec<u32>, BTreeSet<Vec<u32>>> =
        all.iter().map(|p| (p.clone(), children(game, p))).collect();
    let mut known: BTreeMap<Vec<u32>, (Outcome, u32)> = BTreeMap::new();
    let terminal = if convention == Convention::Normal { Outcome::Loss } else { Outcome::Win };
    for (p, k) in &kids {
        if k.is_empty() {
            known.insert(p.clone(), (terminal, 0));
        }
    }
    let mut round = 1;
    loop {
        let mut new = Vec::new();
        for (p, k) in &kids {
            if known.contains_key(p) || k.is_empty() {
                continue;
            }
            let vals: Vec<Option<&(Outcome, u32)>> = k.iter().map(|c| known.get(c)).collect();
            if vals.iter().any(|v| matches!(v, Some((Outcome::Loss, r)) if *r == round - 1)) {
                new.push((p.clone(), (Outcome::Win, round)));
            } else if vals.iter().all(|v| matches!(v, Some((Outcome::Win, _))))
                && vals.iter().map(|v| v.unwrap().1).max() == Some(round - 1)
            {
                new.push((p.clone(), (Outcome::Loss, round)));
            }
        }
        if new.is_empty() {
            break;
        }
        known.extend(new);
        round += 1;
    }
    for p in all {
        known.entry(p.clone()).or_insert((Outcome::Draw, 0));
    }
    known
}

fn verdict(convention: Convention, r: u16) -> Outcome {
    if r == DRAW {
        Outcome::Draw
    } else if convention.is_win(r as u32) {
        Outcome::Win
    } else {
        Outcome::Loss
    }
}

/// Solves `game` over `bounds` with the library's solver and compares every position with
/// the forward search; the moves with the rules written here; and the theorem, where the
/// family has one, with the search. Returns the number of draws.
fn check(game: &str, bounds: SpaceBounds, convention: Convention) -> u64 {
    let spaced: Game = game.parse().unwrap();
    let family = spaced.family();
    let space = space_for(family.layout(), bounds).unwrap();
    let all = positions(space.as_ref());
    let mut store = MemoryStore::default();
    solve_family(family, space.as_ref(), convention, &mut store, &Silent).unwrap();
    let want = forward(game, &all, convention);
    let mut draws = 0;
    for p in &all {
        let moved: BTreeSet<Vec<u32>> = family.moves(p).into_iter().map(|m| m.to).collect();
        assert_eq!(moved, children(game, p), "{game}: moves of {p:?}");
        assert_eq!(moved.len(), family.moves(p).len(), "{game}: a child twice from {p:?}");
        let mut walked = Vec::new();
        family.for_each_child(p, &mut Vec::new(), &mut |c| walked.push(c.to_vec()));
        let listed: Vec<Vec<u32>> = family.moves(p).into_iter().map(|m| m.to).collect();
        assert_eq!(walked, listed, "{game}: the children walked are the moves' results, in order");
        let (tier, rank) = space.locate(p).unwrap();
        let r = store.tiers[&tier].remoteness[rank as usize];
        let (v, wr) = want[p];
        assert_eq!(verdict(convention, r), v, "{game} {convention}: outcome of {p:?}");
        if v == Outcome::Draw {
            draws += 1;
        } else {
            assert_eq!(r as u32, wr, "{game} {convention}: remoteness of {p:?}");
        }
        if let Some(d) = decide(spaced.family(), p, convention) {
            assert_eq!(d.outcome, v, "{game} {convention}: the theorem on {p:?}");
            if let Some(to) = &d.best {
                let target = want[to].0;
                let expect = if v == Outcome::Win { Outcome::Loss } else { Outcome::Draw };
                assert_eq!(target, expect, "{game}: the theorem's move from {p:?} to {to:?}");
            }
        }
    }
    draws
}

#[test]
fn staircase_agrees_with_the_forward_search_and_the_odd_steps() {
    for convention in [Convention::Normal, Convention::Misere] {
        assert_eq!(
            check("staircase", SpaceBounds { max_total: 16, max_heaps: 5, max_heap: None }, convention),
            0
        );
    }
}

#[test]
fn welter_agrees_with_the_forward_search_and_welter_s_function() {
    for convention in [Convention::Normal, Convention::Misere] {
        assert_eq!(
            check("welter", SpaceBounds { max_total: 18, max_heaps: 4, max_heap: None }, convention),
            0
        );
    }
}

#[test]
fn raise_agrees_with_the_forward_search_draws_included_and_smith_s_theory() {
    for cap in [1, 2, 3, 4] {
        for convention in [Convention::Normal, Convention::Misere] {
            let draws = check(
                &format!("raise:{cap}"),
                SpaceBounds { max_total: 4 * cap, max_heaps: 4, max_heap: Some(cap) },
                convention,
            );
            // Two heaps of 1 under raise:2 and up go on for ever: the game has real draws.
            if cap >= 2 {
                assert!(draws > 0, "raise:{cap} {convention}: no draws");
            }
        }
    }
}

#[test]
fn welter_s_function_is_the_nim_value() {
    // The Sprague–Grundy value by mex over the rules written here, for every set of at most
    // 4 distinct heaps below 12.
    let mut g: BTreeMap<Vec<u32>, u64> = BTreeMap::new();
    let mut sets: Vec<Vec<u32>> = (0u32..1 << 12)
        .filter(|m| m.count_ones() <= 4)
        .map(|m| (0..12).rev().filter(|b| m >> b & 1 == 1).collect())
        .collect();
    sets.sort_by_key(|s: &Vec<u32>| s.iter().sum::<u32>());
    for s in sets {
        let opts: BTreeSet<u64> = children("welter", &s).iter().map(|c| g[c]).collect();
        let mex = (0..).find(|x| !opts.contains(x)).unwrap();
        assert_eq!(welter(&s), mex, "Welter's function of {s:?}");
        g.insert(s, mex);
    }
}

#[test]
fn query_solve_and_verify_take_each_family() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = common::nimdb().args(args).args(["--db", db]).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let json = |args: &[&str]| -> serde_json::Value { serde_json::from_str(&run(args)).unwrap() };
    // Stored solves answer from the database; verify checks them against the theorem.
    run(&["solve", "--game", "staircase", "--max-total", "30", "--max-heaps", "4", "-q"]);
    let a = json(&["query", "--game", "staircase", "--json", "3", "0", "2", "5"]);
    assert_eq!((a["source"].as_str(), a["outcome"].as_str()), (Some("database"), Some("win")));
    assert_eq!(a["remoteness"], 29);
    let v = run(&["verify", "--game", "staircase"]);
    assert!(v.contains(": consistent") && v.contains("2724 agree (100.00%), 0 disagree"), "{v}");
    run(&["solve", "--game", "welter", "--max-total", "12", "-q"]);
    let a = json(&["query", "--game", "welter", "--json", "7", "4", "1", "0"]);
    assert_eq!((a["source"].as_str(), a["outcome"].as_str()), (Some("database"), Some("win")));
    assert!(run(&["verify", "--game", "welter"]).contains(": consistent"));
    run(&["solve", "--game", "raise:3", "--max-heaps", "3", "--misere", "-q"]);
    let a = json(&["query", "--game", "raise:3", "--misere", "--json", "1", "1"]);
    assert_eq!((a["source"].as_str(), a["outcome"].as_str()), (Some("database"), Some("draw")));
    assert_eq!(a["remoteness"], serde_json::Value::Null);
    let v = run(&["verify", "--game", "raise:3", "--misere"]);
    assert!(v.contains(": consistent") && v.contains("draws: "), "{v}");
    // Beyond the stored space, the theorem answers, without remoteness.
    let a = json(&["query", "--game", "staircase", "--json", "300", "0", "200", "5"]);
    assert_eq!((a["source"].as_str(), a["theorem"]["rule"].as_str()), (Some("theory"), Some("oddsteps")));
    assert_eq!(a["outcome"], "win");
}

#[test]
fn a_tampered_record_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    common::nimdb()
        .args(["solve", "--game", "welter", "--max-total", "10", "-q", "--db"])
        .arg(&db)
        .assert()
        .success();
    // Flip one byte of a payload: the checksums refuse it, and verify fails in one line.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE tiers SET payload = zeroblob(length(payload)) WHERE total = 9 AND heaps = 2", [])
        .unwrap();
    drop(conn);
    let out = common::nimdb().args(["verify", "--game", "welter", "--db"]).arg(&db).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("corrupt") && err.lines().count() == 1, "{err}");
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (vec!["query", "--game", "welter", "3", "3"], "distinct"),
        (vec!["query", "--game", "raise:3", "4"], "caps heaps at 3"),
        (vec!["query", "--game", "raise:0", "1"], "raise:C takes a cap"),
        (vec!["query", "--game", "staircase", "1,,2"], "comma"),
        (vec!["solve", "--game", "staircase", "--max-heaps", "3"], "(--max-total N)"),
        (vec!["solve", "--game", "raise:3", "--max-total", "9"], "(--max-heaps K)"),
        (vec!["solve", "--game", "welter", "--max-total", "9", "--nim-values"], "--nim-values"),
        (vec!["heaps", "--game", "staircase", "--up-to", "5"], "staircase is not a sum of heaps"),
    ] {
        let out = common::nimdb()
            .args(&args)
            .arg("--db")
            .arg(dir.path().join("x.sqlite"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.path().join("x.sqlite").exists(), "{args:?} wrote a database");
    }
}

#[test]
fn the_generic_solver_equals_the_heap_solvers_on_heap_games() {
    use nimdb::game::{Family, GameSpec};
    use nimdb::index::Universe;
    use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};
    for game in ["nim", "kayles", "dawson", "grundy", "hex:0.8F", "subtraction:1,2,3", "moore:2", "wythoff"] {
        let spec: GameSpec = game.parse().unwrap();
        for convention in [Convention::Normal, Convention::Misere] {
            let universe = Universe::new(spec.rules(), game, Some(13), None, None).unwrap();
            let options =
                SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
            let fast = solve_in_memory(&spec, &options).unwrap();
            let bounds = SpaceBounds { max_total: 13, max_heaps: 13, max_heap: None };
            let space = space_for(spec.layout(), bounds).unwrap();
            let mut generic = MemoryStore::default();
            solve_family(&spec, space.as_ref(), convention, &mut generic, &Silent).unwrap();
            assert_eq!(space.tiers(), universe.tiers(), "{game}: the same tiers");
            for tier in universe.tiers() {
                assert_eq!(
                    generic.tiers[&tier].remoteness, fast.tiers[&tier].remoteness,
                    "{game} {convention}: tier {tier}"
                );
            }
        }
    }
}

#[test]
fn batch_and_serve_answer_spaced_games_as_query_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    common::nimdb()
        .args(["solve", "--game", "staircase", "--max-total", "20", "-q", "--db"])
        .arg(&db)
        .assert()
        .success();
    common::nimdb()
        .args(["solve", "--game", "raise:2", "--max-heaps", "3", "-q", "--db"])
        .arg(&db)
        .assert()
        .success();
    let query = |game: &str, words: &[&str]| -> serde_json::Value {
        let out = common::nimdb()
            .args(["query", "--json", "--game", game, "--db"])
            .arg(&db)
            .args(words)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Batch: one object a line, equal to query --json, bad lines answered in place.
    let out = common::nimdb()
        .args(["query", "--batch", "--moves", "--game", "staircase", "--db"])
        .arg(&db)
        .write_stdin("3 0 2 1\n1,,2\n0 4\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut first = lines[0].clone();
    first.as_object_mut().unwrap().remove("line");
    assert_eq!(first, query("staircase", &["3", "0", "2", "1"]));
    assert!(lines[1]["error"].as_str().unwrap().contains("comma"));
    assert_eq!(lines[2]["line"], 3);
    // Serve: the same answers over HTTP; a draw of the loopy game; errors with their status.
    let server = serve_common::Server::start(&db, &[]);
    let got = server.get_json("/api/v1/query?game=staircase&position=3,0,2,1");
    assert_eq!(got, query("staircase", &["3", "0", "2", "1"]));
    let brief = server.get_json("/api/v1/query?game=raise:2&position=1,1&moves=false");
    assert_eq!((brief["outcome"].as_str(), brief["source"].as_str()), (Some("draw"), Some("database")));
    assert!(brief.get("moves").is_none());
    assert_eq!(server.get("/api/v1/query?game=welter&position=3,3").0, 400);
    assert_eq!(server.get("/api/v1/query?game=welter&convention=misere&position=9,8,7,6,5,4,3").0, 404);
    let (status, body) = server.get("/api/v1/query?game=staircase&position=1&convention=misere");
    assert_eq!(status, 404, "{body}");
    assert!(!body.contains("nimdb "), "an HTTP error names no command: {body}");
    server.stop();
}

#[test]
fn the_theorems_nim_values_are_the_sprague_grundy_values() {
    // Sprague–Grundy values by mex over the rules written here, against the nim-value each
    // theorem states (Staircase Nim: the nim-sum of the odd steps; Welter: Welter's function).
    for (game, bounds) in [
        ("staircase", SpaceBounds { max_total: 18, max_heaps: 5, max_heap: None }),
        ("welter", SpaceBounds { max_total: 20, max_heaps: 4, max_heap: None }),
    ] {
        let spaced: Game = game.parse().unwrap();
        let space = space_for(spaced.family().layout(), bounds).unwrap();
        let mut g: BTreeMap<Vec<u32>, u64> = BTreeMap::new();
        // Unranked total ascending: every child comes first.
        for p in positions(space.as_ref()) {
            let opts: BTreeSet<u64> = children(game, &p).iter().map(|c| g[c]).collect();
            let mex = (0..).find(|x| !opts.contains(x)).unwrap();
            let d = decide(spaced.family(), &p, Convention::Normal).unwrap();
            assert_eq!(d.nim_value, Some(mex), "{game}: nim-value of {p:?}");
            g.insert(p, mex);
        }
    }
}

#[test]
fn a_partial_solve_answers_what_it_holds_and_a_complete_one_that_lost_a_tier_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let nimdb = |args: &[&str], stdin: &str| {
        let out = common::nimdb().args(args).arg("--db").arg(&db).write_stdin(stdin).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    assert_eq!(nimdb(&["solve", "--game", "staircase", "--max-total", "12", "-q"], "").0, Some(0));
    // What an interrupted solve leaves: the tiers of total 12 not written yet, the solve partial.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM tiers WHERE total = 12", []).unwrap();
    conn.execute("UPDATE solves SET status = 'partial', solved_total = 11", []).unwrap();
    // Its counts are those of the tiers committed (each tier's commit adds its own).
    conn.execute(
        "UPDATE solves SET positions = (SELECT SUM(positions) FROM tiers WHERE solve_id = solves.id), \
         losses = (SELECT SUM(losses) FROM tiers WHERE solve_id = solves.id)",
        [],
    )
    .unwrap();
    let batch = |stdin: &str| -> (Option<i32>, Vec<serde_json::Value>) {
        let (code, out, _) = nimdb(&["query", "--batch", "--game", "staircase"], stdin);
        (code, out.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
    };
    // [0,0,4] lies in a tier of total 12, past the solved total: the theorem answers it;
    // [1,1] is stored.
    let (code, lines) = batch("0 0 4\n1 1\n");
    assert_eq!(code, Some(0), "{lines:?}");
    assert_eq!((lines[0]["source"].as_str(), lines[0]["outcome"].as_str()), (Some("theory"), Some("win")));
    assert_eq!((lines[1]["source"].as_str(), lines[1]["remoteness"].as_u64()), (Some("database"), Some(3)));
    let (code, out, err) = nimdb(&["query", "--game", "staircase", "--json", "0", "0", "4"], "");
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"source\": \"theory\""), "{out}");
    let (code, out, err) = nimdb(&["verify", "--game", "staircase"], "");
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains(": consistent"), "{out}");
    // The same rows missing from a solve that says it is complete: a lost row, refused.
    conn.execute("UPDATE solves SET status = 'complete', solved_total = 12", []).unwrap();
    let (code, lines) = batch("0 0 4\n1 1\n");
    assert_eq!(code, Some(1));
    assert!(lines[0]["error"].as_str().unwrap().contains("lacks tier"), "{lines:?}");
    assert_eq!(lines[1]["source"], "database");
    let (code, _, err) = nimdb(&["verify", "--game", "staircase"], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("lacks tier") && err.lines().count() == 1, "{err}");
}

#[test]
fn export_streams_every_stored_position_as_the_answers_give_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let nimdb = |args: &[&str], stdin: &str| {
        let out = common::nimdb().args(args).arg("--db").arg(&db).write_stdin(stdin).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    assert_eq!(
        nimdb(&["solve", "--game", "staircase", "--max-total", "14", "--max-heaps", "5", "-q"], "").0,
        Some(0)
    );
    assert_eq!(nimdb(&["solve", "--game", "raise:2", "--max-heaps", "3", "--misere", "-q"], "").0, Some(0));
    for (game, misere) in [("staircase", false), ("raise:2", true)] {
        let mut args = vec!["export", "--game", game];
        if misere {
            args.push("--misere");
        }
        let (code, csv, err) = nimdb(&args, "");
        assert_eq!(code, Some(0), "{err}");
        let rows: Vec<&str> = csv.lines().skip(1).collect();
        assert_eq!(csv.lines().next(), Some("position,outcome,remoteness"));
        // Every position once, and each as query --batch answers it.
        let positions: Vec<&str> = rows.iter().map(|r| r.split(',').next().unwrap()).collect();
        assert_eq!(positions.iter().collect::<BTreeSet<_>>().len(), rows.len());
        let stdin: String = positions.iter().filter(|p| !p.is_empty()).map(|p| format!("{p}\n")).collect();
        let mut batch = vec!["query", "--batch", "--game", game];
        if misere {
            batch.push("--misere");
        }
        let (_, answers, _) = nimdb(&batch, &stdin);
        let expected: Vec<String> = answers
            .lines()
            .map(|l| {
                let a: serde_json::Value = serde_json::from_str(l).unwrap();
                assert_eq!(a["source"], "database", "{l}");
                let r = a["remoteness"].as_u64().map(|r| r.to_string()).unwrap_or_default();
                let p: Vec<String> =
                    a["position"].as_array().unwrap().iter().map(|h| h.to_string()).collect();
                format!("{},{},{r}", p.join(" "), a["outcome"].as_str().unwrap())
            })
            .collect();
        let nonempty: Vec<&str> = rows.iter().copied().filter(|r| !r.starts_with(',')).collect();
        assert_eq!(nonempty, expected, "{game}");
        // Losses only: the loss rows, not the draws.
        args.push("--losses-only");
        let (_, losses, _) = nimdb(&args, "");
        let want: Vec<&str> = rows.iter().copied().filter(|r| r.contains(",loss,")).collect();
        assert_eq!(losses.lines().skip(1).collect::<Vec<_>>(), want);
        if game == "raise:2" {
            assert!(rows.iter().any(|r| r.ends_with(",draw,")), "a loopy game's draws are exported");
        }
    }
    // A solve of another family is refused, in one line.
    let (code, _, err) = nimdb(&["export", "--game", "staircase", "--solve", "2"], "");
    assert_eq!(code, Some(1));
    assert!(err.contains("not of staircase") && err.lines().count() == 1, "{err}");
    assert!(err.contains("export it with --game raise:2"), "{err}");
    // A solve named alone is exported in its own game: the staircase's rows, not Nim's.
    let (code, by_id, err) = nimdb(&["export", "--solve", "1"], "");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(by_id, nimdb(&["export", "--game", "staircase"], "").1);
    let (code, _, err) = nimdb(&["export", "--game", "nim", "--solve", "1"], "");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("not of nim") && err.contains("--game staircase") && err.lines().count() == 1,
        "{err}"
    );
}

/// `play` speaks to every family through the trait: the computer's move from every
/// position of a solved space keeps what the forward search says the position is worth
/// (from a win, to a loss one move shorter; from a draw, to a draw; from a loss, to the
/// longest win), and a session plays only the moves the rules written here allow.
#[test]
fn play_s_computer_keeps_every_win_and_draw_the_forward_search_finds() {
    use nimdb::play::{Advisor, Players, Session, computer_choice};
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("staircase", SpaceBounds { max_total: 9, max_heaps: 4, max_heap: None }),
        ("welter", SpaceBounds { max_total: 10, max_heaps: 3, max_heap: None }),
        ("raise:3", SpaceBounds { max_total: 18, max_heaps: 6, max_heap: Some(3) }),
    ];
    for (game, bounds) in cases {
        for convention in [Convention::Normal, Convention::Misere] {
            let spaced: Game = game.parse().unwrap();
            let space = space_for(spaced.family().layout(), bounds).unwrap();
            let all = positions(space.as_ref());
            let want = forward(game, &all, convention);
            let path = dir.path().join(format!("{game}-{convention}.sqlite").replace(':', "-"));
            let mut db = nimdb::store::Database::open(&path).unwrap();
            nimdb::driver::solve_space_into(&mut db, &spaced, convention, space.as_ref(), &Silent).unwrap();
            let mut advisor = Advisor::new(db, spaced.clone(), convention);
            let mut checked = 0;
            for p in &all {
                if children(game, p).is_empty() {
                    continue;
                }
                let advice = advisor.answer(p).unwrap();
                let (v, r) = want[p];
                assert_eq!(advice.outcome, v, "{game} {convention}: {p:?}");
                let to = computer_choice(advice).unwrap().to.clone();
                assert!(children(game, p).contains(&to), "{game}: {p:?} → {to:?} is not a move");
                let (cv, cr) = want[&to];
                match v {
                    Outcome::Win => {
                        assert_eq!((cv, cr), (Outcome::Loss, r - 1), "{game} {convention}: {p:?}")
                    }
                    Outcome::Draw => assert_eq!(cv, Outcome::Draw, "{game} {convention}: {p:?}"),
                    Outcome::Loss => {
                        assert_eq!((cv, cr), (Outcome::Win, r - 1), "{game} {convention}: {p:?}")
                    }
                }
                let mut session =
                    Session::new(spaced.clone(), convention, Players::HumanHuman, p.clone()).unwrap();
                session.play(&to).unwrap();
                checked += 1;
            }
            assert!(checked > 40, "{game} {convention}: {checked}");
        }
    }
}

/// `nimdb play` of each family end to end: moves by number and by the position they
/// lead to, refusals in words, undo, the computer's replies from the database, a verdict
/// at the end, and a loopy game drawn by repetition.
#[test]
fn play_takes_each_family_through_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("play.sqlite");
    let db = db.to_str().unwrap();
    let play = |args: &[&str], stdin: &str| {
        let out =
            common::nimdb().arg("play").args(args).args(["--db", db]).write_stdin(stdin).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    // Staircase 0 1 is lost for the mover: the human moves the coin down, the computer
    // takes it off, and wins.
    let out = play(&["--game", "staircase", "--players", "human-computer", "0", "1"], "moves\n9\nto 2\n1\n");
    assert!(out.contains("  step 2: | (1)\n  step 1:   (0)\n"), "{out}");
    assert!(out.contains("Your move> moves\n  1. move 1 coin from step 2 to step 1 → [1]\n"), "{out}");
    assert!(
        out.contains("Your move> 9\nthere is no move 9: [0 1] has 1 (type 'moves' to list them)"),
        "{out}"
    );
    assert!(out.contains("Your move> to 2\nno move leads from [0 1] to [2]"), "{out}");
    assert!(out.contains("You: move 1 coin from step 2 to step 1 → [1]\nComputer: move 1 coin from step 1 off the staircase → []"), "{out}");
    assert!(out.contains("The computer wins."), "{out}");
    // Undo takes back the human's move and the computer's reply.
    let out = play(&["--game", "staircase", "3", "0", "2", "5"], "1\nundo\nquit\n");
    assert!(
        out.contains("Took back 2 moves: the computer's move 1 coin from step 1 off the staircase and your move 1 coin from step 1 off the staircase.\n"),
        "{out}"
    );
    assert!(out.contains("You quit; the game stops at [3 0 2 5] with no winner."), "{out}");
    // Welter's game, misère, from the position the issue names: the computer moves first
    // and wins.
    let out =
        play(&["--game", "welter", "--misere", "--players", "computer-human", "7", "4", "1", "0"], "1\n");
    assert!(out.starts_with("nimdb play: welter from [7 4 1 0] (misère play"), "{out}");
    assert!(out.contains("The computer wins."), "{out}");
    // raise:2 from two heaps of 2 is a draw: two computers keep it until it repeats.
    let out = play(&["--game", "raise:2", "--players", "computer-computer", "2", "2"], "");
    assert!(out.contains("A position that comes round a third time"), "{out}");
    assert!(out.trim_end().ends_with("with Computer 2 to move."), "{out}");
    assert!(out.contains("\nDrawn by repetition: "), "{out}");
}

/// `tree` walks every acyclic family through the trait: at every node of the tree and of
/// the DAG, the minimax value for A agrees with the forward search; the loopy family is
/// refused in one line (its tree is infinite).
#[test]
fn tree_values_agree_with_the_forward_search_and_a_loopy_game_is_refused() {
    use nimdb::game::Game;
    use nimdb::tree::{GameGraph, Player, Shape, TreeOptions, TreeView};
    let cases = [
        ("staircase", SpaceBounds { max_total: 8, max_heaps: 4, max_heap: None }),
        ("welter", SpaceBounds { max_total: 9, max_heaps: 3, max_heap: None }),
    ];
    for (name, bounds) in cases {
        let spaced: Game = name.parse().unwrap();
        let game = spaced.clone();
        let space = space_for(spaced.family().layout(), bounds).unwrap();
        let all = positions(space.as_ref());
        for convention in [Convention::Normal, Convention::Misere] {
            let want = forward(name, &all, convention);
            let mut nodes = 0;
            for root in all.iter().filter(|p| p.iter().sum::<u32>() <= 6) {
                for shape in [Shape::Tree, Shape::Dag] {
                    let g = GameGraph::build(&game, convention, root, shape);
                    for n in g.nodes() {
                        let mover_wins = want[&n.position].0 == Outcome::Win;
                        let for_a = if (n.player == Player::A) == mover_wins { 1 } else { -1 };
                        assert_eq!(n.value, for_a, "{name} {convention} {root:?}: {:?}", n.position);
                        let kids: BTreeSet<Vec<u32>> =
                            n.edges.iter().map(|e| g.node(e.child).position.clone()).collect();
                        assert_eq!(kids, children(name, &n.position), "{name}: edges of {:?}", n.position);
                        nodes += 1;
                    }
                }
            }
            assert!(nodes > 500, "{name} {convention}: {nodes}");
        }
    }
    let raise: Game = "raise:2".parse().unwrap();
    let err =
        TreeView::new(&raise, "raise:2", Convention::Normal, &[1, 1], &TreeOptions::default()).unwrap_err();
    assert!(err.to_string().starts_with("raise:2 is loopy"), "{err}");
    let err = common::err(&["tree", "--game", "raise:2", "1", "1"]);
    assert!(err.contains("its game tree is infinite"), "{err}");
    let out = common::ok(&["tree", "--game", "staircase", "--dag", "--format", "dot", "0", "2"]);
    assert!(out.starts_with("digraph game_tree {"), "{out}");
    assert!(out.contains("label=\"move 1 coin from step 2 to step 1\""), "{out}");
}

/// Finding: a theorem's answer judged every child with the whole decision, whose winning
/// move search looks at every grandchild: Welter's [1048576 0] (a million moves) took
/// 10¹² steps and `query` did not return in a minute. Children are now judged by their value alone, and
/// a position with more moves than the listing limit gives its best move without the list.
#[test]
fn a_theorem_answer_for_a_position_with_a_million_moves_is_immediate() {
    use nimdb::space::{THEORY_LISTING_LIMIT, answer_from_theory};
    let game: Game = "welter".parse().unwrap();
    let huge = answer_from_theory(&game, Convention::Normal, &[200_000, 0]).unwrap();
    assert_eq!(huge.outcome, Outcome::Win);
    assert!(huge.moves.is_empty(), "more than {THEORY_LISTING_LIMIT} moves are not listed");
    let best = huge.best_move.unwrap();
    let narrow = |cells: &[u64]| cells.iter().map(|&c| c as u32).collect::<Vec<u32>>();
    assert_eq!(welter(&narrow(&best.to)), 0);
    assert_eq!(best.description, "lower the heap of 200000 to 1 → [1 0]");
    // Within the limit every move is listed, each judged by the theorem.
    let listed = answer_from_theory(&game, Convention::Normal, &[3000, 1000, 0]).unwrap();
    assert_eq!(listed.moves.len(), 3000 - 2 + 1000 - 1);
    for m in &listed.moves {
        let want = if welter(&narrow(&m.to)) == 0 { Outcome::Loss } else { Outcome::Win };
        assert_eq!(m.outcome, want, "{:?}", m.to);
    }
    // Past the move search's limit the theorem still gives the outcome, at once.
    let out = common::ok(&["query", "--game", "welter", "--json", "1048576", "0"]);
    assert!(out.contains("\"rule\": \"welter\"") && out.contains("\"outcome\": \"win\""), "{out}");
    // Not listed and not searched: the family's bound on them is said, not built to count.
    assert!(out.contains("\"moves_omitted\": 1048578"), "{out}");
    let out = common::ok(&["query", "--game", "welter", "1048576", "0"]);
    assert!(out.contains("best move: not searched for (the position has up to 1048578 moves"), "{out}");
}

/// Finding: a staircase of 20,000 steps (about 600,000 moves, each a position of 20,000
/// counts) made `query`, `tree` and `play` build every child at once, tens of gigabytes.
/// Each now checks the family's bound on the moves against the work allowed first: the
/// theorem still answers (without the list), and tree and play refuse in one line.
#[test]
fn positions_whose_moves_exceed_the_work_allowed_are_answered_or_refused_at_once() {
    let steps: Vec<String> = (0..20_000).map(|i| ((i * 7) % 60 + 1).to_string()).collect();
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let with =
        |command: &'static str, game: &'static str| [vec![command, "--game", game], steps.clone()].concat();
    let out = common::ok(&with("query", "staircase"));
    assert!(out.contains("best move: not searched for (the position has up to 629960 moves"), "{out}");
    let err = common::err(&with("play", "staircase"));
    assert!(err.contains("may have up to 629960 moves of 20000 counts each, too many to play from"), "{err}");
    let err = common::err(&with("tree", "staircase"));
    assert!(err.contains("(20000 counts) is too large to measure within"), "{err}");
    let err = common::err(&with("play", "raise:64"));
    assert!(err.contains("too many to play from"), "{err}");
}

/// `explain --game staircase`: the odd steps' binary table says safe exactly where the
/// forward search finds a loss, and its winning move leads to a loss; misère is refused.
#[test]
fn explain_gives_staircase_nim_s_odd_step_rule_and_its_move() {
    use nimdb::explain::explain_staircase;
    let space = space_for(
        nimdb::game::SpaceLayout::Staircase,
        SpaceBounds { max_total: 22, max_heaps: 6, max_heap: None },
    )
    .unwrap();
    let all = positions(space.as_ref());
    let want = forward("staircase", &all, Convention::Normal);
    let mut explained = 0;
    for p in all.iter().filter(|p| !p.is_empty()) {
        let e = explain_staircase(p).unwrap();
        assert_eq!(e.safe, want[p].0 == Outcome::Loss, "{p:?}");
        if let Some((step, k)) = e.winning {
            let mut to = p.clone();
            to[step - 1] -= k;
            if step > 1 {
                to[step - 2] += k;
            }
            while to.last() == Some(&0) {
                to.pop();
            }
            assert!(children("staircase", p).contains(&to), "{p:?} → {to:?}");
            assert_eq!(want[&to].0, Outcome::Loss, "{p:?} → {to:?}");
        }
        explained += 1;
    }
    assert!(explained > 1000, "{explained}");
    let out = common::ok(&["explain", "--game", "staircase", "3", "0", "2", "5"]);
    assert!(out.contains("Unsafe (1's column is odd)"), "{out}");
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("so: move 1 coin from step 1 off the staircase."), "{out}");
    let err = common::err(&["explain", "--game", "staircase", "--misere", "1"]);
    assert!(err.contains("under normal play"), "{err}");
    let err = common::err(&["explain", "--game", "welter", "1", "0"]);
    assert!(err.contains("covers Nim and Staircase Nim only"), "{err}");
}

/// Finding: a theorem's answer for a Welter position with no move ([0], [2 1 0]) said it
/// had up to 1 or 6 moves "not listed, more than 100000", and "every move loses" rather than
/// "the game is over": an empty listing was taken for one left out. Now a theorem's listing
/// is every child of the plain rules, and a terminal position says so.
#[test]
fn a_theorem_s_answer_lists_exactly_the_moves_and_a_terminal_position_has_none() {
    use nimdb::space::answer_from_theory;
    let cases = [
        ("staircase", SpaceBounds { max_total: 9, max_heaps: 4, max_heap: None }),
        ("welter", SpaceBounds { max_total: 12, max_heaps: 4, max_heap: None }),
        ("raise:3", SpaceBounds { max_total: 9, max_heaps: 3, max_heap: Some(3) }),
    ];
    let mut terminals = 0;
    for (name, bounds) in cases {
        let game: Game = name.parse().unwrap();
        let space = space_for(game.family().layout(), bounds).unwrap();
        for p in positions(space.as_ref()) {
            let a = answer_from_theory(&game, Convention::Normal, &p).expect("a theorem under normal play");
            let listed: BTreeSet<Vec<u32>> =
                a.moves.iter().map(|m| m.to.iter().map(|&c| c as u32).collect()).collect();
            assert_eq!(listed, children(name, &p), "{name} {p:?}");
            assert_eq!(a.moves_omitted, 0, "{name} {p:?}: every move was listed");
            terminals += u64::from(listed.is_empty());
        }
    }
    assert!(terminals >= 5, "{terminals}");
    // Without --db, in a directory of its own (the theorem answers; nothing is written).
    let dir = tempfile::tempdir().unwrap();
    let query = |args: &[&str]| {
        let out = common::nimdb().current_dir(dir.path()).arg("query").args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let out = query(&["--game", "welter", "--moves", "2", "1", "0"]);
    assert!(out.contains("no moves: the game is over\nmoves (0):\n"), "{out}");
    let out = query(&["--game", "welter", "--json", "0"]);
    assert!(!out.contains("moves_omitted"), "{out}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing was written");
}

/// Finding: a raise:C solve cut short after its first tiers were written (a full disk, a
/// kill while its tiers are saved) made `query`, `query --batch`, `verify` and the server
/// panic: a move may raise a heap, so a stored position's child can lie past the tiers
/// stored. A loopy game's solve now answers only when whole: queries go on to the theorem
/// (or solve again), verify says the solve is unfinished in one line, and export streams
/// the tiers that are stored.
#[test]
fn a_loopy_solve_cut_short_is_not_read_as_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    let nimdb = |args: &[&str], stdin: &str| {
        let out = common::nimdb().args(args).args(["--db", db]).write_stdin(stdin).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        (out.status.success(), String::from_utf8(out.stdout).unwrap(), stderr)
    };
    for misere in [&[][..], &["--misere"][..]] {
        let solve = [&["solve", "--game", "raise:3", "--max-heaps", "3", "-q"][..], misere].concat();
        assert!(nimdb(&solve, "").0);
    }
    // Both solves lose the tiers above total 5, as if their run had stopped there.
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute("DELETE FROM tiers WHERE total > 5", []).unwrap();
    conn.execute("UPDATE solves SET solved_total = 5, status = 'partial'", []).unwrap();
    drop(conn);
    let bounds = SpaceBounds { max_total: 9, max_heaps: 3, max_heap: Some(3) };
    let space = space_for(Game::Raise(nimdb::game::Raise { cap: 3 }).family().layout(), bounds).unwrap();
    let all = positions(space.as_ref());
    for (convention, flag) in [(Convention::Normal, &[][..]), (Convention::Misere, &["--misere"][..])] {
        let want = forward("raise:3", &all, convention);
        let word = |v: Outcome| format!("{v:?}").to_lowercase();
        // [3 2] (total 5, stored) moves to [3 3] (total 6, lost).
        let query = [&["query", "--game", "raise:3", "--json", "3", "2"][..], flag].concat();
        let (ok, out, err) = nimdb(&query, "");
        assert!(ok, "{err}");
        let a: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(a["outcome"].as_str(), Some(word(want[&vec![3, 2]].0).as_str()), "{out}");
        let batch = [&["query", "--game", "raise:3", "--batch"][..], flag].concat();
        let (_, out, err) = nimdb(&batch, "3 2\n2 2 1\n");
        assert_eq!(out.lines().count(), 2, "{out}{err}");
        for (line, p) in out.lines().zip([vec![3, 2], vec![2, 2, 1]]) {
            let a: serde_json::Value = serde_json::from_str(line).unwrap();
            if a["error"].is_null() {
                assert_eq!(a["outcome"].as_str(), Some(word(want[&p].0).as_str()), "{line}");
            }
        }
    }
    let (ok, _, err) = nimdb(&["verify", "--game", "raise:3", "--misere"], "");
    assert!(!ok && err.lines().count() == 1 && err.contains("unfinished"), "{err}");
    let (ok, out, err) = nimdb(&["export", "--game", "raise:3"], "");
    assert!(ok, "{err}");
    assert!(out.lines().count() > 5, "{out}");
}

/// Finding: `query --moves` of raise:3 with 10,000 heaps of 3 said "moves (40000): not
/// listed, more than 100000": the moves were left out because listing them passes the work
/// allowed, and 40,000 is the family's bound on them, not their number (and, a draw, that
/// "every move loses"). The line now says which limit left them out, and keeps "more than"
/// for a count past the listing limit. (raise:3's bound is now tighter: the work-limited
/// case is raise:64 with 7,000 heaps here.)
#[test]
fn moves_left_out_say_which_limit_left_them_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let query = |game: &str, counts: Vec<String>| {
        let out = common::nimdb()
            .args(["query", "--moves", "--game", game, "--db"])
            .arg(&db)
            .args(counts)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let out = query("raise:64", vec!["64".to_string(); 7_000]);
    let tail = &out[out.len() - 300..];
    assert!(!out.contains("more than 100000"), "{tail}");
    assert!(out.contains("moves (up to 4160): not listed, too much work to list"), "{tail}");
    // It is a draw (every heap is infinite in Smith's sense): no move was searched for,
    // so none is said to lose.
    assert!(out.contains(": draw for the player to move"), "{tail}");
    assert!(out.contains("best move: not searched for (the position has up to 4160 moves"), "{tail}");
    // A million moves of a two-heap position pass the listing limit itself.
    let out = query("welter", vec!["1048576".to_string(), "0".to_string()]);
    assert!(out.contains("moves (1048578): not listed, more than 100000"), "{out}");
}

/// Finding: without a position, `play` and `query` of raise:2 suggested `... raise:2 3 0 2
/// 5`, which is refused (a heap of 3 passes the cap), and `tree --game raise:2` asked for a
/// root although a loopy game's tree is refused whatever the root. Each suggested command
/// is now run here as written, and takes its position.
#[test]
fn the_example_given_for_a_missing_position_is_a_position_of_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let nimdb = |args: &[&str]| {
        let out = common::nimdb().current_dir(dir.path()).args(args).output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for game in ["staircase", "welter", "raise:1", "raise:2", "raise:64"] {
        for command in ["play", "query"] {
            let (ok, err) = nimdb(&[command, "--game", game]);
            assert!(!ok && err.lines().count() == 1, "{command} {game}: {err}");
            let start = &err[err.rfind("nimdb ").unwrap_or_else(|| panic!("{err}"))..];
            let suggested: Vec<&str> =
                start.trim_end().trim_end_matches([')', '`']).split_whitespace().skip(1).collect();
            assert_eq!(suggested[..3], [command, "--game", game], "{err}");
            let (ok, err) = nimdb(&suggested);
            assert!(ok || !err.contains("bad position"), "{command} {game}: nimdb {suggested:?}: {err}");
        }
    }
    let (ok, err) = nimdb(&["tree", "--game", "raise:2"]);
    assert!(!ok && err.contains("is loopy"), "{err}");
}

/// Finding: a stored solve whose bounds were altered past what can be ranked (total and
/// heaps 100,000) made every query of its game fail with "the universe is too wide to
/// index", even one the theorem answers, without naming the solve. The error now names the
/// damaged solve, for query, verify and export alike.
#[test]
fn a_solve_whose_bounds_cannot_be_ranked_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    let nimdb = |args: &[&str]| {
        let out = common::nimdb().args(args).args(["--db", db]).output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned(), out.stdout)
    };
    assert!(nimdb(&["solve", "--game", "staircase", "--max-total", "10", "-q"]).0);
    // Bounds too wide to rank, or no most heaps at all (every family's solve records
    // them: the row without them was read as holding nothing, so verify checked 0
    // positions and passed, and export gave no rows).
    for damage in [
        "UPDATE solves SET solved_total = 100000, max_heaps = 100000",
        "UPDATE solves SET solved_total = 10, max_heaps = NULL",
    ] {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.execute(damage, []).unwrap();
        drop(conn);
        for command in [
            &["query", "--game", "staircase", "1", "2"][..],
            &["verify", "--game", "staircase"],
            &["export", "--game", "staircase"],
        ] {
            let (ok, err, out) = nimdb(command);
            assert!(!ok && err.lines().count() == 1, "{damage}: {command:?}: {err}");
            // A refused command writes nothing (export wrote its CSV header first).
            assert!(out.is_empty(), "{damage}: {command:?} wrote {}", String::from_utf8_lossy(&out));
            assert!(
                err.contains("stored solve #1 of staircase") && err.contains("damaged"),
                "{damage}: {command:?}: {err}"
            );
        }
    }
}

/// Finding: raise:C bounded a position's moves by every heap at the cap, so raise:3 with
/// 20,000 heaps of 3 (at most 3 moves: one heap size, three ways down) was refused by
/// `play` ("up to 80000 moves of 20000 counts each, too many to play from") and its moves
/// left out by `query --moves`. Equal heaps give the same moves, and a raise:C position has
/// at most C heap sizes: the bound counts those, and still bounds every reachable position.
#[test]
fn raise_s_bound_on_moves_counts_heap_sizes_not_heaps() {
    for cap in 1..=4u32 {
        let game: Game = format!("raise:{cap}").parse().unwrap();
        let bounds = SpaceBounds { max_total: 5 * cap, max_heaps: 5, max_heap: Some(cap) };
        let space = space_for(game.family().layout(), bounds).unwrap();
        for p in positions(space.as_ref()) {
            let n = children(&game.to_string(), &p).len() as u64;
            assert!(game.family().move_bound(&p) >= n, "raise:{cap} {p:?}: {n} moves");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let heaps = vec!["3".to_string(); 20_000];
    let run = |command: &str, stdin: &str| {
        let out = common::nimdb()
            .args([command, "--game", "raise:3", "--db"])
            .arg(&db)
            .args(if command == "query" { &["--moves"][..] } else { &[][..] })
            .args(&heaps)
            .write_stdin(stdin)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{command}: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    };
    let out = run("query", "");
    assert!(out.contains("\nmoves (3):\n"), "{}", &out[out.len() - 400..]);
    let out = run("play", "moves\nquit\n");
    assert!(out.contains("You quit; the game stops at"), "{}", &out[out.len() - 400..]);
}

/// Finding: `solve --game staircase … --window-limit 1K --mpi-ranks 4 --dry-run` exited 0
/// and never mentioned either flag (the families' solver holds its tiers and runs in one
/// process); `heaps` and `solve --mpi` refused with a list of commands that was wrong. A
/// flag a family's solve cannot honour is refused in one line that names it, writing
/// nothing.
#[test]
fn a_family_s_solve_refuses_the_flags_it_cannot_honour() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("f.sqlite");
    let db = db.to_str().unwrap();
    for game in ["staircase", "welter", "raise:2"] {
        let base = ["solve", "--game", game, "--max-total", "6", "--max-heaps", "3", "--db", db];
        let e = common::err(&[&base[..], &["--window-limit", "1K"]].concat());
        assert!(e.contains("--window-limit is not taken for"), "{e}");
        let e = common::err(&[&base[..], &["--dry-run", "--mpi-ranks", "4"]].concat());
        assert!(e.contains("--mpi-ranks is not taken for"), "{e}");
        let e = common::err(&["heaps", "--game", game, "--up-to", "10"]);
        assert!(e.contains("heaps takes heap games only") && e.contains("not a sum of heaps"), "{e}");
    }
    assert!(!std::path::Path::new(db).exists(), "a refused solve wrote {db}");
}

/// Finding: a position of a family was read more loosely than a heap list: `]` and `[[[[`
/// as `[]`, `[[1]]`, `[3` and `[3]]` as a position. Every family reads a list by the
/// command line's rules, and the error is one line.
#[test]
fn a_family_s_position_is_read_by_the_command_line_s_rules_for_a_list() {
    for game in ["staircase", "welter", "raise:3"] {
        for loose in ["]", "[[[[", "[[1]]", "[3", "[3]]", "1,,2"] {
            let e = common::err(&["query", "--game", game, "--db", "/nonexistent/x.sqlite", loose]);
            assert!(e.contains("bad position") || e.contains("bad heap list"), "{game} {loose}: {e}");
        }
    }
    for spec in ["raise: 3", "raise:+3", "raise:"] {
        let e = common::err(&["query", "--game", spec, "1"]);
        assert!(e.contains("raise:C takes a cap C from 1 to 64"), "{spec}: {e}");
    }
}

/// Finding: a staircase query whose space cannot be indexed said a tier "(total 245, 10
/// heaps)" was too large: heap words for a staircase. It is worded in steps.
#[test]
fn a_staircase_too_wide_to_index_is_worded_in_steps() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.sqlite");
    let mut args = vec!["query", "--game", "staircase", "--misere", "--db", db.to_str().unwrap()];
    args.extend(["5"; 10]);
    let e = common::err(&args);
    assert!(e.contains("weighted sum") && e.contains("steps") && !e.contains("heaps)"), "{e}");
}
