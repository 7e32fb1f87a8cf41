//! The rules of a heap game in one sentence (play shows them; the family trait says them).

use super::{GameSpec, HeapFamily, Rules, TakeBreakCode};

/// The rules of `game` in words, e.g. "take exactly 1, 2 or 3 tokens from one heap".
pub fn rules_in_words(game: &GameSpec) -> String {
    match game.rules() {
        Rules::Moore(m) => {
            format!("take any number of tokens (at least one) from each of up to {} heaps at once", m.k())
        }
        Rules::Wythoff(_) => {
            "take any number of tokens from one heap, or the same number from two heaps".to_string()
        }
        Rules::Heap(HeapFamily::Grundy(_)) => "split one heap into two heaps of different sizes".to_string(),
        Rules::Heap(HeapFamily::TakeBreak(_)) if game.is_nim() => {
            "take any number of tokens from one heap".to_string()
        }
        Rules::Heap(HeapFamily::TakeBreak(code)) => match code.as_subtraction_set() {
            Some(set) => {
                let set: Vec<String> = set.iter().map(u32::to_string).collect();
                format!("take exactly {} {} from one heap", or_list(&set), tokens(&set))
            }
            None => octal_in_words(code),
        },
    }
}

/// The longest finite octal code spelled out digit by digit.
const SPELLED_DIGITS: usize = 10;

fn octal_in_words(code: &TakeBreakCode) -> String {
    let finite = code.finite_digits();
    if finite.len() > SPELLED_DIGITS {
        return format!(
            "code {code}: removing k tokens from one heap may leave nothing (bit 1 of digit k), one heap (bit 2), two heaps (bit 4) or three heaps (bit 8)"
        );
    }
    // Takes grouped by digit, in order of first appearance.
    let mut groups: Vec<(u8, Vec<String>)> = Vec::new();
    let mut add = |digit: u8, take: String| match groups.iter_mut().find(|(d, _)| *d == digit) {
        Some((_, takes)) => takes.push(take),
        None => groups.push((digit, vec![take])),
    };
    for (k, &d) in finite.iter().enumerate().skip(1) {
        if d != 0 {
            add(d, k.to_string());
        }
    }
    if let Some(r) = code.repeat() {
        add(
            r,
            if finite.len() == 1 { "any number of".to_string() } else { format!("{} or more", finite.len()) },
        );
    }
    let mut clauses: Vec<String> = groups
        .iter()
        .map(|(d, takes)| {
            let leaves: Vec<&str> = [(1, "nothing"), (2, "one heap"), (4, "two heaps"), (8, "three heaps")]
                .into_iter()
                .filter(|(bit, _)| d & bit != 0)
                .map(|(_, w)| w)
                .collect();
            format!("take {} {} from one heap, leaving {}", or_list(takes), tokens(takes), or_list(&leaves))
        })
        .collect();
    if finite[0] & 8 != 0 {
        clauses.insert(0, "split one heap in three without taking any".to_string());
    }
    if finite[0] & 4 != 0 {
        clauses.insert(0, "split one heap in two without taking any".to_string());
    }
    clauses.join("; or ")
}

/// "1", "1 or 2", "1, 2 or 3".
fn or_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", init.join(", "), last.as_ref())
        }
    }
}

fn tokens<S: AsRef<str>>(takes: &[S]) -> &'static str {
    if takes.len() == 1 && takes[0].as_ref() == "1" { "token" } else { "tokens" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(game: &str) -> String {
        rules_in_words(&game.parse().unwrap())
    }

    #[test]
    fn says_each_family_plainly() {
        assert_eq!(words("nim"), "take any number of tokens from one heap");
        assert_eq!(words("subtraction:1,2,3"), "take exactly 1, 2 or 3 tokens from one heap");
        assert_eq!(words("grundy"), "split one heap into two heaps of different sizes");
        assert_eq!(
            words("kayles"),
            "take 1 or 2 tokens from one heap, leaving nothing, one heap or two heaps"
        );
        assert_eq!(words("dawson"), "take 2 tokens from one heap, leaving nothing, one heap or two heaps");
        assert_eq!(
            words("lines"),
            "take any number of tokens from one heap, leaving nothing, one heap or two heaps"
        );
        assert_eq!(
            words("octal:4.1"),
            "split one heap in two without taking any; or take 1 token from one heap, leaving nothing"
        );
    }
}
