//! The binary-column explanation of Nim (safe and unsafe positions), normal and misère.
//!
//! Write every heap in binary, one column per power of two, and add up each column. A
//! position is *safe* (a loss for the player to move: whoever leaves it wins) when every
//! column sum is even, i.e. the XOR of the heaps is 0 (Bouton). Every move from a safe
//! position makes it unsafe, and from an unsafe one some move makes it safe: reduce a heap
//! that has a 1 in the leftmost odd column to `heap XOR x`, where `x` is the XOR of all heaps.
//!
//! Misère Nim (the last move loses) plays the same way until the end: when every heap is 0
//! or 1, the safe positions are those with an *odd* number of 1-heaps, so a move that would
//! leave only heaps of 0 or 1 must leave an odd number of 1-heaps.
//!
//! When the position is already safe there is no good move, and the binary rule prefers
//! none; the explanation then does what the seed program does: it takes one token from the
//! largest heap (the first such heap in the input order) and waits for a mistake. (`nimdb
//! play` instead asks the database for the move of greatest remoteness.)

use std::fmt;

use crate::game::{Convention, Formula, Game, GameSpec, HeapResult, Move, Position};

/// The fewest columns shown (8 4 2 1, as in the textbook table), even for small heaps.
const MIN_COLUMNS: u32 = 4;

/// Why a position cannot be explained.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    /// The heaps given are not a heap list.
    #[error("{0}")]
    BadHeaps(String),
    /// No heaps, or an empty one.
    #[error("explain needs at least one heap, and no empty ones")]
    NoHeaps,
    /// The position is not one of the game's.
    #[error(transparent)]
    BadPosition(#[from] crate::game::BadPosition),
    /// A theorem decides the game, but explain does not work through it.
    #[error(
        "explain covers Nim and Staircase Nim only (Bouton's theorem, and the odd steps of a staircase under normal play); {game}{misere} is decided by {theorem}, which query applies: try nimdb query --game {game}{flag} HEAPS"
    )]
    NotWorkedThrough {
        /// The game.
        game: String,
        /// " under misère play" or "".
        misere: &'static str,
        /// " --misere" or "".
        flag: &'static str,
        /// The theorem's name.
        theorem: &'static str,
    },
    /// No closed-form rule decides the game under the convention.
    #[error(
        "explain covers Nim and Staircase Nim only (Bouton's theorem, and the odd steps of a staircase under normal play); {game}{misere} has no such rule, and {other} shows its moves and values: try nimdb {other} --game {game}{flag} HEAPS"
    )]
    NoTheorem {
        /// The game.
        game: String,
        /// " under misère play" or "".
        misere: &'static str,
        /// " --misere" or "".
        flag: &'static str,
        /// The command that shows the position instead (`tree`, or `query --moves` for a
        /// loopy game, which has no finite tree).
        other: &'static str,
    },
}

/// A worked explanation of a position of any game, by the theorem that decides the game
/// under `convention`, for the theorems explain works through: Bouton's (Nim, both
/// conventions; the heaps shown in the order written) and the odd-steps rule of Staircase
/// Nim (normal play). Any other game is refused with the theorem that decides it, or with
/// the command that shows its moves where none does.
pub fn explain_position<S: AsRef<str>>(
    game: &Game,
    convention: Convention,
    words: &[S],
) -> Result<Box<dyn fmt::Display>, ExplainError> {
    let misere = if convention == Convention::Misere { " under misère play" } else { "" };
    let flag = if convention == Convention::Misere { " --misere" } else { "" };
    let name = game.to_string();
    match game.family().formula(convention) {
        Some(Formula::Bouton) if game.heaps().is_some_and(GameSpec::is_nim) => {
            Ok(Box::new(explain(&parse_heaps_in_order(words)?, convention)?))
        }
        Some(Formula::OddSteps) => Ok(Box::new(explain_staircase(&game.parse_position(words)?)?)),
        Some(theorem) => {
            Err(ExplainError::NotWorkedThrough { game: name, misere, flag, theorem: theorem.name() })
        }
        None => {
            let other = if game.family().loopy() { "query --moves" } else { "tree" };
            Err(ExplainError::NoTheorem { game: name, misere, flag, other })
        }
    }
}

/// Heap sizes in the order the user typed them (zeros dropped), for display: a [`Position`]
/// sorts its heaps, the table keeps the user's rows. Accepts `3 4 7`, `3,4,7`, `[3,4,7]`
/// and reports bad input exactly as [`Position::parse_words`] does.
pub fn parse_heaps_in_order<S: AsRef<str>>(words: &[S]) -> Result<Vec<u32>, ExplainError> {
    if words.iter().all(|w| w.as_ref().trim().is_empty()) {
        return Err(ExplainError::NoHeaps);
    }
    Position::parse_words(words).map_err(|e| ExplainError::BadHeaps(e.to_string()))?;
    let mut heaps = Vec::new();
    for word in words {
        for item in word.as_ref().split(|c: char| c == ',' || c == '[' || c == ']' || c.is_whitespace()) {
            if item.is_empty() {
                continue;
            }
            let h: u32 = item
                .parse()
                .map_err(|_| ExplainError::BadHeaps(format!("bad heap list: '{item}' is not a heap size")))?;
            if h > 0 {
                heaps.push(h);
            }
        }
    }
    Ok(heaps)
}

/// The binary-column table of some heaps: one row per heap, one column per power of two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnTable {
    heaps: Vec<u32>,
    columns: Vec<u32>,
    sums: Vec<u32>,
}

impl ColumnTable {
    /// The table of `heaps`, rows in the given order, columns from the highest power of two
    /// needed (at least 8) down to 1.
    pub fn new(heaps: &[u32]) -> Self {
        let largest = heaps.iter().copied().max().unwrap_or(0);
        let width = (u32::BITS - largest.leading_zeros()).max(MIN_COLUMNS);
        let columns: Vec<u32> = (0..width).rev().map(|bit| 1u32 << bit).collect();
        let sums = columns.iter().map(|&c| heaps.iter().filter(|&&h| h & c != 0).count() as u32).collect();
        ColumnTable { heaps: heaps.to_vec(), columns, sums }
    }

    /// The heaps, one per row.
    pub fn heaps(&self) -> &[u32] {
        &self.heaps
    }

    /// The column values, largest first (`[8, 4, 2, 1]`).
    pub fn columns(&self) -> &[u32] {
        &self.columns
    }

    /// The column sums, in column order.
    pub fn sums(&self) -> &[u32] {
        &self.sums
    }

    /// The values of the columns whose sum is odd, largest first.
    pub fn odd_columns(&self) -> Vec<u32> {
        self.columns.iter().zip(&self.sums).filter(|(_, s)| *s % 2 == 1).map(|(&c, _)| c).collect()
    }

    /// The XOR of all heaps: the sum of the odd columns' values.
    pub fn xor(&self) -> u32 {
        crate::theory::nim_sum(&self.heaps)
    }

    /// The table as text, in the textbook's layout, with `verdict` beside the sums.
    pub fn render(&self, verdict: &str) -> String {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .zip(&self.sums)
            .map(|(c, s)| c.to_string().len().max(s.to_string().len()))
            .collect();
        let cells = |values: &mut dyn Iterator<Item = String>| -> String {
            values.zip(&widths).map(|(v, w)| format!("{v:>w$}")).collect::<Vec<_>>().join(" ")
        };
        let bits = |h: u32| cells(&mut self.columns.iter().map(|&c| u32::from(h & c != 0).to_string()));
        let heads = ["Tokens in heap", "Binary representation", "Safe/Unsafe?"];
        let left = self.heaps.iter().map(|h| h.to_string().len()).max().unwrap_or(0).max(heads[0].len());
        let middle = cells(&mut self.columns.iter().map(|c| c.to_string())).len().max(heads[1].len());
        let mut rows: Vec<(String, String, &str)> = vec![
            (heads[0].to_string(), heads[1].to_string(), heads[2]),
            (String::new(), "Column values".to_string(), ""),
            (String::new(), cells(&mut self.columns.iter().map(|c| c.to_string())), ""),
        ];
        rows.extend(self.heaps.iter().map(|&h| (h.to_string(), bits(h), "")));
        rows.push(("Column sums".to_string(), cells(&mut self.sums.iter().map(|s| s.to_string())), verdict));
        let mut out = String::new();
        for (a, b, c) in rows {
            let line = format!("{a:>left$}   {b:<middle$}   {c}");
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Names odd columns: "2's column is odd", "4's and 1's columns are odd",
/// "8's, 4's and 1's columns are odd".
pub fn odd_columns_phrase(odd: &[u32]) -> String {
    let names: Vec<String> = odd.iter().map(|c| format!("{c}'s")).collect();
    match names.as_slice() {
        [] => "every column is even".to_string(),
        [one] => format!("{one} column is odd"),
        [init @ .., last] => format!("{} and {last} columns are odd", init.join(", ")),
    }
}

/// The move the explanation recommends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The row (in the user's order) of the heap moved in.
    pub index: usize,
    /// That heap's size.
    pub heap: u32,
    /// What is left of it (0: the heap is taken whole).
    pub leave: u32,
    /// Whether the move makes the position safe (a winning move); false for the delaying
    /// move from a safe position.
    pub winning: bool,
}

impl Suggestion {
    /// The move as a [`Move`] of the game module.
    pub fn as_move(&self) -> Move {
        let result = if self.leave == 0 { HeapResult::VANISH } else { HeapResult::one(self.leave) };
        Move::single(self.heap, result)
    }

    /// The number of tokens taken.
    pub fn taken(&self) -> u32 {
        self.heap - self.leave
    }

    /// The heaps after the move, in the user's order (a heap taken whole disappears).
    pub fn heaps_after(&self, heaps: &[u32]) -> Vec<u32> {
        let mut after = heaps.to_vec();
        if self.leave == 0 {
            after.remove(self.index);
        } else {
            after[self.index] = self.leave;
        }
        after
    }
}

/// A complete explanation: the table, the verdict, the recommended move and the reasoning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The convention explained.
    pub convention: Convention,
    /// The binary-column table of the heaps, in the user's order.
    pub table: ColumnTable,
    /// Whether the position is safe (a loss for the player to move).
    pub safe: bool,
    /// The verdict beside the column sums, e.g. `Unsafe (2's column is odd)`.
    pub verdict: String,
    /// The recommended move.
    pub suggestion: Suggestion,
    /// The reasoning, one paragraph per entry.
    pub reasoning: Vec<String>,
}

/// Whether a Nim position (heaps of any order) is safe, i.e. a loss for the player to move.
pub fn is_safe(heaps: &[u32], convention: Convention) -> bool {
    crate::theory::nim_loss(heaps, convention)
}

fn join(heaps: &[u32]) -> String {
    if heaps.is_empty() {
        return "none (no heaps left)".to_string();
    }
    heaps.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" ")
}

fn plural_ones(n: usize) -> String {
    if n == 1 { "1 1-heap".to_string() } else { format!("{n} 1-heaps") }
}

fn parity(n: usize) -> &'static str {
    if n % 2 == 1 { "an odd number" } else { "an even number" }
}

/// Explains the Nim position `heaps` (in the user's order, zeros already dropped) under
/// `convention`: the binary-column table, safe or unsafe, and the move to make.
pub fn explain(heaps: &[u32], convention: Convention) -> Result<Explanation, ExplainError> {
    if heaps.is_empty() || heaps.contains(&0) {
        return Err(ExplainError::NoHeaps);
    }
    let table = ColumnTable::new(heaps);
    let xor = table.xor();
    let odd = table.odd_columns();
    let ones = heaps.iter().filter(|&&h| h == 1).count();
    let big: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] >= 2).collect();
    let endgame = big.is_empty();
    let safe = is_safe(heaps, convention);
    let mut reasoning = Vec::new();

    let verdict = match (convention, endgame) {
        (Convention::Misere, true) => format!(
            "{} (misère endgame: {}, {})",
            if safe { "Safe" } else { "Unsafe" },
            plural_ones(ones),
            parity(ones)
        ),
        _ if safe => "Safe".to_string(),
        _ => format!("Unsafe ({})", odd_columns_phrase(&odd)),
    };

    if convention == Convention::Misere {
        reasoning.push(
            "Misère play (the last move loses): play as in normal Nim, except at the very end. When \
             every heap is 0 or 1, the safe positions are those with an odd number of 1-heaps (then \
             the opponent must take the last token). So a move that leaves only heaps of 0 or 1 must \
             leave an odd number of 1-heaps."
                .to_string(),
        );
    }

    let largest = heaps.iter().enumerate().max_by_key(|&(i, &h)| (h, std::cmp::Reverse(i))).unwrap().0;
    let suggestion = if safe {
        let delay =
            Suggestion { index: largest, heap: heaps[largest], leave: heaps[largest] - 1, winning: false };
        if convention == Convention::Misere && endgame {
            reasoning.push(format!(
                "Safe: every heap is 1 and there are {}, {}. The player to move must take a 1-heap, \
                 leaving an even number, and in the end takes the last token and loses.",
                plural_ones(ones),
                parity(ones)
            ));
        } else {
            reasoning.push(
                "Safe: every column is even, so the XOR of all heaps is 0. Every move makes it unsafe: \
                 a move changes the bits of one heap only, so at least one column's sum changes by one \
                 and turns odd. Against perfect play the player to move loses."
                    .to_string(),
            );
            if convention == Convention::Misere {
                reasoning.push(format!(
                    "{} heaps are larger than 1, so no single move can leave only heaps of 0 or 1: \
                     misère play is the same as normal play here.",
                    big.len()
                ));
            }
        }
        reasoning.push(
            "No move makes it safe, and the binary rule prefers none, so (as seed 001's program \
             does) the computer takes 1 from the largest heap and waits for a mistake. \
             `nimdb play` goes further: it asks the database for the move that holds out longest."
                .to_string(),
        );
        delay
    } else if convention == Convention::Misere && endgame {
        let index = heaps.iter().position(|&h| h == 1).unwrap();
        reasoning.push(format!(
            "Unsafe: every heap is 1 and there are {}, {}. Take a whole 1-heap, leaving {}, {}: safe.",
            plural_ones(ones),
            parity(ones),
            plural_ones(ones - 1),
            parity(ones - 1)
        ));
        Suggestion { index, heap: 1, leave: 0, winning: true }
    } else if convention == Convention::Misere && big.len() == 1 {
        let index = big[0];
        let heap = heaps[index];
        let others = ones; // every other heap is a 1-heap
        let leave = if others % 2 == 0 { 1 } else { 0 };
        let normal_leave = heap ^ xor;
        reasoning.push(format!("Unsafe: the {}.", odd_columns_phrase(&odd)));
        reasoning.push(format!(
            "Only one heap, the {heap}-heap, is larger than 1, so the winning move leaves only heaps \
             of 0 or 1, and misère play differs from normal play here. The normal-Nim move ({heap} XOR \
             {xor} = {normal_leave}) would leave {}, an even number: a loss in misère play.",
            plural_ones(others + normal_leave as usize)
        ));
        reasoning.push(format!(
            "The other heaps are {}, {}, so {}: take {}, leaving {}. That makes {}, {}: safe.",
            plural_ones(others),
            parity(others),
            if leave == 1 {
                format!("reduce the {heap}-heap to 1")
            } else {
                format!("take the whole {heap}-heap")
            },
            heap - leave,
            leave,
            plural_ones(others + leave as usize),
            parity(others + leave as usize)
        ));
        Suggestion { index, heap, leave, winning: true }
    } else {
        let top = odd[0];
        let index = heaps.iter().position(|&h| h & top != 0).unwrap();
        let heap = heaps[index];
        let leave = heap ^ xor;
        reasoning.push(format!(
            "Unsafe: the {}. Whoever moves can make every column even again.",
            odd_columns_phrase(&odd)
        ));
        reasoning.push(format!(
            "The XOR of all heaps (the sum of the odd columns' values) is {xor}. A heap with a 1 in \
             the leftmost odd column (the {top}'s) is the {heap}-heap, and {heap} XOR {xor} = {leave} \
             < {heap}, so take {} from the {heap}-heap, leaving {leave}: that flips exactly the odd \
             columns in its row.",
            heap - leave
        ));
        if convention == Convention::Misere {
            reasoning.push(
                "At least one other heap stays larger than 1 after this move, so misère play is the \
                 same as normal play here."
                    .to_string(),
            );
        }
        Suggestion { index, heap, leave, winning: true }
    };
    if suggestion.winning {
        reasoning.push(format!(
            "Winning move: take {} from the {}-heap, leaving heaps {} (now safe: the opponent loses \
             against perfect play).",
            suggestion.taken(),
            suggestion.heap,
            join(&suggestion.heaps_after(heaps))
        ));
    } else {
        reasoning.push(format!(
            "Computer's move: take 1 from the {}-heap, leaving heaps {} (unsafe: the opponent can \
             now win).",
            suggestion.heap,
            join(&suggestion.heaps_after(heaps))
        ));
    }
    Ok(Explanation { convention, table, safe, verdict, suggestion, reasoning })
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let play = match self.convention {
            Convention::Normal => "normal play: the last move wins",
            Convention::Misere => "misère play: the last move loses",
        };
        writeln!(f, "Nim, {play}. Heaps: {}", join(self.table.heaps()))?;
        writeln!(f)?;
        f.write_str(&self.table.render(&self.verdict))?;
        for paragraph in &self.reasoning {
            writeln!(f)?;
            f.write_str(&wrap(paragraph, WRAP_WIDTH))?;
        }
        Ok(())
    }
}

/// Staircase Nim explained by its theorem: the coins on the odd steps play Nim (Sprague;
/// *Winning Ways*, ch. 16), so the binary-column table of the odd steps decides, and its
/// winning move is a Nim move on an odd step: coins moved from it down to the even step
/// below (from step 1, off the staircase). Normal play only: under misère play nimdb states
/// no such rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaircaseExplanation {
    /// The position: coins on steps 1, 2, 3, … in order.
    pub steps: Vec<u32>,
    /// The binary-column table of the odd steps (1, 3, 5, …), in step order.
    pub table: ColumnTable,
    /// Whether the position is safe (a loss for the player to move).
    pub safe: bool,
    /// The winning move, as (step, coins moved down); `None` when the position is safe.
    pub winning: Option<(usize, u32)>,
}

/// Explains the Staircase Nim position `steps` (coins on steps 1, 2, 3, … in order) under
/// normal play.
pub fn explain_staircase(steps: &[u32]) -> Result<StaircaseExplanation, ExplainError> {
    if steps.iter().all(|&c| c == 0) {
        return Err(ExplainError::NoHeaps);
    }
    let odd: Vec<u32> = steps.iter().step_by(2).copied().collect();
    let table = ColumnTable::new(&odd);
    let xor = table.xor();
    let winning = (xor != 0).then(|| {
        let i = odd.iter().position(|&c| c ^ xor < c).expect("a nonzero nim-sum has a heap to lower");
        (2 * i + 1, odd[i] - (odd[i] ^ xor))
    });
    Ok(StaircaseExplanation { steps: steps.to_vec(), table, safe: xor == 0, winning })
}

impl fmt::Display for StaircaseExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steps: Vec<String> = self.steps.iter().map(u32::to_string).collect();
        writeln!(f, "Staircase Nim, normal play: the last move wins. Steps 1, 2, 3, …: {}", steps.join(" "))?;
        let odd: Vec<String> = self
            .table
            .heaps()
            .iter()
            .enumerate()
            .map(|(i, c)| format!("step {} has {c}", 2 * i + 1))
            .collect();
        writeln!(f, "The odd steps, one row each: {}.", odd.join(", "))?;
        writeln!(f)?;
        let verdict = if self.safe {
            "Safe".to_string()
        } else {
            format!("Unsafe ({})", odd_columns_phrase(&self.table.odd_columns()))
        };
        f.write_str(&self.table.render(&verdict))?;
        let mut reasoning = vec![
            "The coins on the odd steps play Nim (Sprague; Winning Ways, ch. 16). Moving coins from \
             an odd step down to the even step below lowers that odd step, a Nim move. Moving coins \
             from an even step down raises the odd step below it, but the opponent can move the \
             same coins on down to the next even step (from step 1, off the staircase), leaving the \
             odd steps as they were; the coins on even steps never change who wins."
                .to_string(),
        ];
        match self.winning {
            None => reasoning.push(
                "Safe: every column is even, so the nim-sum of the odd steps is 0. A move that lowers \
                 an odd step makes a column odd; a move that raises one is undone. Against perfect \
                 play the player to move loses."
                    .to_string(),
            ),
            Some((step, k)) => {
                let before = self.steps[step - 1];
                reasoning.push(format!(
                    "Unsafe: the nim-sum of the odd steps is {}. Step {step} has {before} coins and \
                     {before} XOR {} = {}, so: {}. Every column is then even: safe for the opponent.",
                    self.table.xor(),
                    self.table.xor(),
                    before - k,
                    crate::game::Staircase::describe(step, k)
                ));
            }
        }
        for paragraph in &reasoning {
            writeln!(f)?;
            f.write_str(&wrap(paragraph, WRAP_WIDTH))?;
        }
        Ok(())
    }
}

/// The width the reasoning paragraphs are wrapped to.
const WRAP_WIDTH: usize = 88;

/// Wraps `text` at spaces into lines of at most `width` characters (longer words stay whole).
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn normalized(text: &str) -> Vec<String> {
        text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
    }

    #[test]
    fn seed_001_tables() {
        let e = explain(&[3, 4, 7], Convention::Normal).unwrap();
        assert_eq!(e.table.sums(), [0, 2, 2, 2]);
        assert_eq!(e.verdict, "Safe");
        let lines = normalized(&e.table.render(&e.verdict));
        assert_eq!(
            lines,
            [
                "Tokens in heap Binary representation Safe/Unsafe?",
                "Column values",
                "8 4 2 1",
                "3 0 0 1 1",
                "4 0 1 0 0",
                "7 0 1 1 1",
                "Column sums 0 2 2 2 Safe"
            ]
        );
        let e = explain(&[5, 1, 6], Convention::Normal).unwrap();
        assert_eq!(e.verdict, "Unsafe (2's column is odd)");
        let lines = normalized(&e.table.render(&e.verdict));
        assert_eq!(
            lines[3..],
            ["5 0 1 0 1", "1 0 0 0 1", "6 0 1 1 0", "Column sums 0 2 1 2 Unsafe (2's column is odd)"]
        );
        assert_eq!(e.suggestion, Suggestion { index: 2, heap: 6, leave: 4, winning: true });
    }

    #[test]
    fn phrases_and_wide_columns() {
        assert_eq!(odd_columns_phrase(&[2]), "2's column is odd");
        assert_eq!(odd_columns_phrase(&[4, 1]), "4's and 1's columns are odd");
        assert_eq!(odd_columns_phrase(&[8, 4, 1]), "8's, 4's and 1's columns are odd");
        let t = ColumnTable::new(&[21, 3]);
        assert_eq!(t.columns(), [16, 8, 4, 2, 1]);
        assert_eq!(t.odd_columns(), [16, 4, 2]);
        let text = t.render("x");
        assert!(text.contains("\n                 16 8 4 2 1\n"), "{text}");
        assert!(text.contains("\n            21    1 0 1 0 1\n"), "{text}");
    }

    #[test]
    fn keeps_the_input_order() {
        assert_eq!(parse_heaps_in_order(&["[3,", "0", "7,", "4]"]).unwrap(), [3, 7, 4]);
        assert!(parse_heaps_in_order(&["3", "-1"]).unwrap_err().to_string().contains("negative"));
        assert!(parse_heaps_in_order(&["x"]).unwrap_err().to_string().contains("'x'"));
        assert!(explain(&[], Convention::Normal).is_err());
    }

    /// An independent brute force: is the sorted position a win for the player to move?
    fn brute_win(heaps: &[u32], misere: bool, memo: &mut HashMap<Vec<u32>, bool>) -> bool {
        let mut key: Vec<u32> = heaps.iter().copied().filter(|&h| h > 0).collect();
        key.sort_unstable();
        if let Some(&w) = memo.get(&key) {
            return w;
        }
        let mut win = key.is_empty() && misere;
        for i in 0..key.len() {
            for left in 0..key[i] {
                let mut child = key.clone();
                child[i] = left;
                if !brute_win(&child, misere, memo) {
                    win = true;
                }
            }
        }
        memo.insert(key, win);
        win
    }

    #[test]
    fn every_suggestion_is_right_up_to_four_heaps_of_seven() {
        for (convention, misere) in [(Convention::Normal, false), (Convention::Misere, true)] {
            let mut memo = HashMap::new();
            let mut checked = 0;
            for n in 1..=4usize {
                // Every ordered tuple of n heaps in 1..=7 (7^4 = 2401 at most).
                for code in 0..7usize.pow(n as u32) {
                    let heaps: Vec<u32> =
                        (0..n).map(|k| (code / 7usize.pow(k as u32) % 7) as u32 + 1).collect();
                    let e = explain(&heaps, convention).unwrap();
                    let win = brute_win(&heaps, misere, &mut memo);
                    assert_eq!(e.safe, !win, "{convention} {heaps:?}");
                    let s = e.suggestion;
                    assert_eq!(heaps[s.index], s.heap, "{heaps:?}");
                    assert!(s.leave < s.heap);
                    assert_eq!(s.winning, win);
                    let after = s.heaps_after(&heaps);
                    if win {
                        assert!(!brute_win(&after, misere, &mut memo), "{convention} {heaps:?} -> {after:?}");
                    } else {
                        assert_eq!((s.heap, s.taken()), (*heaps.iter().max().unwrap(), 1));
                    }
                    checked += 1;
                }
            }
            assert_eq!(checked, 7 + 49 + 343 + 2401);
        }
    }

    #[test]
    fn misere_endgames() {
        let e = explain(&[1, 1, 1], Convention::Misere).unwrap();
        assert!(e.safe);
        assert_eq!(e.verdict, "Safe (misère endgame: 3 1-heaps, an odd number)");
        let e = explain(&[1, 1, 1], Convention::Normal).unwrap();
        assert_eq!(e.verdict, "Unsafe (1's column is odd)");
        // One heap above 1: leave an odd number of 1-heaps, unlike normal Nim.
        let e = explain(&[1, 5, 1], Convention::Misere).unwrap();
        assert_eq!(e.suggestion, Suggestion { index: 1, heap: 5, leave: 1, winning: true });
        let e = explain(&[1, 5, 1], Convention::Normal).unwrap();
        assert_eq!(e.suggestion, Suggestion { index: 1, heap: 5, leave: 0, winning: true });
        let e = explain(&[5, 1], Convention::Misere).unwrap();
        assert_eq!(e.suggestion.leave, 0);
    }
}
