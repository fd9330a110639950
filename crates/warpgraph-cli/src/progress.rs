//! Progress bars on stderr, drawn with indicatif, for the library's `Progress` events.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use warpgraph::Progress;

/// A progress bar that shows one phase at a time. Silent when stderr is not a terminal or
/// when `--quiet` was given.
pub struct Bar {
    enabled: bool,
    bar: Mutex<Option<ProgressBar>>,
    bytes: bool,
}

impl Bar {
    /// A bar for phases measured in bytes (`bytes`) or in items.
    pub fn new(quiet: bool, bytes: bool) -> Self {
        Bar {
            enabled: !quiet && std::io::stderr().is_terminal(),
            bar: Mutex::new(None),
            bytes,
        }
    }

    fn current(&self) -> Option<ProgressBar> {
        self.bar.lock().ok().and_then(|b| b.clone())
    }
}

impl Progress for Bar {
    fn begin(&self, phase: &str, total: u64) {
        if !self.enabled {
            return;
        }
        let bar = if total == 0 {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(120));
            b
        } else {
            let b = ProgressBar::new(total);
            let template = if self.bytes {
                "{msg:>16} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
            } else {
                "{msg:>16} [{bar:40}] {human_pos}/{human_len} {per_sec} eta {eta}"
            };
            b.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b
        };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_message(phase.to_string());
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(old) = slot.replace(bar) {
                old.finish_and_clear();
            }
        }
    }

    fn advance(&self, units: u64) {
        if let Some(b) = self.current() {
            b.inc(units);
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(b) = slot.take() {
                b.finish_and_clear();
            }
        }
    }
}
