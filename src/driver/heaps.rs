//! Single-heap reports through the database's `heap_values` cache: the store keeps the
//! rows, the theory computes, and this joins them.

use crate::game::GameSpec;
use crate::store::{Database, HeapRows, SequenceFacts};
use crate::theory::cache::{ENGINE_VERSION, StoredSequence};
use crate::theory::{HeapOptions, HeapReport, heap_report_from};

use super::DriverError;

/// The report of `spec`'s heaps, reusing the values `db` holds for the game and storing
/// what was computed beyond them.
pub fn heap_report(db: &Database, spec: &GameSpec, opts: &HeapOptions) -> Result<HeapReport, DriverError> {
    let game = spec.to_string();
    let stored = db.heap_rows(&game, ENGINE_VERSION)?.map(from_rows).unwrap_or_default();
    let report = heap_report_from(spec, opts, &stored)?;
    let periodicity = &report.periodicity;
    let facts = SequenceFacts {
        period: periodicity.period,
        preperiod: periodicity.preperiod,
        proven: periodicity.proven,
        certificate: periodicity.certificate.map(|c| c.to_string()),
        method: report.method.clone(),
        engine: ENGINE_VERSION.to_string(),
    };
    db.store_heap_rows(&game, &to_rows(&report.to_stored()), &facts)?;
    Ok(report)
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
        let rows = db.heap_rows("kayles", ENGINE_VERSION).unwrap().unwrap();
        assert_eq!(rows.up_to(), Some(5000));
        assert_eq!(rows.genus[5].as_deref(), Some("4^146"));
    }
}
