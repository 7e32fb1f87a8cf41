//! A theorem the user states of a game ([`Stated`]): `verify::check_stated` checks it
//! against every stored position (the first counterexamples found here independently), and
//! only one marked proven answers positions past the stored solves (through `query::plan`,
//! as source `Stated` naming its citation, never as one of nimdb's theorems).

use std::sync::Arc;

use nimdb::answer::Source;
use nimdb::driver::{SolveBounds, SolveJob};
use nimdb::game::{Claim, Claimed, Convention, Defined, Family, Game, GameSpec, Outcome, Stated};
use nimdb::query::{Plan, Quotients, plan};
use nimdb::store::Database;
use nimdb::theory::Stop;
use nimdb::verify::{Value, VerifyOptions, check_stated, verify_with};

/// A formula written here, as a program would state one.
#[derive(Debug)]
struct Stating {
    citation: &'static str,
    claim: Claim,
    convention: Convention,
    proven: bool,
    formula: fn(&[u32]) -> Result<u64, String>,
}

impl Stated for Stating {
    fn citation(&self) -> &str {
        self.citation
    }
    fn convention(&self) -> Convention {
        self.convention
    }
    fn claim(&self) -> Claim {
        self.claim
    }
    fn proven(&self) -> bool {
        self.proven
    }
    fn value(&self, position: &[u32]) -> Result<Claimed, String> {
        let v = (self.formula)(position)?;
        let outcome = if v == 0 { Outcome::Loss } else { Outcome::Win };
        Ok(Claimed { outcome, nim_value: Some(v) })
    }
}

fn nim_sum(p: &[u32]) -> Result<u64, String> {
    Ok(p.iter().fold(0, |x, &h| x ^ u64::from(h)))
}

fn parity(p: &[u32]) -> Result<u64, String> {
    Ok(p.iter().map(|&h| u64::from(h)).sum::<u64>() % 2)
}

fn stating(
    citation: &'static str,
    proven: bool,
    formula: fn(&[u32]) -> Result<u64, String>,
) -> Arc<dyn Stated> {
    Arc::new(Stating { citation, claim: Claim::NimValue, convention: Convention::Normal, proven, formula })
}

/// Nim under another name, as a program defines a game: the built-in Nim's rules.
fn defined_nim(theorems: Vec<Arc<dyn Stated>>) -> Game {
    let rules: Arc<dyn Family> = Arc::new(GameSpec::nim());
    Game::Defined(Defined::new("rust-nim", 0x5eed, rules).unwrap().with_theorems(theorems))
}

fn solved(game: &Game, max_total: u32) -> (tempfile::TempDir, Database, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("s.sqlite")).unwrap();
    let bounds = SolveBounds { max_total: Some(max_total), max_heap: None, max_heaps: Some(max_total) };
    let job = SolveJob::new(game, Convention::Normal, bounds, false, nimdb::solve::pool_threads()).unwrap();
    let (record, _) = job.run(&mut db, &nimdb::Silent, &job.in_memory()).unwrap();
    (dir, db, record.positions)
}

/// Every multiset of positive heaps of at most `t` tokens, largest first.
fn partitions(t: u32) -> Vec<Vec<u32>> {
    fn up_to(total: u32, largest: u32, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        out.push(prefix.clone());
        for h in (1..=largest.min(total)).rev() {
            prefix.push(h);
            up_to(total - h, h, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    up_to(t, t, &mut Vec::new(), &mut out);
    out
}

#[test]
fn a_stated_theorem_is_checked_on_every_stored_position() {
    let game = defined_nim(vec![stating("Bouton 1901", true, nim_sum), stating("parity", false, parity)]);
    let Game::Defined(defined) = &game else { unreachable!() };
    let (_dir, db, stored) = solved(&game, 10);
    let all = partitions(10);
    assert_eq!(stored, all.len() as u64);
    let checks = check_stated(&db, &game, Convention::Normal, defined.theorems(), &Stop::never()).unwrap();
    let [bouton, conjecture] = &checks[..] else { panic!("two checks: {checks:?}") };
    assert_eq!((bouton.checked, bouton.agree, bouton.counterexamples), (stored, stored, 0));
    // The conjecture's counterexamples, found here: the nim-value of Nim is the nim-sum.
    let mut wrong: Vec<&Vec<u32>> = all.iter().filter(|p| parity(p) != nim_sum(p)).collect();
    wrong.sort_by_key(|p| (p.iter().sum::<u32>(), p.len(), p.to_vec()));
    assert_eq!(conjecture.counterexamples, wrong.len() as u64);
    assert!(!conjecture.proven && wrong.len() > 10);
    for (c, p) in conjecture.first_counterexamples.iter().zip(&wrong) {
        let cells: Vec<u64> = p.iter().map(|&h| u64::from(h)).collect();
        assert_eq!(c.position, cells);
        assert_eq!(
            (c.stated, c.actual),
            (Value::NimValue(parity(p).unwrap()), Value::NimValue(nim_sum(p).unwrap()))
        );
    }
    assert_eq!(conjecture.first_counterexamples.len(), 10);
    // Under misère play neither is stated: nothing is checked.
    assert!(
        check_stated(&db, &game, Convention::Misere, defined.theorems(), &Stop::never()).unwrap().is_empty()
    );
    // A conjecture's counterexamples are findings; a proven theorem's fail the report.
    let options = VerifyOptions { sample: 100, seed: 1, full: false };
    let mut report = verify_with(&db, &game, Convention::Normal, &options).unwrap();
    report.stated = checks.clone();
    assert!(!report.failed());
    report.stated[0].proven = false;
    report.stated[1].proven = true;
    assert!(report.failed());
}

#[test]
fn only_a_proven_theorem_answers_past_the_stored_solve() {
    let position = [20u64, 13, 7];
    let proven = defined_nim(vec![stating("parity", false, parity), stating("Bouton 1901", true, nim_sum)]);
    let (_dir, db, _) = solved(&proven, 8);
    let Plan::Answered(a) =
        plan(Some(&db), &proven, Convention::Normal, &position, 0, Quotients::Stored).unwrap()
    else {
        panic!("answered by the proven theorem")
    };
    assert_eq!((a.source, a.cited.as_deref(), a.theorem), (Source::Stated, Some("Bouton 1901"), None));
    assert_eq!((a.outcome, a.nim_value, a.remoteness), (Outcome::Win, Some(20 ^ 13 ^ 7), None));
    assert_eq!(a.moves.len(), 40);
    let best = a.best_move.as_ref().unwrap();
    assert_eq!(best.outcome, Outcome::Loss);
    assert_eq!(best.to.iter().fold(0, |x, h| x ^ h), 0);
    let json = serde_json::to_value(a.brief()).unwrap();
    assert_eq!(
        (json["source"].as_str(), json["cited"].as_str()),
        (Some("user-theorem"), Some("Bouton 1901"))
    );
    // Inside the solve the database answers.
    let Plan::Answered(a) =
        plan(Some(&db), &proven, Convention::Normal, &[3, 2, 1], 0, Quotients::Stored).unwrap()
    else {
        panic!("stored")
    };
    assert_eq!((a.source, a.cited), (Source::Database, None));
    // A conjecture alone answers nothing; neither does a theorem of the other convention.
    for conjecture in [stating("Bouton 1901", false, nim_sum), {
        let misere: Arc<dyn Stated> = Arc::new(Stating {
            citation: "misère",
            claim: Claim::NimValue,
            convention: Convention::Misere,
            proven: true,
            formula: nim_sum,
        });
        misere
    }] {
        let game = defined_nim(vec![conjecture]);
        let refused = plan(Some(&db), &game, Convention::Normal, &position, 0, Quotients::Stored);
        assert!(refused.is_err(), "{refused:?}");
    }
    // A formula that gives no value stops the answer and the check, in its own words.
    let failing = defined_nim(vec![stating("failing", true, |p| Err(format!("no value at {p:?}")))]);
    let err = plan(Some(&db), &failing, Convention::Normal, &position, 0, Quotients::Stored).unwrap_err();
    assert_eq!(err.to_string(), "no value at [20, 13, 7]");
    let Game::Defined(d) = &failing else { unreachable!() };
    let err = check_stated(&db, &failing, Convention::Normal, d.theorems(), &Stop::never()).unwrap_err();
    assert_eq!(err.to_string(), "no value at []");
}
