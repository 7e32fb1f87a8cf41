//! Fuzzing the HTTP API's parsing: arbitrary query strings and bodies never panic and are
//! refused with a 4xx, or parse; a live server answers them all below 500 (the query, slice
//! and quotient endpoints).
#![cfg(feature = "server")]

mod common;
mod serve_common;

use nimdb::server::api::{
    parse_batch_request, parse_heaps_request, parse_query_request, parse_quotient_request,
    parse_slice_request,
};
use proptest::prelude::*;

/// Query strings built from the pieces that matter, plus noise.
fn query_string() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("game".to_string()),
        Just("convention".to_string()),
        Just("position".to_string()),
        Just("up_to".to_string()),
        Just("moves".to_string()),
        Just("size".to_string()),
        Just("fixed".to_string()),
        Just("max_heap".to_string()),
        "[a-z%&=+]{0,6}",
    ];
    let value = prop_oneof![
        Just("nim".to_string()),
        Just("kayles".to_string()),
        Just("octal:0.77".to_string()),
        Just("misere".to_string()),
        Just("false".to_string()),
        "[0-9, \\[\\]%+-]{0,24}",
        "\\PC{0,12}",
        "%[0-9A-Fa-f]{0,2}",
        "[0-9]{1,12}",
    ];
    prop::collection::vec((key, value), 0..5)
        .prop_map(|pairs| pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&"))
}

fn json_body() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        Just(serde_json::json!(null)),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u32>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(|f| serde_json::json!(f)),
        "\\PC{0,10}".prop_map(serde_json::Value::from),
        Just(serde_json::json!("nim")),
        Just(serde_json::json!(false)),
    ];
    let value = leaf.prop_recursive(3, 40, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("game".to_string()),
                    Just("positions".to_string()),
                    Just("convention".to_string()),
                    Just("moves".to_string()),
                    "[a-z]{1,5}"
                ],
                inner,
                0..4
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    prop_oneof![
        value.prop_map(|v| serde_json::to_vec(&v).unwrap()),
        prop::collection::vec(any::<u8>(), 0..64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn query_strings_parse_or_are_4xx(q in query_string(), raw in "\\PC{0,40}") {
        for s in [q.as_str(), raw.as_str()] {
            if let Err(e) = parse_query_request(Some(s)) {
                prop_assert!((400..500).contains(&e.status), "{s:?}: {e:?}");
            }
            if let Err(e) = parse_heaps_request(Some(s)) {
                prop_assert!((400..500).contains(&e.status), "{s:?}: {e:?}");
            }
            if let Err(e) = parse_slice_request(Some(s)) {
                prop_assert!((400..500).contains(&e.status), "{s:?}: {e:?}");
            }
            if let Err(e) = parse_quotient_request(Some(s)) {
                prop_assert!((400..500).contains(&e.status), "{s:?}: {e:?}");
            }
        }
    }

    #[test]
    fn bodies_parse_or_are_4xx(q in query_string(), body in json_body()) {
        if let Err(e) = parse_batch_request(Some(&q), &body) {
            prop_assert!((400..500).contains(&e.status), "{q:?} {body:?}: {e:?}");
        }
    }
}

#[test]
fn live_server_never_answers_5xx_to_fuzz() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fuzz.sqlite");
    common::ok(&["solve", "--game", "kayles", "--max-total", "12", "--db", db.to_str().unwrap()]);
    let server = serve_common::Server::start(&db, &[]);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(300));
    runner
        .run(&(query_string(), json_body()), |(q, body)| {
            let q: String = q.chars().filter(|c| c.is_ascii_graphic()).collect();
            let (status, text) = server.get(&format!("/api/v1/query?{q}"));
            prop_assert!(status < 500, "GET ?{q}: {status} {text}");
            let (status, text) = server.request("POST", &format!("/api/v1/query?{q}"), &body);
            prop_assert!(status < 500, "POST ?{q}: {status} {text}");
            for picture in ["slice", "quotient"] {
                let (status, text) = server.get(&format!("/api/v1/{picture}?{q}"));
                prop_assert!(status < 500, "GET {picture}?{q}: {status} {text}");
            }
            Ok(())
        })
        .unwrap();
    assert!(server.stop().0.success());
}
