//! `nimdb atlas --svg`: the atlas as one picture, |Q| of every code against the code,
//! coloured by what was found (certified tame or wild, or stopped, and by what).

use nimdb::theory::quotient::atlas::{Chart, Entry, StopReason};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 460.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 150.0;

/// One kind of mark: its legend words and colour.
struct Kind {
    words: &'static str,
    colour: &'static str,
    /// A lower bound (a partial code's |Q| so far), drawn as an upward triangle.
    bound: bool,
}

const KINDS: [Kind; 9] = [
    Kind { words: "certified, tame", colour: "#1a9850", bound: false },
    Kind { words: "certified, wild", colour: "#2c5fb8", bound: false },
    Kind { words: "stopped: out of time", colour: "#e08214", bound: true },
    Kind { words: "stopped: over the element budget", colour: "#c0392b", bound: true },
    Kind { words: "stopped: over the candidate budget", colour: "#d6604d", bound: true },
    Kind { words: "stopped: over the walk's states", colour: "#8e44ad", bound: true },
    Kind { words: "stopped: out of recalibrations", colour: "#c51b7d", bound: true },
    Kind { words: "stopped: no period by the heap budget", colour: "#7f7f7f", bound: true },
    Kind { words: "proven infinite (a theorem)", colour: "#000000", bound: true },
];

/// The kind of mark a code gets, and the |Q| it is drawn at.
fn kind_of(e: &Entry) -> (usize, u64) {
    match &e.chart {
        Chart::Certified(q) => (if q.tame { 0 } else { 1 }, q.size as u64),
        Chart::Partial(p) => {
            let k = match p.reason {
                StopReason::Time => 2,
                StopReason::Elements => 3,
                StopReason::Candidate => 4,
                StopReason::States => 5,
                StopReason::Recalibrations => 6,
                StopReason::Heaps => 7,
                StopReason::Infinite => 8,
            };
            (k, p.size as u64)
        }
    }
}

/// Text with `&`, `<`, `>` and `"` escaped for XML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The atlas of `entries` (codes of up to `digits` digits, in code order) as a standalone SVG
/// picture: x the code, y |Q| on a log scale, a dot for a certified quotient and an upward
/// triangle for a partial code's size so far (a lower bound); every mark has a tooltip.
pub fn svg(entries: &[Entry], digits: u32) -> String {
    // In the order of the codes' values: 0.1 beside 0.10 and 0.100, 0.01 before 0.1.
    let mut entries: Vec<&Entry> = entries.iter().collect();
    let value = |e: &Entry| {
        let d = e.code.trim_start_matches("0.");
        (format!("{d:0<width$}", width = digits as usize), d.len())
    };
    entries.sort_by_key(|e| value(e));
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let n = entries.len().max(1) as f64;
    let largest = entries.iter().map(|e| kind_of(e).1).max().unwrap_or(1).max(2);
    let top_power = (largest as f64).log2().ceil().max(1.0);
    let x = |i: usize| LEFT + (i as f64 + 0.5) * plot_w / n;
    let y = |q: u64| TOP + plot_h * (1.0 - (q.max(1) as f64).log2() / top_power);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    s += &format!("<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>\n");
    let unit = if digits == 1 { "digit" } else { "digits" };
    s += &format!(
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">The misère atlas: {} octal codes with up to {digits} {unit}, |Q| of each</text>\n",
        WIDTH / 2.0,
        entries.len()
    );
    // The |Q| axis: powers of two.
    let step = if top_power > 12.0 { 2 } else { 1 };
    for p in (0..=top_power as u32).step_by(step) {
        let yy = y(1u64 << p);
        s += &format!(
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#e6e6e6\"/>\n",
            WIDTH - RIGHT
        );
        s += &format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            LEFT - 6.0,
            yy + 4.0,
            1u64 << p
        );
    }
    s += &format!(
        "<text transform=\"translate(16,{:.1}) rotate(-90)\" text-anchor=\"middle\">|Q| (log scale; a triangle: at least)</text>\n",
        TOP + plot_h / 2.0
    );
    // The code axis: a tick where the first digit changes.
    let mut last = None;
    for (i, e) in entries.iter().enumerate() {
        let first = e.code.trim_start_matches("0.").chars().next();
        if first != last {
            last = first;
            let xx = LEFT + i as f64 * plot_w / n;
            s += &format!(
                "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{TOP}\" y2=\"{:.1}\" stroke=\"#cccccc\"/>\n",
                TOP + plot_h + 6.0
            );
            s += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\">0.{}…</text>\n",
                xx + 3.0,
                TOP + plot_h + 18.0,
                first.unwrap_or('0')
            );
        }
    }
    s += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">octal code, by value (0.001 … 0.{}; 0.1 beside 0.10 and 0.100)</text>\n",
        LEFT + plot_w / 2.0,
        TOP + plot_h + 38.0,
        "7".repeat(digits as usize)
    );
    s += &format!(
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{plot_w}\" height=\"{plot_h}\" fill=\"none\" stroke=\"#888888\"/>\n"
    );
    // The marks, one per code.
    let mut counts = [0usize; KINDS.len()];
    for (i, e) in entries.iter().enumerate() {
        let (k, q) = kind_of(e);
        counts[k] += 1;
        let kind = &KINDS[k];
        let (xx, yy) = (x(i), y(q));
        let tip = match &e.chart {
            Chart::Certified(c) => format!(
                "{}: certified, |Q| = {}, |P| = {}, period {} from heap {}, {}",
                e.code,
                c.size,
                c.p_count,
                c.period,
                c.preperiod,
                if c.tame { "tame" } else { "wild" }
            ),
            Chart::Partial(p) => format!("{}: {}, |Q| ≥ {} at heap {}", e.code, kind.words, p.size, p.heap),
        };
        let shape = if kind.bound {
            format!("<path d=\"M{:.1},{:.1} l3,5 h-6 z\" fill=\"{}\">", xx, yy - 3.0, kind.colour)
        } else {
            format!("<circle cx=\"{xx:.1}\" cy=\"{yy:.1}\" r=\"2.6\" fill=\"{}\">", kind.colour)
        };
        let close = if kind.bound { "</path>" } else { "</circle>" };
        s += &format!("{shape}<title>{}</title>{close}\n", escape(&tip));
    }
    // The legend: each kind present, with its count.
    let (mut lx, mut ly) = (LEFT, TOP + plot_h + 62.0);
    for (k, kind) in KINDS.iter().enumerate() {
        if counts[k] == 0 {
            continue;
        }
        let mark = if kind.bound {
            format!("<path d=\"M{:.1},{:.1} l4,7 h-8 z\" fill=\"{}\"/>", lx + 4.0, ly - 9.0, kind.colour)
        } else {
            format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{}\"/>",
                lx + 4.0,
                ly - 4.0,
                kind.colour
            )
        };
        s += &format!(
            "{mark}<text x=\"{:.1}\" y=\"{ly:.1}\">{} ({})</text>\n",
            lx + 14.0,
            kind.words,
            counts[k]
        );
        if lx > LEFT {
            lx = LEFT;
            ly += 20.0;
        } else {
            lx = LEFT + plot_w / 2.0;
        }
    }
    s += "</svg>\n";
    s
}
