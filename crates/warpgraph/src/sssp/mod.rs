//! Single-source shortest paths (SSSP): the distance from one source vertex to every other,
//! and a shortest-path tree.
//!
//! # What is computed
//! For a directed graph G = (V, E) with arc weights c(e) and a source s: d(s) = 0 and
//! d(v) = the least total weight of a path from s to v (infinite when none exists), with
//! a parent for every reached vertex such that the parents form a tree rooted at s whose
//! paths are shortest paths. An undirected graph is its symmetric digraph; an unweighted
//! one has weight 1 on every arc. Integer weights sum in `i64` (checked: an overflow is an
//! [`Error::Overflow`], never a wrong answer), float weights in `f64`.
//!
//! # Variants ([`Algorithm`])
//! The four methods of the CUDA SSSP thesis, on the CPU ([`cpu`]), beside the thesis's
//! SpMV form ([`Algorithm::SpmvCsr`], [`Algorithm::SpmvEll`]) and the GPU Johnson
//! article's parallel Dijkstra ([`Algorithm::DijkstraParallel`]); [`cuda`] runs every one
//! on a GPU, `auto` there by near-far buckets:
//! - [`Algorithm::Dijkstra`]: label-setting with a binary heap, serial; the Boost Graph
//!   Library baseline. Non-negative weights.
//! - [`Algorithm::BellmanFord`]: label-correcting rounds over the vertices that changed,
//!   in parallel; any weights, negative cycles reported.
//! - [`Algorithm::BellmanFordQueue`]: a serial work-list with the SLF and LLL heuristics;
//!   any weights, negative cycles reported.
//! - [`Algorithm::DeltaStepping`]: Meyer and Sanders' buckets of width delta, in parallel
//!   (the GAPBS kernel's structure); non-negative weights. [`Delta`] picks the width.
//!
//! Every variant returns the same distances (for floats up to rounding: sums along
//! different shortest paths may round differently) and a valid parent tree, which
//! [`verify`] checks in O(m).
//!
//! ```
//! use warpgraph::sssp::{sssp, verify, Algorithm};
//! use warpgraph::{BuildOptions, EdgeList, Weights};
//! //   0 --4--> 1 --1--> 2
//! //   \________2_______/^
//! let g = EdgeList::new(3, vec![0, 1, 0], vec![1, 2, 2], Weights::from(vec![4i32, 1, 2]))
//!     .unwrap()
//!     .build(&BuildOptions::default())
//!     .unwrap();
//! let r = sssp(&g, 0, &Algorithm::Dijkstra).unwrap();
//! assert_eq!(r.dist_f64(1), 4.0);
//! assert_eq!(r.dist_f64(2), 2.0);
//! assert_eq!(r.parent(), &[0, 0, 0]);
//! verify(&g, &r).unwrap();
//! ```

/// Arcs a second one CPU thread gets through in SSSP (`auto`: 0.27 s for the 128M arcs
/// of Kronecker 22 on 16 threads): what `--device auto`
/// weighs against a GPU's start ([`crate::device::Work`]).
pub const CPU_ARCS_PER_THREAD_SECOND: f64 = 3.0e7;

pub mod cpu;
pub mod cuda;
pub mod extract_min;
mod verify;

pub use verify::verify;

use std::fmt;
use std::str::FromStr;

use crate::device::Device;
pub use crate::device::RunTimes;
use crate::error::{Error, Result};
use crate::graph::{Distance, Graph, VertexId, Weights, NO_VERTEX};

use cpu::{ArcWeights, Unit};

/// Shortest-path distances and parents from one source.
///
/// `dist[v]` is `D::INFINITY` and `parent[v]` is [`NO_VERTEX`] when `v` is unreachable;
/// `parent[source] == source`; for every other reached `v`, `parent[v] -> v` is an arc on a
/// shortest path (`dist[v] == dist[parent[v]] + w`).
#[derive(Debug, Clone, PartialEq)]
pub struct ShortestPaths<D> {
    /// The source vertex.
    pub source: VertexId,
    /// Distance of every vertex from the source.
    pub dist: Vec<D>,
    /// Parent of every vertex in the shortest-path tree.
    pub parent: Vec<VertexId>,
}

impl<D: Distance> ShortestPaths<D> {
    /// The number of vertices reached from the source (the source included).
    pub fn reached(&self) -> u64 {
        self.parent.iter().filter(|&&p| p != NO_VERTEX).count() as u64
    }
}

/// Shortest paths of a graph whichever its weight type: integer weights and unweighted
/// graphs give [`SsspResult::Int`], float weights [`SsspResult::Float`].
#[derive(Debug, Clone, PartialEq)]
pub enum SsspResult {
    /// `i64` distances (`i32`, `i64` or no weights).
    Int(ShortestPaths<i64>),
    /// `f64` distances (`f32` or `f64` weights).
    Float(ShortestPaths<f64>),
}

/// Johnson's potentials whichever the weight type: `h(v)`, the shortest distance to `v`
/// from a virtual source joined to every vertex by an arc of weight 0 (so `h(v) <= 0`), as
/// [`cpu::bellman_ford_potentials`] and [`cuda::GpuSssp::potentials`] find them.
#[derive(Debug, Clone, PartialEq)]
pub enum Potentials {
    /// `i64` potentials (`i32`, `i64` or no weights).
    Int(Vec<i64>),
    /// `f64` potentials (`f32` or `f64` weights).
    Float(Vec<f64>),
}

impl SsspResult {
    /// The source vertex.
    pub fn source(&self) -> VertexId {
        match self {
            SsspResult::Int(p) => p.source,
            SsspResult::Float(p) => p.source,
        }
    }

    /// The parent of every vertex ([`NO_VERTEX`] when unreachable).
    pub fn parent(&self) -> &[VertexId] {
        match self {
            SsspResult::Int(p) => &p.parent,
            SsspResult::Float(p) => &p.parent,
        }
    }

    /// The distance to `v` as `f64`: `f64::INFINITY` when `v` is unreachable (or not a
    /// vertex). `i64` distances beyond 2^53 are rounded.
    pub fn dist_f64(&self, v: VertexId) -> f64 {
        let v = v as usize;
        match self {
            SsspResult::Int(p) => match p.dist.get(v) {
                Some(&d) if d != i64::INFINITY => d as f64,
                _ => f64::INFINITY,
            },
            SsspResult::Float(p) => p.dist.get(v).copied().unwrap_or(f64::INFINITY),
        }
    }

    /// The number of vertices reached (the source included).
    pub fn reached(&self) -> u64 {
        match self {
            SsspResult::Int(p) => p.reached(),
            SsspResult::Float(p) => p.reached(),
        }
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.parent().len()
    }
}

/// The bucket width of delta-stepping.
///
/// The CUDA SSSP thesis names three rules: the median edge weight, the mean edge weight,
/// and the largest weight over the largest out-degree. For integer weights the width is
/// rounded down to an integer, and is at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Delta {
    /// A width chosen from the graph: `20 w / d^2` for the mean weight `w` (of 4096
    /// sampled arcs) and the mean out-degree `d` of the vertices that have arcs. Fitted to
    /// sweeps at 2 to 16 threads on Kronecker graphs (best at 1 for weights 1..255),
    /// uniform ones (best near 2) and road-like grids (best from a quarter of the largest
    /// weight to twice it); see `cpu::delta_stepping`. On a GPU the rule is the GPU's own
    /// (see `cuda`).
    #[default]
    Auto,
    /// This width (finite, positive).
    Fixed(f64),
    /// The median arc weight.
    Median,
    /// The mean arc weight.
    Mean,
    /// The largest arc weight divided by the largest out-degree.
    MaxOverDegree,
}

impl Delta {
    /// The name used on command lines (`"auto"`, `"median"`, `"mean"`,
    /// `"max-over-degree"`, or the number).
    pub fn name(&self) -> String {
        match self {
            Delta::Auto => "auto".into(),
            Delta::Fixed(x) => x.to_string(),
            Delta::Median => "median".into(),
            Delta::Mean => "mean".into(),
            Delta::MaxOverDegree => "max-over-degree".into(),
        }
    }
}

impl fmt::Display for Delta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Delta {
    type Err = Error;

    /// `"auto"`, `"median"`, `"mean"`, `"max-over-degree"`, or a positive number.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Delta::Auto),
            "median" => Ok(Delta::Median),
            "mean" => Ok(Delta::Mean),
            "max-over-degree" => Ok(Delta::MaxOverDegree),
            _ => match s.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => Ok(Delta::Fixed(x)),
                _ => Err(Error::InvalidArgument(format!(
                    "unknown delta '{s}' (expected auto, median, mean, max-over-degree or a \
                     positive number)"
                ))),
            },
        }
    }
}

/// Which shortest-path method to run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Algorithm {
    /// Dijkstra with a binary heap (serial). Non-negative weights.
    Dijkstra,
    /// Parallel Bellman-Ford rounds. Any weights.
    BellmanFord,
    /// Serial Bellman-Ford with an SLF/LLL work-list. Any weights.
    BellmanFordQueue,
    /// Parallel delta-stepping with the given bucket width. Non-negative weights.
    DeltaStepping(Delta),
    /// The GPU Johnson article's parallel Dijkstra (Crauser et al.): every vertex within the smallest
    /// arc weight of the least tentative distance is settled at once. On the CPU it runs
    /// as delta-stepping with that bucket width, which is the same rule. Non-negative
    /// weights.
    DijkstraParallel,
    /// Bellman-Ford as (min, +) sparse matrix-vector products over the incoming arcs in
    /// CSR (the CUDA SSSP thesis). Any weights.
    SpmvCsr,
    /// The same products over the ELL layout (rows padded to the longest, column-major);
    /// refused where the padding would explode (skewed degrees). Any weights.
    SpmvEll,
    /// The fastest correct method for the graph: delta-stepping (automatic width) for
    /// non-negative weights, Bellman-Ford (rounds on the CPU, the work-list on the GPU)
    /// when an arc is negative (on the CPU: when delta-stepping meets one, which it
    /// refuses at once). The default.
    #[default]
    Auto,
}

impl Algorithm {
    /// Every algorithm name accepted by [`FromStr`].
    pub const NAMES: &'static [&'static str] = &[
        "dijkstra",
        "bellman-ford",
        "bellman-ford-queue",
        "delta-stepping",
        "dijkstra-parallel",
        "spmv-csr",
        "spmv-ell",
        "auto",
    ];

    /// The name used on command lines.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Dijkstra => "dijkstra",
            Algorithm::BellmanFord => "bellman-ford",
            Algorithm::BellmanFordQueue => "bellman-ford-queue",
            Algorithm::DeltaStepping(_) => "delta-stepping",
            Algorithm::DijkstraParallel => "dijkstra-parallel",
            Algorithm::SpmvCsr => "spmv-csr",
            Algorithm::SpmvEll => "spmv-ell",
            Algorithm::Auto => "auto",
        }
    }

    /// Whether the method accepts negative weights.
    pub fn allows_negative_weights(&self) -> bool {
        matches!(
            self,
            Algorithm::BellmanFord
                | Algorithm::BellmanFordQueue
                | Algorithm::SpmvCsr
                | Algorithm::SpmvEll
                | Algorithm::Auto
        )
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = Error;

    /// `"dijkstra"`, `"bellman-ford"`, `"bellman-ford-queue"`, `"delta-stepping"` (with
    /// [`Delta::Auto`]), `"dijkstra-parallel"`, `"spmv-csr"`, `"spmv-ell"` or `"auto"`.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "dijkstra" => Ok(Algorithm::Dijkstra),
            "bellman-ford" => Ok(Algorithm::BellmanFord),
            "bellman-ford-queue" => Ok(Algorithm::BellmanFordQueue),
            "delta-stepping" => Ok(Algorithm::DeltaStepping(Delta::Auto)),
            "dijkstra-parallel" => Ok(Algorithm::DijkstraParallel),
            "spmv-csr" => Ok(Algorithm::SpmvCsr),
            "spmv-ell" => Ok(Algorithm::SpmvEll),
            "auto" => Ok(Algorithm::Auto),
            _ => Err(Error::InvalidArgument(format!(
                "unknown shortest-path algorithm '{s}' (expected {})",
                Algorithm::NAMES.join(", ")
            ))),
        }
    }
}

/// What a caller asks shortest paths of: one method by name, or "shortest paths of a
/// graph with non-negative weights, the fastest way here" (what scipy's and NetworkX's
/// `dijkstra` mean: the name of a problem there, not of a method).
///
/// [`Request::algorithm`] is the one place that turns a request into a method for a
/// number of sources on a device; every front end that runs shortest paths from several
/// sources (the Python `csgraph` and NetworkX functions) goes through it. A
/// [`Request::Named`] method runs as named, [`Algorithm::Dijkstra`] on a GPU included
/// (the CUDA SSSP thesis's O(n^2) Dijkstra with a parallel ExtractMin); nothing else
/// picks that one.
///
/// ```
/// use warpgraph::device::Device;
/// use warpgraph::sssp::{Algorithm, Delta, Request};
/// let r: Request = "nonnegative".parse().unwrap();
/// assert_eq!(r.algorithm(Device::Cuda(0), 16, false), Algorithm::Auto);
/// assert_eq!(r.algorithm(Device::Cpu, 16, false), Algorithm::Dijkstra);
/// assert_eq!(r.algorithm(Device::Cpu, 1, false), Algorithm::DeltaStepping(Delta::Auto));
/// let named: Request = "dijkstra".parse().unwrap();
/// assert_eq!(named.algorithm(Device::Cuda(0), 16, false), Algorithm::Dijkstra);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Request {
    /// This method, whatever the device and the number of sources.
    Named(Algorithm),
    /// Non-negative weights, the method left to [`Request::algorithm`]; a negative arc is
    /// an [`Error::NegativeWeight`], as for Dijkstra. Named `"nonnegative"`.
    NonNegative,
}

impl Request {
    /// The name of [`Request::NonNegative`].
    pub const NONNEGATIVE: &'static str = "nonnegative";

    /// The method to run from `sources` sources on `device` (resolved: [`Device::Cpu`]
    /// or [`Device::Cuda`]); `negative`: whether the graph has an arc of negative weight
    /// (only [`Request::NonNegative`] looks at it).
    ///
    /// [`Request::NonNegative`]:
    /// - on a GPU, [`Algorithm::Auto`] (near-far buckets, or owner-local on road-like
    ///   graphs), the graph uploaded once for all the sources; with a negative arc,
    ///   [`Algorithm::DeltaStepping`], which refuses it ([`Error::NegativeWeight`]) where
    ///   `auto` would fall back to Bellman-Ford;
    /// - on the CPU, one source: [`Algorithm::DeltaStepping`] (parallel); several:
    ///   [`Algorithm::Dijkstra`], the sources in parallel, one per core. Both refuse a
    ///   negative arc reachable from the source.
    pub fn algorithm(&self, device: Device, sources: usize, negative: bool) -> Algorithm {
        match (*self, device) {
            (Request::Named(a), _) => a,
            (Request::NonNegative, Device::Cuda(_)) if !negative => Algorithm::Auto,
            (Request::NonNegative, Device::Cuda(_)) => Algorithm::DeltaStepping(Delta::Auto),
            (Request::NonNegative, _) if sources == 1 => Algorithm::DeltaStepping(Delta::Auto),
            (Request::NonNegative, _) => Algorithm::Dijkstra,
        }
    }
}

impl FromStr for Request {
    type Err = Error;

    /// `"nonnegative"`, or a method's name ([`Algorithm`]'s [`FromStr`]).
    fn from_str(s: &str) -> Result<Self> {
        match s {
            Request::NONNEGATIVE => Ok(Request::NonNegative),
            _ => s.parse().map(Request::Named).map_err(|_| {
                Error::InvalidArgument(format!(
                    "unknown shortest-path method '{s}' (expected {} or {})",
                    Request::NONNEGATIVE,
                    Algorithm::NAMES.join(", ")
                ))
            }),
        }
    }
}

/// Shortest paths from `source` by the chosen method.
///
/// # Arguments
/// - `g`: the graph (directed, or undirected as its symmetric digraph); unweighted graphs
///   have weight 1 on every arc.
/// - `source`: the internal id of the source vertex (see [`Graph::vertex`] for file ids).
/// - `algorithm`: the method ([`Algorithm`]).
///
/// # Returns
/// [`SsspResult::Int`] for integer and unweighted graphs, [`SsspResult::Float`] for float
/// weights: distances and a shortest-path tree.
///
/// # Errors
/// - [`Error::InvalidArgument`]: `source` is not a vertex (every source is out of range of
///   an empty graph), or a [`Delta::Fixed`] width is not a positive number.
/// - [`Error::NegativeWeight`]: Dijkstra or delta-stepping met an arc of negative weight
///   (arcs unreachable from the source are never looked at).
/// - [`Error::NegativeCycle`]: Bellman-Ford found a negative cycle reachable from the
///   source; the error lists it.
/// - [`Error::Overflow`]: a reachable distance does not fit in `i64` (or `f64`).
/// - [`Error::OutOfMemory`]: the working arrays would not fit.
///
/// # Complexity
/// Dijkstra O(m log n); Bellman-Ford O(n m) in the worst case, O(m) per round; delta-stepping
/// O(m + n + buckets) work on graphs with random weights.
///
/// # Example
/// ```
/// use warpgraph::sssp::{sssp, Algorithm, Delta, SsspResult};
/// use warpgraph::{BuildOptions, EdgeList, Weights, NO_VERTEX};
/// // 0 --2--> 1 --(-1)--> 2      3 (isolated)
/// let g = EdgeList::new(4, vec![0, 1], vec![1, 2], Weights::from(vec![2i64, -1]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let r = sssp(&g, 0, &Algorithm::BellmanFord).unwrap();
/// let SsspResult::Int(p) = &r else { unreachable!() };
/// assert_eq!(p.dist, vec![0, 2, 1, i64::MAX]);
/// assert_eq!(p.parent, vec![0, 0, 1, NO_VERTEX]);
/// assert!(sssp(&g, 0, &Algorithm::DeltaStepping(Delta::Auto)).is_err()); // negative weight
/// ```
pub fn sssp(g: &Graph, source: VertexId, algorithm: &Algorithm) -> Result<SsspResult> {
    cpu::check_inputs(g.out(), None, Some(source))?;
    let directed = g.is_directed();
    if let Algorithm::SpmvCsr | Algorithm::SpmvEll = algorithm {
        let ell = *algorithm == Algorithm::SpmvEll;
        let (out, inc) = (g.out(), g.incoming());
        macro_rules! spmv {
            ($t:ty, $w:expr, $wrap:path) => {{
                let w_in = inc
                    .weights()
                    .as_slice::<$t>()
                    .expect("the transpose keeps the type");
                cpu::spmv_with(out, &$w[..], inc, w_in, !directed, source, ell).map($wrap)
            }};
        }
        return match out.weights() {
            Weights::None => {
                cpu::spmv_with(out, &Unit, inc, &Unit, !directed, source, ell).map(SsspResult::Int)
            }
            Weights::I32(w) => spmv!(i32, w, SsspResult::Int),
            Weights::I64(w) => spmv!(i64, w, SsspResult::Int),
            Weights::F32(w) => spmv!(f32, w, SsspResult::Float),
            Weights::F64(w) => spmv!(f64, w, SsspResult::Float),
        };
    }
    match g.out().weights() {
        Weights::None => run(g.out(), &Unit, directed, source, algorithm).map(SsspResult::Int),
        Weights::I32(w) => run(g.out(), &w[..], directed, source, algorithm).map(SsspResult::Int),
        Weights::I64(w) => run(g.out(), &w[..], directed, source, algorithm).map(SsspResult::Int),
        Weights::F32(w) => run(g.out(), &w[..], directed, source, algorithm).map(SsspResult::Float),
        Weights::F64(w) => run(g.out(), &w[..], directed, source, algorithm).map(SsspResult::Float),
    }
}

/// The bucket width of `dijkstra-parallel` for the least arc weight `least` (`None`:
/// unweighted, 1): that weight, or the smallest positive number when it is 0 or less.
/// As a [`Delta::Fixed`] width, integer distances round it up to 1.
pub(crate) fn parallel_width(least: Option<f64>) -> f64 {
    match least.unwrap_or(1.0) {
        x if x > 0.0 => x,
        _ => f64::MIN_POSITIVE,
    }
}

/// Runs one variant on typed weights.
fn run<A: ArcWeights + ?Sized>(
    csr: &crate::graph::Csr,
    w: &A,
    directed: bool,
    source: VertexId,
    algorithm: &Algorithm,
) -> Result<ShortestPaths<A::D>> {
    match algorithm {
        Algorithm::Dijkstra => cpu::dijkstra_with(csr, w, source),
        Algorithm::BellmanFord => cpu::bellman_ford_with(csr, w, !directed, source),
        Algorithm::BellmanFordQueue => cpu::bellman_ford_queue_with(csr, w, source),
        Algorithm::DeltaStepping(delta) => {
            cpu::delta_stepping_with(csr, w, !directed, source, *delta)
        }
        Algorithm::DijkstraParallel => {
            let width = parallel_width(csr.weights().min_f64());
            cpu::delta_stepping_with(csr, w, !directed, source, Delta::Fixed(width))
        }
        Algorithm::SpmvCsr | Algorithm::SpmvEll => unreachable!("dispatched in sssp"),
        // Delta-stepping stops at the first step that meets a negative arc; only then does
        // Bellman-Ford run. (A scan of every weight up front would cost, on a Kronecker
        // graph, a tenth of the search itself.)
        Algorithm::Auto => match cpu::delta_stepping_with(csr, w, !directed, source, Delta::Auto) {
            Err(Error::NegativeWeight { .. }) => cpu::bellman_ford_with(csr, w, !directed, source),
            r => r,
        },
    }
}

/// Shortest paths on a chosen device, the graph prepared once for many sources (on a GPU:
/// uploaded once).
///
/// ```
/// use warpgraph::device::Device;
/// use warpgraph::sssp::{Algorithm, SsspRunner};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::from(vec![5i32, 7]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let mut runner = SsspRunner::new(Device::Cpu, &g).unwrap();
/// let (r, times) = runner.run(&g, 0, &Algorithm::Auto).unwrap();
/// assert_eq!(r.dist_f64(2), 12.0);
/// assert!(times.kernel_seconds.is_none());
/// ```
pub enum SsspRunner {
    /// The CPU code.
    Cpu,
    /// A GPU with the graph on it.
    Cuda(Box<cuda::GpuSssp>),
}

impl SsspRunner {
    /// Prepares shortest paths on `device` (resolved: [`Device::Cpu`] or
    /// [`Device::Cuda`]); on a GPU this uploads `g`.
    ///
    /// # Errors
    /// As [`cuda::GpuSssp::new`]; [`Error::InvalidArgument`] for [`Device::Auto`].
    pub fn new(device: Device, g: &Graph) -> Result<SsspRunner> {
        match device {
            Device::Cpu => Ok(SsspRunner::Cpu),
            Device::Cuda(i) => {
                let gpu = crate::cuda::Gpu::open(i)?;
                Ok(SsspRunner::Cuda(Box::new(cuda::GpuSssp::new(&gpu, g)?)))
            }
            Device::Auto => Err(Error::InvalidArgument(
                "resolve the device (Device::resolve) before preparing a search".into(),
            )),
        }
    }

    /// Sets the threads per block of the GPU `dijkstra`'s ExtractMin (one of
    /// [`cuda::EXTRACT_MIN_THREADS`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another number, or on the CPU, which has no blocks.
    pub fn set_extract_min_threads(&mut self, threads: u32) -> Result<()> {
        match self {
            SsspRunner::Cpu => Err(Error::InvalidArgument(
                "threads per block are a GPU setting (the CPU's dijkstra uses a heap)".into(),
            )),
            SsspRunner::Cuda(gpu) => gpu.set_extract_min_threads(threads),
        }
    }

    /// Shortest paths from `source` (an internal id) of `g`, the graph given to
    /// [`SsspRunner::new`], by `algorithm`.
    ///
    /// # Errors
    /// As [`sssp`] and [`cuda::GpuSssp::run`].
    pub fn run(
        &mut self,
        g: &Graph,
        source: VertexId,
        algorithm: &Algorithm,
    ) -> Result<(SsspResult, RunTimes)> {
        match self {
            SsspRunner::Cpu => {
                let start = std::time::Instant::now();
                let r = sssp(g, source, algorithm)?;
                let seconds = start.elapsed().as_secs_f64();
                Ok((
                    r,
                    RunTimes {
                        seconds,
                        kernel_seconds: None,
                    },
                ))
            }
            SsspRunner::Cuda(gpu) => {
                let (r, t) = gpu.run(g, source, algorithm)?;
                Ok((r, t.into()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The method of every request, for one and for many sources, on the CPU and on a
    /// GPU: the GPU's O(n^2) Dijkstra runs only when named.
    #[test]
    fn request_picks_the_method() {
        let gpu = Device::Cuda(0);
        let nonneg = Request::NonNegative;
        for k in [1, 2, 64] {
            assert_eq!(nonneg.algorithm(gpu, k, false), Algorithm::Auto, "{k}");
            assert_eq!(
                nonneg.algorithm(gpu, k, true),
                Algorithm::DeltaStepping(Delta::Auto)
            );
            for a in Algorithm::NAMES {
                let named: Request = a.parse().unwrap();
                for d in [Device::Cpu, gpu] {
                    assert_eq!(named.algorithm(d, k, false).name(), *a);
                    assert_eq!(named.algorithm(d, k, true).name(), *a);
                }
            }
        }
        assert_eq!(
            nonneg.algorithm(Device::Cpu, 1, false),
            Algorithm::DeltaStepping(Delta::Auto)
        );
        assert_eq!(nonneg.algorithm(Device::Cpu, 2, false), Algorithm::Dijkstra);
        for d in [Device::Cpu, gpu] {
            for k in [1, 2, 64] {
                for negative in [false, true] {
                    let a = nonneg.algorithm(d, k, negative);
                    assert!(!(matches!(d, Device::Cuda(_)) && a == Algorithm::Dijkstra));
                    // What refuses a negative arc still does.
                    assert_eq!(
                        a.allows_negative_weights(),
                        !negative && a == Algorithm::Auto
                    );
                }
            }
        }
        assert_eq!(
            "nonnegative".parse::<Request>().unwrap(),
            Request::NonNegative
        );
        let e = "fastest".parse::<Request>().unwrap_err().to_string();
        assert!(e.contains("nonnegative") && e.contains("dijkstra"), "{e}");
    }
}
