//! The solve progress bar.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use nimdb::index::TierId;
use nimdb::solve::Progress;

/// An indicatif bar over positions, showing the tier, rate and ETA. Hidden when stderr is
/// not a terminal or with `--quiet`.
pub struct SolveBar {
    bar: ProgressBar,
}

impl SolveBar {
    /// A bar, visible only when `visible` and stderr is a terminal.
    pub fn new(visible: bool) -> Self {
        let bar = ProgressBar::with_draw_target(
            Some(0),
            if visible && std::io::stderr().is_terminal() {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} tier {msg:>9} [{bar:32}] {human_pos}/{human_len} positions  {rate}  {memory}  {eta}",
            )
            .expect("valid template")
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M positions/s", state.per_sec() / 1e6);
            })
            .with_key("eta", eta_key)
            .with_key("memory", |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                if let Some(bytes) = nimdb::resources::resident_bytes() {
                    let _ = write!(w, "{} MB", bytes >> 20);
                }
            })
            .progress_chars("=> "),
        );
        SolveBar { bar }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for SolveBar {
    fn start(&self, positions: u64, done: u64) {
        self.bar.set_length(positions);
        self.bar.set_position(done);
        self.bar.reset_eta();
    }
    fn tier_done(&self, tier: TierId, positions: u64) {
        self.bar.set_message(tier.to_string());
        self.bar.inc(positions);
    }
    fn interrupted(&self) -> bool {
        super::interrupt::interrupted()
    }
}

/// The bar's `{eta}`: the time left at the current rate, once there is a rate to go by.
fn eta_key(state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = w.write_str(&eta_text(state.elapsed(), state.pos(), state.len(), state.per_sec()));
}

/// No ETA before a second has passed and some work is done: the first tiers are tiny and
/// slow per position, and an estimate from them is minutes off for a solve of seconds.
fn eta_text(elapsed: Duration, done: u64, len: Option<u64>, per_sec: f64) -> String {
    match len {
        Some(len) if elapsed >= Duration::from_secs(1) && done > 0 && per_sec > 0.0 => {
            let left = len.saturating_sub(done) as f64 / per_sec;
            format!("ETA {}", indicatif::HumanDuration(Duration::from_secs_f64(left.min(1e9))))
        }
        _ => "ETA …".to_string(),
    }
}

/// An indicatif bar over heaps for `nimdb heaps`: heaps done, heaps/s, ETA. Hidden when
/// stderr is not a terminal.
pub struct HeapBar {
    bar: ProgressBar,
}

impl HeapBar {
    /// A bar over heaps `0..=up_to`, visible only when stderr is a terminal.
    pub fn new(up_to: u32) -> Self {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(up_to as u64 + 1), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} heaps [{bar:32}] {human_pos}/{human_len}  {rate}  {msg}  {eta}",
            )
            .expect("valid template")
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M heaps/s", state.per_sec() / 1e6);
            })
            .with_key("eta", eta_key)
            .progress_chars("=> "),
        );
        HeapBar { bar }
    }

    /// Heaps `0..=done` are computed; `memory` says what they hold.
    pub fn at(&self, done: u32, memory: &str) {
        self.bar.set_position(done as u64 + 1);
        self.bar.set_message(memory.to_string());
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The bar of a run over octal codes (`quotient --survey`, `atlas`): one step a code, drawn
/// on a terminal unless `quiet`.
pub fn codes_bar(codes: usize, quiet: bool) -> ProgressBar {
    let target = if !quiet && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(codes as u64), target);
    bar.set_style(ProgressStyle::with_template("{bar:32} {pos}/{len} codes  {msg}").expect("valid template"));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_eta_before_there_is_a_rate() {
        let second = Duration::from_secs(1);
        assert_eq!(eta_text(Duration::from_millis(200), 1_000, Some(1_000_000), 10.0), "ETA …");
        assert_eq!(eta_text(second, 0, Some(1_000_000), 0.0), "ETA …");
        assert_eq!(eta_text(second, 10, None, 10.0), "ETA …");
        assert_eq!(eta_text(2 * second, 500_000, Some(1_000_000), 250_000.0), "ETA 2 seconds");
    }
}
