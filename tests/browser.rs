//! The web explorer in a real browser: headless Chromium driven through chromedriver
//! (WebDriver) loads a position, clicks a winning move, checks the shown outcome against
//! the database, goes back and forward, plays a move against the computer, shows a misère
//! Kayles position from the stored misère quotient (stored while the server runs) and a
//! Nim_2 position with heaps beyond 2⁵³ from Moore's theorem, draws the pictures of the game
//! in view (the nim-sequence, the misère quotient's table, the P-positions of a two-heap
//! slice, each compared with the command line) and redraws them when the game changes, and
//! takes a screenshot that must be a non-blank PNG.
//!
//! Ignored by default (`cargo test` lists it, with the reason); `.ci/run` installs Debian's
//! `chromium` and `chromium-driver` and runs it with `--ignored`, where a missing browser is
//! a failure. Set `NIMDB_SCREENSHOT=FILE` to keep the screenshot.
#![cfg(feature = "server")]

mod common;
mod serve_common;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()))
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The outcome `nimdb query --json` gives.
fn query(db: &str, heaps: &str) -> Value {
    serde_json::from_str(&common::ok(&[
        "query",
        "--json",
        "--game",
        "nim",
        "--db",
        db,
        &format!("[{heaps}]"),
    ]))
    .unwrap()
}

/// The explorer's words for an answer's source.
fn source_text_of(answer: &Value) -> String {
    match answer["source"].as_str().unwrap() {
        "theory" => "from theory".into(),
        "quotient" => "from the misère quotient".into(),
        _ => format!("from solve #{}", answer["solve_id"]),
    }
}

/// What `nimdb query --json` answers for a misère or normal position of any game.
fn query_game(db: &str, game: &str, convention: &str, heaps: &str) -> Value {
    let mut args = vec!["query", "--json", "--game", game, "--db", db];
    if convention == "misere" {
        args.push("--misere");
    }
    let position = format!("[{heaps}]");
    args.push(&position);
    serde_json::from_str(&common::ok(&args)).unwrap()
}

async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

/// Waits until `css` exists and its text satisfies `ok`.
async fn wait_text(c: &Client, css: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(e) = c.find(Locator::Css(css)).await
            && let Ok(t) = e.text().await
            && ok(&t)
        {
            return t;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {css}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `nimdb ARGS` (printing JSON), parsed.
fn cli_json(args: &[&str]) -> Value {
    serde_json::from_str(&common::ok(args)).unwrap()
}

/// How many elements match `css`.
async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.unwrap().len()
}

/// Waits until the picture `which` shows `key` (drawn, or a note saying why there is none),
/// and returns what it marks: the nim-sequence's values, the quotient table's products (row
/// by row), or the slice's P-positions (as "a,b").
async fn wait_picture(c: &Client, which: &str, key: &str) -> Vec<Value> {
    let css = format!("#picture-{which}[data-for='{key}']");
    let deadline = Instant::now() + Duration::from_secs(30);
    while c.find(Locator::Css(&css)).await.is_err() {
        assert!(Instant::now() < deadline, "timed out waiting for {css}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (marks, field) = match which {
        "sequence" => ("circle.value", "value"),
        "quotient" => ("rect.cell", "product"),
        _ => ("rect.cell.loss", "position"),
    };
    let script = format!(
        "return [...document.querySelectorAll(\"{css} svg {marks}\")].map((e) => e.dataset.{field});"
    );
    let found = c.execute(&script, vec![]).await.unwrap();
    found
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let v = v.as_str().unwrap();
            v.parse::<u64>().map_or_else(|_| json!(v), |n| json!(n))
        })
        .collect()
}

/// The heat map has |Q|² cells, each coloured by its product in the table, and marks
/// exactly the products in P.
async fn check_quotient_picture(c: &Client, quotient: &Value, products: &[Value]) {
    let size = quotient["size"].as_u64().unwrap() as usize;
    let table: Vec<Value> =
        quotient["table"].as_array().unwrap().iter().flat_map(|r| r.as_array().unwrap().clone()).collect();
    assert_eq!(products.len(), size * size, "|Q|² cells");
    assert_eq!(products, table.as_slice());
    let p: Vec<u64> = serde_json::from_value(quotient["p_elements"].clone()).unwrap();
    let in_p = table.iter().filter(|e| p.contains(&e.as_u64().unwrap())).count();
    assert_eq!(count(c, "#picture-quotient rect.cell.p").await, in_p);
    assert_eq!(count(c, "#picture-quotient circle.p-mark").await, in_p);
}

/// The P-positions [a, b] (or [a, b, fixed]) with a, b ≤ size that `nimdb query --batch`
/// answers, as "a,b" ("a,b,fixed") in the page's order (a, then b).
fn slice_losses(db: &str, game: &str, misere: bool, size: u32, fixed: Option<u32>) -> Vec<Value> {
    let mut lines = String::new();
    let third = fixed.map_or(String::new(), |h| format!(",{h}"));
    for a in 0..=size {
        for b in 0..=size {
            lines += &format!("{a},{b}{third}\n");
        }
    }
    let mut args = vec!["query", "--batch", "--game", game, "--db", db];
    if misere {
        args.push("--misere");
    }
    let out = common::nimdb().args(&args).write_stdin(lines).output().unwrap();
    let answers: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), ((size + 1) * (size + 1)) as usize);
    answers
        .iter()
        .enumerate()
        .filter(|(_, a)| a["outcome"] == "loss")
        .map(|(i, _)| json!(format!("{},{}{third}", i / (size as usize + 1), i % (size as usize + 1))))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver (.ci/run installs them and runs it with --ignored)"]
async fn explorer_in_headless_chromium() {
    let (Some(chromium), Some(chromedriver)) =
        (find(&["chromium", "chromium-browser", "google-chrome"]), find(&["chromedriver"]))
    else {
        common::missing(
            "chromium or chromedriver is not installed (apt-get install chromium chromium-driver)",
        );
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("browser.sqlite");
    let db_str = db.to_str().unwrap().to_string();
    common::ok(&["solve", "--game", "nim", "--max-heaps", "4", "--max-heap", "8", "--db", &db_str]);
    let server = serve_common::Server::start(&db, &[]);

    let port = free_port();
    let driver = Driver(
        Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let profile = tempfile::tempdir().unwrap();
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--no-first-run", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--window-size=1200,800",
                format!("--user-data-dir={}", profile.path().display()),
            ]
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let c = ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("connect to chromedriver");

    // Load a position: the outcome and remoteness shown are the database's.
    c.goto(&format!("{}/?game=nim&convention=normal&position=7,5,3", server.url())).await.unwrap();
    let start = query(&db_str, "7,5,3");
    let shown = wait_text(&c, "#outcome", |t| !t.is_empty()).await;
    assert_eq!(shown, start["outcome"].as_str().unwrap());
    assert_eq!(text(&c, "#remoteness").await, start["remoteness"].to_string());
    let moves = c.find_all(Locator::Css("#moves li.move")).await.unwrap();
    assert_eq!(moves.len(), start["moves"].as_array().unwrap().len());
    // Heaps drawn as rows of marks.
    assert_eq!(c.find_all(Locator::Css("#heaps .heap")).await.unwrap().len(), 3);
    assert_eq!(c.find_all(Locator::Css("#heaps .mark")).await.unwrap().len(), 15);

    // Click the first (best) winning move: the page shows the child, a loss, as stored.
    let first = c.find(Locator::Css("#moves li.move.winning")).await.unwrap();
    let to = first.attr("data-to").await.unwrap().unwrap();
    first.click().await.unwrap();
    let label = format!("[{}]", to.replace(',', ", "));
    wait_text(&c, "#shown-position", |t| t.trim() == label).await;
    let child = query(&db_str, &to);
    assert_eq!(text(&c, "#outcome").await, child["outcome"].as_str().unwrap());
    assert_eq!(child["outcome"], "loss");
    let url = c.current_url().await.unwrap();
    assert!(url.as_str().contains(&format!("position={}", to.replace(',', "%2C"))), "{url}");

    // Back and forward.
    c.back().await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[7, 5, 3]").await;
    c.forward().await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == label).await;

    // Play against the computer from a winning position: it answers with its best move.
    c.goto(&format!("{}/?game=nim&convention=normal&position=6,4,1", server.url())).await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[6, 4, 1]").await;
    c.find(Locator::Css("#play")).await.unwrap().click().await.unwrap();
    c.find(Locator::Css("#moves li.move.winning")).await.unwrap().click().await.unwrap();
    let status = wait_text(&c, "#status", |t| t.contains("computer played")).await;
    assert!(status.contains("computer played"), "{status}");
    let after = text(&c, "#shown-position").await;
    let heaps: String = after.trim_matches(|ch| ch == '[' || ch == ']').replace(' ', "");
    assert_eq!(
        query(&db_str, &heaps)["outcome"],
        "win",
        "after the computer's reply the player is to move and wins"
    );

    // A misère Kayles position no solve holds: answered from the misère quotient, which is
    // stored while the server runs (its sessions see the commit).
    common::ok(&["quotient", "--game", "kayles", "--db", &db_str]);
    c.goto(&format!("{}/?game=kayles&convention=misere&position=100,90,80,7", server.url())).await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[100, 90, 80, 7]").await;
    let want = query_game(&db_str, "kayles", "misere", "100,90,80,7");
    assert_eq!(want["source"], "quotient");
    assert_eq!(text(&c, "#outcome").await, want["outcome"].as_str().unwrap());
    assert_eq!(text(&c, "#remoteness").await, "unknown");
    let source = c.find(Locator::Css("#source")).await.unwrap();
    assert_eq!(source.attr("data-source").await.unwrap().as_deref(), Some("quotient"));
    assert!(source.text().await.unwrap().contains("quotient"));
    let moves = c.find_all(Locator::Css("#moves li.move")).await.unwrap();
    assert_eq!(moves.len(), want["moves"].as_array().unwrap().len());
    // Its winning move leads to a loss, from the quotient too.
    let first = c.find(Locator::Css("#moves li.move.winning")).await.unwrap();
    let to = first.attr("data-to").await.unwrap().unwrap();
    assert_eq!(
        to,
        want["best_move"]["to"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    first.click().await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == format!("[{}]", to.replace(',', ", "))).await;
    assert_eq!(text(&c, "#outcome").await, "loss");
    assert_eq!(text(&c, "#remoteness").await, "unknown");
    assert_eq!(text(&c, "#source").await, source_text_of(&query_game(&db_str, "kayles", "misere", &to)));

    // Nim_2 with heaps beyond 2⁵³: Moore's theorem, the heaps shown exactly, and the best
    // move (the moves are too many to list) leads to a loss.
    let huge = "18446744073709551615,99999999999999,5";
    c.goto(&format!("{}/?game=moore:2&convention=normal&position={huge}", server.url())).await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[18446744073709551615, 99999999999999, 5]").await;
    let want = query_game(&db_str, "moore:2", "normal", huge);
    assert_eq!(text(&c, "#outcome").await, want["outcome"].as_str().unwrap());
    assert_eq!(text(&c, "#remoteness").await, "unknown");
    assert_eq!(text(&c, "#source").await, "from theory");
    let best = c.find(Locator::Css("#moves li.move.best")).await.unwrap();
    let to = best.attr("data-to").await.unwrap().unwrap();
    assert_eq!(
        to,
        want["best_move"]["to"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    best.click().await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == format!("[{}]", to.replace(',', ", "))).await;
    assert_eq!(text(&c, "#outcome").await, "loss");

    // The pictures of the game in view, drawn as SVG: misère Kayles, whose quotient is
    // stored above.
    c.goto(&format!("{}/?game=kayles&convention=misere&position=9,5", server.url())).await.unwrap();
    let heaps =
        cli_json(&["heaps", "--game", "kayles", "--up-to", "120", "--json", "--no-cache", "--db", &db_str]);
    let sequence = wait_picture(&c, "sequence", "kayles").await;
    assert_eq!(sequence.len(), 121, "one dot a heap");
    assert_eq!(json!(sequence), heaps["values"]);
    let (period, preperiod) = (heaps["period"].as_u64().unwrap(), heaps["preperiod"].as_u64().unwrap());
    assert_eq!((period, preperiod), (12, 71));
    assert_eq!(count(&c, "#picture-sequence line.period-start").await, (71..=120).step_by(12).count());
    assert_eq!(count(&c, "#picture-sequence rect.preperiod").await, 1);
    let quotient = cli_json(&["quotient", "--game", "kayles", "--json", "--db", &db_str]);
    let products = wait_picture(&c, "quotient", "kayles").await;
    check_quotient_picture(&c, &quotient, &products).await;
    assert!(text(&c, "#picture-quotient figcaption").await.contains("|Q| = 40, |P| = 9"));
    // Readable as drawn: the table's labels at least 9 CSS pixels high on the page, and the
    // sequence's axis a tick at every value up to its largest (8 for Kayles), not 0 and 8 alone.
    let label = c
        .execute(
            "return document.querySelector('#picture-quotient svg text').getBoundingClientRect().height",
            vec![],
        )
        .await
        .unwrap();
    assert!(label.as_f64().unwrap() >= 9.0, "quotient labels {label} px high");
    let top = heaps["values"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).max().unwrap();
    assert_eq!(top, 8);
    assert_eq!(count(&c, "#picture-sequence text.y-tick").await, top as usize + 1);
    let losses = wait_picture(&c, "slice", "kayles|misere|").await;
    assert_eq!(losses, slice_losses(&db_str, "kayles", true, 30, None));
    assert_eq!(count(&c, "#picture-slice rect.cell").await, 31 * 31);

    // Changing the game redraws them: Nim, whose quotient has no period (the page shows the
    // one of heaps 1..10, as the server computes it).
    c.find(Locator::Css("#game")).await.unwrap().select_by_value("nim").await.unwrap();
    let sequence = wait_picture(&c, "sequence", "nim").await;
    assert_eq!(sequence, (0..=120).collect::<Vec<u64>>());
    assert_eq!(count(&c, "#picture-sequence line.period-start").await, 0);
    let other = dir.path().join("other.sqlite");
    let quotient = cli_json(&[
        "quotient",
        "--game",
        "nim",
        "--max-heap",
        "10",
        "--json",
        "--db",
        other.to_str().unwrap(),
    ]);
    let products = wait_picture(&c, "quotient", "nim").await;
    check_quotient_picture(&c, &quotient, &products).await;
    let losses = wait_picture(&c, "slice", "nim|misere|").await;
    assert_eq!(losses, slice_losses(&db_str, "nim", true, 30, None));
    // A third heap held fixed: the slice [a, b, 5].
    c.execute(
        "const f = document.getElementById('slice-fixed'); f.value = '5'; f.dispatchEvent(new Event('change'));",
        vec![],
    )
    .await
    .unwrap();
    let losses = wait_picture(&c, "slice", "nim|misere|5").await;
    assert_eq!(losses, slice_losses(&db_str, "nim", true, 30, Some(5)));
    assert!(text(&c, "#picture-slice figcaption").await.starts_with("P-positions [a, b, 5] of nim (misère)"));
    c.execute(
        "const f = document.getElementById('slice-fixed'); f.value = ''; f.dispatchEvent(new Event('change'));",
        vec![],
    )
    .await
    .unwrap();

    // Wythoff's game: no nim-sequence and no quotient (said in words), its P-positions are
    // Wythoff's pairs, and clicking one goes there.
    c.goto(&format!("{}/?game=wythoff&convention=normal&position=4,2", server.url())).await.unwrap();
    assert!(wait_picture(&c, "sequence", "wythoff").await.is_empty());
    assert!(text(&c, "#picture-sequence figcaption").await.contains("not a sum of independent heaps"));
    assert!(wait_picture(&c, "quotient", "wythoff").await.is_empty());
    assert!(text(&c, "#picture-quotient figcaption").await.contains("not an octal game"));
    let losses = wait_picture(&c, "slice", "wythoff|normal|").await;
    assert_eq!(losses, slice_losses(&db_str, "wythoff", false, 30, None));
    assert!(losses.contains(&json!("3,5")) && losses.contains(&json!("20,12")), "{losses:?}");
    c.find(Locator::Css("#picture-slice rect.loss[data-position='3,5']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[5, 3]").await;
    assert_eq!(text(&c, "#outcome").await, "loss");

    // The families with their own position space: a staircase drawn step by step (top
    // first), its answer the command line's, its winning move played from the list; the
    // loopy raise:3's draw shown as a draw with its drawing moves; no heap-game pictures.
    // Solved while the server runs: its sessions see the commit.
    common::ok(&[
        "solve",
        "--game",
        "staircase",
        "--max-total",
        "30",
        "--max-heaps",
        "5",
        "-q",
        "--db",
        &db_str,
    ]);
    c.goto(&format!("{}/?game=staircase&convention=normal&position=3,0,2,5", server.url())).await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[3, 0, 2, 5]").await;
    let want = query_game(&db_str, "staircase", "normal", "3,0,2,5");
    assert_eq!(text(&c, "#outcome").await, want["outcome"].as_str().unwrap());
    assert_eq!(want["source"], "database");
    assert_eq!(text(&c, "#remoteness").await, want["remoteness"].to_string());
    assert_eq!(text(&c, "#source").await, source_text_of(&want));
    let steps = c.find_all(Locator::Css("#heaps .size.step")).await.unwrap();
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[0].text().await.unwrap(), "step 4: 5");
    assert_eq!(count(&c, "#heaps .mark.still").await, 10);
    assert_eq!(count(&c, "#moves li.move").await, want["moves"].as_array().unwrap().len());
    let first = c.find(Locator::Css("#moves li.move.winning")).await.unwrap();
    let to = first.attr("data-to").await.unwrap().unwrap();
    first.click().await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == format!("[{}]", to.replace(',', ", "))).await;
    assert_eq!(text(&c, "#outcome").await, "loss");
    // One note for the three pictures (not one a figure), and the figures with the slice's
    // third-heap box hidden.
    let note = wait_text(&c, "#pictures-note", |t| t.contains("heap games")).await;
    assert!(note.contains("staircase"), "{note}");
    let shown = c
        .execute("return document.getElementById('slice-fixed').offsetParent !== null", vec![])
        .await
        .unwrap();
    assert_eq!(shown, json!(false), "the third-heap box is hidden");
    let page = c.execute("return document.body.innerText", vec![]).await.unwrap();
    assert_eq!(page.as_str().unwrap().matches("The pictures are of heap games").count(), 1);
    c.goto(&format!("{}/?game=raise:3&convention=normal&position=2,1", server.url())).await.unwrap();
    wait_text(&c, "#shown-position", |t| t.trim() == "[2, 1]").await;
    let want = query_game(&db_str, "raise:3", "normal", "2,1");
    assert_eq!(want["outcome"], "draw");
    let outcome = c.find(Locator::Css("#outcome.draw")).await.unwrap();
    assert_eq!(outcome.text().await.unwrap(), "draw");
    let drawing = want["moves"].as_array().unwrap().iter().filter(|m| m["outcome"] == "draw").count();
    assert_eq!(count(&c, "#moves li.move.drawing").await, drawing);
    assert!(drawing > 0);

    // Dawson's Kayles: its nim-sequence's period (34 from heap 53) is proven past heap 120, so
    // the page asks for more than it draws; a misère position nothing answers says so in the
    // verdict rather than keeping "…".
    c.goto(&format!("{}/?game=dawson&convention=normal&position=5,3", server.url())).await.unwrap();
    let caption =
        wait_text(&c, "#picture-sequence figcaption", |t| t.starts_with("nim-sequence of dawson")).await;
    assert!(caption.contains("heaps 0..120: period 34 from heap 53 (proven)"), "{caption}");
    assert!(wait_picture(&c, "sequence", "dawson").await.len() == 121);
    c.goto(&format!("{}/?game=dawson&convention=misere&position=200,200", server.url())).await.unwrap();
    let error = wait_text(&c, "#error", |t| !t.is_empty()).await;
    assert!(error.contains("200"), "{error}");
    assert_eq!(text(&c, "#verdict").await, "no answer for this position");

    // A screenshot of a position with its moves: a PNG that is not blank.
    c.goto(&format!("{}/?game=nim&convention=normal&position=7,5,3", server.url())).await.unwrap();
    wait_text(&c, "#outcome", |t| !t.is_empty()).await;
    let png = c.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert!(info.width >= 600 && info.height >= 400, "{}x{}", info.width, info.height);
    let mut colours = std::collections::HashSet::new();
    for px in pixels[..info.buffer_size()].chunks(info.color_type.samples()) {
        colours.insert(px.to_vec());
        if colours.len() > 50 {
            break;
        }
    }
    assert!(colours.len() > 50, "the screenshot is blank ({} colours)", colours.len());
    if let Ok(path) = std::env::var("NIMDB_SCREENSHOT") {
        std::fs::write(path, &png).unwrap();
    }
    c.close().await.unwrap();
    drop(driver);
    assert!(server.stop().0.success());
}
