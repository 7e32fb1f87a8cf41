//! What the player types: commands and moves, parsed and then checked against the rules.
//!
//! Heaps are named by their size. A move says what one heap becomes:
//!
//! * `7 5`, `7 -> 5` or `7 → 5`: the 7-heap becomes a 5-heap;
//! * `take 2 from 7` (also `take 2 from the 7-heap`), `take all from 7`, `7 0`, `7 -> 0`;
//! * `9 -> 3 5` or `9 3 5`: the 9-heap becomes heaps of 3 and 5 (splitting games), and the
//!   words of [`Move::describe`]: `take 1 from the 9-heap, leaving 3 and 5`,
//!   `split 9 into 4 and 5`.
//!
//! * in games whose moves change several heaps at once (Moore's Nim_k, Wythoff's game),
//!   the changes separated by `;`: `7 5; 5 3` or `take 2 from 7; take 2 from 5`.
//!
//! Parsing ([`parse_request`]) only reads the words; [`resolve_move`] then checks the move
//! against the position and the rules, with a message that says what is wrong.

use crate::game::{GameSpec, HeapChange, HeapResult, Move, Position, all_moves, heap_results};

/// A line of input, read but not yet checked against the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// A move.
    Move(MoveRequest),
    /// Show the database's best move and why.
    Hint,
    /// Take back the last human move (and the computer's reply).
    Undo,
    /// Leave the game.
    Quit,
    /// Show the commands.
    Help,
    /// List the legal moves, numbered.
    Moves,
    /// A blank line.
    Nothing,
}

/// How many tokens a `take` move removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// The whole heap.
    All,
    /// This many tokens.
    Count(u32),
}

/// A move as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveRequest {
    /// The heap of size `heap` becomes exactly the heaps `parts` (zeros mean nothing).
    Becomes {
        /// The heap moved in, by size.
        heap: u32,
        /// What it becomes.
        parts: Vec<u32>,
    },
    /// Take tokens from the heap of size `heap`, optionally naming the heaps left.
    Take {
        /// The heap moved in, by size.
        heap: u32,
        /// How many tokens.
        amount: Amount,
        /// The heaps left behind, when named (`leaving 3 and 5`).
        leaving: Option<Vec<u32>>,
    },
    /// Several heaps changed in one move (`7 5; 5 3`).
    Several(Vec<MoveRequest>),
    /// The move numbered so by the `moves` listing, counting from 1 (`#3`).
    Listed(usize),
    /// The move that leads to this position, as typed (`to 3 0 1 5`): for the families
    /// with their own position space.
    Reaching(Vec<u32>),
}

/// Words that carry no meaning in a move (`take 2 from the 7-heap`).
const FILLER: &[&str] = &["the", "and", "heap", "heaps", "token", "tokens", "of", "a", "pile", "piles"];
/// Words that separate a heap from what it becomes.
const ARROWS: &[&str] = &["->", "→", "leaving", "into", "to", "becomes", "=>"];

/// Why a line typed by a player is not a request or not a legal move: one sentence for the
/// player, in the game's voice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Reads one line of input.
pub fn parse_request(line: &str) -> Result<Request, InputError> {
    parse_line(line).map_err(InputError)
}

fn parse_line(line: &str) -> Result<Request, String> {
    if line.contains(';') {
        let parts: Vec<&str> = line.split(';').filter(|p| !p.trim().is_empty()).collect();
        let mut changes = Vec::with_capacity(parts.len());
        for part in parts {
            match parse_line(part)? {
                Request::Move(m @ (MoveRequest::Becomes { .. } | MoveRequest::Take { .. })) => {
                    changes.push(m)
                }
                _ => return Err("separate the heaps of one move with ';', e.g. '7 5; 5 3'".to_string()),
            }
        }
        return match changes.len() {
            0 => Ok(Request::Nothing),
            1 => Ok(Request::Move(changes.pop().unwrap())),
            _ => Ok(Request::Move(MoveRequest::Several(changes))),
        };
    }
    let words = words(line);
    if let Some(request) = command(&words)? {
        return Ok(request);
    }
    match words[0].as_str() {
        "take" | "remove" => parse_take(&words[1..]).map(Request::Move),
        "split" => parse_split(&words[1..]).map(Request::Move),
        _ => parse_becomes(&words).map(Request::Move),
    }
}

/// A command, a blank line or a listed move (`#3`), else `None`: what every game reads
/// the same way.
fn command(words: &[String]) -> Result<Option<Request>, String> {
    let Some(first) = words.first() else {
        return Ok(Some(Request::Nothing));
    };
    let single = |r: Request| {
        if words.len() == 1 { Ok(Some(r)) } else { Err(format!("'{first}' takes no arguments")) }
    };
    match first.as_str() {
        "hint" | "h" => single(Request::Hint),
        "undo" | "u" => single(Request::Undo),
        "quit" | "exit" | "q" => single(Request::Quit),
        "help" | "?" => single(Request::Help),
        "moves" | "m" => single(Request::Moves),
        w if w.starts_with('#') => {
            let k = w[1..].parse::<usize>().ok().filter(|&k| k > 0).ok_or_else(|| {
                format!(
                    "'{}' names no move: write '#' and a number from 'moves', e.g. '#1'",
                    w.escape_debug()
                )
            })?;
            single(Request::Move(MoveRequest::Listed(k)))
        }
        _ => Ok(None),
    }
}

/// Reads one line of input for a family with its own position space, where a move is
/// named by its number in the `moves` listing (`3` or `#3`) or by the position it leads to
/// (`to 3 0 1 5`, or the counts alone, in brackets or in parentheses as a game defined in
/// Python shows its positions: `to (2, 1)`).
pub fn parse_family_request(line: &str) -> Result<Request, InputError> {
    let words: Vec<String> = line
        .to_lowercase()
        .replace("->", " -> ")
        .replace('→', " → ")
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(request) = command(&words).map_err(InputError)? {
        return Ok(request);
    }
    let (arrow, counts) = match words[0].as_str() {
        "to" | "->" | "→" => (true, &words[1..]),
        _ => (false, &words[..]),
    };
    let counts: Vec<u32> = counts.iter().map(|w| count(w)).collect::<Result<_, _>>().map_err(InputError)?;
    match (arrow, counts.as_slice()) {
        (false, [k]) if *k > 0 => Ok(Request::Move(MoveRequest::Listed(*k as usize))),
        (false, [_]) => Err(InputError("moves are numbered from 1; type 'moves' to list them".to_string())),
        _ => Ok(Request::Move(MoveRequest::Reaching(counts))),
    }
}

/// A count of a position of a family as typed.
fn count(word: &str) -> Result<u32, String> {
    word.parse().map_err(|_| {
        let word = crate::game::echo(word, 20);
        format!(
            "I don't understand '{word}': type a move's number from 'moves', or the position it leads to (type 'help')"
        )
    })
}

/// Lower-cased words, with `->`/`→` split off, commas and `-heap` suffixes dropped, and
/// filler words removed.
fn words(line: &str) -> Vec<String> {
    line.to_lowercase()
        .replace("->", " -> ")
        .replace('→', " → ")
        .replace("=>", " => ")
        .split(|c: char| c.is_whitespace() || c == ',' || c == ':' || c == '[' || c == ']')
        .map(|w| w.strip_suffix("-heap").unwrap_or(w).trim_end_matches(['.', '!']))
        .filter(|w| !w.is_empty() && !FILLER.contains(w))
        .map(str::to_string)
        .collect()
}

fn is_arrow(word: &str) -> bool {
    ARROWS.contains(&word)
}

/// A heap size or part as typed.
fn number(word: &str) -> Result<u32, String> {
    if word.chars().all(|c| c.is_ascii_digit()) {
        word.parse().map_err(|_| format!("{} is far too large", crate::game::echo(word, 40)))
    } else if word.starts_with('-') && word[1..].chars().all(|c| c.is_ascii_digit()) && word.len() > 1 {
        Err(format!("heap sizes are never negative ({})", crate::game::echo(word, 40)))
    } else {
        let word = crate::game::echo(word, 40);
        Err(format!("I don't understand '{word}'; type 'help' for the commands and the ways to write a move"))
    }
}

/// The numbers after an optional arrow: what a heap becomes.
fn parts(words: &[String], heap: u32) -> Result<Vec<u32>, String> {
    let rest = match words.first() {
        Some(w) if is_arrow(w) => &words[1..],
        _ => words,
    };
    if rest.is_empty() {
        return Err(format!("say what the {heap}-heap becomes, e.g. '{heap} {}'", heap.saturating_sub(1)));
    }
    rest.iter().map(|w| number(w)).collect()
}

/// `H [->] A [B]`.
fn parse_becomes(words: &[String]) -> Result<MoveRequest, String> {
    let heap = number(&words[0])?;
    Ok(MoveRequest::Becomes { heap, parts: parts(&words[1..], heap)? })
}

/// `split H into A B`.
fn parse_split(words: &[String]) -> Result<MoveRequest, String> {
    let Some(first) = words.first() else {
        return Err("split which heap? e.g. 'split 9 into 4 5'".to_string());
    };
    let heap = number(first).map_err(|_| format!("split which heap? '{first}' is not a heap size"))?;
    Ok(MoveRequest::Becomes { heap, parts: parts(&words[1..], heap)? })
}

/// `take N from H [leaving A B]`, `take all [N] from H`.
fn parse_take(words: &[String]) -> Result<MoveRequest, String> {
    const USAGE: &str = "write 'take 2 from 7' or 'take all from 7'";
    let from = words.iter().position(|w| w == "from").ok_or_else(|| USAGE.to_string())?;
    let amount = match &words[..from] {
        [all] if all == "all" => Amount::All,
        [all, n] if all == "all" => {
            number(n)?;
            Amount::All
        }
        [n] => Amount::Count(number(n)?),
        _ => return Err(USAGE.to_string()),
    };
    let after = &words[from + 1..];
    let Some(heap_word) = after.first() else {
        return Err(USAGE.to_string());
    };
    let heap = number(heap_word)?;
    let leaving = match after.get(1) {
        None => None,
        Some(_) => Some(parts(&after[1..], heap)?),
    };
    Ok(MoveRequest::Take { heap, amount, leaving })
}

/// The heap result for heaps `parts` (zeros dropped): nothing, or one to three heaps.
fn result_of(parts: &[u32]) -> Result<HeapResult, String> {
    HeapResult::from_parts(parts).ok_or_else(|| "one move turns a heap into at most three heaps".to_string())
}

/// Checks a typed move against the position and the rules, and returns the move it means.
pub fn resolve_move(request: &MoveRequest, game: &GameSpec, position: &Position) -> Result<Move, InputError> {
    resolve_request(request, game, position).map_err(InputError)
}

fn resolve_request(request: &MoveRequest, game: &GameSpec, position: &Position) -> Result<Move, String> {
    let MoveRequest::Several(requests) = request else {
        let change = resolve_change(request, game, position)?;
        return legal(Move::single(change.heap, change.result), game, position);
    };
    let mut changes = Vec::with_capacity(requests.len());
    let mut left = position.heaps().to_vec();
    for r in requests {
        let change = resolve_change(r, game, position)?;
        match left.iter().position(|&h| h == change.heap) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => {
                return Err(format!(
                    "the move names the {}-heap more often than {position} has one",
                    change.heap
                ));
            }
        }
        changes.push(change);
    }
    legal(Move::of(changes), game, position)
}

/// The move itself if the rules allow it from `position` (or the listed move that leads
/// to the same position, however its changes were written).
fn legal(mv: Move, game: &GameSpec, position: &Position) -> Result<Move, String> {
    let moves = all_moves(game.rules(), position);
    let to = mv.apply(position);
    match moves.iter().find(|m| **m == mv).or_else(|| moves.iter().find(|m| m.apply(position) == to)) {
        Some(m) => Ok(m.clone()),
        None => Err(format!("{game} does not allow {mv}; {}", legal_from(game, mv.heap()))),
    }
}

/// One heap's change as typed, checked against the position (not yet against the rules).
fn resolve_change(request: &MoveRequest, game: &GameSpec, position: &Position) -> Result<HeapChange, String> {
    let heap = match request {
        MoveRequest::Becomes { heap, .. } | MoveRequest::Take { heap, .. } => *heap,
        MoveRequest::Several(_) => return Err("a move's changes cannot be nested".to_string()),
        MoveRequest::Listed(_) | MoveRequest::Reaching(_) => {
            return Err("a listed move or a position cannot be part of a move".to_string());
        }
    };
    if !position.heaps().contains(&heap) {
        return Err(format!("there is no {heap}-heap; the heaps are {position} (name a heap by its size)"));
    }
    let result = match request {
        MoveRequest::Becomes { parts, .. } => result_of(parts)?,
        MoveRequest::Take { amount, leaving, .. } => {
            let taken = match *amount {
                Amount::All => heap,
                Amount::Count(n) if n > heap => {
                    return Err(format!("cannot take {n} from the {heap}-heap: it has only {heap}"));
                }
                Amount::Count(n) => n,
            };
            match leaving {
                Some(parts) => {
                    let sum: u64 = parts.iter().map(|&p| p as u64).sum();
                    if sum != (heap - taken) as u64 {
                        return Err(format!(
                            "taking {taken} from the {heap}-heap leaves {} tokens, not {sum}",
                            heap - taken
                        ));
                    }
                    result_of(parts)?
                }
                None => unnamed_take(game, heap, taken)?,
            }
        }
        MoveRequest::Several(_) | MoveRequest::Listed(_) | MoveRequest::Reaching(_) => {
            unreachable!("refused above")
        }
    };
    if result.tokens() >= heap && result.parts().len() < 2 {
        return Err(format!("a move must make the {heap}-heap smaller"));
    }
    Ok(HeapChange { heap, result })
}

/// What taking `taken` tokens from `heap` leaves when the player did not name the heaps
/// left: nothing when it is the whole heap, else one heap; when the rules only allow a
/// split there, asks for the parts with an example.
fn unnamed_take(game: &GameSpec, heap: u32, taken: u32) -> Result<HeapResult, String> {
    if taken == 0 {
        return Err("a move must take at least one token".to_string());
    }
    if taken == heap {
        return Ok(HeapResult::VANISH);
    }
    let one = HeapResult::one(heap - taken);
    let Some(rules) = game.heap_rules() else {
        return Ok(one);
    };
    let results = heap_results(rules, heap);
    if !results.contains(&one)
        && let Some(split) = results.into_iter().find(|r| r.parts().len() >= 2 && r.tokens() == heap - taken)
    {
        let parts: Vec<String> = split.parts().iter().rev().map(u32::to_string).collect();
        return Err(format!(
            "in {game}, taking {taken} from the {heap}-heap splits it: say which heaps are left, e.g. 'take {taken} from {heap} leaving {}'",
            parts.join(" ")
        ));
    }
    Ok(one)
}

/// One example of each kind of move legal from `position` (one heap left, heap removed,
/// two heaps left), each as the ways to type it and what it does, e.g.
/// `("7 6  or  7 -> 6  or  take 1 from 7", "the 7-heap becomes one heap of 6")`.
pub fn move_examples(game: &GameSpec, position: &Position) -> Vec<(String, String)> {
    let moves = all_moves(game.rules(), position);
    let single = |m: &Move| m.single_change();
    let first = |kind: fn(&HeapResult) -> bool| {
        moves.iter().filter_map(single).find(|c| kind(&c.result)).map(|c| Move::single(c.heap, c.result))
    };
    let kinds: [fn(&HeapResult) -> bool; 4] =
        [|r| r.parts().len() == 1, |r| r.vanishes(), |r| r.parts().len() == 2, |r| r.parts().len() == 3];
    let several = moves.iter().find(|m| m.changes().len() > 1).cloned();
    kinds
        .into_iter()
        .filter_map(first)
        .chain(several)
        .map(|m| {
            let Some(c) = m.single_change() else {
                let typed: Vec<String> = m.changes().iter().map(|c| c.to_string()).collect();
                let words: Vec<String> =
                    m.changes().iter().map(|c| format!("take {} from {}", c.taken(), c.heap)).collect();
                return (
                    format!("{}  or  {}", typed.join("; "), words.join("; ")),
                    format!("one move changes {} heaps: {}", m.changes().len(), m.describe(position)),
                );
            };
            let (h, k) = (c.heap, c.taken());
            let shown: Vec<String> = c.result.parts().iter().rev().map(u32::to_string).collect();
            let shown = shown.join(" ");
            match c.result.parts() {
                [a] => (
                    format!("{h} {a}  or  {h} -> {a}  or  take {k} from {h}"),
                    format!("the {h}-heap becomes one heap of {a}"),
                ),
                [] => (format!("{h} 0  or  take all from {h}"), format!("the {h}-heap is removed")),
                parts => {
                    let words = if k == 0 {
                        format!("split {h} into {shown}")
                    } else {
                        format!("take {k} from {h} leaving {shown}")
                    };
                    let names: Vec<String> = parts.iter().rev().map(u32::to_string).collect();
                    (
                        format!("{h} -> {shown}  or  {words}"),
                        format!("the {h}-heap becomes heaps of {}", names.join(" and ")),
                    )
                }
            }
        })
        .collect()
}

/// The legal moves from a heap, briefly: "from the 7-heap you may play 7 -> 6, 7 -> 5, …".
fn legal_from(game: &GameSpec, heap: u32) -> String {
    const SHOWN: usize = 8;
    let Some(rules) = game.heap_rules() else {
        return format!(
            "in {game} one move may change several heaps: write each change, separated by ';', e.g. '7 5; 5 3'"
        );
    };
    let moves: Vec<String> =
        heap_results(rules, heap).into_iter().map(|result| Move::single(heap, result).to_string()).collect();
    match moves.len() {
        0 => format!("the {heap}-heap has no moves"),
        n if n <= SHOWN => format!("from the {heap}-heap you may play {}", moves.join(", ")),
        n => format!("from the {heap}-heap you may play {}, … ({n} moves)", moves[..SHOWN].join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(game: &str, position: &str, line: &str) -> Result<String, String> {
        let game: GameSpec = game.parse().unwrap();
        let position: Position = position.parse().unwrap();
        match parse_request(line).map_err(|e| e.0)? {
            Request::Move(m) => resolve_move(&m, &game, &position).map(|mv| mv.to_string()).map_err(|e| e.0),
            other => Ok(format!("{other:?}")),
        }
    }

    #[test]
    fn reads_commands() {
        assert_eq!(parse_request("  HINT ").unwrap(), Request::Hint);
        assert_eq!(parse_request("undo").unwrap(), Request::Undo);
        assert_eq!(parse_request("quit").unwrap(), Request::Quit);
        assert_eq!(parse_request("help").unwrap(), Request::Help);
        assert_eq!(parse_request("   ").unwrap(), Request::Nothing);
        assert_eq!(parse_request("moves").unwrap(), Request::Moves);
        assert_eq!(parse_request("#2").unwrap(), Request::Move(MoveRequest::Listed(2)));
        assert!(parse_request("#0").is_err());
        assert!(parse_request("hint 3").is_err());
    }

    #[test]
    fn reads_a_family_s_moves_by_number_or_by_the_position_they_reach() {
        assert_eq!(parse_family_request("3").unwrap(), Request::Move(MoveRequest::Listed(3)));
        assert_eq!(parse_family_request("#3").unwrap(), Request::Move(MoveRequest::Listed(3)));
        let reach = Request::Move(MoveRequest::Reaching(vec![3, 0, 1, 5]));
        for line in ["to 3 0 1 5", "-> 3,0,1,5", "3 0 1 5", "→ [3, 0, 1, 5]", "to (3, 0, 1, 5)"] {
            assert_eq!(parse_family_request(line).unwrap(), reach, "{line}");
        }
        // A defined game's empty position, as its moves show it.
        assert_eq!(parse_family_request("to ()").unwrap(), Request::Move(MoveRequest::Reaching(vec![])));
        assert_eq!(parse_family_request("hint").unwrap(), Request::Hint);
        assert!(parse_family_request("0").is_err());
        let err = parse_family_request("take 2").unwrap_err().0;
        assert!(err.starts_with("I don't understand 'take'"), "{err}");
    }

    #[test]
    fn reads_every_way_to_write_a_move() {
        for line in ["7 5", "7 -> 5", "7→5", "7->5", "take 2 from 7", "take 2 from the 7-heap", "7: 5"] {
            assert_eq!(resolve("nim", "7 4 3", line).unwrap(), "7 -> 5", "{line}");
        }
        for line in ["7 0", "7 -> 0", "take all from 7", "take all 7 from the 7-heap", "take 7 from 7"] {
            assert_eq!(resolve("nim", "7 4 3", line).unwrap(), "7 -> 0", "{line}");
        }
        for line in
            ["9 -> 3 5", "9 5 3", "9 -> 5, 3", "take 1 from the 9-heap, leaving 3 and 5", "9 -> [3,5]"]
        {
            assert_eq!(resolve("lines", "9", line).unwrap(), "9 -> 3 5", "{line}");
        }
        assert_eq!(resolve("grundy", "9", "split 9 into 4 and 5").unwrap(), "9 -> 4 5");
        assert_eq!(resolve("grundy", "9", "9 -> 4 5").unwrap(), "9 -> 4 5");
        assert_eq!(resolve("subtraction:1,2,3", "6", "take 1 from 6").unwrap(), "6 -> 5");
    }

    #[test]
    fn says_what_is_wrong() {
        for (game, position, line, needle) in [
            ("nim", "7 4 3", "9 9", "there is no 9-heap"),
            ("nim", "7 4 2", "take 5 from 2", "cannot take 5 from the 2-heap"),
            ("nim", "7 4 3", "3 -> 1 1", "nim does not allow 3 -> 1 1"),
            ("nim", "7 4 3", "banana", "I don't understand 'banana'"),
            ("nim", "7 4 3", "7 7", "must make the 7-heap smaller"),
            ("nim", "7 4 3", "7 8", "must make the 7-heap smaller"),
            ("nim", "7 4 3", "7 -> 1 1 1 1", "at most three heaps"),
            ("nim", "7 4 3", "7", "say what the 7-heap becomes"),
            ("nim", "7 4 3", "take 2", "take 2 from 7"),
            ("nim", "7 4 3", "7 -2", "never negative"),
            ("nim", "7 4 3", "99999999999 1", "far too large"),
            ("subtraction:1,2,3", "6", "6 1", "from the 6-heap you may play 6 -> 5, 6 -> 4, 6 -> 3"),
            ("kayles", "7", "7 -> 2", "kayles does not allow 7 -> 2"),
            ("kayles", "7", "take 1 from 9", "there is no 9-heap"),
            ("lines", "9", "take 1 from 9 leaving 3 4", "leaves 8 tokens, not 7"),
            ("grundy", "6", "6 -> 3 3", "grundy does not allow 6 -> 3 3"),
            ("grundy", "6", "take 1 from 6", "grundy does not allow 6 -> 5"),
        ] {
            let err = resolve(game, position, line).unwrap_err();
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn examples_are_legal_moves_of_each_kind() {
        let nim: GameSpec = "nim".parse().unwrap();
        let examples = move_examples(&nim, &"7 4".parse().unwrap());
        assert_eq!(examples[0].0, "7 6  or  7 -> 6  or  take 1 from 7");
        assert_eq!(
            examples[1],
            ("7 0  or  take all from 7".to_string(), "the 7-heap is removed".to_string())
        );
        assert_eq!(examples.len(), 2);
        let grundy: GameSpec = "grundy".parse().unwrap();
        let examples = move_examples(&grundy, &"9".parse().unwrap());
        assert_eq!(
            examples,
            [(
                "9 -> 1 8  or  split 9 into 1 8".to_string(),
                "the 9-heap becomes heaps of 1 and 8".to_string()
            )]
        );
        for game in ["kayles", "lines", "grundy", "dawson", "subtraction:1,2,3"] {
            let game: GameSpec = game.parse().unwrap();
            let position: Position = "9 5 2".parse().unwrap();
            for (forms, _) in move_examples(&game, &position) {
                for form in forms.split("  or  ") {
                    let Ok(Request::Move(m)) = parse_request(form) else { panic!("{form}") };
                    resolve_move(&m, &game, &position).unwrap_or_else(|e| panic!("{game} {form}: {e}"));
                }
            }
        }
    }

    #[test]
    fn asks_which_heaps_a_split_leaves() {
        // In octal 0.4 (take one token and split the rest in two) taking 1 always splits.
        let err = resolve("octal:0.4", "7", "take 1 from 7").unwrap_err();
        assert!(err.contains("say which heaps are left"), "{err}");
        assert_eq!(resolve("octal:0.4", "7", "take 1 from 7 leaving 2 4").unwrap(), "7 -> 2 4");
    }
}
