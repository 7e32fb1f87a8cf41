//! Repeating user input in an error message safely.

/// `raw` as an error message may repeat it: at most `limit` characters (then `…`), with
/// every control character (line breaks, tabs, terminal escapes) written as an escape such
/// as `\n` or `\u{1b}`, so the message stays one plain line whatever was typed.
pub fn echo(raw: &str, limit: usize) -> String {
    let mut out = String::new();
    for (i, c) in raw.chars().enumerate() {
        if i == limit {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_and_caps() {
        assert_eq!(super::echo("a\nb\u{1b}[2J", 80), "a\\nb\\u{1b}[2J");
        assert_eq!(super::echo("abcdef", 3), "abc…");
        assert_eq!(super::echo("abc", 3), "abc");
    }
}
