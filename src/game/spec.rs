//! Game specs: the `--game` argument, parsed into rules and printed back in canonical form.

use std::fmt;
use std::str::FromStr;

use super::rules::{GrundyRules, OctalCode, Rules};

/// The largest number allowed in a subtraction set or implied by an octal code's length.
const MAX_SPEC_NUMBER: u32 = 10_000;

/// A game, identified by its rules. Two specs that describe the same rules are equal and
/// print the same canonical name (`octal:0.77` and `kayles` both print `kayles`), so the
/// database keys solves by the canonical name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameSpec {
    rules: Rules,
}

impl GameSpec {
    /// Nim.
    pub fn nim() -> Self {
        GameSpec { rules: Rules::Octal(OctalCode::nim()) }
    }

    /// The game with these rules.
    pub fn from_rules(rules: Rules) -> Self {
        GameSpec { rules }
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The octal code, for octal games (Nim and subtraction games included).
    pub fn octal(&self) -> Option<&OctalCode> {
        match &self.rules {
            Rules::Octal(c) => Some(c),
            Rules::Grundy(_) => None,
        }
    }

    /// Whether this is plain Nim.
    pub fn is_nim(&self) -> bool {
        self.octal() == Some(&OctalCode::nim())
    }

    /// The canonical name, e.g. `nim`, `kayles`, `subtraction:1,2,3`, `octal:0.137`.
    pub fn canonical(&self) -> String {
        self.to_string()
    }
}

fn alias(code: &OctalCode) -> Option<&'static str> {
    let s = code.to_string();
    Some(match s.as_str() {
        "0.[3]" => "nim",
        "0.77" => "kayles",
        "0.07" => "dawson",
        "0.[7]" => "lines",
        _ => return None,
    })
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rules {
            Rules::Grundy(_) => f.write_str("grundy"),
            Rules::Octal(code) => {
                if let Some(name) = alias(code) {
                    return f.write_str(name);
                }
                if let Some(set) = code.as_subtraction_set() {
                    let list: Vec<String> = set.iter().map(|s| s.to_string()).collect();
                    return write!(f, "subtraction:{}", list.join(","));
                }
                write!(f, "octal:{code}")
            }
        }
    }
}

const SPEC_HELP: &str = "expected nim, kayles, dawson, lines, grundy, subtraction:1,2,3 or octal:0.137";

impl FromStr for GameSpec {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, String> {
        let s = raw.trim().to_ascii_lowercase();
        let rules = match s.as_str() {
            "nim" => Rules::Octal(OctalCode::nim()),
            "kayles" => Rules::Octal(parse_octal("0.77")?),
            "dawson" | "dawsons-kayles" | "dawson's kayles" => Rules::Octal(parse_octal("0.07")?),
            "lines" | "line" => Rules::Octal(parse_octal("0.[7]")?),
            "grundy" => Rules::Grundy(GrundyRules),
            _ => match s.split_once(':') {
                Some(("subtraction", set)) => Rules::Octal(
                    OctalCode::subtraction(&parse_set(set)?)
                        .map_err(|e| format!("bad game spec '{raw}': {e}"))?,
                ),
                Some(("octal", code)) => {
                    Rules::Octal(parse_octal(code).map_err(|e| format!("bad game spec '{raw}': {e}"))?)
                }
                Some((family, _)) => {
                    return Err(format!(
                        "bad game spec '{raw}': unknown game family '{family}' ({SPEC_HELP})"
                    ));
                }
                None => return Err(format!("bad game spec '{raw}': unknown game ({SPEC_HELP})")),
            },
        };
        Ok(GameSpec { rules })
    }
}

fn parse_set(list: &str) -> Result<Vec<u32>, String> {
    let mut set = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(
                "bad game spec: the subtraction set has an empty item (write subtraction:1,2,3)".to_string()
            );
        }
        let n: u32 = item.parse().map_err(|_| {
            format!("bad game spec: '{item}' in the subtraction set is not a positive whole number")
        })?;
        if n == 0 {
            return Err("bad game spec: a subtraction set may not contain 0".to_string());
        }
        if n > MAX_SPEC_NUMBER {
            return Err(format!(
                "bad game spec: {n} in the subtraction set is larger than {MAX_SPEC_NUMBER}"
            ));
        }
        set.push(n);
    }
    set.sort_unstable();
    set.dedup();
    Ok(set)
}

/// Parses an octal code such as `0.77`, `.07`, `4.7` or `0.[7]`.
fn parse_octal(code: &str) -> Result<OctalCode, String> {
    let code = code.trim();
    let (head, tail) =
        code.split_once('.').ok_or_else(|| format!("octal code '{code}' needs a point, as in 0.77"))?;
    let d0 = match head {
        "" | "0" => 0,
        "4" => 4,
        other => return Err(format!("the octal digit before the point must be 0 or 4, not '{other}'")),
    };
    let (finite, repeat) = match tail.find('[') {
        None => (tail, None),
        Some(open) => {
            let rest = &tail[open..];
            let inner = rest
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .ok_or_else(|| format!("octal code '{code}': a repeated digit is written [d] at the end"))?;
            if inner.len() != 1 {
                return Err(format!("octal code '{code}': exactly one digit may repeat, as in 0.[7]"));
            }
            (&tail[..open], Some(octal_digit(inner.chars().next().unwrap(), code)?))
        }
    };
    if finite.len() as u32 > MAX_SPEC_NUMBER {
        return Err(format!("octal code '{code}' is longer than {MAX_SPEC_NUMBER} digits"));
    }
    let digits = finite.chars().map(|c| octal_digit(c, code)).collect::<Result<Vec<u8>, String>>()?;
    OctalCode::new(d0, &digits, repeat)
}

fn octal_digit(c: char, code: &str) -> Result<u8, String> {
    match c.to_digit(8) {
        Some(d) => Ok(d as u8),
        None => Err(format!("octal code '{code}': '{c}' is not an octal digit (0-7)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        for (spec, needle) in [
            ("chess", "unknown game"),
            ("subtraction:", "empty item"),
            ("subtraction:1,x", "'x'"),
            ("subtraction:0,1", "may not contain 0"),
            ("octal:0.8", "not an octal digit"),
            ("octal:2.7", "0 or 4"),
            ("octal:077", "needs a point"),
            ("octal:0.[77]", "exactly one digit"),
            ("octal:0.000", "no move"),
            ("foo:1", "unknown game family"),
        ] {
            let err = spec.parse::<GameSpec>().unwrap_err();
            assert!(err.contains(needle), "{spec}: {err}");
            assert!(!err.contains('\n'));
        }
    }
}
