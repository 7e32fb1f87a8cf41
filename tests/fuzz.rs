//! Property-based fuzzing of the three parsers that take untrusted input: game specs, heap
//! lists (command line, batch lines, the HTTP API's positions) and stored tier payloads
//! (`store::codec`). Each property runs on arbitrary input (any Unicode, any bytes), on
//! input built from the grammar, and on valid input mutated (characters inserted, deleted
//! or replaced; bytes flipped), the way a coverage-guided fuzzer explores. The case counts
//! are bounded so the suite takes seconds in `cargo test --release`; set `PROPTEST_CASES`
//! to run longer.
//!
//! What must hold: nothing panics; what parses prints back to something that parses to the
//! same value; every error is one line of bounded length with no control characters.

use nimdb::batch::parse_line;
use nimdb::game::{GameSpec, Position};
use nimdb::index::TierId;
use nimdb::store::SolveKey;
use nimdb::store::codec::{
    Binding, CodecError, RecordLayout, StoredBytes, block_checksum, decode_tier, encode,
};
use proptest::prelude::*;

/// Cases per property (overridden by `PROPTEST_CASES`).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2048);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// An error message fit for one terminal line: no line breaks or other control
/// characters, and bounded whatever the input's length.
fn one_line(message: &str) {
    assert!(!message.is_empty());
    assert!(!message.chars().any(char::is_control), "control character in error: {message:?}");
    assert!(message.chars().count() <= 400, "error of {} characters: {message:?}", message.chars().count());
}

/// Strings built from the spec grammar's pieces, so most are near-valid.
fn spec_like() -> impl Strategy<Value = String> {
    let family = prop_oneof![
        Just("octal:"),
        Just("hex:"),
        Just("subtraction:"),
        Just("moore:"),
        Just(""),
        Just("nim"),
        Just("kayles"),
        Just("dawson"),
        Just("lines"),
        Just("grundy"),
        Just("wythoff"),
        Just("OCTAL:"),
        Just(" octal: "),
    ];
    let piece = prop_oneof![
        "[0-9a-fA-F]{0,6}",
        Just(".".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(" ".to_string()),
        "[0-9]{1,12}",
        Just("-".to_string()),
        any::<char>().prop_map(String::from),
    ];
    (family, prop::collection::vec(piece, 0..8)).prop_map(|(f, p)| format!("{f}{}", p.concat()))
}

/// Mutates `s`: inserts, deletes or replaces a character at a chosen place.
fn mutate(s: &str, at: usize, op: u8, c: char) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let at = if chars.is_empty() { 0 } else { at % (chars.len() + 1) };
    match op % 3 {
        0 => chars.insert(at, c),
        1 if at < chars.len() => {
            chars.remove(at);
        }
        _ if at < chars.len() => chars[at] = c,
        _ => chars.push(c),
    }
    chars.into_iter().collect()
}

/// Checks the spec parser on `text`: a parsed spec's canonical name parses to the same
/// game and is its own canonical name; a refusal is one line.
fn check_spec(text: &str) {
    match text.parse::<GameSpec>() {
        Ok(spec) => {
            let canonical = spec.canonical();
            let again: GameSpec =
                canonical.parse().unwrap_or_else(|e| panic!("{canonical:?} from {text:?}: {e}"));
            assert_eq!(again, spec, "{text:?} -> {canonical:?}");
            assert_eq!(again.canonical(), canonical);
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// Checks the heap-list parser on `text` (as one string, as a batch line and as words):
/// a parsed position prints to forms that parse back to it; a refusal is one line.
fn check_heaps(text: &str) {
    match text.parse::<Position>() {
        Ok(p) => {
            let shown = p.to_string();
            assert_eq!(shown.parse::<Position>().as_ref(), Ok(&p), "{text:?} -> {shown}");
            // The position with no heaps is written `0` (an empty list is refused).
            let words: Vec<String> = if p.heaps().is_empty() {
                vec!["0".to_string()]
            } else {
                p.heaps().iter().map(u32::to_string).collect()
            };
            assert_eq!(words.join(" ").parse::<Position>().as_ref(), Ok(&p));
            assert_eq!(Position::parse_words(&words), Ok(p.clone()));
            assert!(p.heaps().windows(2).all(|w| w[0] >= w[1]) && p.heaps().iter().all(|&h| h > 0));
        }
        Err(e) => one_line(&e.to_string()),
    }
    match parse_line(text) {
        Ok(_) => {}
        Err(e) => one_line(&e.to_string()),
    }
    let words: Vec<&str> = text.split(' ').collect();
    if let Err(e) = Position::parse_words(&words) {
        one_line(&e.to_string());
    }
    #[cfg(feature = "server")]
    if let Err(e) = nimdb::server::api::parse_position(&nimdb::game::Game::from(nimdb::GameSpec::nim()), text)
    {
        one_line(&e.message);
    }
}

fn key() -> SolveKey {
    SolveKey::from_columns("kayles".into(), "misere", None, Some(4), false)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn specs_from_arbitrary_text(text in any::<String>()) {
        check_spec(&text);
    }

    #[test]
    fn specs_from_the_grammar(text in spec_like(), at in any::<usize>(), op in any::<u8>(), c in any::<char>()) {
        check_spec(&text);
        check_spec(&mutate(&text, at, op, c));
    }

    #[test]
    fn long_specs_are_refused_in_one_short_line(piece in "[0-9a-z:.,\\[\\]\\n\\t\\x1b]{1,8}", times in 1..2000usize) {
        check_spec(&piece.repeat(times));
        check_spec(&format!("octal:{}", piece.repeat(times)));
    }

    #[test]
    fn heap_lists_from_arbitrary_text(text in any::<String>()) {
        check_heaps(&text);
    }

    #[test]
    fn heap_lists_from_the_grammar(
        heaps in prop::collection::vec(0u64..2_000_000, 0..12),
        seps in prop::collection::vec(prop_oneof![Just(" "), Just(","), Just(", "), Just("  "), Just("\t")], 12..13),
        brackets in any::<bool>(),
        at in any::<usize>(), op in any::<u8>(), c in any::<char>(),
    ) {
        let mut text = String::new();
        for (i, h) in heaps.iter().enumerate() {
            if i > 0 { text += seps[i % seps.len()]; }
            text += &h.to_string();
        }
        if brackets { text = format!("[{text}]"); }
        check_heaps(&text);
        check_heaps(&mutate(&text, at, op, c));
        // No text at all is refused (`[]` or `0` name the position with no heaps).
        if text.is_empty() {
            prop_assert!(text.parse::<Position>().is_err());
        // In range, the position is the heaps given, zeros dropped, largest first.
        } else if heaps.iter().all(|&h| h <= nimdb::game::MAX_INPUT_HEAP as u64) {
            let mut want: Vec<u32> = heaps.iter().filter(|&&h| h > 0).map(|&h| h as u32).collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            let parsed = text.parse::<Position>().unwrap();
            prop_assert_eq!(parsed.heaps(), &want[..]);
        }
    }

    #[test]
    fn payloads_round_trip(
        remoteness in prop::collection::vec(any::<u16>(), 0..9000),
        with_values in any::<bool>(),
        seed in any::<u16>(),
        total in 0u32..200, heaps in 0u32..20,
    ) {
        let nim_values: Option<Vec<u16>> =
            with_values.then(|| remoteness.iter().map(|r| r.rotate_left(3) ^ seed).collect());
        let tier = TierId { total, heaps };
        let enc = encode(&key(), tier, &remoteness, nim_values.as_deref());
        let stored = StoredBytes {
            layout: enc.layout,
            positions: remoteness.len() as u64,
            payload: &enc.payload,
            block_checksums: &enc.block_checksums,
            checksum: enc.checksum as i64,
        };
        let binding = Binding::bound(&key(), tier, &enc.layout);
        let (r, v) = decode_tier(&stored, &binding).unwrap();
        // Values wider than the layout's fields are stored whole (widths follow the maximum).
        prop_assert_eq!(r, remoteness.clone());
        prop_assert_eq!(v, nim_values);
        // Every record decodes alone to the same values.
        for (i, &want) in remoteness.iter().enumerate().step_by(97) {
            let rec = enc.layout.decode(&enc.payload, i * enc.layout.width()).unwrap();
            prop_assert_eq!(rec.remoteness, want);
        }
    }

    #[test]
    fn a_changed_byte_is_always_caught(
        remoteness in prop::collection::vec(0u16..600, 1..9000),
        at in any::<usize>(), flip in 1u8..=255,
    ) {
        let tier = TierId { total: 50, heaps: 3 };
        let enc = encode(&key(), tier, &remoteness, None);
        let mut payload = enc.payload.clone();
        let at = at % payload.len();
        payload[at] ^= flip;
        let stored = StoredBytes {
            layout: enc.layout,
            positions: remoteness.len() as u64,
            payload: &payload,
            block_checksums: &enc.block_checksums,
            checksum: enc.checksum as i64,
        };
        let binding = Binding::bound(&key(), tier, &enc.layout);
        // A CRC-32 catches every error burst of up to 32 bits: one byte is always caught,
        // in the block that holds it.
        let block = at / enc.layout.block_bytes();
        prop_assert_eq!(decode_tier(&stored, &binding), Err(CodecError::Block(block)));
    }

    #[test]
    fn arbitrary_stored_bytes_never_panic(
        rb in -2i64..5, vb in -2i64..5, br in prop_oneof![Just(0i64), Just(1), Just(4096), -5i64..100_000, any::<i64>()],
        positions in prop_oneof![0u64..10_000, any::<u64>()],
        payload in prop::collection::vec(any::<u8>(), 0..5000),
        blocks in prop::collection::vec(any::<u8>(), 0..64),
        checksum in any::<i64>(),
        offset in any::<usize>(),
    ) {
        match RecordLayout::from_columns(rb, vb, br) {
            Err(e) => one_line(&e.to_string()),
            Ok(layout) => {
                let _ = layout.decode(&payload, offset);
                let _ = layout.decode(&payload, offset % (payload.len() + 1));
                let stored = StoredBytes { layout, positions, payload: &payload, block_checksums: &blocks, checksum };
                for binding in [Binding::Plain, Binding::bound(&key(), TierId { total: 9, heaps: 2 }, &layout)] {
                    match decode_tier(&stored, &binding) {
                        Ok((r, v)) => {
                            prop_assert_eq!(r.len() as u64, positions);
                            prop_assert_eq!(v.is_some(), layout.nim_value_bytes > 0);
                        }
                        Err(e) => one_line(&e.to_string()),
                    }
                }
            }
        }
        let _ = block_checksum(&blocks, offset);
    }
}
