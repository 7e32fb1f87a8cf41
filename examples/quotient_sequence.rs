//! Prints |Q_n| and |P_n| of the misère quotient of heaps 1..n for each n, with the time
//! and the recalibrations so far: `cargo run --release --example quotient_sequence -- 0.07 40`.

use std::time::Instant;

use nimdb::game::GameSpec;
use nimdb::theory::quotient::candidate::Cyclic;
use nimdb::theory::quotient::pretension::Pretension;
use nimdb::theory::quotient::word::Word;
use nimdb::theory::quotient::{Choice, Limits, Observer, QuotientBuilder};

/// Prints each candidate tried when `--trace` is given.
struct Trace(bool, Instant);

impl Observer for Trace {
    fn trial(&mut self, heap: u32, c: &Pretension, failure: Option<&Word>) {
        if self.0 {
            let f = failure.map_or("none".to_string(), |w| w.to_string());
            eprintln!(
                "  heap {heap}: tried |Q| = {}, failure {f} ({:.1} s)",
                c.q.size(),
                self.1.elapsed().as_secs_f64()
            );
        }
    }

    fn recalibrated(&mut self, _heap: u32, freed: &[u32], cyclic: &[Cyclic], elements: u64) {
        if self.0 {
            let c: Vec<String> = cyclic.iter().map(|c| format!("{}+{}", c.index, c.period)).collect();
            eprintln!("    freed {freed:?} as {c:?}: {elements} elements before reduction");
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let code = args.get(1).map_or("0.07", String::as_str);
    let top: u32 = args.get(2).map_or(Ok(30), |s| s.parse())?;
    let spec: GameSpec = format!("octal:{code}").parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let max: usize = std::env::var("MAXQ").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let mut b = QuotientBuilder::new(code, Limits { max_elements: max, ..Limits::default() });
    match std::env::var("CHOICE").as_deref() {
        Ok("smallest") => b.set_choice(Choice::Smallest),
        Ok("largest") => b.set_choice(Choice::LargestFirst),
        _ => {}
    }
    let start = Instant::now();
    let mut trace = Trace(args.iter().any(|a| a == "--trace"), start);
    println!("heap\t|Q|\t|P|\tseconds\trecalibrations");
    while b.max_heap() < top {
        b.add_heap_observed(&|| false, &mut trace)?;
        let q = b.monoid();
        println!(
            "{}\t{}\t{}\t{:.2}\t{}",
            b.max_heap(),
            q.size(),
            q.p_elements().len(),
            start.elapsed().as_secs_f64(),
            b.recalibrations()
        );
    }
    Ok(())
}
