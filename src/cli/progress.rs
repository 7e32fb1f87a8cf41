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
                "{spinner} tier {msg:>9} [{bar:32}] {human_pos}/{human_len} positions  {rate}  ETA {eta}",
            )
            .expect("valid template")
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.2} M positions/s", state.per_sec() / 1e6);
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
}
