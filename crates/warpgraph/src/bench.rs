//! The benchmark harness's shared parts: how sources are picked, how trials are summarised,
//! and the report every benchmark writes.
//!
//! Sources are picked as Graph500 does: uniformly at random among vertices with at least one
//! arc, from a fixed seed, so every run and every device times the same roots. Each trial's
//! result is verified before its time is recorded: a figure that was not verified is never
//! reported. Times are wall-clock seconds of the algorithm alone (no loading).

use serde::Serialize;

use crate::cuda::Gpu;
use crate::generate::rng::Rng;
use crate::graph::{Graph, VertexId};

/// Picks `count` sources uniformly among vertices with an outgoing arc (with repetition
/// when there are fewer such vertices than `count`), deterministically from `seed`.
/// Returns an empty list when no vertex has an arc.
pub fn pick_sources(g: &Graph, count: usize, seed: u64) -> Vec<VertexId> {
    let n = g.num_vertices() as u64;
    if n == 0 || g.num_arcs() == 0 {
        return Vec::new();
    }
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let v = rng.below(n) as VertexId;
        if g.out().degree(v) > 0 {
            out.push(v);
        }
    }
    out
}

/// The number of input edges within the part of the graph a traversal reached: arcs leaving
/// reached vertices, halved for undirected graphs (a self loop counts once). This is the
/// edge count of Graph500's TEPS.
pub fn edges_reached(g: &Graph, reached: impl Fn(VertexId) -> bool + Sync) -> u64 {
    use rayon::prelude::*;
    let (arcs, loops) = (0..g.num_vertices() as VertexId)
        .into_par_iter()
        .filter(|&v| reached(v))
        .map(|v| {
            let row = g.neighbors(v);
            (
                row.len() as u64,
                row.iter().filter(|&&t| t == v).count() as u64,
            )
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if g.is_directed() {
        arcs
    } else {
        (arcs + loops) / 2
    }
}

/// Summary statistics of a list of trial times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Number of trials.
    pub trials: usize,
    /// Median seconds.
    pub median: f64,
    /// Fastest trial.
    pub min: f64,
    /// Slowest trial.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Summary {
    /// Summarises `times` (seconds); `None` when empty.
    pub fn of(times: &[f64]) -> Option<Summary> {
        if times.is_empty() {
            return None;
        }
        let mut t = times.to_vec();
        t.sort_by(f64::total_cmp);
        let k = t.len();
        let median = if k % 2 == 1 {
            t[k / 2]
        } else {
            (t[k / 2 - 1] + t[k / 2]) / 2.0
        };
        Some(Summary {
            trials: k,
            median,
            min: t[0],
            max: t[k - 1],
            mean: t.iter().sum::<f64>() / k as f64,
        })
    }
}

/// One timed, verified run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trial {
    /// The source (file id), when the algorithm has one.
    pub source: Option<u64>,
    /// Seconds, end to end (the result on the host).
    pub seconds: f64,
    /// On a GPU, the kernels alone (CUDA events).
    pub kernel_seconds: Option<f64>,
    /// Vertices reached (traversals) or result size.
    pub reached: u64,
    /// Edges in the reached part (traversals), for TEPS.
    pub edges: u64,
    /// Whether the result passed its verifier (always true in a report: failures abort).
    pub verified: bool,
}

/// A benchmark's report: what ran where, on what, and every trial.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Problem family: bfs, sssp, apsp, mst.
    pub problem: String,
    /// Algorithm variant.
    pub algorithm: String,
    /// Device, in words ("cpu (2 threads)").
    pub device: String,
    /// The graph, in words (file or generator).
    pub graph: String,
    /// Vertices.
    pub vertices: u64,
    /// Edges.
    pub edges: u64,
    /// Every trial, in order.
    pub trials: Vec<Trial>,
    /// One-time preparation before the trials (on a GPU: uploading the graph), seconds.
    pub setup_seconds: Option<f64>,
    /// Their summary.
    pub summary: Option<Summary>,
    /// The summary of the kernel times, on a GPU.
    pub kernel_summary: Option<Summary>,
    /// Median traversed edges per second (BFS and SSSP), edges / seconds per trial.
    pub median_teps: Option<f64>,
    /// The harmonic mean of the trials' TEPS (Graph500's figure), end to end.
    pub harmonic_mean_teps: Option<f64>,
    /// The same by kernel time, on a GPU (the result left in GPU memory, as Graph500
    /// and the GPU papers time it).
    pub kernel_harmonic_mean_teps: Option<f64>,
}

impl Report {
    /// The report of `trials` of `algorithm` on `device` over `g` (named `graph`), its
    /// summaries filled in ([`Report::finish`]).
    pub fn new(
        problem: &str,
        algorithm: &str,
        device: String,
        (g, graph): (&Graph, &str),
        trials: Vec<Trial>,
        setup_seconds: Option<f64>,
    ) -> Report {
        let mut r = Report {
            problem: problem.into(),
            algorithm: algorithm.into(),
            device,
            graph: graph.into(),
            vertices: g.num_vertices() as u64,
            edges: g.num_edges(),
            trials,
            setup_seconds,
            summary: None,
            kernel_summary: None,
            median_teps: None,
            harmonic_mean_teps: None,
            kernel_harmonic_mean_teps: None,
        };
        r.finish();
        r
    }

    /// Fills `summary` and `median_teps` from the trials.
    pub fn finish(&mut self) {
        let times: Vec<f64> = self.trials.iter().map(|t| t.seconds).collect();
        self.summary = Summary::of(&times);
        let kernel: Vec<f64> = self
            .trials
            .iter()
            .filter_map(|t| t.kernel_seconds)
            .collect();
        self.kernel_summary = Summary::of(&kernel);
        let teps: Vec<f64> = self
            .trials
            .iter()
            .filter(|t| t.edges > 0 && t.seconds > 0.0)
            .map(|t| t.edges as f64 / t.seconds)
            .collect();
        self.median_teps = Summary::of(&teps).map(|s| s.median);
        self.harmonic_mean_teps = harmonic_mean_teps(&self.trials, false);
        self.kernel_harmonic_mean_teps = harmonic_mean_teps(&self.trials, true);
    }
}

/// Graph500's figure: the harmonic mean of the trials' traversed edges per second, end to
/// end or (`kernels`) by kernel time; `None` when no trial traversed an edge (or, by
/// kernel time, none ran on a GPU).
pub fn harmonic_mean_teps(trials: &[Trial], kernels: bool) -> Option<f64> {
    let rates: Vec<f64> = trials
        .iter()
        .filter_map(|t| {
            let secs = if kernels {
                t.kernel_seconds?
            } else {
                t.seconds
            };
            (t.edges > 0 && secs > 0.0).then(|| t.edges as f64 / secs)
        })
        .collect();
    (!rates.is_empty()).then(|| rates.len() as f64 / rates.iter().map(|t| 1.0 / t).sum::<f64>())
}

/// The memory a stretch of work used at its peak ([`measure_memory`]).
///
/// Host: the process's resident-set high-water mark (`VmHWM` of `/proc/self/status`),
/// reset at the start of the work by writing 5 to `/proc/self/clear_refs` (Linux 4.0 and
/// later), so it is the most host memory resident at any moment of the work, the graph
/// and everything else the process holds included. Where the reset is refused the mark is
/// the process's peak since it started, and `host_peak_since_start` says so.
///
/// GPU: the device's free memory (`cuMemGetInfo`), sampled every
/// [`GPU_SAMPLE_INTERVAL`] while the work runs (and at its start and end) by a second
/// thread; the peak is the largest drop below the free memory of a baseline the caller
/// took (before uploading the graph, so that the graph counts). It covers the whole
/// device (another process's allocations count too) and can miss an allocation that lives
/// shorter than the interval, so it is a lower bound on the true peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct MemoryPeak {
    /// Most host memory resident during the work, bytes (`None` off Linux).
    pub host_peak_bytes: Option<u64>,
    /// Host memory resident when the work began (`VmRSS`), bytes.
    pub host_start_bytes: Option<u64>,
    /// The high-water mark could not be reset: `host_peak_bytes` is the process's peak
    /// since it started.
    pub host_peak_since_start: bool,
    /// Most GPU memory in use during the work beyond the baseline as sampled (a lower
    /// bound), bytes (`None` without a GPU, or where the driver did not answer).
    pub gpu_sampled_peak_bytes: Option<u64>,
}

/// How often [`measure_memory`] samples a GPU's free memory.
pub const GPU_SAMPLE_INTERVAL: std::time::Duration = std::time::Duration::from_micros(500);

/// Runs `work`, measuring its peak host memory and, given `gpu` and the GPU's free bytes
/// at a baseline (from [`Gpu::free_bytes`]), its peak GPU memory (see [`MemoryPeak`]).
///
/// # Returns
/// What `work` returned, and the peaks.
///
/// # Example
/// ```
/// let (v, m) = warpgraph::bench::measure_memory(None, || vec![1u8; 64 << 20]);
/// if let Some(peak) = m.host_peak_bytes {
///     assert!(peak >= v.len() as u64);
/// }
/// assert_eq!(m.gpu_sampled_peak_bytes, None);
/// ```
pub fn measure_memory<T>(gpu: Option<(&Gpu, u64)>, work: impl FnOnce() -> T) -> (T, MemoryPeak) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let host_start_bytes = proc_status_bytes("VmRSS:");
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let done = AtomicBool::new(false);
    let (out, least_free) = std::thread::scope(|s| {
        let sampler = gpu.map(|(gpu, _)| {
            let done = &done;
            s.spawn(move || {
                let mut least = gpu.free_bytes().ok()?;
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(GPU_SAMPLE_INTERVAL);
                    least = least.min(gpu.free_bytes().ok()?);
                }
                Some(least.min(gpu.free_bytes().ok()?))
            })
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        (out, sampler.and_then(|h| h.join().ok().flatten()))
    });
    let peak = MemoryPeak {
        host_peak_bytes: proc_status_bytes("VmHWM:"),
        host_start_bytes,
        host_peak_since_start: !reset,
        gpu_sampled_peak_bytes: gpu
            .zip(least_free)
            .map(|((_, base), least)| base.saturating_sub(least)),
    };
    (out, peak)
}

/// A `kB` line of `/proc/self/status` (`VmRSS:`, `VmHWM:`) in bytes; `None` off Linux.
fn proc_status_bytes(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(key))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, EdgeList, Weights};

    #[test]
    fn sources_have_arcs_and_repeat_deterministically() {
        // Vertices 1 and 3 have arcs; 0, 2, 4 do not.
        let e = EdgeList::new(5, vec![1, 3], vec![2, 0], Weights::None).unwrap();
        let g = e.build(&BuildOptions::default()).unwrap();
        let a = pick_sources(&g, 32, 7);
        assert_eq!(a.len(), 32);
        assert!(a.iter().all(|&v| v == 1 || v == 3));
        assert!(a.contains(&1) && a.contains(&3));
        assert_eq!(a, pick_sources(&g, 32, 7));
        assert!(pick_sources(&Graph::empty(3, true), 4, 1).is_empty());
    }

    #[test]
    fn reached_edges_count_undirected_edges_once() {
        let e = EdgeList::new(4, vec![0, 1, 2, 3], vec![1, 2, 2, 3], Weights::None).unwrap();
        let g = e
            .build(&BuildOptions {
                directed: false,
                ..Default::default()
            })
            .unwrap();
        // Component {0,1,2}: edges 0-1, 1-2, loop 2-2.
        assert_eq!(edges_reached(&g, |v| v < 3), 3);
        assert_eq!(edges_reached(&g, |v| v == 3), 1);
    }

    #[test]
    fn report_teps() {
        let trial = |seconds, edges| Trial {
            source: Some(0),
            seconds,
            kernel_seconds: Some(seconds / 2.0),
            reached: 1,
            edges,
            verified: true,
        };
        let mut r = Report {
            problem: "bfs".into(),
            algorithm: "x".into(),
            device: "cpu".into(),
            graph: "g".into(),
            vertices: 1,
            edges: 1,
            trials: vec![trial(1.0, 100), trial(4.0, 100)],
            setup_seconds: None,
            summary: None,
            kernel_summary: None,
            median_teps: None,
            harmonic_mean_teps: None,
            kernel_harmonic_mean_teps: None,
        };
        r.finish();
        // 100 and 25 TEPS: median 62.5, harmonic mean 2 / (1/100 + 1/25) = 40.
        assert_eq!(r.median_teps, Some(62.5));
        assert!((r.harmonic_mean_teps.unwrap() - 40.0).abs() < 1e-9);
        assert_eq!(r.kernel_summary.unwrap().median, 1.25);
        // Kernels took half the time: twice the rate.
        assert!((r.kernel_harmonic_mean_teps.unwrap() - 80.0).abs() < 1e-9);
    }

    #[test]
    fn memory_peak_holds_the_work_s_allocation() {
        // Other tests run in this process at the same time, so only what this work
        // certainly adds is checked here; that the mark is reset between measurements is
        // checked by the CLI's reproduce test, in a process of its own.
        let (len, m) = measure_memory(None, || {
            let v = vec![1u8; 96 << 20];
            std::hint::black_box(&v);
            v.len() as u64
        });
        assert_eq!(m.gpu_sampled_peak_bytes, None);
        if cfg!(target_os = "linux") {
            assert!(m.host_peak_bytes.unwrap() >= len, "{m:?}");
            assert!(m.host_start_bytes.unwrap() > 0, "{m:?}");
        }
    }

    #[test]
    fn summary_median() {
        let s = Summary::of(&[3.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.mean), (2.5, 1.0, 10.0, 4.0));
        assert!(Summary::of(&[]).is_none());
    }
}
