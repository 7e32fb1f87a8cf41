//! The web explorer in a real browser: headless Chromium driven through chromedriver
//! (WebDriver) loads a position, clicks a winning move, checks the shown outcome against
//! the database, goes back and forward, plays a move against the computer, shows a misère
//! Kayles position from the stored misère quotient (stored while the server runs) and a
//! Nim_2 position with heaps beyond 2⁵³ from Moore's theorem, and takes a screenshot that
//! must be a non-blank PNG.
//!
//! Skipped, with a notice, only when `chromium` or `chromedriver` cannot be found (`.ci/run`
//! installs Debian's `chromium` and `chromium-driver`). Set `NIMDB_SCREENSHOT=FILE` to keep
//! the screenshot.
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explorer_in_headless_chromium() {
    let (Some(chromium), Some(chromedriver)) =
        (find(&["chromium", "chromium-browser", "google-chrome"]), find(&["chromedriver"]))
    else {
        common::skip_without("chromium or chromedriver is not installed");
        return;
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
