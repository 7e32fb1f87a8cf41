//! The solve progress bar.

use std::io::IsTerminal;

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
                "{spinner} tier {msg:>9} [{bar:32}] {human_pos}/{human_len} positions  {rate}  {memory}  ETA {eta}",
            )
            .expect("valid template")
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M positions/s", state.per_sec() / 1e6);
            })
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
                "{spinner} heaps [{bar:32}] {human_pos}/{human_len}  {rate}  {msg}  ETA {eta}",
            )
            .expect("valid template")
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M heaps/s", state.per_sec() / 1e6);
            })
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
