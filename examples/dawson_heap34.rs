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
//! `cargo run --release --example dawson_heap34 -- dump E DIR` (candidates' monoids to files)
//! `FREE30=1 cargo run --release --example dawson_heap34 -- shift DIR/m9.txt 17 10 7 -8 2 2`
//! (the ladder with heap 30 counted exactly, then the two-region shift form k₀ = 7, window
//! −8..2, c* = 2, which proves the heap-34 diagonal for every k; see docs/quotients.md,
//! "Every k at once")

use std::time::{Duration, Instant};

use nimdb::game::{Convention, GameSpec, Position};
use nimdb::solve::reference::ReferenceSearch;
use nimdb::theory::quotient::candidate::index_and_period;
use nimdb::theory::quotient::pretension::Pretension;
use nimdb::theory::quotient::recheck::{Recheck, ShiftClaim, recheck};
use nimdb::theory::quotient::relative::{Ladder, Level, Refinement, ShiftCheck, ShiftForm};
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
    let rest = args.get(2..).unwrap_or_default();
    match args.get(1).map(String::as_str) {
        Some("ladder-candidate") => return ladder_candidate(rest),
        Some("shift") => return shift(rest),
        Some("dump") => return dump(rest),
        Some("ladder") => return ladder(rest),
        _ => {}
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
    let secs: u64 = arg(&args, 1, 600)?;
    let max: usize = arg(&args, 2, 60000)?;
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
    let cap: u32 = arg(args, 2, 1)?;
    let max_states: usize = arg(args, 3, 5_000_000)?;
    let start = Instant::now();
    let b = q33()?;
    let code = b.code();
    let (i30, p30) = index_and_period(b.monoid(), b.heap_images()[30]);
    println!(
        "heaps 1..33: |Q| = {}; Φ(30) index {i30}, period {p30} ({:.1} s)",
        b.monoid().size(),
        start.elapsed().as_secs_f64()
    );
    let r = Refinement {
        q: b.monoid().clone(),
        images: b.heap_images().to_vec(),
        counted: counted.clone(),
        cap,
        period: 1,
    };
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

/// Watches heap 34's candidates and hands each new best one (a least failure with more
/// copies of 34 than any before) to `act`, with the submonoid heaps 1..33 generate in it;
/// stops the extension once a failure holds `want` copies.
struct Best<F: FnMut(&Pretension, &Word, Refinement)> {
    want: u32,
    best: u32,
    flag: std::rc::Rc<std::cell::Cell<bool>>,
    act: F,
}

impl<F: FnMut(&Pretension, &Word, Refinement)> Observer for Best<F> {
    fn trial(&mut self, heap: u32, c: &Pretension, failure: Option<&Word>) {
        let Some(w) = failure else { return };
        if heap != 34 || w.exponent(34) <= self.best {
            return;
        }
        self.best = w.exponent(34);
        (self.act)(c, w, Refinement::generated(&c.q, &c.images[..34]));
        if self.best >= self.want {
            self.flag.set(true);
        }
    }
}

/// Q₃₃ of Dawson's Kayles (element limit 60,000 for heap 34's candidates).
fn q33() -> Result<QuotientBuilder, Box<dyn std::error::Error>> {
    let spec: GameSpec = "octal:0.07".parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let mut b = QuotientBuilder::new(code, Limits { max_elements: 60000, ..Limits::default() });
    while b.max_heap() < 33 {
        b.add_heap()?;
    }
    Ok(b)
}

/// Extends `b` (Q₃₃) by heap 34 until a candidate's least failure holds `want` copies of 34,
/// handing each new best candidate to `act`.
fn watch_heap34(
    b: &mut QuotientBuilder,
    want: u32,
    start: Instant,
    act: impl FnMut(&Pretension, &Word, Refinement),
) {
    let flag = std::rc::Rc::new(std::cell::Cell::new(false));
    let f2 = flag.clone();
    let stop = move || f2.get();
    let mut best = Best { want, best: 0, flag, act };
    let r = b.add_heap_observed(&stop, &mut best);
    println!("heap 34: {r:?} ({:.1} s)", start.elapsed().as_secs_f64());
}

/// Argument `i`, parsed, or `default` when absent.
fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> Result<T, Box<dyn std::error::Error>>
where
    T::Err: std::error::Error + 'static,
{
    match args.get(i) {
        Some(s) => Ok(s.parse()?),
        None => Ok(default),
    }
}

/// `ladder-candidate E LEVELS [MAX_STATES]`: extends Q₃₃ by heap 34 until a candidate's
/// least failure holds E copies of 34, and climbs the ladder over the submonoid that heaps
/// 1..33 generate in that candidate (the candidate is only a guess; every level is checked).
fn ladder_candidate(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let want: u32 = arg(args, 0, 4)?;
    let levels: usize = arg(args, 1, 8)?;
    let max_states: usize = arg(args, 2, 5_000_000)?;
    let start = Instant::now();
    let mut b = q33()?;
    let (code, q, images) = (b.code().clone(), b.monoid().clone(), b.heap_images().to_vec());
    watch_heap34(&mut b, want, start, |c, w, refinement| {
        println!(
            "candidate of {} elements, least failure {w}: heaps 1..33 generate {} of them ({:.1} s)",
            c.q.size(),
            refinement.q.size(),
            start.elapsed().as_secs_f64()
        );
        match Ladder::new(&code, 34, refinement, 1 << 26) {
            Ok(l) => {
                let l = climb(l, levels, max_states, 2 * levels as u32 + 12, start);
                for k in 1..l.proved() {
                    confused(&l, k, &q, &images);
                }
            }
            Err(e) => println!("  no ladder: {e}"),
        }
    });
    Ok(())
}

/// Writes a refinement (the monoid heaps 1..33 generate in a candidate) as text: the size n,
/// then n rows of the table, then the images of heaps 0..33.
fn write_refinement(path: &str, r: &Refinement) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let n = r.q.size();
    let mut out = format!("{n}\n");
    for a in 0..n as u32 {
        let row: Vec<String> = (0..n as u32).map(|b| r.q.mul(a, b).to_string()).collect();
        let _ = writeln!(out, "{}", row.join(" "));
    }
    let im: Vec<String> = r.images.iter().map(u32::to_string).collect();
    let _ = writeln!(out, "{}", im.join(" "));
    std::fs::write(path, out)
}

/// Reads what [`write_refinement`] wrote (no counters).
fn read_refinement(path: &str) -> Result<Refinement, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let n: usize = lines.next().ok_or("empty file")?.trim().parse()?;
    let mut table = Vec::with_capacity(n * n);
    for _ in 0..n {
        let row: Vec<u32> =
            lines.next().ok_or("short table")?.split(' ').map(str::parse).collect::<Result<_, _>>()?;
        if row.len() != n {
            return Err("bad row".into());
        }
        table.extend(row);
    }
    let images: Vec<u32> =
        lines.next().ok_or("no images")?.split(' ').map(str::parse).collect::<Result<_, _>>()?;
    let q = nimdb::theory::quotient::BipartiteMonoid::from_table(n, table, vec![false; n])?;
    associative(&q, &images)?;
    Ok(Refinement { q, images, counted: Vec::new(), cap: 1, period: 1 })
}

/// Refuses a table (commutative with identity, as `from_table` checks) unless the heap
/// images generate it and it is associative, by Light's test over those generators:
/// (x·g)·y = x·(g·y) for every x, y and generator g. So a file's monoid is a commutative
/// monoid and every map of heaps into it a homomorphism of positions.
fn associative(q: &nimdb::theory::quotient::BipartiteMonoid, images: &[u32]) -> Result<(), String> {
    let n = q.size() as u32;
    let mut gens: Vec<u32> = images.iter().copied().filter(|&g| g != 0).collect();
    gens.sort_unstable();
    gens.dedup();
    let mut seen = vec![false; n as usize];
    seen[0] = true;
    let mut queue = vec![0u32];
    while let Some(x) = queue.pop() {
        for &g in &gens {
            let y = q.mul(x, g);
            if !seen[y as usize] {
                seen[y as usize] = true;
                queue.push(y);
            }
        }
    }
    if let Some(x) = seen.iter().position(|&b| !b) {
        return Err(format!("element {x} is not a product of heap images"));
    }
    for &g in &gens {
        for x in 0..n {
            let xg = q.mul(x, g);
            for y in 0..n {
                if q.mul(xg, y) != q.mul(x, q.mul(g, y)) {
                    return Err(format!("not associative: ({x}·{g})·{y} ≠ {x}·({g}·{y})"));
                }
            }
        }
    }
    Ok(())
}

/// `dump E DIR`: extends Q₃₃ by heap 34 until a candidate's least failure holds E copies of
/// 34, writing each new best candidate's submonoid of heaps 1..33 to DIR/m<e>.txt.
fn dump(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let want: u32 = arg(args, 0, 4)?;
    let dir: String = arg(args, 1, ".".to_string())?;
    let start = Instant::now();
    let mut b = q33()?;
    let q33 = Refinement::generated(b.monoid(), &b.heap_images()[..34]);
    write_refinement(&format!("{dir}/m0.txt"), &q33)?;
    watch_heap34(&mut b, want, start, |c, w, r| {
        let path = format!("{dir}/m{}.txt", w.exponent(34));
        println!(
            "candidate of {} elements, least failure {w}: heaps 1..33 generate {}; written to {path} ({:.1} s)",
            c.q.size(),
            r.q.size(),
            start.elapsed().as_secs_f64()
        );
        if let Err(e) = write_refinement(&path, &r) {
            println!("  not written: {e}");
        }
    });
    Ok(())
}

/// `shift FILE CAP LEVELS K0 LO HI [CSTAR [MAX_STATES]]`: the ladder over the monoid in FILE
/// (from `dump`) times an exact counter of heap 30 (exact below CAP − 1, then its parity),
/// levels 0..LEVELS−1; then the shift form F(x, min(c, CSTAR), c − k) read from levels K0..
/// on the window LO..=HI (of d − min(c, CSTAR)), and its check for every k > K0 (a pass
/// proves o(34^k + R) = F(ψ(R), min(c, CSTAR), c(R) − k) for every k ≥ K0 and every R), and
/// the diagonal 34^k + 30^m + 25 read from F for every k ≥ K0, m. With FORMS="K0:LO:HI:CSTAR;…"
/// every form listed is read and checked over the one ladder.
fn shift(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let get = |i: usize| args.get(i).ok_or("usage: shift FILE CAP LEVELS K0 LO HI [CSTAR [MAX_STATES]]");
    let mut r = read_refinement(get(0)?)?;
    let cap: u32 = get(1)?.parse()?;
    let levels: usize = get(2)?.parse()?;
    let mut forms: Vec<(usize, i64, i64, u32)> =
        vec![(get(3)?.parse()?, get(4)?.parse()?, get(5)?.parse()?, arg(args, 6, 0)?)];
    let max_states: usize = arg(args, 7, 5_000_000)?;
    if let Ok(list) = std::env::var("FORMS") {
        forms.clear();
        for f in list.split(';').filter(|f| !f.is_empty()) {
            let v: Vec<&str> = f.split(':').collect();
            if v.len() != 4 {
                return Err(format!("FORMS: {f:?} is not K0:LO:HI:CSTAR").into());
            }
            forms.push((v[0].parse()?, v[1].parse()?, v[2].parse()?, v[3].parse()?));
        }
    }
    let (i30, p30) = index_and_period(&r.q, r.images[30]);
    if std::env::var("FREE30").is_ok() {
        // Heap 30 only counted: its part in M is the identity.
        r.images[30] = 0;
    }
    r.counted = vec![30];
    r.cap = cap;
    r.period = 2;
    let spec: GameSpec = "octal:0.07".parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let start = Instant::now();
    let qs = r.q.size();
    let l = Ladder::new(code, 34, r, 1 << 26)?;
    println!(
        "M: {qs} elements, Φ(30) index {i30} period {p30}; with heap 30 counted (cap {cap}, period 2): {} images ({:.1} s)",
        l.size(),
        start.elapsed().as_secs_f64()
    );
    let l = climb(l, levels, max_states, 2 * levels as u32 + 12, start);
    if let Ok(fams) = std::env::var("FAMILIES") {
        for fam in fams.split(';') {
            let base: Vec<u32> =
                fam.split(',').filter(|s| !s.is_empty()).map(str::parse).collect::<Result<_, _>>()?;
            println!("  34^k + 30^j + {base:?} (k down, j across):");
            for k in 0..l.proved() {
                let line: String = (0..=2 * levels)
                    .map(|j| {
                        let mut h = base.clone();
                        h.extend(std::iter::repeat_n(30, j));
                        if l.is_p(k, &h) == Some(true) { 'P' } else { '.' }
                    })
                    .collect();
                println!("    k={k:2} {line}");
            }
        }
    }
    for (k0, lo, hi, cstar) in forms {
        check_form(&l, (k0, lo, hi, cstar), max_states, (i30, p30), start)?;
    }
    Ok(())
}

/// Reads the shift form (K0, LO, HI, CSTAR) off the ladder's proved levels, checks it for
/// every k > K0, and on a pass reads the diagonal 34^k + 30^m + 25 from it for every k, m.
fn check_form(
    l: &Ladder,
    (k0, lo, hi, cstar): (usize, i64, i64, u32),
    max_states: usize,
    (i30, p30): (u32, u32),
    start: Instant,
) -> Result<(), Box<dyn std::error::Error>> {
    if l.proved() <= k0 {
        println!("level {k0} not proved: no shift form");
        return Ok(());
    }
    let form = match l.shift_form(k0, lo, hi, cstar) {
        Ok(f) => f,
        Err(e) => {
            println!("no shift form: {e}");
            return Ok(());
        }
    };
    println!(
        "shift form from levels {k0}..{}: c* = {cstar}, window {lo}..={hi}, {} entries undetermined ({:.1} s)",
        l.proved() - 1,
        form.unknown(),
        start.elapsed().as_secs_f64()
    );
    let v = l.check_shift(&form, max_states)?;
    println!("shift check for every k > {k0} (c* = {cstar}): {v:?} ({:.1} s)", start.elapsed().as_secs_f64());
    if let ShiftCheck::Proved(proof) = v {
        let form = proof.form();
        // The diagonal for every k ≥ max(K0, 2) and every m: x_m = Φ(30)^m Φ(25) repeats with
        // period p30 from index i30, F repeats in d with period 2 above the window, so m up to
        // the bound below, with every d = m − k down past the window's bottom, covers all.
        let bound = i30 as i64 + 2 * p30 as i64 + hi.abs() + lo.abs() + k0 as i64 + cstar as i64 + 8;
        let mut ok = true;
        let mut checked = 0u64;
        for m in 0..=bound {
            let mut heaps = vec![30u32; m as usize];
            heaps.push(25);
            for k in k0.max(2) as i64..=(m - lo + cstar as i64 + 6).max(k0.max(2) as i64) {
                let p = form.is_p(l, k as usize, &heaps).expect("k >= k0");
                let want = m >= k && (m - k) % 2 == 0;
                checked += 1;
                if p != want {
                    ok = false;
                    println!("  diagonal differs at k = {k}, m = {m}: F says {}", if p { "P" } else { "N" });
                }
            }
        }
        println!(
            "diagonal 34^k + 30^m + 25 is P iff m >= k, m = k mod 2, for every k >= {} and every m: {ok} ({checked} pairs (k, m) checked, m <= {bound})",
            k0.max(2)
        );
        if std::env::var("RECHECK").is_ok() {
            second_check(l, form, max_states, start)?;
        }
    }
    Ok(())
}

/// The second, independent check (`quotient::recheck`): levels 0..K0 − 1 of the ladder and the
/// form, taken as a claimed outcome of 34^k + R for every k and R, checked for consistency
/// from the misère rule up (its own walk over option-image sets); CPU time of this thread
/// and resident memory around it.
fn second_check(
    l: &Ladder,
    form: &ShiftForm,
    max_states: usize,
    start: Instant,
) -> Result<(), Box<dyn std::error::Error>> {
    let clock = nimdb::resources::ThreadClock::current();
    let cpu0 = clock.and_then(|c| c.used());
    let rss0 = nimdb::resources::resident_bytes();
    let spec: GameSpec = "octal:0.07".parse()?;
    let code = spec.octal().ok_or("not an octal game")?;
    let claim = ShiftClaim::of(code, l, form)?;
    let v = recheck(&claim, max_states)?;
    let cpu = match (cpu0, clock.and_then(|c| c.used())) {
        (Some(a), Some(b)) => format!("{:.1} CPU s", (b - a).as_secs_f64()),
        _ => "CPU time unknown".into(),
    };
    let mib = |b: Option<u64>| b.map_or("?".into(), |b| format!("{} MiB", b >> 20));
    println!(
        "second check (levels 0..{} and the form as one claim, for every k): {v:?} ({cpu}; resident {} before, {} after, peak {}; {:.1} s)",
        claim.k0() - 1,
        mib(rss0),
        mib(nimdb::resources::resident_bytes()),
        mib(nimdb::resources::peak_resident_bytes()),
        start.elapsed().as_secs_f64()
    );
    if let Recheck::Consistent { .. } = v {
        // The diagonal read off the claim by the second check's own reading: heap 30 is the
        // identity of M, so R = 30^m + 25 has one image and count m; the levels' counter
        // repeats from count 16 and F in e below its window, so m ≤ 40 and k ≤ m + 20 cover
        // every class.
        let mut ok = true;
        for m in 0..=40usize {
            let mut heaps = vec![30u32; m];
            heaps.push(25);
            for k in 2..=m + 20 {
                ok &= claim.outcome(k, &heaps) == (m >= k && (m - k) % 2 == 0);
            }
        }
        println!(
            "  read from the second check's claim: 34^k + 30^m + 25 is P iff m >= k, m = k mod 2 (k >= 2, m <= 40): {ok}"
        );
    }
    Ok(())
}
