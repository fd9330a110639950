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
//! algorithm", JEA 2003, which the GPU Floyd-Warshall article ports to the GPU): for the `K`-th diagonal tile,
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

mod cell;
mod plan;
mod rows;
mod solver;
mod tiles;

pub use tiles::Isa;

pub(crate) use cell::{Cell, Matrix};
pub(crate) use plan::{has_negative_weight, Plan};
pub(crate) use solver::{needs_128_bits, Rows, Work};

use rayon::prelude::*;

use crate::apsp::{ApspOptions, DistType, RowSink, RowsInfo};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId, Weight, NO_VERTEX};
use crate::progress::{NoProgress, Progress};
use crate::with_weights;

use cell::T;
use plan::{bytes_needed, padded, plan};
use rows::emit;
use tiles::round;

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

/// Does every round of a [`Work`] and hands the rows back through [`Work::emit`]; returns
/// a vertex of negative distance to itself instead, if a negative cycle showed up.
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
    let info = RowsInfo::square(
        g.num_vertices(),
        DistType::of(g.weight_type()),
        opts.predecessors,
    );
    // A solver holds the matrix where it works (a team's on the host, through
    // `Work::host_matrix`, which checks it there).
    let matrix = match solver {
        Some(_) => 0,
        None => bytes_needed(g.num_vertices(), plan.cell_size(), opts.predecessors),
    };
    let needed = matrix.saturating_add(sink.memory_needed(&info));
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
        plan,
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

/// What every phase needs to know.
struct Ctx<'a> {
    g: &'a Graph,
    opts: &'a ApspOptions,
    isa: Isa,
    progress: &'a dyn Progress,
    plan: Plan,
}

/// Initial matrix, the rounds, then the rows to `sink`; or all of it by `solver`.
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
    if let Some(solver) = solver {
        let back = |sink: &mut dyn RowSink,
                    first: usize,
                    rows: Rows<'_>,
                    p: Option<&[u32]>|
         -> Result<()> {
            let d = C::rows_of(rows).ok_or_else(|| {
                Error::InvalidArgument("Floyd-Warshall rows of another cell type".into())
            })?;
            emit(g, (d, p), first, (n, big), thr, sink)
        };
        let work = Work {
            big,
            n,
            plan: ctx.plan,
            pred: ctx.opts.predecessors,
            g,
            sink,
            emit: &back,
        };
        return match solver(work)? {
            Some(v) => Err(negative_cycle(g, v)),
            None => Ok(()),
        };
    }
    let (mut d, mut p) = initial::<C>(g, big, inf, ctx.opts.predecessors)?;
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
    emit(g, (&d, p.as_deref()), 0, (n, big), thr, sink)
}

/// The initial `big x big` matrix of `g` (sentinel `inf`) and, with `pred`, its
/// predecessors.
pub(super) fn initial<C: Cell>(
    g: &Graph,
    big: usize,
    inf: C,
    pred: bool,
) -> Result<(Vec<C>, Option<Vec<u32>>)> {
    let nn = big.checked_mul(big).ok_or_else(|| Error::TooLarge {
        what: "Floyd-Warshall's matrix (vertices squared)".into(),
        value: u64::MAX,
        limit: usize::MAX as u64,
    })?;
    refuse_negative_self_loop::<C>(g)?;
    let mut d: Vec<C> = vec![C::ZERO; nn];
    let mut p: Option<Vec<u32>> = pred.then(|| vec![NO_VERTEX; nn]);
    init(g, &mut d, p.as_deref_mut(), big, inf);
    Ok((d, p))
}

/// Fills the matrix: sentinels, 0 on the diagonal, the lightest arc of each pair, and the
/// predecessors (`u` for an arc `u -> v`, `u` on the diagonal). Self loops are left out
/// ([`refuse_negative_self_loop`] checks them first).
fn init<C: Cell>(g: &Graph, d: &mut [C], p: Option<&mut [u32]>, big: usize, inf: C) {
    let csr = g.out();
    let n = g.num_vertices();
    // Row u is its own chunk of d (and of p).
    let fill = |u: usize, row: &mut [C], prow: Option<&mut [u32]>| {
        row.fill(inf);
        if let Some(r) = row.get_mut(u) {
            *r = C::ZERO;
        }
        if u >= n {
            return;
        }
        let range = csr.row(u as VertexId);
        let targets = &csr.targets()[range.clone()];
        with_weights!(csr.weights(),
            ws => fill_row(u, row, prow, targets, Some(&ws[range])),
            none => fill_row::<C, i32>(u, row, prow, targets, None)
        )
    };
    match p {
        Some(p) => d
            .par_chunks_mut(big)
            .zip(p.par_chunks_mut(big))
            .enumerate()
            .for_each(|(u, (row, prow))| fill(u, row, Some(prow))),
        None => d
            .par_chunks_mut(big)
            .enumerate()
            .for_each(|(u, row)| fill(u, row, None)),
    }
}

/// The arcs of `u` into its matrix row; unweighted when `ws` is `None` (weight 1).
fn fill_row<C: Cell, W: Weight>(
    u: usize,
    row: &mut [C],
    mut prow: Option<&mut [u32]>,
    targets: &[u32],
    ws: Option<&[W]>,
) {
    if let Some(x) = prow.as_deref_mut().and_then(|pr| pr.get_mut(u)) {
        *x = u as u32;
    }
    for (i, &v) in targets.iter().enumerate() {
        let wc = match ws.and_then(|ws| ws.get(i)) {
            Some(&w) => C::from_weight(w),
            None => C::from_weight(1i32),
        };
        let v = v as usize;
        if v == u {
            continue;
        }
        if let Some(c) = row.get_mut(v) {
            if wc < *c {
                *c = wc;
                if let Some(x) = prow.as_deref_mut().and_then(|pr| pr.get_mut(v)) {
                    *x = u as u32;
                }
            }
        }
    }
}

/// Refuses a self loop of negative weight (in cells of type `C`), a negative cycle that
/// the matrix, whose diagonal starts at 0, cannot show: the error names the lowest vertex
/// with one and its weight.
pub(super) fn refuse_negative_self_loop<C: Cell>(g: &Graph) -> Result<()> {
    let csr = g.out();
    let targets = csr.targets();
    let cell = |e: usize| -> C {
        with_weights!(csr.weights(), ws => C::from_weight(ws[e]), none => C::from_weight(1i32))
    };
    let found = (0..g.num_vertices()).into_par_iter().find_map_first(|u| {
        csr.row(u as VertexId)
            .find(|&e| targets[e] as usize == u && cell(e) < C::ZERO)
            .map(|e| (u, e))
    });
    match found {
        Some((u, e)) => Err(Error::NegativeCycle {
            cycle: vec![u as VertexId],
            weight: with_weights!(csr.weights(), ws => ws[e].to_string(), none => "1".to_string()),
        }),
        None => Ok(()),
    }
}

/// The error for a negative cycle through vertex `v` (found by phase 1): Bellman-Ford from
/// a virtual source finds a real cycle and names it.
fn negative_cycle(g: &Graph, v: usize) -> Error {
    crate::apsp::cpu::find_negative_cycle(g).unwrap_or_else(|| {
        Error::VerificationFailed(format!(
            "Floyd-Warshall found a negative cycle through vertex {v}, but Bellman-Ford found none"
        ))
    })
}
