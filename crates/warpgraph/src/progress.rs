//! Progress reporting for long loads and generations.
//!
//! The library reports through the [`Progress`] trait and draws nothing itself; the
//! command-line tool implements it with a progress bar. [`NoProgress`] is the silent
//! default.

/// Receives progress events from long-running library calls. Implementations must be
/// cheap: `advance` is called from worker threads, many times per second.
pub trait Progress: Sync {
    /// A new phase begins, with `total` units of work (bytes, edges), 0 when unknown.
    fn begin(&self, phase: &str, total: u64);
    /// `units` more units of the current phase are done.
    fn advance(&self, units: u64);
    /// The current phase is done.
    fn finish(&self);
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _phase: &str, _total: u64) {}
    fn advance(&self, _units: u64) {}
    fn finish(&self) {}
}
