//! All-pairs shortest paths: the distance from every vertex to every other.
//!
//! [`apsp`] runs one of two algorithms and streams the n x n distance matrix, a block of
//! rows at a time, into a [`RowSink`]:
//! - [`Algorithm::FloydWarshall`] ([`cpu::floyd_warshall`](mod@cpu::floyd_warshall)): cache-blocked, parallel
//!   Floyd-Warshall, O(n^3) time and the whole n x n matrix in memory; best for dense graphs;
//! - [`Algorithm::Johnson`] ([`cpu::johnson`](mod@cpu::johnson)): Bellman-Ford potentials, then Dijkstra from
//!   every source in parallel, O(n m log n) time and O(block x n) memory; best for sparse
//!   graphs;
//! - [`Algorithm::Auto`]: Johnson when the graph is sparse (or when Floyd-Warshall's matrix
//!   does not fit in memory), Floyd-Warshall when it is dense; see [`Algorithm::resolve`].
//!
//! [`distances_on`] gives a *distance table*: the distances from chosen sources (its rows)
//! to chosen targets (its columns) ([`Selection`], [`Axis`]), by Johnson's searches from
//! those sources only, each stopped once every target is settled on the CPU, the targets'
//! columns picked out on a GPU. The whole table is Johnson's all-pairs matrix: both are the
//! same code.
//!
//! Row `s` of the matrix holds the distances from source `s` (an internal vertex number) to
//! every vertex, in vertex order. Distances are `i64` for integer weights and unweighted
//! graphs (every arc weighs 1), `f64` for float weights ([`DistType`]); an unreachable vertex
//! has [`Distance::INFINITY`] (`i64::MAX` or `f64::INFINITY`). Integer sums are exact and
//! checked: a distance outside `i64` is an [`Error::Overflow`], never a wrapped value.
//! Negative weights are allowed; a negative cycle anywhere in the graph makes every
//! algorithm fail with [`Error::NegativeCycle`] naming a real cycle (all-pairs distances are
//! then undefined for the pairs that can reach it, and this module does not report partial
//! results). Self loops of non-negative weight and parallel arcs are harmless (the lightest
//! parallel arc counts).
//!
//! Optionally ([`ApspOptions::predecessors`]) each row also carries predecessors: `pred[t]`
//! is the vertex before `t` on a shortest path from the row's source (`pred[s] == s`;
//! [`NO_VERTEX`] when `t` is unreachable), so that following predecessors from `t` walks a
//! shortest path back to `s` ([`DistMatrix::path`]).
//!
//! # Sinks
//! The result can be far larger than the graph (n = 100,000 gives 80 GB of distances), so
//! algorithms never build it for the caller: they hand consecutive row blocks to a
//! [`RowSink`]. Provided sinks ([`sink`]):
//! - [`MatrixSink`]: keeps everything in a [`DistMatrix`] in memory;
//! - [`NpySink`]: a NumPy `.npy` file (format v1.0, row-major, indexed by internal vertex
//!   number), written as the rows arrive;
//! - [`TsvSink`]: `source\ttarget\tdistance` lines for the reachable pairs, in the file's
//!   own vertex ids, written as the rows arrive;
//! - [`VerifyingSink`]: checks sampled rows (see [`verify`]) and passes every row on.
//!
//! # Verification
//! [`verify_matrix`] and [`VerifyingSink`] check results without trusting the algorithms:
//! on small graphs every sampled row is compared with a plain Bellman-Ford oracle; on any
//! graph each sampled row must satisfy the shortest-path certificate (see [`verify_row`]).
//!
//! ```
//! use warpgraph::apsp::{apsp_matrix, verify_matrix, Algorithm, ApspOptions};
//! use warpgraph::{BuildOptions, EdgeList, Weights};
//! //   0 --4--> 1 --(-2)--> 2      3 (isolated)
//! //    \_____________5_____^
//! let edges = EdgeList::new(4, vec![0, 1, 0], vec![1, 2, 2], Weights::from(vec![4, -2, 5]))
//!     .unwrap();
//! let g = edges.build(&BuildOptions::default()).unwrap();
//! for algorithm in [Algorithm::FloydWarshall, Algorithm::Johnson] {
//!     let m = apsp_matrix(&g, algorithm, &ApspOptions::default()).unwrap();
//!     let inf = i64::MAX;
//!     assert_eq!(
//!         m.as_i64().unwrap(),
//!         &[0, 4, 2, inf, inf, 0, -2, inf, inf, inf, 0, inf, inf, inf, inf, 0]
//!     );
//!     verify_matrix(&g, &m).unwrap();
//! }
//! ```

pub mod cpu;
pub mod cuda;
pub mod sink;
pub mod verify;

pub use sink::{
    npy_file_size, tsv_size_bound, tsv_table_bound, Discard, DistTable, MatrixSink, NpySink,
    TsvSink,
};
pub use verify::{verify_matrix, verify_negative_cycle, verify_row, VerifyingSink};

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::{named_enum, Distance, Graph, VertexId, WeightType, NO_VERTEX};
use crate::progress::{NoProgress, Progress};

/// Which all-pairs algorithm to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// Blocked Floyd-Warshall: O(n^3), dense graphs; the n x n matrix must fit in memory.
    FloydWarshall,
    /// Johnson: Bellman-Ford reweighting, then Dijkstra from every source; sparse graphs.
    Johnson,
    /// Johnson for sparse graphs, Floyd-Warshall for dense ones ([`Algorithm::resolve`]).
    #[default]
    Auto,
}

named_enum!(
    Algorithm,
    "all-pairs algorithm",
    Algorithm::FloydWarshall => "floyd-warshall",
    Algorithm::Johnson => "johnson",
    Algorithm::Auto => "auto"
);

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `Auto` picks Floyd-Warshall when the graph has at least `n^2 / DENSE_RATIO` arcs.
///
/// Measured on the 2-core development machine (uniform random digraphs, weights 1..100,
/// CPU seconds): at n = 2000, Johnson / Floyd-Warshall take 1.10 / 0.35 with
/// m = n^2/64, 0.58 / 0.31 with n^2/256, and 0.20 / 0.19 with n^2/1024; at n = 1000,
/// 0.03 / 0.02 with n^2/1024. The blocked Floyd-Warshall kernel does several 10^9
/// relaxations per second and core (and skips rows that cannot reach the pivot), Dijkstra
/// about 10^8 arc relaxations, so Johnson's n m log n work matches Floyd-Warshall's n^3
/// near m = n^2 / 256 to n^2 / 1024; 256 leans towards Johnson, whose memory use does not
/// grow with n^2.
pub const DENSE_RATIO: u64 = 256;

impl Algorithm {
    /// The algorithm that `self` stands for on `g`: `FloydWarshall` and `Johnson` are
    /// themselves; `Auto` is Floyd-Warshall when `g` has at least `n^2 / 256` arcs
    /// ([`DENSE_RATIO`]) and its matrix fits in memory, Johnson otherwise.
    ///
    /// # Arguments
    /// * `g` - the graph.
    /// * `opts` - the options the run will use (predecessors need more memory).
    ///
    /// # Returns
    /// `FloydWarshall` or `Johnson`.
    ///
    /// # Complexity
    /// O(1).
    ///
    /// ```
    /// use warpgraph::apsp::{Algorithm, ApspOptions};
    /// use warpgraph::{BuildOptions, EdgeList, Weights};
    /// // A 3-cycle: 3 arcs >= 9 / 256, dense.
    /// let g = EdgeList::new(3, vec![0, 1, 2], vec![1, 2, 0], Weights::None).unwrap()
    ///     .build(&BuildOptions::default()).unwrap();
    /// let o = ApspOptions::default();
    /// assert_eq!(Algorithm::Auto.resolve(&g, &o), Algorithm::FloydWarshall);
    /// assert_eq!(Algorithm::Johnson.resolve(&g, &o), Algorithm::Johnson);
    /// ```
    pub fn resolve(self, g: &Graph, opts: &ApspOptions) -> Algorithm {
        match self {
            Algorithm::Auto => {
                let n = g.num_vertices() as u64;
                let dense = g.num_arcs().saturating_mul(DENSE_RATIO) >= n.saturating_mul(n);
                if dense && cpu::floyd_warshall_fits(g, opts) {
                    Algorithm::FloydWarshall
                } else {
                    Algorithm::Johnson
                }
            }
            other => other,
        }
    }
}

/// The type of the distances in a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DistType {
    /// `i64` (integer weights, or unweighted); unreachable is `i64::MAX`.
    I64,
    /// `f64` (float weights); unreachable is `f64::INFINITY`.
    F64,
}

impl DistType {
    /// The distance type of a graph with weights of type `w`.
    pub fn of(w: WeightType) -> DistType {
        if w.is_float() {
            DistType::F64
        } else {
            DistType::I64
        }
    }

    /// Bytes per distance (8).
    pub fn size(self) -> usize {
        8
    }

    /// `"i64"` or `"f64"`.
    pub fn name(self) -> &'static str {
        match self {
            DistType::I64 => "i64",
            DistType::F64 => "f64",
        }
    }
}

/// Options for [`apsp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ApspOptions {
    /// Also compute a predecessor for every pair (4 more bytes per pair; Floyd-Warshall
    /// runs somewhat slower).
    pub predecessors: bool,
}

/// The vertices along one side of a distance table: every vertex in order, or a list
/// (repeats allowed, in the caller's order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Axis {
    /// Vertices `0..n`.
    All(usize),
    /// These vertices, in this order.
    List(Arc<[VertexId]>),
}

impl Axis {
    /// The number of rows or columns.
    pub fn len(&self) -> usize {
        match self {
            Axis::All(n) => *n,
            Axis::List(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The vertex of row or column `i` (`i < len()`).
    #[inline]
    pub fn vertex(&self, i: usize) -> VertexId {
        match self {
            Axis::All(_) => i as VertexId,
            Axis::List(v) => v[i],
        }
    }

    /// Whether this is every vertex of an `n`-vertex graph in order.
    pub fn is_all(&self, n: usize) -> bool {
        match self {
            Axis::All(k) => *k == n,
            Axis::List(_) => false,
        }
    }

    /// The list, for a [`Axis::List`].
    pub fn list(&self) -> Option<&[VertexId]> {
        match self {
            Axis::All(_) => None,
            Axis::List(v) => Some(v),
        }
    }

    /// Refuses a vertex that is not one of the `n` of the graph, naming `what`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first such vertex and its place.
    pub fn check(&self, n: usize, what: &str) -> Result<()> {
        match self {
            Axis::All(k) if *k == n => Ok(()),
            Axis::All(k) => Err(Error::InvalidArgument(format!(
                "{what}: {k} vertices asked of a graph of {n}"
            ))),
            Axis::List(v) => match v.iter().position(|&x| x as usize >= n) {
                None => Ok(()),
                Some(i) => Err(Error::InvalidArgument(format!(
                    "{what}: entry {i} is vertex {}, but the graph has {n} vertices",
                    v[i]
                ))),
            },
        }
    }
}

/// Which pairs a distance table holds: the distances from each of `sources` (its rows) to
/// each of `targets` (its columns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// One row per entry.
    pub sources: Axis,
    /// One column per entry.
    pub targets: Axis,
}

impl Selection {
    /// Every pair of an `n`-vertex graph: the all-pairs matrix.
    pub fn all(n: usize) -> Selection {
        Selection {
            sources: Axis::All(n),
            targets: Axis::All(n),
        }
    }

    /// Refuses a source or target that is not one of the `n` vertices.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming it.
    pub fn check(&self, n: usize) -> Result<()> {
        self.sources.check(n, "sources")?;
        self.targets.check(n, "targets")
    }

    /// What a sink learns of this table of an `n`-vertex graph.
    pub fn info(&self, n: usize, dist_type: DistType, predecessors: bool) -> RowsInfo {
        RowsInfo {
            num_vertices: n,
            rows: self.sources.clone(),
            cols: self.targets.clone(),
            dist_type,
            predecessors,
        }
    }
}

/// What a sink learns before the first row: the rows are the distances from the
/// vertices of `rows`, each to the vertices of `cols` (for all pairs, both are
/// [`Axis::All`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowsInfo {
    /// The number of vertices of the graph.
    pub num_vertices: usize,
    /// The sources, one per row.
    pub rows: Axis,
    /// The targets, one per column.
    pub cols: Axis,
    /// The type of the distances.
    pub dist_type: DistType,
    /// Whether rows carry predecessors.
    pub predecessors: bool,
}

impl RowsInfo {
    /// All pairs of `n` vertices.
    pub fn square(n: usize, dist_type: DistType, predecessors: bool) -> RowsInfo {
        RowsInfo {
            num_vertices: n,
            rows: Axis::All(n),
            cols: Axis::All(n),
            dist_type,
            predecessors,
        }
    }

    /// Rows times columns, saturating.
    pub fn num_pairs(&self) -> u64 {
        (self.rows.len() as u64).saturating_mul(self.cols.len() as u64)
    }

    /// Whether this is the whole n x n matrix.
    pub fn is_square(&self) -> bool {
        self.rows.is_all(self.num_vertices) && self.cols.is_all(self.num_vertices)
    }
}

/// Consecutive rows of distances, row-major: `k` rows of `n` values each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dists<'a> {
    /// Integer distances; `i64::MAX` means unreachable.
    I64(&'a [i64]),
    /// Float distances; `f64::INFINITY` means unreachable.
    F64(&'a [f64]),
}

impl Dists<'_> {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Dists::I64(d) => d.len(),
            Dists::F64(d) => d.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type of the values.
    pub fn dist_type(&self) -> DistType {
        match self {
            Dists::I64(_) => DistType::I64,
            Dists::F64(_) => DistType::F64,
        }
    }

    /// Values `range`, or `None` when out of bounds.
    pub fn get(&self, range: std::ops::Range<usize>) -> Option<Dists<'_>> {
        Some(match self {
            Dists::I64(d) => Dists::I64(d.get(range)?),
            Dists::F64(d) => Dists::F64(d.get(range)?),
        })
    }
}

/// A block of consecutive rows handed to a [`RowSink`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowBlock<'a> {
    /// The index of the first row (for all pairs: its source vertex).
    pub first: usize,
    /// The row length: the number of columns.
    pub row_len: usize,
    /// `num_rows() * row_len` distances, row-major.
    pub dist: Dists<'a>,
    /// As many predecessors, when the run computes them.
    pub pred: Option<&'a [VertexId]>,
}

impl<'a> RowBlock<'a> {
    /// The number of rows in the block.
    pub fn num_rows(&self) -> usize {
        self.dist.len().checked_div(self.row_len).unwrap_or(0)
    }

    /// Row `i` of the block (the distances from the source of row `first + i`), if there
    /// is one.
    pub fn row(&self, i: usize) -> Option<(Dists<'a>, Option<&'a [VertexId]>)> {
        let n = self.row_len;
        let range = i.checked_mul(n)?..i.checked_mul(n)?.checked_add(n)?;
        let dist = match self.dist {
            Dists::I64(d) => Dists::I64(d.get(range.clone())?),
            Dists::F64(d) => Dists::F64(d.get(range.clone())?),
        };
        let pred = match self.pred {
            Some(p) => Some(p.get(range)?),
            None => None,
        };
        Some((dist, pred))
    }
}

/// Receives the distance matrix one block of rows at a time.
///
/// The contract every algorithm keeps: [`begin`](RowSink::begin) once; then
/// [`rows`](RowSink::rows) with blocks that together cover the rows `0..rows.len()` exactly
/// once, in increasing order and without gaps (each block starts where the previous ended); then
/// [`finish`](RowSink::finish) once, only if every row was delivered. A sink returning an
/// error stops the run and the error is returned to the caller. The slices passed to
/// `rows` are only borrowed: a sink that keeps rows must copy them.
pub trait RowSink: Send {
    /// Bytes this sink will keep in memory for a result of this shape, so that an algorithm
    /// can refuse up front ([`Error::OutOfMemory`]) instead of failing after hours. The
    /// default is 0 (streaming sinks).
    fn memory_needed(&self, _info: &RowsInfo) -> u64 {
        0
    }

    /// The shape of the result, before any row.
    fn begin(&mut self, info: &RowsInfo) -> Result<()>;

    /// Readies the memory this sink keeps (maps its pages), between `begin` and the first
    /// row. A producer whose rows come from a device calls it while the device computes,
    /// so that mapping a large result overlaps the work instead of following it. The
    /// default does nothing; calling it is optional.
    fn prepare(&mut self) -> Result<()> {
        Ok(())
    }

    /// The next block of rows.
    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()>;

    /// After the last row (flush files here).
    fn finish(&mut self) -> Result<()>;
}

/// All-pairs distances held in memory, row-major, indexed by internal vertex number.
#[derive(Debug, Clone, PartialEq)]
pub struct DistMatrix {
    n: usize,
    dist: DistValues,
    pred: Option<Vec<VertexId>>,
}

/// The values of a [`DistMatrix`].
#[derive(Debug, Clone, PartialEq)]
pub enum DistValues {
    /// Integer distances; `i64::MAX` means unreachable.
    I64(Vec<i64>),
    /// Float distances; `f64::INFINITY` means unreachable.
    F64(Vec<f64>),
}

impl DistValues {
    /// The values, when they are integers.
    pub fn as_i64(&self) -> Option<&[i64]> {
        match self {
            DistValues::I64(d) => Some(d),
            DistValues::F64(_) => None,
        }
    }

    /// The values, when they are floats.
    pub fn as_f64(&self) -> Option<&[f64]> {
        match self {
            DistValues::F64(d) => Some(d),
            DistValues::I64(_) => None,
        }
    }

    /// Value `i` as `f64` (`inf` for an unreachable integer distance).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        Some(match self {
            DistValues::I64(d) => match *d.get(i)? {
                i64::MAX => f64::INFINITY,
                x => x as f64,
            },
            DistValues::F64(d) => *d.get(i)?,
        })
    }
}

impl DistMatrix {
    /// Assembles a matrix; `dist` (and `pred`, if given) must hold `n * n` values.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a length is not `n * n`.
    pub fn new(n: usize, dist: DistValues, pred: Option<Vec<VertexId>>) -> Result<DistMatrix> {
        let len = match &dist {
            DistValues::I64(d) => d.len(),
            DistValues::F64(d) => d.len(),
        };
        let nn = n.checked_mul(n);
        if Some(len) != nn || pred.as_ref().is_some_and(|p| Some(p.len()) != nn) {
            return Err(Error::InvalidArgument(format!(
                "a {n} x {n} distance matrix needs {n}^2 values, got {len}"
            )));
        }
        Ok(DistMatrix { n, dist, pred })
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.n
    }

    /// The type of the distances.
    pub fn dist_type(&self) -> DistType {
        match self.dist {
            DistValues::I64(_) => DistType::I64,
            DistValues::F64(_) => DistType::F64,
        }
    }

    /// The values.
    pub fn values(&self) -> &DistValues {
        &self.dist
    }

    /// All distances row-major, when they are integers.
    pub fn as_i64(&self) -> Option<&[i64]> {
        self.dist.as_i64()
    }

    /// All distances row-major, when they are floats.
    pub fn as_f64(&self) -> Option<&[f64]> {
        self.dist.as_f64()
    }

    /// Row `s`: the distances from `s`.
    pub fn row(&self, s: VertexId) -> Option<Dists<'_>> {
        let n = self.n;
        let start = (s as usize).checked_mul(n)?;
        let range = start..start.checked_add(n)?;
        Some(match &self.dist {
            DistValues::I64(d) => Dists::I64(d.get(range)?),
            DistValues::F64(d) => Dists::F64(d.get(range)?),
        })
    }

    /// The distance from `s` to `t` as f64 (`f64::INFINITY` when unreachable), `None` when
    /// either is out of range.
    pub fn get_f64(&self, s: VertexId, t: VertexId) -> Option<f64> {
        self.dist.get_f64(self.index(s, t)?)
    }

    /// Consumes the matrix, returning its values and predecessors (row-major) without
    /// copying them.
    ///
    /// ```
    /// use warpgraph::apsp::{DistMatrix, DistValues};
    /// let m = DistMatrix::new(1, DistValues::F64(vec![0.0]), Some(vec![0])).unwrap();
    /// assert_eq!(m.into_parts(), (DistValues::F64(vec![0.0]), Some(vec![0])));
    /// ```
    pub fn into_parts(self) -> (DistValues, Option<Vec<VertexId>>) {
        (self.dist, self.pred)
    }

    /// All predecessors row-major, when computed.
    pub fn predecessors(&self) -> Option<&[VertexId]> {
        self.pred.as_deref()
    }

    /// The predecessors of row `s`, when computed.
    pub fn pred_row(&self, s: VertexId) -> Option<&[VertexId]> {
        let n = self.n;
        let start = (s as usize).checked_mul(n)?;
        self.pred.as_ref()?.get(start..start.checked_add(n)?)
    }

    /// A shortest path `s, ..., t` rebuilt from the predecessors; `None` when `t` is
    /// unreachable, a vertex is out of range, no predecessors were computed, or they do
    /// not lead back to `s` within `n` steps.
    pub fn path(&self, s: VertexId, t: VertexId) -> Option<Vec<VertexId>> {
        let pred = self.pred_row(s)?;
        let mut path = vec![t];
        let mut v = t;
        while v != s {
            v = *pred.get(v as usize)?;
            if v == NO_VERTEX || path.len() > self.n {
                return None;
            }
            path.push(v);
        }
        path.reverse();
        Some(path)
    }

    /// The number of reachable pairs (finite distances), the diagonal included.
    pub fn reachable_pairs(&self) -> u64 {
        match &self.dist {
            DistValues::I64(d) => d.iter().filter(|&&x| x != i64::INFINITY).count() as u64,
            DistValues::F64(d) => d.iter().filter(|x| x.is_finite()).count() as u64,
        }
    }

    fn index(&self, s: VertexId, t: VertexId) -> Option<usize> {
        let (s, t) = (s as usize, t as usize);
        (s < self.n && t < self.n).then(|| s * self.n + t)
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApspSummary {
    /// The algorithm that ran (`Auto` resolved).
    pub algorithm: Algorithm,
    /// The number of vertices.
    pub num_vertices: usize,
    /// The type of the distances.
    pub dist_type: DistType,
    /// The number of pairs with a finite distance, the diagonal included.
    pub reachable_pairs: u64,
    /// On a GPU, the seconds its kernels took (CUDA events).
    pub kernel_seconds: Option<f64>,
    /// Whether the graph has a negative weight (Johnson then reweights, and
    /// Floyd-Warshall uses wider integers for its sentinel).
    pub negative_weights: bool,
}

/// Computes all-pairs shortest paths of `g` and streams them into `sink`.
///
/// # Arguments
/// * `g` - the graph; unweighted graphs have weight 1 on every arc; negative weights are
///   allowed.
/// * `algorithm` - which algorithm ([`Algorithm::Auto`] picks by density).
/// * `opts` - options (predecessors).
/// * `sink` - receives `begin`, the rows `0..n` in order, then `finish` ([`RowSink`]).
///
/// # Returns
/// An [`ApspSummary`] (the algorithm that ran, the number of reachable pairs).
///
/// # Errors
/// [`Error::NegativeCycle`] when the graph has a negative cycle (a real one is named);
/// [`Error::Overflow`] when a distance does not fit `i64` (or `f64`);
/// [`Error::OutOfMemory`] when Floyd-Warshall's matrix (or Johnson's row block, or the
/// sink's own needs) would not fit; any error the sink returns.
///
/// # Complexity
/// Floyd-Warshall O(n^3) time, O(n^2) memory; Johnson O(n m + n (m + n) log n) time,
/// O(m + block * n) memory (plus what the sink keeps). Both use every rayon thread.
///
/// # Example
/// ```
/// use warpgraph::apsp::{apsp, Algorithm, ApspOptions, MatrixSink};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 0 --1.5--> 1 --2.0--> 2
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::from(vec![1.5f64, 2.0]))
///     .unwrap().build(&BuildOptions::default()).unwrap();
/// let mut sink = MatrixSink::new();
/// let summary = apsp(&g, Algorithm::Auto, &ApspOptions::default(), &mut sink).unwrap();
/// assert_eq!(summary.reachable_pairs, 6);
/// let m = sink.into_matrix().unwrap();
/// assert_eq!(m.get_f64(0, 2), Some(3.5));
/// assert_eq!(m.get_f64(2, 0), Some(f64::INFINITY));
/// ```
pub fn apsp(
    g: &Graph,
    algorithm: Algorithm,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
) -> Result<ApspSummary> {
    apsp_with(g, algorithm, opts, sink, &NoProgress)
}

/// [`apsp`], reporting progress: a "floyd-warshall" phase counted in rounds or a
/// "johnson" phase counted in sources.
///
/// # Arguments
/// As [`apsp`], plus `progress`.
///
/// # Returns
/// As [`apsp`].
///
/// # Errors
/// As [`apsp`].
///
/// # Complexity
/// As [`apsp`].
///
/// ```
/// use warpgraph::apsp::{apsp_with, Algorithm, ApspOptions, MatrixSink};
/// use warpgraph::{BuildOptions, EdgeList, NoProgress, Weights};
/// let g = EdgeList::new(2, vec![0], vec![1], Weights::None).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// let mut sink = MatrixSink::new();
/// apsp_with(&g, Algorithm::Johnson, &ApspOptions::default(), &mut sink, &NoProgress).unwrap();
/// assert_eq!(sink.into_matrix().unwrap().as_i64().unwrap(), &[0, 1, i64::MAX, 0]);
/// ```
pub fn apsp_with(
    g: &Graph,
    algorithm: Algorithm,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<ApspSummary> {
    apsp_on(g, algorithm, opts, Backend::Cpu, sink, progress)
}

/// Where [`apsp_on`] runs.
#[derive(Clone, Copy)]
pub enum Backend<'a> {
    /// Every CPU core.
    Cpu,
    /// A GPU, with the Floyd-Warshall variant to use ([`cuda`]).
    Cuda(&'a std::sync::Arc<crate::cuda::Gpu>, cuda::FwVariant),
    /// A team of GPUs over NCCL ([`cuda::floyd_warshall_team`]): Floyd-Warshall only.
    Team(&'a crate::cuda::team::TeamSpec, cuda::FwVariant),
}

/// [`apsp_with`] on `backend`: on a GPU, [`cuda::floyd_warshall`] or [`cuda::johnson()`],
/// `Auto` choosing by density as on the CPU.
///
/// # Errors
/// As [`apsp`]; on a GPU, those of [`cuda::floyd_warshall`] (a matrix too big for the GPU
/// is refused with the bytes needed and free) and [`cuda::johnson()`] (predecessors
/// refused).
pub fn apsp_on(
    g: &Graph,
    algorithm: Algorithm,
    opts: &ApspOptions,
    backend: Backend<'_>,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<ApspSummary> {
    let algorithm = algorithm.resolve(g, opts);
    if algorithm == Algorithm::Johnson {
        let all = Selection::all(g.num_vertices());
        return distances_on(g, &all, opts, backend, sink, progress);
    }
    let mut counter = CountingSink {
        inner: sink,
        reachable: 0,
    };
    let kernel_seconds = match backend {
        Backend::Cpu => {
            cpu::floyd_warshall_with(g, opts, &mut counter, progress)?;
            None
        }
        Backend::Cuda(gpu, variant) => Some(cuda::floyd_warshall(
            gpu,
            g,
            opts,
            variant,
            &mut counter,
            progress,
        )?),
        Backend::Team(spec, variant) => Some(cuda::floyd_warshall_team(
            spec,
            g,
            opts,
            variant,
            &mut counter,
            progress,
        )?),
    };
    Ok(summary(g, algorithm, &counter, kernel_seconds))
}

/// The summary of a run of `algorithm` on `g` whose rows `counter` counted.
fn summary(
    g: &Graph,
    algorithm: Algorithm,
    counter: &CountingSink<'_>,
    kernel_seconds: Option<f64>,
) -> ApspSummary {
    ApspSummary {
        algorithm,
        num_vertices: g.num_vertices(),
        dist_type: DistType::of(g.weight_type()),
        reachable_pairs: counter.reachable,
        negative_weights: cpu::has_negative_weight(g),
        kernel_seconds,
    }
}

/// A distance table: the shortest-path distances from each source of `sel` to each of its
/// targets, streamed into `sink` a block of rows at a time (row `i` for source entry `i`,
/// column `j` for target entry `j`), by Johnson's method on `backend`: potentials from
/// Bellman-Ford when a weight is negative, then one search per source, many at once,
/// each stopped once every target is settled (on the CPU) or run to the end and the
/// targets' columns gathered (on a GPU). The whole matrix ([`Selection::all`]) is
/// [`Algorithm::Johnson`]'s all-pairs run.
///
/// # Errors
/// As [`apsp`] for Johnson (a negative cycle anywhere is refused, as its potentials need
/// the whole graph); [`Error::InvalidArgument`] for a source or target that is not a
/// vertex; [`Error::Unsupported`] on a team of GPUs, and for predecessors on a GPU.
///
/// ```
/// use std::sync::Arc;
/// use warpgraph::apsp::{distances_on, ApspOptions, Axis, Backend, MatrixSink, Selection};
/// use warpgraph::{BuildOptions, EdgeList, NoProgress, Weights};
/// // Undirected path 0 - 1 - 2 - 3, unit weights.
/// let g = EdgeList::new(4, vec![0, 1, 2], vec![1, 2, 3], Weights::None).unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let sel = Selection {
///     sources: Axis::List(Arc::from(vec![0, 3])),
///     targets: Axis::List(Arc::from(vec![1, 2])),
/// };
/// let mut sink = MatrixSink::new();
/// let opts = ApspOptions::default();
/// let s = distances_on(&g, &sel, &opts, Backend::Cpu, &mut sink, &NoProgress).unwrap();
/// assert_eq!(s.reachable_pairs, 4);
/// assert_eq!(sink.into_table().unwrap().as_i64().unwrap(), &[1, 2, 2, 1]);
/// ```
pub fn distances_on(
    g: &Graph,
    sel: &Selection,
    opts: &ApspOptions,
    backend: Backend<'_>,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<ApspSummary> {
    let mut counter = CountingSink {
        inner: sink,
        reachable: 0,
    };
    let kernel_seconds = match backend {
        Backend::Cpu => {
            cpu::table_with(g, sel, opts, &mut counter, progress)?;
            None
        }
        Backend::Cuda(gpu, _) => Some(cuda::johnson_table(
            gpu,
            g,
            sel,
            opts,
            &mut counter,
            progress,
        )?),
        Backend::Team(..) => {
            return Err(Error::Unsupported(
                "Johnson runs on one GPU: use --algo floyd-warshall on a team of GPUs".into(),
            ))
        }
    };
    Ok(summary(g, Algorithm::Johnson, &counter, kernel_seconds))
}

/// Whether a table of `g` is made by multi-source BFS (on either device): an unweighted
/// graph of 8 or more arcs a vertex, where the searches of a pass cross the same vertices
/// within a few levels of one another (Kronecker 18, 256 x 1,000 table, 2 threads: 0.95 s
/// against 6.6 s for a Dijkstra per source). On a road-like grid they seldom meet, and
/// passes of thousands of short levels lose to independent searches (grid 512²: 4.0-4.8
/// s against 3.7 s).
pub(crate) fn by_multi_source_bfs(g: &Graph) -> bool {
    g.weight_type() == WeightType::None && g.num_arcs() >= 8 * g.num_vertices().max(1) as u64
}

/// All-pairs shortest paths of `g` as an in-memory [`DistMatrix`].
///
/// # Arguments
/// * `g`, `algorithm`, `opts` - as for [`apsp`].
///
/// # Returns
/// The n x n matrix (and predecessors when asked for).
///
/// # Errors
/// As [`apsp`]; [`Error::OutOfMemory`] when the matrix does not fit.
///
/// # Complexity
/// As [`apsp`], plus the O(n^2) matrix.
///
/// ```
/// use warpgraph::apsp::{apsp_matrix, Algorithm, ApspOptions};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // Undirected path 0 - 1 - 2, unit weights.
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::None).unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let opts = ApspOptions { predecessors: true };
/// let m = apsp_matrix(&g, Algorithm::FloydWarshall, &opts).unwrap();
/// assert_eq!(m.as_i64().unwrap(), &[0, 1, 2, 1, 0, 1, 2, 1, 0]);
/// assert_eq!(m.path(0, 2), Some(vec![0, 1, 2]));
/// ```
pub fn apsp_matrix(g: &Graph, algorithm: Algorithm, opts: &ApspOptions) -> Result<DistMatrix> {
    let mut sink = MatrixSink::new();
    apsp(g, algorithm, opts, &mut sink)?;
    sink.into_matrix()
}

/// Counts reachable pairs on the way to the caller's sink.
struct CountingSink<'a> {
    inner: &'a mut dyn RowSink,
    reachable: u64,
}

impl RowSink for CountingSink<'_> {
    fn memory_needed(&self, info: &RowsInfo) -> u64 {
        self.inner.memory_needed(info)
    }

    fn begin(&mut self, info: &RowsInfo) -> Result<()> {
        self.inner.begin(info)
    }

    fn prepare(&mut self) -> Result<()> {
        self.inner.prepare()
    }

    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()> {
        use rayon::prelude::*;
        self.reachable += match block.dist {
            Dists::I64(d) => d.par_iter().filter(|&&x| x != i64::INFINITY).count() as u64,
            Dists::F64(d) => d.par_iter().filter(|x| x.is_finite()).count() as u64,
        };
        self.inner.rows(block)
    }

    fn finish(&mut self) -> Result<()> {
        self.inner.finish()
    }
}
