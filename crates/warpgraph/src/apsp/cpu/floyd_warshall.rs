//! Blocked, parallel Floyd-Warshall: all-pairs shortest paths in O(n^3) on a dense matrix.
//!
//! # What it computes
//! The n x n matrix `D[s][t]` of shortest-path distances (and optionally predecessors),
//! streamed row block by row block into a [`RowSink`]; negative weights are allowed, and a
//! negative cycle is reported as [`Error::NegativeCycle`] with a real cycle.
//!
//! # Method
//! Floyd-Warshall (Floyd, "Algorithm 97: Shortest path", CACM 1962):
//! `D[i][j] = min(D[i][j], D[i][k] + D[k][j])` for every pivot `k`, with `D` starting as the
//! arc weights (the lightest parallel arc; 0 on the diagonal; a negative self loop is
//! itself a negative cycle). The loop nest is blocked into 64 x 64 tiles (the three-phase
//! schedule of Venkataraman, Sahni and Mukhopadhyaya, "A blocked all-pairs shortest-paths
//! algorithm", JEA 2003, which seed 001 ports to the GPU): for the `K`-th diagonal tile,
//! 1. phase 1 runs plain Floyd-Warshall on the diagonal tile `(K, K)` alone;
//! 2. phase 2 updates the tiles of row `K` and of column `K` from it;
//! 3. phase 3 updates every other tile `(I, J)` as a min-plus product of `(I, K)` and
//!    `(K, J)`.
//!
//! The matrix is padded to a multiple of 64 with isolated vertices, so every tile is full
//! and the tile kernels work on fixed-size arrays: phase 3 keeps two row segments of 64
//! distances in vector registers across the 64 pivots of a tile (each loaded row of tile
//! `(K, J)` serves both), and the kernels are compiled for AVX2 and AVX-512 besides the
//! baseline and picked at run time ([`Isa::best`]; [`floyd_warshall_with_isa`] takes a
//! lower one, so that every compilation can be tested on one machine).
//!
//! Predecessors (optional) follow the pivots: when `D[i][k] + D[k][j]` improves `D[i][j]`,
//! `P[i][j] = P[k][j]`. Every tree arc then satisfies `D[i][v] >= D[i][P[i][v]] + w`, which
//! excludes cycles of positive weight among the predecessors but not zero-weight ones;
//! each row's predecessors are therefore checked for a cycle (O(n)) before they are handed
//! out, and a row with one is rebuilt as a breadth-first tree of tight arcs (O(n + m)).
//!
//! # Distances and sentinels
//! Distances are summed in the narrowest type that provably cannot overflow: with
//! `W = max |w|` and `B = (n - 1) W` (a bound on every simple path), `i32` when the sums
//! below fit, else `i64`, else `i128` with explicit infinity checks (the result must still
//! fit `i64`, or the run fails with [`Error::Overflow`]); float weights use `f64`. An
//! unreachable pair holds a sentinel `H`; any value `>= B + 1` means "unreachable".
//! A row whose `D[i][k]` is unreachable is skipped, so two sentinels are never added.
//! With non-negative weights `H + w >= H`, so a sentinel never turns finite. With negative
//! weights `H + w` can drop below `H`, but every such "fake" value is derived from a
//! sentinel through at most `L = 2N + 6` additions of a real value `>= -B` (each addition
//! follows a chain of pivots, at most `T + 1` per round of `N / T` rounds), so choosing
//! `H = (L + 1) B + 1` keeps every fake value `>= B + 1`: it still reads as unreachable,
//! and `H + B` still fits the type. `i32` is used when `(L + 2) B + 1 <= i32::MAX`.
//! Negative cycles are caught before any value can run away: after every pivot of phase 1
//! the diagonal tile's diagonal is checked, and a negative cycle whose largest vertex lies in
//! tile `K` always shows up there (blocked Floyd-Warshall's invariant), so values stay
//! within `[-4B, H + B]`. The cycle itself is then found by Bellman-Ford
//! ([`crate::sssp::cpu::bellman_ford_potentials`]).
//!
//! # Parallelisation
//! Phase 1 is serial (one 64 x 64 tile). Phase 2's row tiles are independent, and so are the
//! row blocks of phase 2's column tiles and phase 3: rayon runs them in parallel, each task
//! owning disjoint rows of the matrix. The `n / 64` rounds are sequential.

use rayon::prelude::*;

use crate::apsp::{DistType, Dists, RowBlock, RowSink, RowsInfo};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId, Weight, Weights, NO_VERTEX};
use crate::progress::{NoProgress, Progress};
use crate::with_weights;

use super::super::ApspOptions;

/// Tile edge: 64 x 64 tiles (16 KiB of `i32`, 32 KiB of `i64`/`f64`).
pub(crate) const T: usize = 64;

/// Computes all-pairs shortest paths with blocked Floyd-Warshall and streams the rows into
/// `sink`.
///
/// # Arguments
/// * `g` - the graph (unweighted: every arc weighs 1; negative weights allowed).
/// * `opts` - options (predecessors).
/// * `sink` - receives the rows `0..n` in blocks of 64 ([`RowSink`]).
///
/// # Returns
/// `()` once `sink.finish()` has returned.
///
/// # Errors
/// [`Error::NegativeCycle`] naming a real cycle; [`Error::OutOfMemory`] when the padded
/// matrix (`ceil(n/64)*64` squared, times 4 to 16 bytes) plus what the sink keeps does not
/// fit; [`Error::TooLarge`] when n^2 does not fit the address space; [`Error::Overflow`] when
/// a distance does not fit `i64`, or when float weights are so large that sums could leave
/// the `f64` range; errors of the sink.
///
/// # Complexity
/// O(n^3) time over every rayon thread, O(n^2) memory.
///
/// # Example
/// ```
/// use warpgraph::apsp::{cpu::floyd_warshall, ApspOptions, MatrixSink};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 0 --3--> 1 --(-1)--> 2 --2--> 0
/// let g = EdgeList::new(3, vec![0, 1, 2], vec![1, 2, 0], Weights::from(vec![3, -1, 2]))
///     .unwrap().build(&BuildOptions::default()).unwrap();
/// let mut sink = MatrixSink::new();
/// floyd_warshall(&g, &ApspOptions::default(), &mut sink).unwrap();
/// assert_eq!(sink.into_matrix().unwrap().as_i64().unwrap(), &[0, 3, 2, 1, 0, -1, 2, 5, 0]);
/// ```
pub fn floyd_warshall(g: &Graph, opts: &ApspOptions, sink: &mut dyn RowSink) -> Result<()> {
    floyd_warshall_with(g, opts, sink, &NoProgress)
}

/// [`floyd_warshall`], reporting a "floyd-warshall" phase counted in rounds (`ceil(n/64)`).
///
/// # Arguments
/// As [`floyd_warshall`], plus `progress`.
///
/// # Returns
/// As [`floyd_warshall`].
///
/// # Errors
/// As [`floyd_warshall`].
///
/// # Complexity
/// As [`floyd_warshall`].
///
/// ```
/// use warpgraph::apsp::{cpu::floyd_warshall_with, ApspOptions, MatrixSink};
/// use warpgraph::{BuildOptions, EdgeList, NoProgress, Weights};
/// let g = EdgeList::new(2, vec![0, 1], vec![1, 0], Weights::from(vec![2.5f64, 1.0]))
///     .unwrap().build(&BuildOptions::default()).unwrap();
/// let mut sink = MatrixSink::new();
/// floyd_warshall_with(&g, &ApspOptions::default(), &mut sink, &NoProgress).unwrap();
/// assert_eq!(sink.into_matrix().unwrap().as_f64().unwrap(), &[0.0, 2.5, 1.0, 0.0]);
/// ```
pub fn floyd_warshall_with(
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<()> {
    floyd_warshall_with_isa(g, opts, sink, progress, Isa::best())
}

/// [`floyd_warshall_with`] on the tile kernels compiled for `isa`, or for the best
/// instruction set the processor has when it lacks `isa` (an upper bound, so that a test
/// can run every compilation the machine allows).
///
/// # Arguments
/// As [`floyd_warshall_with`], plus `isa`.
///
/// # Returns
/// As [`floyd_warshall`].
///
/// # Errors
/// As [`floyd_warshall`].
///
/// # Complexity
/// As [`floyd_warshall`].
///
/// ```
/// use warpgraph::apsp::{cpu::{floyd_warshall_with_isa, Isa}, ApspOptions, MatrixSink};
/// use warpgraph::{BuildOptions, EdgeList, NoProgress, Weights};
/// let g = EdgeList::new(2, vec![0], vec![1], Weights::from(vec![4i32]))
///     .unwrap().build(&BuildOptions::default()).unwrap();
/// for isa in Isa::ALL {
///     let mut sink = MatrixSink::new();
///     floyd_warshall_with_isa(&g, &ApspOptions::default(), &mut sink, &NoProgress, isa).unwrap();
///     assert_eq!(sink.into_matrix().unwrap().as_i64().unwrap(), &[0, 4, i64::MAX, 0]);
/// }
/// ```
pub fn floyd_warshall_with_isa(
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
    isa: Isa,
) -> Result<()> {
    floyd_warshall_on(g, opts, sink, progress, isa, None)
}

/// The working matrix of a run, for a solver that does the rounds in place of the CPU's
/// (the GPU's): the padded `big x big` distances, row-major, holding the arc weights and
/// sentinels (see the module docs), and the predecessors when asked for.
pub(crate) struct Work<'a> {
    /// Rows and columns (n padded to a multiple of 64).
    pub big: usize,
    /// The real vertices.
    pub n: usize,
    /// The distances, by cell type.
    pub matrix: Matrix<'a>,
    /// `big x big` predecessors, or none.
    pub pred: Option<&'a mut [u32]>,
}

/// The distances of a [`Work`]: a value at least `thr` means unreachable.
pub(crate) enum Matrix<'a> {
    I32 {
        d: &'a mut [i32],
        thr: i32,
    },
    I64 {
        d: &'a mut [i64],
        thr: i64,
    },
    /// Sums that need 128 bits (weights near the `i64` limit).
    I128,
    F64 {
        d: &'a mut [f64],
    },
}

/// Does every round on a [`Work`]; returns a vertex of negative distance to itself, if a
/// negative cycle showed up.
pub(crate) type Solver<'s> = &'s mut dyn FnMut(Work<'_>) -> Result<Option<usize>>;

/// [`floyd_warshall_with`], the rounds done by `solver`: the plan, memory check, initial
/// matrix, negative-cycle report and rows to the sink stay the CPU's.
pub(crate) fn floyd_warshall_by(
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
    solver: Solver<'_>,
) -> Result<()> {
    floyd_warshall_on(g, opts, sink, progress, Isa::best(), Some(solver))
}

/// The run: the rounds by `solver` when given, else on the CPU's kernels compiled for
/// `isa` (capped by what the processor has).
fn floyd_warshall_on(
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
    isa: Isa,
    solver: Option<Solver<'_>>,
) -> Result<()> {
    let plan = plan(g)?;
    let info = RowsInfo {
        num_vertices: g.num_vertices(),
        dist_type: DistType::of(g.weight_type()),
        predecessors: opts.predecessors,
    };
    let needed = bytes_needed(g.num_vertices(), plan.cell_size(), opts.predecessors)
        .saturating_add(sink.memory_needed(&info));
    crate::memory::check(
        || {
            format!(
                "Floyd-Warshall on {} vertices (the whole distance matrix{})",
                info.num_vertices,
                if opts.predecessors {
                    " and its predecessors"
                } else {
                    ""
                }
            )
        },
        needed,
    )?;
    sink.begin(&info)?;
    // Only an instruction set the processor has reaches the kernels (see `multiversion`).
    let isa = isa.min(Isa::best());
    let ctx = Ctx {
        g,
        opts,
        isa,
        progress,
    };
    match plan {
        Plan::I32 { inf, thr } => run::<i32>(&ctx, solver, inf, thr, sink)?,
        Plan::I64 { inf, thr } => run::<i64>(&ctx, solver, inf, thr, sink)?,
        Plan::I128 => run::<i128>(&ctx, solver, i128::MAX, i128::MAX, sink)?,
        Plan::F64 => run::<f64>(&ctx, solver, f64::INFINITY, f64::INFINITY, sink)?,
    }
    sink.finish()
}

/// Bytes Floyd-Warshall needs for `g` with `opts` (its matrices and output buffers, not the
/// sink's own needs): the padded n x n matrix of 4 to 16 bytes per pair, plus 4 per pair
/// for predecessors. Saturates instead of overflowing.
///
/// ```
/// use warpgraph::apsp::{cpu::floyd_warshall_bytes, ApspOptions};
/// use warpgraph::Graph;
/// // 100 vertices pad to 128; unit weights fit i32: 128^2 * 4 bytes + a 64-row buffer.
/// let g = Graph::empty(100, true);
/// assert_eq!(floyd_warshall_bytes(&g, &ApspOptions::default()), 128 * 128 * 4 + 64 * 100 * 8);
/// ```
pub fn floyd_warshall_bytes(g: &Graph, opts: &ApspOptions) -> u64 {
    let size = plan(g).map(|p| p.cell_size()).unwrap_or(8);
    bytes_needed(g.num_vertices(), size, opts.predecessors)
}

/// Whether [`floyd_warshall_bytes`] fits in the memory available now.
pub(crate) fn floyd_warshall_fits(g: &Graph, opts: &ApspOptions) -> bool {
    crate::memory::check(String::new, floyd_warshall_bytes(g, opts)).is_ok()
}

/// The side of `g`'s padded matrix and the bytes of its cells (4, 8 or 16), as the run
/// plans them (the GPU's matrix too).
pub(crate) fn matrix_shape(g: &Graph) -> Result<(u64, usize)> {
    Ok((padded(g.num_vertices()), plan(g)?.cell_size()))
}

fn padded(n: usize) -> u64 {
    (n as u64).div_ceil(T as u64) * T as u64
}

fn bytes_needed(n: usize, cell: usize, pred: bool) -> u64 {
    let nn = padded(n).saturating_mul(padded(n));
    let per_pair = cell as u64 + if pred { 4 } else { 0 };
    let block = (T.min(n) as u64).saturating_mul(n as u64);
    nn.saturating_mul(per_pair)
        .saturating_add(block.saturating_mul(8 + if pred { 4 } else { 0 }))
}

/// The cell type and sentinels chosen for a graph (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Plan {
    I32 { inf: i32, thr: i32 },
    I64 { inf: i64, thr: i64 },
    I128,
    F64,
}

impl Plan {
    fn cell_size(self) -> usize {
        match self {
            Plan::I32 { .. } => 4,
            Plan::I64 { .. } | Plan::F64 => 8,
            Plan::I128 => 16,
        }
    }
}

/// Largest |weight| (as u128 for integers, f64 for floats) and whether one is negative.
fn weight_range(w: &Weights) -> (u128, f64, bool) {
    fn scan<W: Weight>(w: &[W]) -> (u128, f64, bool) {
        w.par_iter()
            .map(|&x| match x.to_i64() {
                Some(i) => (u128::from(i.unsigned_abs()), 0.0, i < 0),
                None => (0, x.to_f64().abs(), x.to_f64() < 0.0),
            })
            .reduce(
                || (0, 0.0, false),
                |a, b| (a.0.max(b.0), a.1.max(b.1), a.2 || b.2),
            )
    }
    with_weights!(w, x => scan(x), none => (1, 1.0, false))
}

/// Whether the graph has a negative arc weight.
pub(crate) fn has_negative_weight(g: &Graph) -> bool {
    weight_range(g.out().weights()).2
}

fn plan(g: &Graph) -> Result<Plan> {
    let n = g.num_vertices();
    let (wmax_int, wmax_float, negative) = weight_range(g.out().weights());
    let paths = n.saturating_sub(1) as u128;
    if g.weight_type().is_float() {
        let b = paths as f64 * wmax_float;
        if !(4.0 * b).is_finite() {
            return Err(Error::Overflow(format!(
                "weights up to {wmax_float:e} on {n} vertices can make path lengths leave the \
                 f64 range; scale the weights down"
            )));
        }
        return Ok(Plan::F64);
    }
    let b = paths.saturating_mul(wmax_int);
    let levels = if negative {
        2 * padded(n) as u128 + 6
    } else {
        0
    };
    // Largest value ever formed: H + B = (L + 2) B + 1.
    let need = (levels + 2).checked_mul(b).and_then(|x| x.checked_add(1));
    let inf = (levels + 1).saturating_mul(b).saturating_add(1);
    let thr = b.saturating_add(1);
    Ok(match need {
        Some(x) if x <= i32::MAX as u128 => Plan::I32 {
            inf: inf as i32,
            thr: thr as i32,
        },
        Some(x) if x <= i64::MAX as u128 => Plan::I64 {
            inf: inf as i64,
            thr: thr as i64,
        },
        _ => Plan::I128,
    })
}

/// One distance cell of the working matrix.
trait Cell: Copy + Send + Sync + PartialOrd + std::fmt::Display + 'static {
    /// The zero distance.
    const ZERO: Self;
    /// The type handed to sinks.
    type Out: OutDist + 'static;
    /// The sink's "unreachable".
    const OUT_INF: Self::Out;
    /// A weight as a cell (the plan guarantees it fits).
    fn from_weight<W: Weight>(w: W) -> Self;
    /// The value for the sink, `None` when it does not fit.
    fn to_out(self, thr: Self) -> Option<Self::Out>;
    /// The rows of `Out` values as [`Dists`].
    fn dists(rows: &[Self::Out]) -> Dists<'_>;
    /// `c[j] = min(c[j], a + b[j])`, with `a` finite.
    fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]);
    /// As `relax`, also `p[j] = pb[j]` where `c[j]` improved.
    fn relax_pred(c: &mut [Self; T], p: &mut [u32; T], a: Self, b: &[Self; T], pb: &[u32; T]);
    /// The matrix `d` (threshold `thr`) for a [`Solver`].
    fn matrix(d: &mut [Self], thr: Self) -> Matrix<'_>;
}

macro_rules! int_cell {
    ($t:ty, $variant:ident) => {
        impl Cell for $t {
            fn matrix(d: &mut [Self], thr: Self) -> Matrix<'_> {
                Matrix::$variant { d, thr }
            }
            const ZERO: Self = 0;
            type Out = i64;
            const OUT_INF: i64 = i64::MAX;
            #[inline(always)]
            fn from_weight<W: Weight>(w: W) -> Self {
                w.to_i64().unwrap_or(0) as $t
            }
            #[inline]
            fn to_out(self, thr: Self) -> Option<i64> {
                Some(if self >= thr { i64::MAX } else { self as i64 })
            }
            fn dists(rows: &[i64]) -> Dists<'_> {
                Dists::I64(rows)
            }
            #[inline(always)]
            fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]) {
                for (c, &b) in c.iter_mut().zip(b) {
                    *c = (*c).min(a.wrapping_add(b));
                }
            }
            #[inline(always)]
            fn relax_pred(
                c: &mut [Self; T],
                p: &mut [u32; T],
                a: Self,
                b: &[Self; T],
                pb: &[u32; T],
            ) {
                // Unconditional stores (a min and a bitwise blend) keep both rows in
                // registers; a conditional store would become a masked store to memory.
                for ((c, p), (&b, &pb)) in c.iter_mut().zip(p.iter_mut()).zip(b.iter().zip(pb)) {
                    let s = a.wrapping_add(b);
                    let mask = u32::from(s < *c).wrapping_neg();
                    *c = (*c).min(s);
                    *p = (pb & mask) | (*p & !mask);
                }
            }
        }
    };
}
int_cell!(i32, I32);
int_cell!(i64, I64);

impl Cell for i128 {
    fn matrix(_d: &mut [Self], _thr: Self) -> Matrix<'_> {
        Matrix::I128
    }
    const ZERO: Self = 0;
    type Out = i64;
    const OUT_INF: i64 = i64::MAX;
    #[inline(always)]
    fn from_weight<W: Weight>(w: W) -> Self {
        i128::from(w.to_i64().unwrap_or(0))
    }
    fn to_out(self, _thr: Self) -> Option<i64> {
        if self == i128::MAX {
            Some(i64::MAX)
        } else {
            i64::try_from(self).ok().filter(|&x| x != i64::MAX)
        }
    }
    fn dists(rows: &[i64]) -> Dists<'_> {
        Dists::I64(rows)
    }
    #[inline(always)]
    fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]) {
        // Values stay within [-4B, B] with B < 2^96, so real sums cannot overflow; the
        // sentinel i128::MAX is never added.
        for (c, &b) in c.iter_mut().zip(b) {
            if b != i128::MAX {
                *c = (*c).min(a.wrapping_add(b));
            }
        }
    }
    #[inline(always)]
    fn relax_pred(c: &mut [Self; T], p: &mut [u32; T], a: Self, b: &[Self; T], pb: &[u32; T]) {
        for j in 0..T {
            if b[j] != i128::MAX {
                let s = a.wrapping_add(b[j]);
                if s < c[j] {
                    c[j] = s;
                    p[j] = pb[j];
                }
            }
        }
    }
}

impl Cell for f64 {
    fn matrix(d: &mut [Self], _thr: Self) -> Matrix<'_> {
        Matrix::F64 { d }
    }
    const ZERO: Self = 0.0;
    type Out = f64;
    const OUT_INF: f64 = f64::INFINITY;
    #[inline(always)]
    fn from_weight<W: Weight>(w: W) -> Self {
        w.to_f64()
    }
    #[inline]
    fn to_out(self, _thr: Self) -> Option<f64> {
        Some(self)
    }
    fn dists(rows: &[f64]) -> Dists<'_> {
        Dists::F64(rows)
    }
    #[inline(always)]
    fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]) {
        // inf + finite = inf, and `a` is finite: no NaN can arise.
        for (c, &b) in c.iter_mut().zip(b) {
            let s = a + b;
            *c = if s < *c { s } else { *c };
        }
    }
    #[inline(always)]
    fn relax_pred(c: &mut [Self; T], p: &mut [u32; T], a: Self, b: &[Self; T], pb: &[u32; T]) {
        for ((c, p), (&b, &pb)) in c.iter_mut().zip(p.iter_mut()).zip(b.iter().zip(pb)) {
            let s = a + b;
            let better = s < *c;
            *c = if better { s } else { *c };
            *p = if better { pb } else { *p };
        }
    }
}

/// An instruction set the Floyd-Warshall tile kernels are compiled for: a run uses the
/// best one the processor has ([`Isa::best`]), or a lower one given to
/// [`floyd_warshall_with_isa`] (every choice computes the same result; the choice exists
/// so that each compilation can be run and compared on one machine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Base,
    /// AVX2 and FMA (x86-64).
    Avx2,
    /// AVX-512 F, BW, VL and DQ, with AVX2 and FMA (x86-64).
    Avx512,
}

impl Isa {
    /// Every instruction set, from the lowest.
    pub const ALL: [Isa; 3] = [Isa::Base, Isa::Avx2, Isa::Avx512];

    /// The best instruction set this processor has.
    ///
    /// ```
    /// use warpgraph::apsp::cpu::Isa;
    /// assert!(Isa::best() >= Isa::Base);
    /// assert!(Isa::best().available());
    /// ```
    pub fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            if avx2
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                return Isa::Avx512;
            }
            if avx2 {
                return Isa::Avx2;
            }
        }
        Isa::Base
    }

    /// Whether this processor can run the kernels compiled for `self` (every set below
    /// [`Isa::best`] is included in it).
    pub fn available(self) -> bool {
        self <= Isa::best()
    }
}

impl Default for Isa {
    /// [`Isa::best`].
    fn default() -> Isa {
        Isa::best()
    }
}

/// What every phase needs to know.
struct Ctx<'a> {
    g: &'a Graph,
    opts: &'a ApspOptions,
    isa: Isa,
    progress: &'a dyn Progress,
}

/// A 64 x 64 tile, row-major, as fixed-size rows.
type Tile<C> = Vec<[C; T]>;

fn tile_from<C: Copy>(d: &[C], stride: usize, row: usize, col: usize, zero: C) -> Vec<[C; T]> {
    (0..T)
        .map(|i| {
            let mut r = [zero; T];
            let start = (row + i) * stride + col;
            r.copy_from_slice(&d[start..start + T]);
            r
        })
        .collect()
}

fn tile_to<C: Copy>(t: &[[C; T]], d: &mut [C], stride: usize, row: usize, col: usize) {
    for (i, r) in t.iter().enumerate() {
        let start = (row + i) * stride + col;
        d[start..start + T].copy_from_slice(r);
    }
}

/// Initial matrix, the rounds (by `solver` when given), then the rows to `sink`.
fn run<C: Cell>(
    ctx: &Ctx<'_>,
    solver: Option<Solver<'_>>,
    inf: C,
    thr: C,
    sink: &mut dyn RowSink,
) -> Result<()> {
    let g = ctx.g;
    let n = g.num_vertices();
    if n == 0 {
        return Ok(());
    }
    let big = padded(n) as usize;
    let nn = big.checked_mul(big).ok_or_else(|| Error::TooLarge {
        what: "Floyd-Warshall's matrix (vertices squared)".into(),
        value: u64::MAX,
        limit: usize::MAX as u64,
    })?;
    let mut d: Vec<C> = vec![C::ZERO; nn];
    let mut p: Option<Vec<u32>> = ctx.opts.predecessors.then(|| vec![NO_VERTEX; nn]);
    init(g, &mut d, p.as_deref_mut(), big, inf)?;

    if let Some(solver) = solver {
        let work = Work {
            big,
            n,
            matrix: C::matrix(&mut d, thr),
            pred: p.as_deref_mut(),
        };
        if let Some(v) = solver(work)? {
            return Err(negative_cycle(g, v));
        }
        return emit(g, &d, p.as_deref(), n, big, thr, sink);
    }
    let rounds = big / T;
    ctx.progress.begin("floyd-warshall", rounds as u64);
    for kb in 0..rounds {
        if let Some(v) = round(ctx.isa, kb, big, thr, &mut d, p.as_deref_mut()) {
            ctx.progress.finish();
            return Err(negative_cycle(g, v));
        }
        ctx.progress.advance(1);
    }
    ctx.progress.finish();
    emit(g, &d, p.as_deref(), n, big, thr, sink)
}

/// Fills the matrix: sentinels, 0 on the diagonal, the lightest arc of each pair, and the
/// predecessors (`u` for an arc `u -> v`, `u` on the diagonal).
fn init<C: Cell>(g: &Graph, d: &mut [C], p: Option<&mut [u32]>, big: usize, inf: C) -> Result<()> {
    let csr = g.out();
    let n = g.num_vertices();
    // Row u is its own chunk of d (and of p); returns a negative self loop if one is found.
    let fill = |u: usize, row: &mut [C], prow: Option<&mut [u32]>| -> Option<(u32, String)> {
        row.fill(inf);
        if let Some(r) = row.get_mut(u) {
            *r = C::ZERO;
        }
        if u >= n {
            return None;
        }
        let range = csr.row(u as VertexId);
        let targets = &csr.targets()[range.clone()];
        with_weights!(csr.weights(),
            ws => fill_row(u, row, prow, targets, Some(&ws[range])),
            none => fill_row::<C, i32>(u, row, prow, targets, None)
        )
    };
    let bad = match p {
        Some(p) => d
            .par_chunks_mut(big)
            .zip(p.par_chunks_mut(big))
            .enumerate()
            .filter_map(|(u, (row, prow))| fill(u, row, Some(prow)))
            .min_by_key(|(u, _)| *u),
        None => d
            .par_chunks_mut(big)
            .enumerate()
            .filter_map(|(u, row)| fill(u, row, None))
            .min_by_key(|(u, _)| *u),
    };
    match bad {
        Some((u, weight)) => Err(Error::NegativeCycle {
            cycle: vec![u],
            weight,
        }),
        None => Ok(()),
    }
}

/// The arcs of `u` into its matrix row; unweighted when `ws` is `None` (weight 1).
fn fill_row<C: Cell, W: Weight>(
    u: usize,
    row: &mut [C],
    mut prow: Option<&mut [u32]>,
    targets: &[u32],
    ws: Option<&[W]>,
) -> Option<(u32, String)> {
    if let Some(x) = prow.as_deref_mut().and_then(|pr| pr.get_mut(u)) {
        *x = u as u32;
    }
    let mut bad = None;
    for (i, &v) in targets.iter().enumerate() {
        let (w, wc) = match ws.and_then(|ws| ws.get(i)) {
            Some(&w) => (Some(w), C::from_weight(w)),
            None => (None, C::from_weight(1i32)),
        };
        let v = v as usize;
        if v == u {
            if wc < C::ZERO && bad.is_none() {
                bad = Some((
                    u as u32,
                    w.map_or_else(|| "1".to_string(), |w| w.to_string()),
                ));
            }
        } else if let Some(c) = row.get_mut(v) {
            if wc < *c {
                *c = wc;
                if let Some(x) = prow.as_deref_mut().and_then(|pr| pr.get_mut(v)) {
                    *x = u as u32;
                }
            }
        }
    }
    bad
}

/// One round of the blocked schedule for diagonal tile `kb`. Returns a vertex with a
/// negative distance to itself if phase 1 finds one.
fn round<C: Cell>(
    isa: Isa,
    kb: usize,
    big: usize,
    thr: C,
    d: &mut [C],
    mut p: Option<&mut [u32]>,
) -> Option<usize> {
    let base = kb * T;
    // Phase 1: the diagonal tile, serially.
    let mut dt = tile_from(d, big, base, base, C::ZERO);
    let mut pdt = p.as_deref().map(|p| tile_from(p, big, base, base, 0));
    if let Some(i) = phase1(&mut dt, pdt.as_deref_mut(), thr) {
        return Some(base + i);
    }
    tile_to(&dt, d, big, base, base);
    if let (Some(p), Some(pdt)) = (p.as_deref_mut(), &pdt) {
        tile_to(pdt, p, big, base, base);
    }

    // Phase 2a: the row tiles (K, J), in parallel over J.
    let rounds = big / T;
    let krows = base * big..(base + T) * big;
    {
        let mut tiles: Vec<Vec<&mut [C]>> = (0..rounds).map(|_| Vec::with_capacity(T)).collect();
        for row in d[krows.clone()].chunks_exact_mut(big) {
            for (j, seg) in row.chunks_exact_mut(T).enumerate() {
                tiles[j].push(seg);
            }
        }
        let mut ptiles: Vec<Vec<&mut [u32]>> = (0..rounds).map(|_| Vec::new()).collect();
        if let Some(p) = p.as_deref_mut() {
            for row in p[krows.clone()].chunks_exact_mut(big) {
                for (j, seg) in row.chunks_exact_mut(T).enumerate() {
                    ptiles[j].push(seg);
                }
            }
        }
        let dt = &dt;
        let has_pred = pdt.is_some();
        tiles
            .into_par_iter()
            .zip(ptiles)
            .enumerate()
            .filter(|(j, _)| *j != kb)
            .for_each(|(_, (rows, prows))| {
                let mut tile: Tile<C> = rows
                    .iter()
                    .map(|r| {
                        let mut a = [C::ZERO; T];
                        a.copy_from_slice(r);
                        a
                    })
                    .collect();
                let mut ptile: Option<Tile<u32>> = has_pred.then(|| {
                    prows
                        .iter()
                        .map(|r| {
                            let mut a = [0; T];
                            a.copy_from_slice(r);
                            a
                        })
                        .collect()
                });
                phase2_row(isa, &mut tile, ptile.as_deref_mut(), dt, thr);
                for (r, t) in rows.into_iter().zip(&tile) {
                    r.copy_from_slice(t);
                }
                if let Some(ptile) = &ptile {
                    for (r, t) in prows.into_iter().zip(ptile) {
                        r.copy_from_slice(t);
                    }
                }
            });
    }

    // The row block K, tiled J-major, shared read-only by phase 3.
    let ktiles: Tile<C> = (0..rounds)
        .flat_map(|j| tile_from(d, big, base, j * T, C::ZERO))
        .collect();
    let pktiles: Option<Tile<u32>> = p.as_deref().map(|p| {
        (0..rounds)
            .flat_map(|j| tile_from(p, big, base, j * T, 0))
            .collect()
    });

    // Phases 2b and 3: every other row block, in parallel.
    let stride = T * big;
    let (before, rest) = d.split_at_mut(base * big);
    let after = rest.get_mut(stride..).unwrap_or_default();
    let mut tasks: Vec<(&mut [C], Option<&mut [u32]>)> = before
        .chunks_exact_mut(stride)
        .chain(after.chunks_exact_mut(stride))
        .map(|c| (c, None))
        .collect();
    if let Some(p) = p {
        let (pb, prest) = p.split_at_mut(base * big);
        let pa = prest.get_mut(stride..).unwrap_or_default();
        for (task, pc) in tasks.iter_mut().zip(
            pb.chunks_exact_mut(stride)
                .chain(pa.chunks_exact_mut(stride)),
        ) {
            task.1 = Some(pc);
        }
    }
    let args = Phase3 {
        kb,
        big,
        thr,
        dt: &dt,
        pdt: pdt.as_deref(),
        ktiles: &ktiles,
        pktiles: pktiles.as_deref(),
    };
    tasks.into_par_iter().for_each(|(block, pblock)| {
        phase3(isa, &args, block, pblock);
    });
    None
}

/// Plain Floyd-Warshall on the diagonal tile; returns `i` as soon as `dt[i][i] < 0`.
fn phase1<C: Cell>(dt: &mut [[C; T]], mut pdt: Option<&mut [[u32; T]]>, thr: C) -> Option<usize> {
    for k in 0..T {
        let rowk = dt[k];
        let prowk = pdt.as_deref().map(|p| p[k]);
        for i in 0..T {
            let a = dt[i][k];
            if i == k || a >= thr {
                continue;
            }
            match (pdt.as_deref_mut(), &prowk) {
                (Some(p), Some(pk)) => C::relax_pred(&mut dt[i], &mut p[i], a, &rowk, pk),
                _ => C::relax(&mut dt[i], a, &rowk),
            }
        }
        if let Some(i) = (0..T).find(|&i| dt[i][i] < C::ZERO) {
            return Some(i);
        }
    }
    None
}

/// Phase 2, row tile `(K, J)`: `tile[k'] = min(tile[k'], dt[k'][k] + tile[k])` over pivots k.
#[inline(always)]
fn phase2_row_body<C: Cell>(
    tile: &mut [[C; T]],
    mut ptile: Option<&mut [[u32; T]]>,
    dt: &[[C; T]],
    thr: C,
) {
    for k in 0..T {
        let rowk = tile[k];
        let prowk = ptile.as_deref().map(|p| p[k]);
        for (i, drow) in dt.iter().enumerate() {
            let a = drow[k];
            if i == k || a >= thr {
                continue;
            }
            match (ptile.as_deref_mut(), &prowk) {
                (Some(p), Some(pk)) => C::relax_pred(&mut tile[i], &mut p[i], a, &rowk, pk),
                _ => C::relax(&mut tile[i], a, &rowk),
            }
        }
    }
}

/// Read-only inputs of phase 3.
struct Phase3<'a, C> {
    kb: usize,
    big: usize,
    thr: C,
    dt: &'a [[C; T]],
    pdt: Option<&'a [[u32; T]]>,
    ktiles: &'a [[C; T]],
    pktiles: Option<&'a [[u32; T]]>,
}

/// Phase 2 for the column tile `(I, K)` of one row block, then phase 3 for its other tiles.
#[inline(always)]
fn phase3_body<C: Cell>(args: &Phase3<'_, C>, block: &mut [C], mut pblock: Option<&mut [u32]>) {
    let (big, base, thr) = (args.big, args.kb * T, args.thr);
    // Phase 2b: row i of the column tile, pivots k of the diagonal tile.
    let mut at: Tile<C> = Vec::with_capacity(T);
    for (i, row) in block.chunks_exact_mut(big).enumerate() {
        let mut acc = [C::ZERO; T];
        acc.copy_from_slice(&row[base..base + T]);
        let prow = pblock
            .as_deref_mut()
            .and_then(|p| p.get_mut(i * big..(i + 1) * big));
        match (prow, args.pdt) {
            (Some(prow), Some(pdt)) => {
                let mut pacc = [0u32; T];
                pacc.copy_from_slice(&prow[base..base + T]);
                for k in 0..T {
                    let a = acc[k];
                    if a < thr {
                        C::relax_pred(&mut acc, &mut pacc, a, &args.dt[k], &pdt[k]);
                    }
                }
                prow[base..base + T].copy_from_slice(&pacc);
            }
            _ => {
                for k in 0..T {
                    let a = acc[k];
                    if a < thr {
                        C::relax(&mut acc, a, &args.dt[k]);
                    }
                }
            }
        }
        row[base..base + T].copy_from_slice(&acc);
        at.push(acc);
    }
    // Phase 3: tile (I, J) = min(tile, (I, K) (x) (K, J)).
    let rounds = big / T;
    for j in (0..rounds).filter(|&j| j != args.kb) {
        let bt = &args.ktiles[j * T..(j + 1) * T];
        let pbt = args.pktiles.map(|p| &p[j * T..(j + 1) * T]);
        let col = j * T;
        if pbt.is_none() {
            // Two rows at a time: each loaded row of (K, J) serves both.
            for (i, pair) in at.chunks_exact(2).enumerate() {
                let (s0, s1) = (2 * i * big + col, (2 * i + 1) * big + col);
                let mut c0 = [C::ZERO; T];
                let mut c1 = [C::ZERO; T];
                c0.copy_from_slice(&block[s0..s0 + T]);
                c1.copy_from_slice(&block[s1..s1 + T]);
                let (c0, c1) = kloop2(c0, c1, &pair[0], &pair[1], bt, thr);
                block[s0..s0 + T].copy_from_slice(&c0);
                block[s1..s1 + T].copy_from_slice(&c1);
            }
            continue;
        }
        for (i, arow) in at.iter().enumerate() {
            let start = i * big + col;
            let mut acc = [C::ZERO; T];
            acc.copy_from_slice(&block[start..start + T]);
            match (pbt, pblock.as_deref_mut()) {
                (Some(pbt), Some(pb)) => {
                    let mut pacc = [0u32; T];
                    pacc.copy_from_slice(&pb[start..start + T]);
                    let (c, p) = kloop_pred(acc, pacc, arow, bt, pbt, thr);
                    acc = c;
                    pb[start..start + T].copy_from_slice(&p);
                }
                _ => {
                    for k in 0..T {
                        let a = arow[k];
                        if a < thr {
                            C::relax(&mut acc, a, &bt[k]);
                        }
                    }
                }
            }
            block[start..start + T].copy_from_slice(&acc);
        }
    }
}

/// Rows `c0` and `c1` of a tile `(I, J)` through the pivots of `bt` (tile `(K, J)`), with
/// `a0`, `a1` their rows of tile `(I, K)`. By value, so the rows live in registers.
#[inline(always)]
fn kloop2<C: Cell>(
    mut c0: [C; T],
    mut c1: [C; T],
    a0: &[C; T],
    a1: &[C; T],
    bt: &[[C; T]],
    thr: C,
) -> ([C; T], [C; T]) {
    for ((&x0, &x1), b) in a0.iter().zip(a1).zip(bt) {
        if x0 < thr {
            C::relax(&mut c0, x0, b);
        }
        if x1 < thr {
            C::relax(&mut c1, x1, b);
        }
    }
    (c0, c1)
}

/// One row `c` (predecessors `p`) of a tile `(I, J)` through the pivots of `bt` (tile
/// `(K, J)`, predecessors `pbt`), with `a` its row of tile `(I, K)`.
#[inline(always)]
fn kloop_pred<C: Cell>(
    mut c: [C; T],
    mut p: [u32; T],
    a: &[C; T],
    bt: &[[C; T]],
    pbt: &[[u32; T]],
    thr: C,
) -> ([C; T], [u32; T]) {
    for ((&x, b), pb) in a.iter().zip(bt).zip(pbt) {
        if x < thr {
            C::relax_pred(&mut c, &mut p, x, b, pb);
        }
    }
    (c, p)
}

/// Dispatches a tile routine to its baseline, AVX2 or AVX-512 compilation.
macro_rules! multiversion {
    ($name:ident, $body:ident, <$C:ident>, ($($arg:ident : $ty:ty),*)) => {
        fn $name<$C: Cell>(isa: Isa, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn avx2<$C: Cell>($($arg: $ty),*) {
                    $body::<$C>($($arg),*)
                }
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")]
                fn avx512<$C: Cell>($($arg: $ty),*) {
                    $body::<$C>($($arg),*)
                }
                match isa {
                    // SAFETY: every run caps its `Isa` by `Isa::best`, which returns this
                    // variant only after `is_x86_feature_detected!` confirmed every feature
                    // enabled above.
                    Isa::Avx512 => return unsafe { avx512::<$C>($($arg),*) },
                    // SAFETY: as above: `Isa::best` is at least `Avx2` only where AVX2 and
                    // FMA were detected.
                    Isa::Avx2 => return unsafe { avx2::<$C>($($arg),*) },
                    Isa::Base => {}
                }
            }
            let _ = isa;
            $body::<$C>($($arg),*)
        }
    };
}

multiversion!(phase2_row, phase2_row_body, <C>, (
    tile: &mut [[C; T]],
    ptile: Option<&mut [[u32; T]]>,
    dt: &[[C; T]],
    thr: C
));
multiversion!(phase3, phase3_body, <C>, (
    args: &Phase3<'_, C>,
    block: &mut [C],
    pblock: Option<&mut [u32]>
));

/// Hands the rows `0..n` to the sink in blocks of `T`, converted to the sink's type.
fn emit<C: Cell>(
    g: &Graph,
    d: &[C],
    p: Option<&[u32]>,
    n: usize,
    big: usize,
    thr: C,
    sink: &mut dyn RowSink,
) -> Result<()> {
    let tol = tolerance(g);
    let mut out: Vec<C::Out> = Vec::with_capacity(T.min(n) * n);
    let mut pout: Vec<u32> = Vec::with_capacity(if p.is_some() { T.min(n) * n } else { 0 });
    for first in (0..n).step_by(T) {
        let rows = T.min(n - first);
        out.clear();
        out.resize(rows * n, C::OUT_INF);
        let bad = out.par_chunks_mut(n).enumerate().find_map_any(|(i, orow)| {
            let s = first + i;
            let drow = &d[s * big..s * big + n];
            for (t, (o, &x)) in orow.iter_mut().zip(drow).enumerate() {
                match x.to_out(thr) {
                    Some(v) => *o = v,
                    None => return Some((s, t, x.to_string())),
                }
            }
            None
        });
        if let Some((s, t, v)) = bad {
            return Err(Error::Overflow(format!(
                "the distance from vertex {s} to vertex {t} is {v}, outside the i64 range"
            )));
        }
        if let Some(p) = p {
            pout.clear();
            pout.resize(rows * n, NO_VERTEX);
            pout.par_chunks_mut(n)
                .zip(out.par_chunks(n))
                .enumerate()
                .for_each(|(i, (orow, dout))| {
                    let s = first + i;
                    let prow = &p[s * big..s * big + n];
                    let drow = &d[s * big..s * big + n];
                    for ((o, &x), &dist) in orow.iter_mut().zip(prow).zip(drow) {
                        *o = if dist >= thr { NO_VERTEX } else { x };
                    }
                    if !pred_tree_ok(s, orow) {
                        tight_tree::<C::Out>(g, s, dout, orow, tol);
                    }
                });
        }
        sink.rows(&RowBlock {
            first: first as VertexId,
            num_vertices: n,
            dist: C::dists(&out),
            pred: p.map(|_| &pout[..]),
        })?;
    }
    Ok(())
}

/// Whether following the predecessors `p` (of row `s`) from every vertex that has one ends
/// at `s`. O(n).
fn pred_tree_ok(s: usize, p: &[u32]) -> bool {
    let n = p.len();
    let mut state = vec![0u8; n]; // 0 unknown, 1 on the current walk, 2 reaches s
    if let Some(x) = state.get_mut(s) {
        *x = 2;
    }
    let mut walk = Vec::new();
    for v in 0..n {
        let mut x = v;
        while state[x] == 0 {
            let px = p[x] as usize;
            if px >= n {
                break; // unreachable vertex: no predecessor
            }
            state[x] = 1;
            walk.push(x);
            x = px;
        }
        if state[x] == 1 {
            return false;
        }
        for y in walk.drain(..) {
            state[y] = 2;
        }
    }
    true
}

/// The rounding tolerance of float distances (0 for integers): as the verifier's.
fn tolerance(g: &Graph) -> f64 {
    if !g.weight_type().is_float() {
        return 0.0;
    }
    let (_, wmax, _) = weight_range(g.out().weights());
    let n = g.num_vertices() as f64;
    64.0 * f64::EPSILON * (n + 1.0) * n * wmax
}

/// A distance as handed to sinks, for rebuilding predecessors.
trait OutDist: Copy + Send + Sync {
    fn finite(self) -> bool;
    /// Whether `du + w == dv` (within `tol` for floats); `w` given both ways.
    fn tight(du: Self, wi: i128, wf: f64, dv: Self, tol: f64) -> bool;
}

impl OutDist for i64 {
    fn finite(self) -> bool {
        self != i64::MAX
    }
    fn tight(du: i64, wi: i128, _wf: f64, dv: i64, _tol: f64) -> bool {
        i128::from(du) + wi == i128::from(dv)
    }
}

impl OutDist for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn tight(du: f64, _wi: i128, wf: f64, dv: f64, tol: f64) -> bool {
        (du + wf - dv).abs() <= tol
    }
}

/// Replaces the predecessors of row `s` by a breadth-first tree of tight arcs from `s`.
///
/// Floyd-Warshall's predecessors satisfy `d[v] >= d[p[v]] + w` on every tree arc, which
/// rules out cycles of positive weight but not of zero weight: with zero-weight cycles
/// (and ties) the predecessors can run in a cycle. Then this O(n + m) pass rebuilds the
/// row's tree from the (correct) distances; a vertex it cannot reach keeps its old
/// predecessor (only possible through float rounding beyond the tolerance).
fn tight_tree<D: OutDist>(g: &Graph, s: usize, d: &[D], p: &mut [u32], tol: f64) {
    let csr = g.out();
    let n = d.len();
    let mut next = vec![NO_VERTEX; n];
    let mut seen = vec![false; n];
    let Some(x) = seen.get_mut(s) else {
        return;
    };
    *x = true;
    next[s] = s as u32;
    let mut queue = std::collections::VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        let range = csr.row(u as VertexId);
        let targets = &csr.targets()[range.clone()];
        let weights: Vec<(i128, f64)> = with_weights!(csr.weights(),
            ws => ws[range].iter().map(|w| (i128::from(w.to_i64().unwrap_or(0)), w.to_f64())).collect(),
            none => vec![(1, 1.0); targets.len()]);
        for (&v, &(wi, wf)) in targets.iter().zip(&weights) {
            let v = v as usize;
            if v < n && !seen[v] && d[v].finite() && D::tight(d[u], wi, wf, d[v], tol) {
                seen[v] = true;
                next[v] = u as u32;
                queue.push_back(v);
            }
        }
    }
    for (o, (nx, sn)) in p.iter_mut().zip(next.into_iter().zip(seen)) {
        if sn {
            *o = nx;
        }
    }
}

/// The error for a negative cycle through vertex `v` (found by phase 1): Bellman-Ford from
/// a virtual source finds a real cycle and names it.
fn negative_cycle(g: &Graph, v: usize) -> Error {
    super::find_negative_cycle(g).unwrap_or_else(|| {
        Error::VerificationFailed(format!(
            "Floyd-Warshall found a negative cycle through vertex {v}, but Bellman-Ford found none"
        ))
    })
}
