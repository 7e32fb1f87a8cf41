//! Game specs: the `--game` argument, parsed into rules and printed back in canonical form.

use std::fmt;
use std::str::FromStr;

use super::model::GameRules;
use super::moore::{MAX_MOORE_K, MooreRules};
use super::rule_set::Rules;
use super::rules::{CodeError, GrundyRules, HeapFamily, TakeBreakCode};
use super::wythoff::WythoffRules;

/// The largest number allowed in a subtraction set or implied by a code's length.
const MAX_SPEC_NUMBER: u32 = 10_000;

/// The most characters of a bad spec echoed back in an error.
const ECHO_LIMIT: usize = 40;

/// Why a game spec was refused. The message names the spec (shortened if long) once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad game spec '{spec}': {reason}")]
pub struct SpecError {
    spec: String,
    reason: String,
}

impl SpecError {
    pub(super) fn new(raw: &str, reason: impl fmt::Display) -> Self {
        SpecError { spec: super::echo(raw.trim(), ECHO_LIMIT), reason: reason.to_string() }
    }

    /// Why the spec was refused, without the spec itself.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// A game, identified by its rules. Two specs that describe the same rules are equal and
/// print the same canonical name (`octal:0.77` and `kayles` both print `kayles`, `moore:1`
/// prints `nim`). The database keys what it stores by the game's [storage
/// id](GameSpec::storage_id), which follows from the rules alone, so a new alias or display
/// name never orphans a stored solve.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameSpec {
    rules: Rules,
}

impl GameSpec {
    /// Nim.
    pub fn nim() -> Self {
        GameSpec { rules: Rules::Heap(HeapFamily::TakeBreak(TakeBreakCode::nim())) }
    }

    /// The game with these rules (Nim_1 is stored as Nim).
    pub fn from_rules(rules: Rules) -> Self {
        match rules {
            Rules::Moore(m) if m.k() == 1 => GameSpec::nim(),
            rules => GameSpec { rules },
        }
    }

    /// The rules, as the game model.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The heap rules, for heap games (a move replaces one heap).
    pub fn heap_rules(&self) -> Option<&HeapFamily> {
        self.rules.heap_rules()
    }

    /// The take-and-break code (octal or hexadecimal), for games that have one.
    pub fn code(&self) -> Option<&TakeBreakCode> {
        match &self.rules {
            Rules::Heap(HeapFamily::TakeBreak(c)) => Some(c),
            _ => None,
        }
    }

    /// The octal code, for octal games (Nim and subtraction games included).
    pub fn octal(&self) -> Option<&TakeBreakCode> {
        self.code().filter(|c| c.is_octal())
    }

    /// Whether this is plain Nim.
    pub fn is_nim(&self) -> bool {
        self.code() == Some(&TakeBreakCode::nim())
    }

    /// Whether this game is the disjunctive sum of its heaps (as the family declares).
    pub fn is_sum_of_heaps(&self) -> bool {
        self.rules.theory().sum_of_heaps
    }

    /// The canonical name, e.g. `nim`, `kayles`, `subtraction:1,2,3`, `octal:0.137`,
    /// `hex:0.F`, `moore:2`, `wythoff`.
    pub fn canonical(&self) -> String {
        self.to_string()
    }

    /// The storage id: what the database keys this game's solves, heap values and quotients
    /// by, and what tier checksums are bound to (schema version 7 on). It follows from the
    /// rules alone, never from a display name or alias: `v1:` (the id scheme's version),
    /// then `tb:` and the take-and-break code's digits (hexadecimal digits, so octal and
    /// hexadecimal spellings of one code agree, and subtraction games are their codes:
    /// `subtraction:1,2,3` is `v1:tb:0.333`), `grundy`, `moore:K` or `wythoff`. Nim is
    /// `v1:tb:0.[3]`, Kayles `v1:tb:0.77`.
    ///
    /// ```
    /// use nimdb_core::game::GameSpec;
    /// let kayles: GameSpec = "kayles".parse().unwrap();
    /// assert_eq!(kayles.storage_id(), "v1:tb:0.77");
    /// assert_eq!(GameSpec::from_storage_id("v1:tb:0.77"), Some(kayles));
    /// ```
    pub fn storage_id(&self) -> String {
        match &self.rules {
            Rules::Heap(HeapFamily::TakeBreak(code)) => format!("{STORAGE_ID_PREFIX}tb:{code}"),
            Rules::Heap(HeapFamily::Grundy(_)) => format!("{STORAGE_ID_PREFIX}grundy"),
            Rules::Moore(m) => format!("{STORAGE_ID_PREFIX}moore:{}", m.k()),
            Rules::Wythoff(_) => format!("{STORAGE_ID_PREFIX}wythoff"),
        }
    }

    /// The game whose [storage id](GameSpec::storage_id) is `id`; `None` unless `id` is one,
    /// written exactly as nimdb writes it.
    pub fn from_storage_id(id: &str) -> Option<GameSpec> {
        let rest = id.strip_prefix(STORAGE_ID_PREFIX)?;
        let rules = match rest.split_once(':') {
            None if rest == "grundy" => Rules::Heap(HeapFamily::Grundy(GrundyRules)),
            None if rest == "wythoff" => Rules::Wythoff(WythoffRules),
            Some(("tb", c)) => Rules::Heap(HeapFamily::TakeBreak(parse_code(c, 16).ok()?)),
            Some(("moore", k)) => Rules::Moore(parse_moore(k).ok()?),
            _ => return None,
        };
        let spec = GameSpec::from_rules(rules);
        (spec.storage_id() == id).then_some(spec)
    }
}

/// What every storage id starts with: the version of the id scheme.
pub(super) const STORAGE_ID_PREFIX: &str = "v1:";

fn alias(code: &TakeBreakCode) -> Option<&'static str> {
    let s = code.to_string();
    Some(match s.as_str() {
        "0.[3]" => "nim",
        "0.77" => "kayles",
        "0.07" => "dawson",
        "0.[7]" => "lines",
        "4.[3]" => "lasker",
        _ => return None,
    })
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rules {
            Rules::Heap(HeapFamily::Grundy(_)) => f.write_str("grundy"),
            Rules::Moore(m) => write!(f, "moore:{}", m.k()),
            Rules::Wythoff(_) => f.write_str("wythoff"),
            Rules::Heap(HeapFamily::TakeBreak(code)) => {
                if let Some(name) = alias(code) {
                    return f.write_str(name);
                }
                if let Some(set) = code.as_subtraction_set() {
                    let list: Vec<String> = set.iter().map(|s| s.to_string()).collect();
                    return write!(f, "subtraction:{}", list.join(","));
                }
                if code.is_octal() { write!(f, "octal:{code}") } else { write!(f, "hex:{code}") }
            }
        }
    }
}

/// Every form `--game` takes, in words: the help text and the refusal of an unknown game
/// both say this, so neither can leave a family out.
pub const GAME_FORMS: &str =
    "nim, kayles, dawson, lines, lasker, grundy, wythoff, subtraction:1,2,3, octal:0.137, hex:0.F or moore:2";

/// The families that own their position space, in words (only `solve`, `query` and
/// `verify` take them).
pub const FAMILY_FORMS: &str = "staircase, welter, raise:3 or hyper:3:1+2,2+3";

/// The help of a `--game` argument that takes the families with their own position space too.
pub fn any_game_help() -> String {
    format!("{GAME_HELP}; or a family with its own position space: {FAMILY_FORMS}")
}

/// The help of every `--game` argument.
pub const GAME_HELP: &str = "The game: nim, kayles, dawson, lines, lasker, grundy, wythoff, subtraction:1,2,3, octal:0.137, hex:0.F or moore:2";

impl FromStr for GameSpec {
    type Err = SpecError;

    fn from_str(raw: &str) -> Result<Self, SpecError> {
        let bad = |e: String| SpecError::new(raw, e);
        check_spelling(raw).map_err(bad)?;
        let s = raw.to_ascii_lowercase();
        let code =
            |c: Result<TakeBreakCode, String>| c.map(|c| Rules::Heap(HeapFamily::TakeBreak(c))).map_err(bad);
        let rules = match s.as_str() {
            "nim" => Rules::Heap(HeapFamily::TakeBreak(TakeBreakCode::nim())),
            "kayles" => code(parse_code("0.77", 8))?,
            "dawson" | "dawsons-kayles" | "dawson's kayles" => code(parse_code("0.07", 8))?,
            "lines" | "line" => code(parse_code("0.[7]", 8))?,
            "lasker" | "lasker's nim" | "laskers-nim" => code(parse_code("4.[3]", 8))?,
            "grundy" => Rules::Heap(HeapFamily::Grundy(GrundyRules)),
            "wythoff" => Rules::Wythoff(WythoffRules),
            _ => match s.split_once(':') {
                Some(("subtraction", set)) => code(
                    parse_set(set).and_then(|s| TakeBreakCode::subtraction(&s).map_err(|e| e.to_string())),
                )?,
                Some(("octal", c)) => code(parse_code(c, 8))?,
                Some(("hex", c)) => code(parse_code(c, 16))?,
                Some(("moore", k)) => Rules::Moore(parse_moore(k).map_err(bad)?),
                Some((family, _)) => {
                    return Err(bad(format!(
                        "unknown game family '{}' (expected {GAME_FORMS})",
                        super::echo(family, ECHO_LIMIT)
                    )));
                }
                None => return Err(bad(format!("unknown game (expected {GAME_FORMS})"))),
            },
        };
        Ok(GameSpec::from_rules(rules))
    }
}

/// A spec is spelled one way, for every family: no space around or inside it but in the two
/// aliases of two words (its name is read in any case, `GRUNDY` as `grundy`; its numbers are
/// plain digits, which each number's reader checks: [`is_number`]).
pub(super) fn check_spelling(raw: &str) -> Result<(), String> {
    const TWO_WORDS: [&str; 2] = ["dawson's kayles", "lasker's nim"];
    if raw.chars().any(char::is_whitespace) && !TWO_WORDS.contains(&raw.to_ascii_lowercase().as_str()) {
        return Err("a spec has no spaces (as in raise:3 or subtraction:1,2,3)".to_string());
    }
    Ok(())
}

/// Whether `word` is a number written in plain decimal digits (no sign, no space).
pub(super) fn is_number(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

fn parse_moore(k: &str) -> Result<MooreRules, String> {
    let whole = || "Moore's Nim_k needs a whole number k ≥ 1, as in moore:2".to_string();
    if !is_number(k) {
        return Err(whole());
    }
    let n: u32 = k.parse().map_err(|_| whole())?;
    MooreRules::new(n).ok_or_else(|| format!("k must be between 1 and {MAX_MOORE_K}, not {n}"))
}

fn parse_set(list: &str) -> Result<Vec<u32>, String> {
    let mut set = Vec::new();
    for item in list.split(',') {
        if item.is_empty() {
            return Err("the subtraction set has an empty item (write subtraction:1,2,3)".to_string());
        }
        let n: u32 = is_number(item).then(|| item.parse().ok()).flatten().ok_or_else(|| {
            format!(
                "'{}' in the subtraction set is not a positive whole number",
                super::echo(item, ECHO_LIMIT)
            )
        })?;
        if n == 0 {
            return Err(CodeError::ZeroInSet.to_string());
        }
        if n > MAX_SPEC_NUMBER {
            return Err(format!("{n} in the subtraction set is larger than {MAX_SPEC_NUMBER}"));
        }
        set.push(n);
    }
    set.sort_unstable();
    set.dedup();
    Ok(set)
}

/// Parses a take-and-break code such as `0.77`, `.07`, `4.7` or `0.[7]` in base 8, or
/// `0.F`, `0.8[F]` in base 16.
fn parse_code(code: &str, base: u32) -> Result<TakeBreakCode, String> {
    let code = code.trim();
    let (head, tail) =
        code.split_once('.').ok_or_else(|| "the code needs a point, as in 0.77".to_string())?;
    let d0 = match head {
        "" => 0,
        h if h.chars().count() == 1 => digit(h.chars().next().unwrap(), base)?,
        _ => return Err("the code has one digit before the point".to_string()),
    };
    if d0 & 3 != 0 {
        return Err(if base == 8 {
            format!("the octal digit before the point must be 0 or 4, not '{}'", super::echo(head, 1))
        } else {
            format!("the digit before the point must be 0, 4, 8 or C, not '{}'", super::echo(head, 1))
        });
    }
    let (finite, repeat) = match tail.find('[') {
        None => (tail, None),
        Some(open) => {
            let rest = &tail[open..];
            let inner = rest
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .ok_or_else(|| "a repeated digit is written [d] at the end".to_string())?;
            if inner.chars().count() != 1 {
                return Err("exactly one digit may repeat, as in 0.[7]".to_string());
            }
            (&tail[..open], Some(digit(inner.chars().next().unwrap(), base)?))
        }
    };
    if finite.len() as u32 > MAX_SPEC_NUMBER {
        return Err(format!("the code is longer than {MAX_SPEC_NUMBER} digits"));
    }
    let digits = finite.chars().map(|c| digit(c, base)).collect::<Result<Vec<u8>, String>>()?;
    TakeBreakCode::new(d0, &digits, repeat).map_err(|e| e.to_string())
}

fn digit(c: char, base: u32) -> Result<u8, String> {
    match c.to_digit(base) {
        Some(d) => Ok(d as u8),
        None if base == 8 => Err(format!("'{}' is not an octal digit (0-7)", c.escape_debug())),
        None => Err(format!("'{}' is not a hexadecimal digit (0-F)", c.escape_debug())),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// A spec is spelled one way for every family alike: no space around or inside it, and
    /// its numbers in plain digits (the hostile round found `raise: 3` and `raise:+3` taken as
    /// raise:3; the heap games took `moore: 2`, `moore:+2` and `subtraction:+1,2` the same
    /// way). Names are read in any case, the families' as the heap games' (`GRUNDY`).
    #[test]
    fn specs_are_spelled_one_way() {
        use crate::game::Game;
        for loose in [
            "raise: 3",
            "raise:+3",
            "raise:3 ",
            " staircase",
            "welter ",
            " nim",
            "nim ",
            "nim\t",
            "moore: 2",
            "moore:+2",
            "moore:2 ",
            "moore:-2",
            "subtraction:+1,2",
            "subtraction:1, 2",
            "subtraction: 1,2",
            "octal: 0.77",
            "hex:0.F ",
            "raise :3",
        ] {
            let e = loose.parse::<Game>().expect_err(loose).to_string();
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        for (spec, canonical) in [
            ("RAISE:3", "raise:3"),
            ("Staircase", "staircase"),
            ("WELTER", "welter"),
            ("KAYLES", "kayles"),
            ("hex:0.F", "hex:0.F"),
            ("hex:0.f", "hex:0.F"),
            ("raise:3", "raise:3"),
            ("raise:03", "raise:3"),
            ("moore:2", "moore:2"),
            ("subtraction:1,2,3", "subtraction:1,2,3"),
            ("dawson's kayles", "dawson"),
            ("Lasker's Nim", "lasker"),
        ] {
            assert_eq!(spec.parse::<Game>().unwrap().to_string(), canonical, "{spec}");
        }
    }

    #[test]
    fn every_family_is_in_the_help() {
        assert!(GAME_HELP.ends_with(GAME_FORMS));
        let forms: Vec<&str> = GAME_FORMS.split([',', ' ']).filter(|w| !w.is_empty() && *w != "or").collect();
        // Each form parses (`subtraction:1,2,3` splits into pieces; its first one is the form).
        for form in forms.iter().filter(|f| !f.chars().all(|c| c.is_ascii_digit())) {
            assert!(form.parse::<GameSpec>().is_ok(), "{form}");
        }
        // One spec of every kind of rules: its family word is in the help.
        for spec in [
            "nim",
            "kayles",
            "dawson",
            "lines",
            "grundy",
            "wythoff",
            "subtraction:1,2",
            "octal:0.7",
            "hex:0.F",
            "moore:3",
        ] {
            let family = spec.split(':').next().unwrap();
            assert!(spec.parse::<GameSpec>().is_ok(), "{spec}");
            assert!(forms.iter().any(|f| f.starts_with(family)), "{family} is missing from the help");
        }
    }

    fn canon(s: &str) -> String {
        s.parse::<GameSpec>().unwrap().to_string()
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canon("nim"), "nim");
        assert_eq!(canon("octal:0.[3]"), "nim");
        assert_eq!(canon("octal:0.333[3]"), "nim");
        assert_eq!(canon("octal:0.77"), "kayles");
        assert_eq!(canon("octal:.07"), "dawson");
        assert_eq!(canon("octal:0.7[7]"), "lines");
        assert_eq!(canon("subtraction:3,1,2,2"), "subtraction:1,2,3");
        assert_eq!(canon("octal:0.333"), "subtraction:1,2,3");
        assert_eq!(canon("octal:0.1370"), "octal:0.137");
        assert_eq!(canon("octal:4.7"), "octal:4.7");
        assert_eq!(canon("GRUNDY"), "grundy");
        assert_eq!(canon("hex:0.77"), "kayles");
        assert_eq!(canon("hex:0.f"), "hex:0.F");
        assert_eq!(canon("hex:0.8[F]"), "hex:0.8[F]");
        assert_eq!(canon("moore:1"), "nim");
        assert_eq!(canon("moore:2"), "moore:2");
        assert_eq!(canon("Wythoff"), "wythoff");
        assert_eq!(canon("octal:4.[3]"), "lasker");
        assert_eq!(canon("octal:4.333[3]"), "lasker");
    }

    #[test]
    fn storage_ids_follow_the_rules_not_the_names() {
        for (spec, id) in [
            ("nim", "v1:tb:0.[3]"),
            ("moore:1", "v1:tb:0.[3]"),
            ("kayles", "v1:tb:0.77"),
            ("hex:0.77", "v1:tb:0.77"),
            ("dawson", "v1:tb:0.07"),
            ("lines", "v1:tb:0.[7]"),
            ("lasker", "v1:tb:4.[3]"),
            ("octal:4.[3]", "v1:tb:4.[3]"),
            ("subtraction:1,2,3", "v1:tb:0.333"),
            ("octal:0.137", "v1:tb:0.137"),
            ("hex:0.8[F]", "v1:tb:0.8[F]"),
            ("grundy", "v1:grundy"),
            ("moore:2", "v1:moore:2"),
            ("wythoff", "v1:wythoff"),
        ] {
            let game: GameSpec = spec.parse().unwrap();
            assert_eq!(game.storage_id(), id, "{spec}");
            assert_eq!(GameSpec::from_storage_id(id), Some(game), "{id}");
        }
        // Only ids written exactly as nimdb writes them; display names are not ids.
        for not_id in [
            "kayles",
            "octal:0.77",
            "v1:tb:0.770",
            "v1:tb:0.f",
            "v2:tb:0.77",
            "v1:moore:1",
            "v1:nim",
            "v1:tb:",
        ] {
            assert_eq!(GameSpec::from_storage_id(not_id), None, "{not_id}");
        }
    }

    #[test]
    fn long_specs_are_echoed_once_and_short() {
        let long = format!("octal:0.{}", "8".repeat(10_000));
        let err = long.parse::<GameSpec>().unwrap_err().to_string();
        assert!(err.len() < 200, "{err}");
        assert_eq!(err.matches("octal:0.8").count(), 1, "{err}");
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        for (spec, needle) in [
            ("chess", "unknown game"),
            ("subtraction:", "empty item"),
            ("subtraction:1,x", "'x'"),
            ("subtraction:0,1", "may not contain 0"),
            ("octal:0.8", "not an octal digit"),
            ("hex:0.G", "not a hexadecimal digit"),
            ("hex:1.F", "0, 4, 8 or C"),
            ("moore:0", "between 1 and"),
            ("moore:x", "whole number"),
            ("octal:2.7", "0 or 4"),
            ("octal:077", "needs a point"),
            ("octal:0.[77]", "exactly one digit"),
            ("octal:0.000", "no move"),
            ("foo:1", "unknown game family"),
        ] {
            let err = spec.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{spec}: {err}");
            assert!(!err.contains('\n'));
        }
    }
}
