//! Single-heap reports through the database's `heap_values` cache: the store keeps the
//! rows, the theory computes, and this joins them.

use std::ops::ControlFlow;

use crate::game::GameSpec;
use crate::store::{Database, HeapRows, SequenceFacts};
use crate::theory::cache::{ENGINE_VERSION, StoredSequence};
use crate::theory::period::Periodicity;
use crate::theory::report::HeapStream;
use crate::theory::{HeapOptions, HeapReport, Stop};

use super::DriverError;

/// Heaps computed (and stored) per stretch of [`run_heaps`]: between two stretches the
/// caller writes output, shows progress, and may stop.
pub const STRETCH: u32 = 1 << 16;

/// How a run of [`run_heaps`] ended.
#[derive(Debug)]
pub struct HeapRun {
    /// The stream, with every value up to `done`.
    pub stream: HeapStream,
    /// The last heap computed and handed to the caller.
    pub done: u32,
    /// The last heap whose row is stored (`None`: nothing stored).
    pub stored_to: Option<u32>,
    /// The periodicity, when the run went to N (`None`: the caller stopped it).
    pub periodicity: Option<Periodicity>,
}

/// Computes `spec`'s heaps up to N a stretch at a time ([`STRETCH`] heaps), reusing the
/// values `db` holds for the game and committing each stretch's rows as it is computed
/// (rows up to [`HEAP_ROWS_LIMIT`](crate::store::HEAP_ROWS_LIMIT)), so that a run stopped
/// midway keeps every complete row and the next run continues from them.
///
/// `on_stretch(stream, from, to)` is called for heaps `0..=N` in order, first for the heaps
/// computed before the loop (the small heaps with misère values), then once per stretch;
/// returning [`ControlFlow::Break`] stops the run after that stretch is stored. Without a
/// database nothing is read or stored.
pub fn run_heaps(
    db: Option<&Database>,
    spec: &GameSpec,
    opts: &HeapOptions,
    on_stretch: impl FnMut(&HeapStream, u32, u32) -> ControlFlow<()>,
) -> Result<HeapRun, DriverError> {
    run_heaps_until(db, spec, opts, &Stop::never(), on_stretch)
}

/// [`run_heaps`], also stopped by `stop`: inside a stretch (the stretches before it stay
/// stored; the run ends as when `on_stretch` breaks), and where the computation is not
/// split in stretches: the plain mex of a game that splits heaps three ways computes every
/// value before the first stretch, and a stop there gives
/// [`TheoryError::Stopped`](crate::theory::TheoryError) (nothing of it stored).
pub fn run_heaps_until(
    db: Option<&Database>,
    spec: &GameSpec,
    opts: &HeapOptions,
    stop: &Stop,
    mut on_stretch: impl FnMut(&HeapStream, u32, u32) -> ControlFlow<()>,
) -> Result<HeapRun, DriverError> {
    let stored = match db {
        Some(db) => db.heap_rows(spec, ENGINE_VERSION)?.map(from_rows).unwrap_or_default(),
        None => StoredSequence::default(),
    };
    let mut stream = HeapStream::new_until(spec, opts, &stored, stop)?;
    let n = stream.up_to();
    let facts = |stream: &HeapStream, p: Option<&Periodicity>| SequenceFacts {
        period: p.and_then(|p| p.period),
        preperiod: p.and_then(|p| p.preperiod),
        proven: p.is_some_and(|p| p.proven),
        certificate: p.and_then(|p| p.certificate.map(|c| c.to_string())),
        method: stream.method(),
        engine: ENGINE_VERSION.to_string(),
    };
    // The small heaps (with their misère values and genus) first, in one transaction.
    let first = stream.misere_up_to().unwrap_or(0).min(n);
    let mut stored_to = stored.up_to();
    if let Some(db) = db {
        let small = HeapStream::rows_to(&stream, first);
        db.store_heap_rows(spec, &to_rows(&small), &facts(&stream, None))?;
        stored_to = stored_to.max(Some(first));
    }
    let mut done = first;
    let mut stopped = on_stretch(&stream, 0, first).is_break();
    let mut buf = Vec::new();
    while !stopped && done < n {
        let from = done + 1;
        let to = from.saturating_add(STRETCH - 1).min(n);
        if stream.run_to_until(to, stop).is_err() {
            // Stopped inside the stretch: the heaps before it are stored, none of it.
            break;
        }
        if let Some(db) = db {
            let next = stored_to.map_or(0, |s| s + 1);
            if next >= from && next <= to {
                buf.clear();
                buf.extend((next..=to).map(|h| stream.value(h)));
                if let Some(last) = db.append_heap_values(spec, ENGINE_VERSION, next, &buf)? {
                    stored_to = Some(last);
                }
            }
        }
        done = to;
        stopped = on_stretch(&stream, from, to).is_break();
    }
    let periodicity = (done == n).then(|| stream.finish());
    if let Some(db) = db {
        db.set_heap_facts(spec, &facts(&stream, periodicity.as_ref()), done)?;
    }
    Ok(HeapRun { stream, done, stored_to, periodicity })
}

/// The nim-values `db` holds for `spec` (g(0..len), from heap 0 on; empty when none):
/// what a run of [`run_heaps`] would not compute again.
pub fn stored_values(db: &Database, spec: &GameSpec) -> Result<Vec<u32>, DriverError> {
    Ok(db.heap_rows(spec, ENGINE_VERSION)?.map(|rows| rows.values).unwrap_or_default())
}

/// The report of `spec`'s heaps, reusing the values `db` holds for the game and storing
/// what was computed beyond them.
pub fn heap_report(db: &Database, spec: &GameSpec, opts: &HeapOptions) -> Result<HeapReport, DriverError> {
    let run = run_heaps(Some(db), spec, opts, |_, _, _| ControlFlow::Continue(()))?;
    Ok(run.stream.report())
}

fn from_rows(rows: HeapRows) -> StoredSequence {
    StoredSequence {
        values: rows.values,
        misere: rows.misere,
        genus: rows.genus.into_iter().map(|g| g.and_then(|s| s.parse().ok())).collect(),
        tame: rows.tame,
        genus_depth: rows.genus_depth,
    }
}

fn to_rows(seq: &StoredSequence) -> HeapRows {
    HeapRows {
        values: seq.values.clone(),
        misere: seq.misere.clone(),
        genus: seq.genus.iter().map(|g| g.as_ref().map(|g| g.to_string())).collect(),
        tame: seq.tame.clone(),
        genus_depth: seq.genus_depth,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_and_extends_the_cache() {
        let db = Database::open_in_memory().unwrap();
        let kayles: GameSpec = "kayles".parse().unwrap();
        let mut opts = HeapOptions::new(200);
        opts.misere_up_to = 12;
        let first = heap_report(&db, &kayles, &opts).unwrap();
        assert!(first.periodicity.proven);
        assert_eq!(first.genus[5].as_ref().unwrap().to_string(), "4^146");
        let again = heap_report(&db, &kayles, &HeapOptions { up_to: 150, ..opts.clone() }).unwrap();
        assert!(again.method.starts_with("read from the database"), "{}", again.method);
        assert_eq!(again.values[..], first.values[..=150]);
        assert_eq!(again.genus[..13], first.genus[..13]);
        let longer = heap_report(&db, &kayles, &HeapOptions { up_to: 5000, ..opts }).unwrap();
        assert!(longer.method.starts_with("heaps 0..=200 from the database"), "{}", longer.method);
        let plain = crate::theory::heap_report(&kayles, &HeapOptions::new(5000)).unwrap();
        assert_eq!(longer.values, plain.values);
        let rows = db.heap_rows(&"kayles".parse().unwrap(), ENGINE_VERSION).unwrap().unwrap();
        assert_eq!(rows.up_to(), Some(5000));
        assert_eq!(rows.genus[5].as_deref(), Some("4^146"));
    }
}
