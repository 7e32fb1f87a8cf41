//! Research probe for heap 34 of Dawson's Kayles (0.07): runs the extension of the
//! quotient of heaps 1..33 by heap 34 and, whenever a candidate's least failure holds more
//! copies of heap 34 than any before, reads off what that candidate proves.
//!
//! A candidate's least failure w (found by the exact walk of the closure check) proves its
//! prediction right on every position smaller than w in the word order (by induction: a
//! position below w has its options below w and is not a failure). So two positions below w
//! that the candidate predicts differently have different misère outcomes, whatever the
//! candidate's construction. The probe prints, for the best candidate so far:
//! * for each pair of powers 34^a, 34^b (a < b) the least context X of heaps ≤ 33 found
//!   with 34^a + X and 34^b + X below w and predicted differently (a proof that
//!   Φ(34)^a ≠ Φ(34)^b in the quotient of heaps 1..34 and every larger one);
//! * the outcome table of 34^k + 30^m + R for a few R, marked where exact.
//!
//! With `search H1,H2,… …` it prints instead the misère outcome of each position by the
//! forward search (`solve::reference`, which knows nothing of quotients).
//!
//! `cargo run --release --example dawson_heap34 -- SECONDS MAX_ELEMENTS`
//! `cargo run --release --example dawson_heap34 -- search 34,2 34,34`

use std::time::{Duration, Instant};

use nimdb::game::{Convention, GameSpec, Position};
use nimdb::solve::reference::ReferenceSearch;
use nimdb::theory::quotient::candidate::index_and_period;
use nimdb::theory::quotient::pretension::Pretension;
use nimdb::theory::quotient::relative::{Ladder, Level, Refinement};
use nimdb::theory::quotient::word::Word;
use nimdb::theory::quotient::{Limits, Observer, QuotientBuilder};

struct Probe {
    start: Instant,
    best_e: u32,
}

fn with(w: &Word, extra: &[u32]) -> Word {
    let mut h = w.heaps();
    h.extend_from_slice(extra);
    Word::from_heaps(&h)
}

fn analyse(t: &Pretension, w: &Word) {
    let e = w.exponent(34);
    let q = &t.q;
    let g = t.images[34];
    let letters = t.letters();
    let least = t.least_words(&letters);
    // Contexts: least words of elements without heap 34, smallest first.
    let mut ctx: Vec<(Word, u32)> = least
        .iter()
        .enumerate()
        .filter_map(|(x, lw)| lw.as_ref().filter(|lw| lw.exponent(34) == 0).map(|lw| (lw.clone(), x as u32)))
        .collect();
    ctx.sort();
    println!("  powers of Φ(34) told apart below the failure (a, b: least context):");
    for b in 1..=e {
        for a in 0..b {
            let (ga, gb) = (q.pow(g, a as u64), q.pow(g, b as u64));
            let found = ctx.iter().find(|(cw, x)| {
                let pa = with(cw, &vec![34; a as usize]);
                let pb = with(cw, &vec![34; b as usize]);
                pb < *w && pa < *w && q.is_p(q.mul(ga, *x)) != q.is_p(q.mul(gb, *x))
            });
            match found {
                Some((cw, x)) => println!(
                    "    {a},{b}: X = {cw} (34^{a}+X {}, 34^{b}+X {})",
                    if q.is_p(q.mul(ga, *x)) { "P" } else { "N" },
                    if q.is_p(q.mul(gb, *x)) { "P" } else { "N" }
                ),
                None => println!("    {a},{b}: none found"),
            }
        }
    }
    // The diagonal: 34^k + 30^m + 25 is a P-position iff m ≥ k and m ≡ k (mod 2), for k ≥ 2.
    // The candidate's predictions in m repeat after the index and period of Φ(30), so
    // checking m up to k + index + 2·period checks every m.
    let img30 = t.images[30];
    let (i30, p30) = index_and_period(q, img30);
    for k in 2..e {
        let mlimit = k + i30 + 2 * p30;
        let holds = (0..=mlimit).all(|m| {
            let x = q.mul(q.mul(q.pow(g, k as u64), q.pow(img30, m as u64)), t.images[25]);
            q.is_p(x) == (m >= k && (m - k) % 2 == 0)
        });
        println!(
            "  k = {k}: 34^k + 30^m + 25 is P iff m ≥ k, m ≡ k (mod 2), for every m: {holds} \
             (Φ(30) has index {i30}, period {p30} here; m ≤ {mlimit} checked)"
        );
    }
    for rest in [vec![], vec![2], vec![16, 2], vec![25, 16, 2], vec![25]] {
        println!(
            "  outcomes of 34^k + 30^m + {:?} (k down, m across; lower case = beyond the failure):",
            rest
        );
        for k in 0..=e + 1 {
            let mut line = format!("    k={k:2}: ");
            for m in 0..=16u32 {
                let mut heaps = rest.clone();
                heaps.extend(std::iter::repeat_n(30, m as usize));
                heaps.extend(std::iter::repeat_n(34, k as usize));
                let pos = Word::from_heaps(&heaps);
                let p = t.q.is_p(t.phi(&pos));
                let c = match (p, pos < *w) {
                    (true, true) => 'P',
                    (false, true) => 'N',
                    (true, false) => 'p',
                    (false, false) => 'n',
                };
                line.push(c);
            }
            println!("{line}");
        }
    }
}

impl Observer for Probe {
    fn trial(&mut self, heap: u32, c: &Pretension, failure: Option<&Word>) {
        let f = failure.map_or("none".to_string(), |w| w.to_string());
        println!(
            "heap {heap}: |Q| = {}, failure {f} ({:.1} s)",
            c.q.size(),
            self.start.elapsed().as_secs_f64()
        );
        if let Some(w) = failure
            && heap == 34
            && w.exponent(34) > self.best_e
        {
            self.best_e = w.exponent(34);
            analyse(c, w);
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("ladder-candidate") {
        return ladder_candidate(&args[2..]);
    }
    if args.get(1).map(String::as_str) == Some("ladder") {
        return ladder(&args[2..]);
    }
    if args.get(1).map(String::as_str) == Some("search") {
        let spec: GameSpec = "octal:0.07".parse()?;
        let code = spec.octal().ok_or("not an octal game")?.clone();
        let mut search = ReferenceSearch::new(&code, Convention::Misere);
        for a in &args[2..] {
            let heaps: Vec<u32> = a.split(',').map(str::parse).collect::<Result<_, _>>()?;
            let (win, rem) = search.solve(&Position::new(heaps.clone()));
            println!("{heaps:?}: {} (remoteness {rem})", if win { "N" } else { "P" });
        }
        return Ok(());
    }
    let secs: u64 = args.get(1).map_or(Ok(600), |s| s.parse())?;
    let max: usize = args.get(2).map_or(Ok(60000), |s| s.parse())?;
    let spec: GameSpec = "octal:0.07".parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let mut b = QuotientBuilder::new(code, Limits { max_elements: max, ..Limits::default() });
    let start = Instant::now();
    while b.max_heap() < 33 {
        b.add_heap()?;
    }
    println!("heaps 1..33: |Q| = {} ({:.1} s)", b.monoid().size(), start.elapsed().as_secs_f64());
    let cycles: Vec<(u32, u32)> = b.heap_images().iter().map(|&x| index_and_period(b.monoid(), x)).collect();
    let (imax, pmax) = cycles.iter().fold((0, 0), |(i, p), &(a, c)| (i.max(a), p.max(c)));
    println!("  heap images: index at most {imax}, period at most {pmax}; heap 30: {:?}", cycles[30]);
    let deadline = start + Duration::from_secs(secs);
    let stop = move || Instant::now() >= deadline;
    let mut probe = Probe { start, best_e: 0 };
    let r = b.add_heap_observed(&stop, &mut probe);
    println!("heap 34: {r:?} ({:.1} s)", start.elapsed().as_secs_f64());
    Ok(())
}

/// `ladder LEVELS [COUNTED CAP]`: proves, level by level, o(34^k + R) for every R of heaps
/// ≤ 33 from Q₃₃ (times capped counters of the heaps COUNTED, e.g. `30` or `30,33`), and
/// prints the diagonal 34^k + 30^m + 25 each proved level gives.
fn ladder(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let levels: usize = args.first().map_or(Ok(8), |s| s.parse())?;
    let counted: Vec<u32> = match args.get(1) {
        Some(s) if !s.is_empty() && s != "-" => s.split(',').map(str::parse).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    let cap: u32 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let max_states: usize = args.get(3).map_or(Ok(5_000_000), |s| s.parse())?;
    let spec: GameSpec = "octal:0.07".parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let start = Instant::now();
    let mut b = QuotientBuilder::new(code, Limits::default());
    while b.max_heap() < 33 {
        b.add_heap()?;
    }
    let (i30, p30) = index_and_period(b.monoid(), b.heap_images()[30]);
    println!(
        "heaps 1..33: |Q| = {}; Φ(30) index {i30}, period {p30} ({:.1} s)",
        b.monoid().size(),
        start.elapsed().as_secs_f64()
    );
    let r =
        Refinement { q: b.monoid().clone(), images: b.heap_images().to_vec(), counted: counted.clone(), cap };
    let l = Ladder::new(code, 34, r, 1 << 26)?;
    println!(
        "refinement: counted {counted:?} capped at {cap}: {} elements are images of positions ({:.1} s)",
        l.size(),
        start.elapsed().as_secs_f64()
    );
    let mlimit = 2 * levels as u32 + 2 * cap + i30 + 2 * p30 + 4;
    climb(l, levels, max_states, mlimit, start);
    Ok(())
}

fn climb(mut l: Ladder, levels: usize, max_states: usize, mlimit: u32, start: Instant) -> Ladder {
    for k in 0..levels {
        let v = l.climb(max_states);
        println!("level {k}: {v} ({:.1} s)", start.elapsed().as_secs_f64());
        if !matches!(v, Level::Factors { .. }) {
            break;
        }
        let mut line = String::new();
        for m in 0..=mlimit {
            let mut heaps = vec![30; m as usize];
            heaps.push(25);
            line.push(if l.is_p(k, &heaps) == Some(true) { 'P' } else { 'N' });
        }
        let want: String = (0..=mlimit)
            .map(|m| if m >= k as u32 && (m - k as u32).is_multiple_of(2) { 'P' } else { 'N' })
            .collect();
        println!(
            "  34^{k} + 30^m + 25, m = 0..{mlimit}: {line}{}",
            if k >= 2 && line == want { "  (m >= k, m = k mod 2)" } else { "" }
        );
    }
    // Powers of Φ(34) told apart by the proved levels: the least R with o(34^i + R) ≠ o(34^j + R).
    let proved = l.proved();
    for j in 1..proved {
        let mut line = format!("  34^{j} differs from:");
        for i in 0..j {
            let (a, b) = (l.level_set(i).expect("proved"), l.level_set(j).expect("proved"));
            let z = (0..l.size() as u32)
                .filter(|&z| a[z as usize] != b[z as usize])
                .min_by_key(|&z| l.least_total(z));
            match z {
                Some(z) => line.push_str(&format!(" 34^{i} by {:?};", l.least_position(z))),
                None => line.push_str(&format!(" not 34^{i}!;")),
            }
        }
        println!("{line}");
    }
    l
}

/// Two positions of heaps ≤ 33 with the same image in Q₃₃ that 34^k + · tells apart (by
/// level k proved over a finer refinement), smallest total first.
fn confused(l: &Ladder, k: usize, q33: &nimdb::theory::quotient::BipartiteMonoid, images33: &[u32]) {
    let Some(t) = l.level_set(k) else { return };
    let mut by_image: std::collections::HashMap<u32, (u32, bool)> = std::collections::HashMap::new();
    let mut order: Vec<u32> = (0..l.size() as u32).collect();
    order.sort_by_key(|&z| l.least_total(z));
    let mut best: Option<(u32, u32, u32)> = None;
    for z in order {
        let pos = l.least_position(z);
        let x = pos.iter().fold(0, |acc, &h| q33.mul(acc, images33[h as usize]));
        match by_image.get(&x) {
            Some(&(y, p)) if p != t[z as usize] => {
                let tot = l.least_total(y) + l.least_total(z);
                if best.is_none_or(|b| tot < b.2) {
                    best = Some((y, z, tot));
                }
            }
            Some(_) => {}
            None => {
                by_image.insert(x, (z, t[z as usize]));
            }
        }
    }
    if let Some((y, z, _)) = best {
        let (ry, rz) = (l.least_position(y), l.least_position(z));
        println!(
            "  Q33 confuses {ry:?} and {rz:?} (same image), but 34^{k} + {ry:?} is {} and 34^{k} + {rz:?} is {}",
            if t[y as usize] { "P" } else { "N" },
            if t[z as usize] { "P" } else { "N" }
        );
    }
}

struct Catch {
    want: u32,
    best: u32,
    levels: usize,
    max_states: usize,
    start: Instant,
    code: nimdb::game::TakeBreakCode,
    q33: nimdb::theory::quotient::BipartiteMonoid,
    images33: Vec<u32>,
    flag: std::rc::Rc<std::cell::Cell<bool>>,
}

impl Observer for Catch {
    fn trial(&mut self, heap: u32, c: &Pretension, failure: Option<&Word>) {
        let Some(w) = failure else { return };
        if heap != 34 || w.exponent(34) <= self.best {
            return;
        }
        self.best = w.exponent(34);
        let refinement = Refinement::generated(&c.q, &c.images[..34]);
        println!(
            "candidate of {} elements, least failure {w}: heaps 1..33 generate {} of them ({:.1} s)",
            c.q.size(),
            refinement.q.size(),
            self.start.elapsed().as_secs_f64()
        );
        match Ladder::new(&self.code, 34, refinement, 1 << 26) {
            Ok(l) => {
                let l = climb(l, self.levels, self.max_states, 2 * self.levels as u32 + 12, self.start);
                for k in 1..l.proved() {
                    confused(&l, k, &self.q33, &self.images33);
                }
            }
            Err(e) => println!("  no ladder: {e}"),
        }
        if self.best >= self.want {
            self.flag.set(true);
        }
    }
}

/// `ladder-candidate E LEVELS [MAX_STATES]`: extends Q₃₃ by heap 34 until a candidate's
/// least failure holds E copies of 34, and climbs the ladder over the submonoid that heaps
/// 1..33 generate in that candidate (the candidate is only a guess; every level is checked).
fn ladder_candidate(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let want: u32 = args.first().map_or(Ok(4), |s| s.parse())?;
    let levels: usize = args.get(1).map_or(Ok(8), |s| s.parse())?;
    let max_states: usize = args.get(2).map_or(Ok(5_000_000), |s| s.parse())?;
    let spec: GameSpec = "octal:0.07".parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let start = Instant::now();
    let mut b = QuotientBuilder::new(code, Limits { max_elements: 60000, ..Limits::default() });
    while b.max_heap() < 33 {
        b.add_heap()?;
    }
    let flag = std::rc::Rc::new(std::cell::Cell::new(false));
    let f2 = flag.clone();
    let stop = move || f2.get();
    let mut catch = Catch {
        want,
        best: 0,
        levels,
        max_states,
        start,
        code: code.clone(),
        q33: b.monoid().clone(),
        images33: b.heap_images().to_vec(),
        flag,
    };
    let r = b.add_heap_observed(&stop, &mut catch);
    println!("heap 34: {r:?} ({:.1} s)", start.elapsed().as_secs_f64());
    Ok(())
}
