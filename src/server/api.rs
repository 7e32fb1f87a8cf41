//! Request parsing and errors of the HTTP API, kept free of I/O so they can be fuzzed.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::answer::Listing;
use crate::batch::LookupError;
use crate::game::{Convention, Game, GameSpec};

/// The most positions one `POST /api/v1/query` may ask about.
pub const MAX_BATCH: usize = 10_000;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 2 << 20;

/// The largest `up_to` of `GET /api/v1/heaps`.
pub const MAX_HEAPS_UP_TO: u64 = 20_000;

/// An error answer: an HTTP status and a message, sent as `{"error": …, "status": …}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status (4xx for the client's mistakes, 5xx for the server's).
    pub status: u16,
    /// What went wrong, in words.
    pub message: String,
}

impl ApiError {
    /// A 400 Bad Request.
    pub fn bad(message: impl Into<String>) -> Self {
        ApiError { status: 400, message: message.into() }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        json!({ "error": self.message, "status": self.status })
    }
}

impl From<LookupError> for ApiError {
    fn from(e: LookupError) -> Self {
        let status = match &e {
            LookupError::BadPosition(_) => 400,
            LookupError::NotCovered { .. } | LookupError::Beyond(_) => 404,
            LookupError::TooLarge(_) => 422,
            LookupError::TooCostly(m) => {
                return ApiError { status: 422, message: format!("{m} (this server's --cpu-limit)") };
            }
            LookupError::Store(_) | LookupError::Quotient(_) => 500,
            LookupError::Deferred | LookupError::Stopped => 503,
            LookupError::Space(e) => return ApiError::from_space(e),
        };
        ApiError { status, message: e.to_string() }
    }
}

/// A parsed `GET /api/v1/query`.
#[derive(Clone, Debug)]
pub struct QueryRequest {
    /// The game (any game).
    pub game: Game,
    /// The convention.
    pub convention: Convention,
    /// The position, in the game's canonical form (a heap game's heaps up to `u64::MAX`).
    pub position: Vec<u64>,
    /// Every move, or the best one only (`moves=false`).
    pub listing: Listing,
}

/// A parsed `POST /api/v1/query`.
#[derive(Clone, Debug)]
pub struct BatchRequest {
    /// The game (any game).
    pub game: Game,
    /// The convention.
    pub convention: Convention,
    /// Every move of each position, or the best one only (`moves=false`, or `"moves":
    /// false` in the body).
    pub listing: Listing,
    /// The positions, in order (heaps up to `u64::MAX`), each with the JSON it was given as;
    /// one that is not a position is its own error (400), and the rest are still answered.
    pub positions: Vec<BatchItem>,
}

/// One position of a batch: the JSON it was given as, and the position or why it is not one.
#[derive(Clone, Debug)]
pub struct BatchItem {
    /// The JSON value as sent.
    pub given: Value,
    /// The position in the game's canonical form, or a 400.
    pub position: Result<Vec<u64>, ApiError>,
}

impl BatchItem {
    /// The error object a batch answers for this item at `index` when it is not a
    /// position: `{"index", "position" (as given), "error", "status"}`.
    pub fn error(&self, index: usize, e: &ApiError) -> Value {
        json!({ "index": index, "position": self.given, "error": e.message, "status": e.status })
    }
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn percent_decode(s: &str) -> Result<String, ApiError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let (Some(h), Some(l)) =
                    (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex))
                else {
                    return Err(ApiError::bad("bad percent-encoding in the query string"));
                };
                out.push(h * 16 + l);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| ApiError::bad("the query string is not UTF-8"))
}

/// Splits a query string into its parameters (percent-decoded; a repeated name is an error).
pub fn parse_query_string(raw: Option<&str>) -> Result<HashMap<String, String>, ApiError> {
    let mut params = HashMap::new();
    for pair in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (percent_decode(k)?, percent_decode(v)?);
        if params.insert(k.clone(), v).is_some() {
            return Err(ApiError::bad(format!("parameter '{k}' given twice")));
        }
    }
    Ok(params)
}

/// Any game named by `game` (default `nim`): what a query takes.
pub fn parse_any_game(params: &HashMap<String, String>) -> Result<Game, ApiError> {
    let name = params.get("game").map_or("nim", String::as_str);
    // `defined:NAME`, a game defined in Python, is found by its stored solve.
    Game::parse_stored(name).map_err(|e| ApiError::bad(format!("unknown game '{name}': {e}")))
}

/// The heap game named by `game` (default `nim`): what the heap-value, slice and quotient
/// requests take.
pub fn parse_game(params: &HashMap<String, String>) -> Result<GameSpec, ApiError> {
    let name = params.get("game").map_or("nim", String::as_str);
    crate::game::parse_heap_game(name).map_err(|e| ApiError::bad(format!("unknown game '{name}': {e}")))
}

/// The convention named by `convention`: `normal` (default) or `misere`.
pub fn parse_convention(params: &HashMap<String, String>) -> Result<Convention, ApiError> {
    match params.get("convention").map(String::as_str) {
        None | Some("normal") => Ok(Convention::Normal),
        Some("misere") | Some("misère") => Ok(Convention::Misere),
        Some(other) => Err(ApiError::bad(format!("unknown convention '{other}' (normal or misere)"))),
    }
}

/// The move listing asked for by `moves`: `true` (default) lists every move, `false` the
/// best move only.
pub fn parse_moves(value: Option<&str>) -> Result<Listing, ApiError> {
    match value {
        None | Some("true") => Ok(Listing::All),
        Some("false") => Ok(Listing::BestOnly),
        Some(other) => Err(ApiError::bad(format!("bad moves '{other}': true or false"))),
    }
}

/// A position of `game` from text: `9,4`, `9 4` or `[9,4]` (a heap game's heaps up to
/// `u64::MAX`), read by the command line's rules.
pub fn parse_position(game: &Game, text: &str) -> Result<Vec<u64>, ApiError> {
    game.read_position(&[text]).map_err(|e| ApiError::bad(position_words(e)))
}

/// A refused position in the API's words: every message begins "bad position".
fn position_words(e: crate::game::BadPosition) -> String {
    match e {
        crate::game::BadPosition::HeapList(e) => format!("bad position: {e}"),
        family => family.to_string(),
    }
}

/// A position of `game` from JSON: an array of counts, or a string as [`parse_position`]
/// takes.
pub fn position_from_json(game: &Game, v: &Value) -> Result<Vec<u64>, ApiError> {
    match v {
        Value::String(s) => parse_position(game, s),
        Value::Array(items) => {
            let mut heaps = Vec::with_capacity(items.len());
            for item in items {
                let h = item.as_u64().ok_or_else(|| {
                    ApiError::bad(format!("bad count {item}: counts are integers 0..={}", u64::MAX))
                })?;
                heaps.push(h);
            }
            // The same checks as text input (count, the family's rules).
            let text = heaps.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            parse_position(game, &format!("[{text}]"))
        }
        _ => Err(ApiError::bad("a position is an array of counts or a string such as \"9,4\"")),
    }
}

/// Parses `GET /api/v1/query?game=…&convention=…&position=…[&moves=false]`.
pub fn parse_query_request(raw: Option<&str>) -> Result<QueryRequest, ApiError> {
    let params = parse_query_string(raw)?;
    if let Some(unknown) =
        params.keys().find(|k| !["game", "convention", "position", "moves"].contains(&k.as_str()))
    {
        return Err(ApiError::bad(format!(
            "unknown parameter '{unknown}' (game, convention, position, moves)"
        )));
    }
    let game = parse_any_game(&params)?;
    let convention = parse_convention(&params)?;
    let listing = parse_moves(params.get("moves").map(String::as_str))?;
    let position = parse_position(
        &game,
        params.get("position").ok_or_else(|| {
            ApiError::bad(format!(
                "missing parameter 'position' (e.g. position={})",
                game.example_position().replace(' ', ",")
            ))
        })?,
    )?;
    Ok(QueryRequest { game, convention, position, listing })
}

impl ApiError {
    /// The HTTP status of a family's failure to answer.
    fn from_space(e: &crate::space::SpaceError) -> Self {
        use crate::space::SpaceError as E;
        let status = match e {
            E::NotStored { .. } | E::NotCovered { .. } | E::NoSolve(..) => 404,
            _ => 500,
        };
        ApiError { status, message: e.to_string() }
    }
}

/// Parses `POST /api/v1/query`: the body is a JSON array of positions (game, convention and
/// moves from the query string), or an object `{"game", "convention", "moves", "positions"}`
/// (a field also in the query string must agree with it; any other field is refused). A position that does
/// not parse is not an error of the request: it is kept as its item's error.
pub fn parse_batch_request(raw_query: Option<&str>, body: &[u8]) -> Result<BatchRequest, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError {
            status: 413,
            message: format!("the body is larger than {MAX_BODY_BYTES} bytes"),
        });
    }
    let mut params = parse_query_string(raw_query)?;
    if let Some(unknown) = params.keys().find(|k| !["game", "convention", "moves"].contains(&k.as_str())) {
        return Err(ApiError::bad(format!("unknown parameter '{unknown}' (game, convention, moves)")));
    }
    let value: Value =
        serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("the body is not JSON: {e}")))?;
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut map) => {
            for key in ["game", "convention"] {
                match map.remove(key) {
                    Some(Value::String(s)) => set_once(&mut params, key, s)?,
                    Some(_) => return Err(ApiError::bad(format!("'{key}' must be a string"))),
                    None => {}
                }
            }
            match map.remove("moves") {
                Some(Value::Bool(b)) => set_once(&mut params, "moves", b.to_string())?,
                Some(_) => return Err(ApiError::bad("'moves' must be true or false")),
                None => {}
            }
            let items = match map.remove("positions") {
                Some(Value::Array(items)) => items,
                _ => return Err(ApiError::bad("the body needs 'positions': an array of positions")),
            };
            if let Some(unknown) = map.keys().next() {
                return Err(ApiError::bad(format!(
                    "unknown field '{unknown}' in the body (game, convention, moves, positions)"
                )));
            }
            items
        }
        _ => {
            return Err(ApiError::bad(
                "the body must be an array of positions or an object with 'positions'",
            ));
        }
    };
    if items.len() > MAX_BATCH {
        return Err(ApiError {
            status: 413,
            message: format!("{} positions in one request; at most {MAX_BATCH}", items.len()),
        });
    }
    let game = parse_any_game(&params)?;
    let convention = parse_convention(&params)?;
    let listing = parse_moves(params.get("moves").map(String::as_str))?;
    let positions = items
        .into_iter()
        .enumerate()
        .map(|(i, given)| {
            let position = position_from_json(&game, &given)
                .map_err(|e| ApiError::bad(format!("position {i}: {}", e.message)));
            BatchItem { given, position }
        })
        .collect();
    Ok(BatchRequest { game, convention, listing, positions })
}

/// Sets `key` from the body, refusing a different value given in the query string.
fn set_once(params: &mut HashMap<String, String>, key: &str, value: String) -> Result<(), ApiError> {
    match params.get(key) {
        Some(given) if *given != value => Err(ApiError::bad(format!(
            "'{key}' is given twice, as '{given}' in the query string and as '{value}' in the body"
        ))),
        _ => {
            params.insert(key.to_string(), value);
            Ok(())
        }
    }
}

/// Parses `GET /api/v1/heaps?game=…&up_to=…`.
pub fn parse_heaps_request(raw: Option<&str>) -> Result<(GameSpec, u64), ApiError> {
    let params = parse_query_string(raw)?;
    let game = parse_game(&params)?;
    let up_to = match params.get("up_to") {
        None => 40,
        Some(s) => s
            .parse::<u64>()
            .ok()
            .filter(|&n| n <= MAX_HEAPS_UP_TO)
            .ok_or_else(|| ApiError::bad(format!("bad up_to '{s}': a number 0..={MAX_HEAPS_UP_TO}")))?,
    };
    Ok((game, up_to))
}

/// The largest `size` of `GET /api/v1/slice`: the positions [a, b, …] with a, b ≤ size,
/// (size + 1)² of them.
pub const MAX_SLICE_SIZE: u32 = 64;

/// The most fixed heaps a slice may add to [a, b], and the largest of them.
pub const MAX_SLICE_FIXED: usize = 2;

/// The largest quotient `GET /api/v1/quotient` sends or computes, in elements (its table
/// has the square of this many entries).
pub const MAX_QUOTIENT_ELEMENTS: usize = 256;

/// The most heaps `GET /api/v1/quotient` computes a quotient of (`max_heap`, or the heaps
/// an open-ended computation may grow to while looking for a period).
pub const MAX_QUOTIENT_HEAPS: u32 = 300;

/// How long `GET /api/v1/quotient` may compute one quotient.
pub const QUOTIENT_SECONDS: u64 = 10;

/// A parsed `GET /api/v1/slice`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceRequest {
    /// The game.
    pub game: GameSpec,
    /// The convention.
    pub convention: Convention,
    /// The positions are [a, b, fixed…] for 0 ≤ a, b ≤ size.
    pub size: u32,
    /// Heaps held fixed (none for the two-heap slice).
    pub fixed: Vec<u32>,
}

/// Refuses any parameter not in `known`.
fn only(params: &HashMap<String, String>, known: &[&str]) -> Result<(), ApiError> {
    match params.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(ApiError::bad(format!("unknown parameter '{unknown}' ({})", known.join(", ")))),
        None => Ok(()),
    }
}

/// Parses `GET /api/v1/slice?game=…&convention=…&size=N[&fixed=H[,H]]`: `size` 1..=64
/// (default 30), at most two fixed heaps, each at most 64.
pub fn parse_slice_request(raw: Option<&str>) -> Result<SliceRequest, ApiError> {
    let params = parse_query_string(raw)?;
    only(&params, &["game", "convention", "size", "fixed"])?;
    let game = parse_game(&params)?;
    let convention = parse_convention(&params)?;
    let size = match params.get("size") {
        None => 30,
        Some(s) => s.parse::<u32>().ok().filter(|n| (1..=MAX_SLICE_SIZE).contains(n)).ok_or_else(|| {
            ApiError::bad(format!(
                "bad size '{s}': a number 1..={MAX_SLICE_SIZE} (the slice has (size + 1)² positions)"
            ))
        })?,
    };
    let fixed = match params.get("fixed").map(|s| s.trim()) {
        None | Some("") => Vec::new(),
        Some(s) => {
            let heaps = s
                .split(',')
                .map(|h| h.trim().parse::<u32>().ok().filter(|&h| h <= MAX_SLICE_SIZE))
                .collect::<Option<Vec<u32>>>()
                .filter(|h| h.len() <= MAX_SLICE_FIXED)
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "bad fixed '{s}': at most {MAX_SLICE_FIXED} heaps, each 0..={MAX_SLICE_SIZE}, as 5 or 5,3"
                    ))
                })?;
            heaps.into_iter().filter(|&h| h > 0).collect()
        }
    };
    Ok(SliceRequest { game, convention, size, fixed })
}

/// Parses `GET /api/v1/quotient?game=…[&max_heap=N]`: an octal game (400 otherwise), and
/// `max_heap` 1..=300 when given.
pub fn parse_quotient_request(raw: Option<&str>) -> Result<(GameSpec, Option<u32>), ApiError> {
    let params = parse_query_string(raw)?;
    only(&params, &["game", "max_heap"])?;
    let game = parse_game(&params)?;
    if game.octal().is_none() {
        return Err(ApiError::bad(format!(
            "{game} is not an octal game: misère quotients are computed for octal codes only"
        )));
    }
    let max_heap = match params.get("max_heap") {
        None => None,
        Some(s) => {
            Some(s.parse::<u32>().ok().filter(|n| (1..=MAX_QUOTIENT_HEAPS).contains(n)).ok_or_else(|| {
                ApiError::bad(format!("bad max_heap '{s}': a number 1..={MAX_QUOTIENT_HEAPS}"))
            })?)
        }
    };
    Ok((game, max_heap))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A family's position over HTTP follows the command line's rules for a list: `3,0,2,5`,
    /// `3 0 2 5` or `[3,0,2,5]`, no comma without a count, no brackets inside (it took
    /// `1,,2` and `[[1]]`, which the command line refuses).
    #[test]
    fn a_family_s_position_is_read_as_the_command_line_reads_it() {
        let position = |text: &str| parse_query_request(Some(&format!("game=staircase&position={text}")));
        for good in ["3,0,2,5", "3%200%202%205", "[3,0,2,5]", "%5B3,%200,2,5%5D"] {
            let r = position(good).unwrap();
            assert_eq!(r.position, vec![3, 0, 2, 5], "{good}");
        }
        assert_eq!(position("[]").unwrap().position, Vec::<u64>::new());
        for bad in ["1,,2", "[[1]]", "1,", ",1", "[1", "1]", "-1", "x", ""] {
            let e = position(bad).map(|_| ()).unwrap_err();
            assert_eq!(e.status, 400, "{bad}");
            assert!(e.message.starts_with("bad position"), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn slices_are_bounded_and_refused_in_words() {
        let r = parse_slice_request(Some("game=wythoff&size=40&fixed=5")).unwrap();
        assert_eq!((r.game.canonical(), r.size, r.fixed), ("wythoff".to_string(), 40, vec![5]));
        let r = parse_slice_request(None).unwrap();
        assert_eq!((r.size, r.fixed.len(), r.convention), (30, 0, Convention::Normal));
        assert_eq!(parse_slice_request(Some("fixed=0")).unwrap().fixed, Vec::<u32>::new());
        for bad in ["size=65", "size=0", "size=x", "fixed=65", "fixed=1,2,3", "fixed=a", "rows=3"] {
            let e = parse_slice_request(Some(bad)).unwrap_err();
            assert_eq!(e.status, 400, "{bad}");
        }
        assert!(parse_slice_request(Some("size=65")).unwrap_err().message.contains("1..=64"));
    }

    #[test]
    fn quotients_are_asked_of_octal_games_within_the_limit() {
        assert_eq!(parse_quotient_request(Some("game=kayles")).unwrap().1, None);
        assert_eq!(parse_quotient_request(Some("game=dawson&max_heap=20")).unwrap().1, Some(20));
        let e = parse_quotient_request(Some("game=wythoff")).unwrap_err();
        assert!(e.status == 400 && e.message.contains("not an octal game"), "{e:?}");
        for bad in ["game=kayles&max_heap=301", "game=kayles&max_heap=0", "game=kayles&misere=1"] {
            assert_eq!(parse_quotient_request(Some(bad)).unwrap_err().status, 400, "{bad}");
        }
    }
}
