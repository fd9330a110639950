//! A cell of `reproduce`'s tables: one method on one graph, its trials or why it
//! refused, and its memory; and how a table writes it.

use serde::Serialize;
use warpgraph::bench::{MemoryPeak, Trial};

/// One method on one graph: its trials, or why it refused, and its memory.
#[derive(Serialize)]
pub(super) struct Cell {
    /// The paper (`johnson`).
    pub(super) paper: &'static str,
    /// Which of its experiments (`johnson`, `johnson-dijkstra`): a table and a figure
    /// each.
    pub(super) experiment: &'static str,
    pub(super) graph: String,
    pub(super) vertices: u64,
    pub(super) edges: u64,
    pub(super) method: String,
    pub(super) device: String,
    pub(super) trials: Vec<Trial>,
    pub(super) median_seconds: Option<f64>,
    pub(super) median_kernel_seconds: Option<f64>,
    /// Traversals: Graph500's harmonic mean, billions of edges a second, end to end.
    pub(super) gteps: Option<f64>,
    /// The same by kernel time (GPU).
    pub(super) kernel_gteps: Option<f64>,
    pub(super) memory: MemoryPeak,
    /// GPU methods: the device bytes the method allocates (graph, working memory, result
    /// buffers), by the library's estimator for it, the figure it checks against free
    /// memory before allocating; `None` on the CPU or where the method refuses the graph.
    pub(super) gpu_bytes_needed: Option<u64>,
    pub(super) refused: Option<String>,
}

/// What a table shows of a cell.
#[derive(Clone, Copy)]
pub(super) enum Metric {
    /// Median milliseconds (GPU: kernels / end to end).
    Millis,
    /// Harmonic-mean GTEPS (GPU: kernels / end to end).
    Gteps,
}

impl Cell {
    /// Milliseconds or GTEPS as a table cell: kernels / end to end on a GPU.
    pub(super) fn text(&self, metric: Metric) -> String {
        if let Some(why) = &self.refused {
            // The first clause (the rest, often long, is in the JSON).
            return format!("refused ({})", why.split(": ").next().unwrap_or(why));
        }
        let (kernels, all) = match metric {
            Metric::Millis => (
                self.median_kernel_seconds.map(|s| s * 1e3),
                self.median_seconds.map(|s| s * 1e3),
            ),
            Metric::Gteps => (self.kernel_gteps, self.gteps),
        };
        match (kernels, all) {
            (Some(k), Some(s)) => format!("{} / {}", sig(k), sig(s)),
            (None, Some(s)) => sig(s),
            _ => "-".into(),
        }
    }

    /// Memory as a table cell, MiB: the host peak; on a GPU, then the method's device
    /// allocation and, in brackets, the sampled device peak.
    pub(super) fn memory_text(&self) -> String {
        let mib = |b: Option<u64>| b.map_or("-".to_string(), |b| sig(b as f64 / 1048576.0));
        let host = mib(self.memory.host_peak_bytes);
        match (self.gpu_bytes_needed, self.memory.gpu_sampled_peak_bytes) {
            (None, None) => host,
            (needed, sampled) => format!("{host} / {} ({})", mib(needed), mib(sampled)),
        }
    }

    /// The figure a chart draws for this cell: (paper's metric, end to end) where the
    /// paper's metric is the kernel time on a GPU; `None` when refused.
    pub(super) fn plotted(&self, metric: Metric) -> Option<(f64, Option<f64>)> {
        let (kernels, all) = match metric {
            Metric::Millis => (
                self.median_kernel_seconds.map(|s| s * 1e3),
                self.median_seconds.map(|s| s * 1e3),
            ),
            Metric::Gteps => (self.kernel_gteps, self.gteps),
        };
        match kernels {
            Some(k) => Some((k, all)),
            None => all.map(|a| (a, None)),
        }
    }
}

/// A number with three significant digits (thousands grouped): 0.0123, 4.56, 789, 12,345.
pub(super) fn sig(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() >= 1000.0 {
        let s = format!("{:.0}", v);
        let (sign, digits) = s.split_at(usize::from(s.starts_with('-')));
        let mut out = sign.to_string();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        return out;
    }
    let decimals = if v == 0.0 {
        0
    } else {
        (2 - v.abs().log10().floor() as i32).max(0) as usize
    };
    format!("{v:.decimals$}")
}

/// The distinct values of `items`, in order of first appearance.
pub(super) fn first_seen<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(sig(0.012345), "0.0123");
        assert_eq!(sig(4.567), "4.57");
        assert_eq!(sig(789.4), "789");
        assert_eq!(sig(12345.6), "12,346");
        assert_eq!(sig(0.0), "0");
    }
}
