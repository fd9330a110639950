//! Johnson's algorithm: all-pairs shortest paths as n Dijkstra runs on a reweighted graph.
//!
//! # What it computes
//! The n x n matrix of shortest-path distances (and optionally predecessors), streamed in
//! blocks of rows into a [`RowSink`], with any weights; a negative cycle is reported as
//! [`Error::NegativeCycle`] with a real cycle.
//!
//! # Method
//! Johnson, "Efficient algorithms for shortest paths in sparse networks", JACM 1977, as
//! the GPU Johnson article describes it: Bellman-Ford from a virtual source joined to every vertex by a
//! 0-weight arc gives potentials `h(v) <= 0` and detects negative cycles
//! ([`crate::sssp::cpu::bellman_ford_potentials`]); every arc is reweighted to
//! `w'(u, v) = w(u, v) + h(u) - h(v) >= 0` (checked in `i64`; in `f64`, rounding can leave
//! `-1e-16`-sized values, which are clamped to 0); Dijkstra from every source
//! ([`crate::sssp::cpu::dijkstra`]) finds `d'`, and `d(s, t) = d'(s, t) - h(s) + h(t)`
//! (checked). A path's reweighted length differs from its real one by `h(s) - h(t)` alone,
//! so shortest paths, and Dijkstra's parents, are the same under both weights. Without a
//! negative weight, `h = 0` and both the Bellman-Ford pass and the reweighted copy of the
//! weights are skipped.
//!
//! An unweighted graph of 8 or more arcs a vertex is searched by multi-source BFS instead
//! (without predecessors): 64 sources a pass over the graph, one bit each
//! ([`crate::bfs::cpu::multi_source_bfs`]).
//!
//! # Parallelisation
//! Sources are cut into blocks of rows (about 16 MiB of distances each, or a quarter of the
//! available memory if that is less, so memory stays O(block x n) whatever n is); within a
//! block each source's Dijkstra runs serially on its own rayon task, and the finished block goes to the sink before the next one starts.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::apsp::{
    by_multi_source_bfs, ApspOptions, DistType, Dists, RowBlock, RowSink, RowsInfo, Selection,
};
use crate::bfs::cpu::{multi_source_bfs_until, MULTI_SOURCE_WIDTH};
use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, Graph, VertexId, Weight, NO_VERTEX};
use crate::progress::{NoProgress, Progress};
use crate::sssp::cpu::{bellman_ford_potentials, dijkstra_until, ArcWeights, Targets, Unit};
use crate::sssp::Potentials;
use crate::with_weights;

/// Bytes of distances per row block.
const BLOCK_BYTES: usize = 16 << 20;

/// Computes all-pairs shortest paths with Johnson's algorithm and streams the rows into
/// `sink`.
///
/// # Arguments
/// * `g` - the graph (unweighted: every arc weighs 1; negative weights allowed).
/// * `opts` - options (predecessors: Dijkstra's parents).
/// * `sink` - receives the rows `0..n` in blocks ([`RowSink`]).
///
/// # Returns
/// `()` once `sink.finish()` has returned.
///
/// # Errors
/// [`Error::NegativeCycle`] naming a real cycle; [`Error::Overflow`] when a potential, a
/// reweighted arc or a distance does not fit `i64` (or `f64`); [`Error::OutOfMemory`] when
/// a block of rows and the per-thread Dijkstra state (plus what the sink keeps) would not
/// fit; errors of the sink.
///
/// # Complexity
/// O(n m) for Bellman-Ford (only with negative weights), then O(n (n + m) log n) over
/// every rayon thread; O(m + block x n) memory.
///
/// # Example
/// ```
/// use warpgraph::apsp::{cpu::johnson, ApspOptions, MatrixSink};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 0 --3--> 1 --(-1)--> 2 --2--> 0
/// let g = EdgeList::new(3, vec![0, 1, 2], vec![1, 2, 0], Weights::from(vec![3, -1, 2]))
///     .unwrap().build(&BuildOptions::default()).unwrap();
/// let mut sink = MatrixSink::new();
/// johnson(&g, &ApspOptions { predecessors: true }, &mut sink).unwrap();
/// let m = sink.into_matrix().unwrap();
/// assert_eq!(m.as_i64().unwrap(), &[0, 3, 2, 1, 0, -1, 2, 5, 0]);
/// assert_eq!(m.path(1, 0), Some(vec![1, 2, 0]));
/// ```
pub fn johnson(g: &Graph, opts: &ApspOptions, sink: &mut dyn RowSink) -> Result<()> {
    johnson_with(g, opts, sink, &NoProgress)
}

/// [`johnson`], reporting a "johnson" phase counted in sources.
///
/// # Arguments
/// As [`johnson`], plus `progress`.
///
/// # Returns
/// As [`johnson`].
///
/// # Errors
/// As [`johnson`].
///
/// # Complexity
/// As [`johnson`].
///
/// ```
/// use warpgraph::apsp::{cpu::johnson_with, ApspOptions, MatrixSink};
/// use warpgraph::{Graph, NoProgress};
/// let mut sink = MatrixSink::new();
/// johnson_with(&Graph::empty(1, true), &ApspOptions::default(), &mut sink, &NoProgress)
///     .unwrap();
/// assert_eq!(sink.into_matrix().unwrap().as_i64().unwrap(), &[0]);
/// ```
pub fn johnson_with(
    g: &Graph,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<()> {
    table_with(g, &Selection::all(g.num_vertices()), opts, sink, progress)
}

/// Johnson's searches from the sources of `sel` only, each stopped once it has settled
/// every target of `sel`; row `i` holds the distances from `sel.sources` entry `i` to
/// each of `sel.targets` ([`RowsInfo`]'s axes). The potentials, with a negative weight,
/// are those of the whole graph, so a negative cycle anywhere is refused.
///
/// # Errors
/// As [`johnson`]; [`Error::InvalidArgument`] for a source or target that is not a vertex.
///
/// ```
/// use std::sync::Arc;
/// use warpgraph::apsp::{cpu::table_with, ApspOptions, Axis, MatrixSink, Selection};
/// use warpgraph::{BuildOptions, EdgeList, NoProgress, Weights};
/// // 0 --3--> 1 --(-1)--> 2 --2--> 0
/// let g = EdgeList::new(3, vec![0, 1, 2], vec![1, 2, 0], Weights::from(vec![3, -1, 2]))
///     .unwrap().build(&BuildOptions::default()).unwrap();
/// let sel = Selection {
///     sources: Axis::List(Arc::from(vec![2, 0])),
///     targets: Axis::List(Arc::from(vec![1])),
/// };
/// let mut sink = MatrixSink::new();
/// table_with(&g, &sel, &ApspOptions::default(), &mut sink, &NoProgress).unwrap();
/// assert_eq!(sink.into_table().unwrap().as_i64().unwrap(), &[5, 3]);
/// ```
pub fn table_with(
    g: &Graph,
    sel: &Selection,
    opts: &ApspOptions,
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
) -> Result<()> {
    let n = g.num_vertices();
    sel.check(n)?;
    let info = sel.info(n, DistType::of(g.weight_type()), opts.predecessors);
    let cols = info.cols.len();
    let block = block_rows(cols, info.rows.len(), opts.predecessors);
    let m = g.num_arcs();
    let threads = rayon::current_num_threads() as u64;
    let per_pair = 8 + if opts.predecessors { 4 } else { 0 };
    let needed = (block as u64 * cols as u64)
        .saturating_mul(per_pair)
        // Reweighted weights (only with negative weights) and potentials.
        .saturating_add(m.saturating_mul(8))
        .saturating_add(n as u64 * 8)
        // Each thread's Dijkstra: distances, parents, and a heap of up to m entries.
        .saturating_add(threads.saturating_mul(n as u64 * 12 + m.saturating_mul(16)))
        .saturating_add(sink.memory_needed(&info));
    crate::memory::check(
        || format!("Johnson's searches on {n} vertices ({block} rows of {cols} at a time)",),
        needed,
    )?;
    sink.begin(&info)?;
    let csr = g.out();
    let stop = info.cols.list().map(|t| Targets::new(n, t));
    let run = Run {
        csr,
        opts,
        info: &info,
        stop: stop.as_ref(),
        block,
        progress,
    };
    with_weights!(csr.weights(),
        ws => typed(&run, ws, sink)?,
        none => match !opts.predecessors && by_multi_source_bfs(g) {
            true => run.hops(sink)?,
            false => run.rows(&Unit, None, sink)?,
        }
    );
    sink.finish()
}

/// Rows of `cols` values per block, of `rows` in all: about [`BLOCK_BYTES`] of distances
/// (less when less than four times that is available), at least one.
fn block_rows(cols: usize, rows: usize, pred: bool) -> usize {
    let per_row = cols.max(1) * (8 + if pred { 4 } else { 0 });
    let budget = crate::memory::available_bytes()
        .map_or(BLOCK_BYTES, |a| (a / 4).min(BLOCK_BYTES as u64) as usize);
    (budget / per_row).clamp(1, rows.max(1))
}

/// A typed weight slice: reweight first when a weight is negative.
fn typed<W: Weight>(run: &Run<'_>, ws: &[W], sink: &mut dyn RowSink) -> Result<()>
where
    W::Dist: Unweight + Weight<Dist = W::Dist>,
{
    if !ws.par_iter().any(|w| w.to_f64() < 0.0) {
        return run.rows(ws, None, sink);
    }
    let (w2, h) = reweight_by_cpu(run.csr, ws)?;
    run.rows(&w2[..], Some(&h), sink)
}

/// Reweighted weights and the potentials that reweighted them.
type Reweighting<D> = (Vec<D>, Vec<D>);

/// The weights reweighted by the CPU's potentials ([`bellman_ford_potentials`]), and
/// those potentials.
///
/// # Errors
/// [`Error::NegativeCycle`] and [`Error::Overflow`], as [`johnson`].
fn reweight_by_cpu<W: Weight>(csr: &Csr, ws: &[W]) -> Result<Reweighting<W::Dist>>
where
    W::Dist: Unweight,
{
    let h = bellman_ford_potentials(csr, ws)?;
    match reweight(csr, ws, &h)? {
        Some(w) => Ok((w, h)),
        None => Err(Error::InvalidArgument(
            "the CPU's Bellman-Ford gave infeasible potentials: please report this".into(),
        )),
    }
}

/// The weights Johnson's searches run on, in the distance type (for the GPU's searches):
/// reweighted by the potentials when a weight is negative (the potentials then given),
/// else the weights themselves (1 on every arc of an unweighted graph).
pub(crate) enum Reweighted {
    I64(Vec<i64>, Option<Vec<i64>>),
    F64(Vec<f64>, Option<Vec<f64>>),
}

/// Where [`reweighted`] takes the potentials from when a weight is negative (the GPU's
/// Bellman-Ford): called at most once.
pub(crate) type PotentialsFrom<'a> = &'a mut dyn FnMut() -> Result<Potentials>;

/// [`Reweighted`] for `csr`, with the potentials from `from`.
///
/// # Errors
/// [`Error::Overflow`], as [`johnson`]; those of `from` ([`Error::NegativeCycle`]).
pub(crate) fn reweighted(csr: &Csr, from: PotentialsFrom<'_>) -> Result<Reweighted> {
    /// The weights and, when reweighted, the potentials.
    type Pair<D> = (Vec<D>, Option<Vec<D>>);
    fn typed<W: Weight>(csr: &Csr, ws: &[W], from: PotentialsFrom<'_>) -> Result<Pair<W::Dist>>
    where
        W::Dist: Unweight,
    {
        if !ws.par_iter().any(|w| w.to_f64() < 0.0) {
            return Ok((ws.par_iter().map(|w| w.to_dist()).collect(), None));
        }
        let h = W::Dist::potentials(from()?)?;
        // Potentials that are not feasible (a fault of where they came from) would give
        // wrong distances: the CPU's Bellman-Ford replaces them.
        match reweight(csr, ws, &h)? {
            Some(w) => Ok((w, Some(h))),
            None => reweight_by_cpu(csr, ws).map(|(w, h)| (w, Some(h))),
        }
    }
    use crate::graph::Weights;
    Ok(match csr.weights() {
        Weights::None => Reweighted::I64(vec![1; csr.targets().len()], None),
        Weights::I32(w) => typed(csr, w, from).map(|(w, h)| Reweighted::I64(w, h))?,
        Weights::I64(w) => typed(csr, w, from).map(|(w, h)| Reweighted::I64(w, h))?,
        Weights::F32(w) => typed(csr, w, from).map(|(w, h)| Reweighted::F64(w, h))?,
        Weights::F64(w) => typed(csr, w, from).map(|(w, h)| Reweighted::F64(w, h))?,
    })
}

/// `w'(u, v) = w + h(u) - h(v)` for every arc, in the distance type; `None` when `h` is
/// not a feasible potential (not one value per vertex, or `w'` below 0 on some arc, floats
/// beyond rounding).
///
/// # Errors
/// [`Error::Overflow`] when some `w'` leaves the distance range.
fn reweight<W: Weight>(csr: &Csr, ws: &[W], h: &[W::Dist]) -> Result<Option<Vec<W::Dist>>>
where
    W::Dist: Unweight,
{
    if h.len() != csr.num_vertices() || ws.len() != csr.targets().len() {
        return Ok(None);
    }
    let mut out = vec![W::Dist::ZERO; ws.len()];
    let offsets = csr.offsets();
    let targets = csr.targets();
    let bad = out
        .par_chunks_mut(1 << 14)
        .enumerate()
        .find_map_any(|(c, chunk)| {
            let start = c << 14;
            // The row of the chunk's first arc, then walk forward.
            let mut u = offsets
                .partition_point(|&o| o as usize <= start)
                .saturating_sub(1);
            for (k, o) in chunk.iter_mut().enumerate() {
                let i = start + k;
                while u + 1 < offsets.len() && offsets[u + 1] as usize <= i {
                    u += 1;
                }
                let v = targets[i] as usize;
                let (w, hu, hv) = (ws[i], h[u], h[v]);
                if !W::Dist::feasible(w.to_dist(), hu, hv) {
                    return Some(None);
                }
                match W::Dist::reweight(w.to_dist(), hu, hv) {
                    Some(x) => *o = x,
                    None => {
                        return Some(Some(Error::Overflow(format!(
                            "reweighting arc {u} -> {v} of weight {w} with potentials {hu} and \
                             {hv} leaves the distance range"
                        ))))
                    }
                }
            }
            None
        });
    match bad {
        None => Ok(Some(out)),
        Some(None) => Ok(None),
        Some(Some(e)) => Err(e),
    }
}

/// Distance arithmetic for Johnson's reweighting.
pub(crate) trait Unweight: Distance {
    /// `w + hu - hv` for a feasible potential ([`Unweight::feasible`]): `None` on overflow
    /// (integers); clamped at 0 (floats, where rounding can leave `-1e-16`).
    fn reweight(w: Self, hu: Self, hv: Self) -> Option<Self>;
    /// `d - hs + ht` for a finite `d`; `None` when it leaves the finite range.
    fn unweight(d: Self, hs: Self, ht: Self) -> Option<Self>;
    /// Rows of this type as [`Dists`].
    fn dists(rows: &[Self]) -> Dists<'_>;
    /// The potentials when they are of this type.
    fn potentials(h: Potentials) -> Result<Vec<Self>>;
    /// Whether `w + hu - hv >= 0` (floats: or below 0 by rounding only).
    fn feasible(w: Self, hu: Self, hv: Self) -> bool;
}

/// The error for potentials of the other distance type than the weights'.
fn potentials_mismatch() -> Error {
    Error::InvalidArgument("potentials of another distance type than the weights'".into())
}

impl Unweight for i64 {
    fn reweight(w: i64, hu: i64, hv: i64) -> Option<i64> {
        let x = i128::from(w) + i128::from(hu) - i128::from(hv);
        i64::try_from(x).ok().filter(|&x| x != i64::MAX)
    }
    fn unweight(d: i64, hs: i64, ht: i64) -> Option<i64> {
        let x = i128::from(d) - i128::from(hs) + i128::from(ht);
        i64::try_from(x).ok().filter(|&x| x != i64::MAX)
    }
    fn dists(rows: &[i64]) -> Dists<'_> {
        Dists::I64(rows)
    }
    fn feasible(w: i64, hu: i64, hv: i64) -> bool {
        i128::from(w) + i128::from(hu) - i128::from(hv) >= 0
    }
    fn potentials(h: Potentials) -> Result<Vec<i64>> {
        match h {
            Potentials::Int(h) => Ok(h),
            Potentials::Float(_) => Err(potentials_mismatch()),
        }
    }
}

impl Unweight for f64 {
    fn reweight(w: f64, hu: f64, hv: f64) -> Option<f64> {
        Some((w + hu - hv).max(0.0)).filter(|x| x.is_finite())
    }
    fn unweight(d: f64, hs: f64, ht: f64) -> Option<f64> {
        Some(d - hs + ht).filter(|x| x.is_finite())
    }
    fn dists(rows: &[f64]) -> Dists<'_> {
        Dists::F64(rows)
    }
    fn feasible(w: f64, hu: f64, hv: f64) -> bool {
        w + hu - hv >= -1e-12 * (w.abs() + hu.abs() + hv.abs())
    }
    fn potentials(h: Potentials) -> Result<Vec<f64>> {
        match h {
            Potentials::Float(h) => Ok(h),
            Potentials::Int(_) => Err(potentials_mismatch()),
        }
    }
}

struct Run<'a> {
    csr: &'a Csr,
    opts: &'a ApspOptions,
    info: &'a RowsInfo,
    /// The targets a search may stop after (a list of columns).
    stop: Option<&'a Targets>,
    block: usize,
    progress: &'a dyn Progress,
}

impl Run<'_> {
    /// Dijkstra from every source over `w` (non-negative), un-reweighted with `h`.
    fn rows<A: ArcWeights + ?Sized>(
        &self,
        w: &A,
        h: Option<&[A::D]>,
        sink: &mut dyn RowSink,
    ) -> Result<()>
    where
        A::D: Unweight,
    {
        let (rows, cols) = (&self.info.rows, &self.info.cols);
        let (k, c) = (rows.len(), cols.len());
        if k == 0 || c == 0 {
            return Ok(());
        }
        let pred = self.opts.predecessors;
        let mut dist: Vec<A::D> = Vec::with_capacity(self.block * c);
        let mut parent: Vec<VertexId> = Vec::with_capacity(if pred { self.block * c } else { 0 });
        self.progress.begin("johnson", k as u64);
        for first in (0..k).step_by(self.block) {
            let now = self.block.min(k - first);
            dist.clear();
            dist.resize(now * c, A::D::INFINITY);
            parent.clear();
            if pred {
                parent.resize(now * c, NO_VERTEX);
            }
            let one = |i: usize, drow: &mut [A::D], prow: Option<&mut [VertexId]>| {
                let s = rows.vertex(i);
                let sp = dijkstra_until(self.csr, w, s, self.stop)?;
                for (j, o) in drow.iter_mut().enumerate() {
                    let t = cols.vertex(j);
                    *o = unweighted(sp.dist[t as usize], h, s, t)?;
                }
                if let Some(prow) = prow {
                    for (j, p) in prow.iter_mut().enumerate() {
                        *p = sp.parent[cols.vertex(j) as usize];
                    }
                }
                Ok(())
            };
            if pred {
                dist.par_chunks_mut(c.max(1))
                    .zip(parent.par_chunks_mut(c.max(1)))
                    .enumerate()
                    .try_for_each(|(i, (drow, prow))| one(first + i, drow, Some(prow)))?;
            } else {
                dist.par_chunks_mut(c.max(1))
                    .enumerate()
                    .try_for_each(|(i, drow)| one(first + i, drow, None))?;
            }
            sink.rows(&RowBlock {
                first,
                row_len: c,
                dist: A::D::dists(&dist),
                pred: pred.then_some(&parent[..]),
            })?;
            self.progress.advance(now as u64);
        }
        self.progress.finish();
        Ok(())
    }
}

impl Run<'_> {
    /// The rows of an unweighted graph by multi-source BFS ([`multi_source_bfs_until`]):
    /// up to 64 sources a pass, the hop counts written straight into the block's rows.
    fn hops(&self, sink: &mut dyn RowSink) -> Result<()> {
        let (rows, cols) = (&self.info.rows, &self.info.cols);
        let (k, c) = (rows.len(), cols.len());
        if k == 0 || c == 0 {
            return Ok(());
        }
        let columns = Columns::new(self.csr.num_vertices(), cols);
        let pass = self.block.min(MULTI_SOURCE_WIDTH);
        self.progress.begin("johnson", k as u64);
        for first in (0..k).step_by(self.block) {
            let now = self.block.min(k - first);
            let block: Vec<AtomicI64> = (0..now * c)
                .into_par_iter()
                .map(|_| AtomicI64::new(i64::MAX))
                .collect();
            for at in (first..first + now).step_by(pass) {
                let sources: Vec<VertexId> = (at..(at + pass).min(first + now))
                    .map(|i| rows.vertex(i))
                    .collect();
                let base = at - first;
                // A pass over listed targets stops once each of its sources has filled its
                // row (with every vertex a column, the frontier empties as soon), counted
                // once a call, and only for a vertex that is a target.
                let listed = matches!(columns, Columns::Listed { .. });
                let (filled, every) = (AtomicU64::new(0), (sources.len() * c) as u64);
                let reached = |v: VertexId, mut bits: u64, level: u32| {
                    let mut cells = 0;
                    while bits != 0 {
                        let row = (base + bits.trailing_zeros() as usize) * c;
                        bits &= bits - 1;
                        columns.each(v, |j| {
                            block[row + j].store(i64::from(level), Relaxed);
                            cells += 1;
                        });
                    }
                    if listed && cells > 0 {
                        filled.fetch_add(cells, Relaxed);
                    }
                };
                multi_source_bfs_until(self.csr, &sources, reached, || {
                    listed && filled.load(Relaxed) == every
                });
            }
            let dist: Vec<i64> = block.into_par_iter().map(AtomicI64::into_inner).collect();
            sink.rows(&RowBlock {
                first,
                row_len: c,
                dist: Dists::I64(&dist),
                pred: None,
            })?;
            self.progress.advance(now as u64);
        }
        self.progress.finish();
        Ok(())
    }
}

/// Where each vertex stands among a table's columns: its own column for every vertex, or
/// the (possibly several, possibly no) places of a list of targets.
enum Columns {
    All,
    /// For vertex `v`, `at[start[v]..start[v + 1]]`.
    Listed {
        start: Vec<u32>,
        at: Vec<u32>,
    },
}

impl Columns {
    fn new(n: usize, cols: &crate::apsp::Axis) -> Columns {
        let Some(list) = cols.list() else {
            return Columns::All;
        };
        let mut start = vec![0u32; n + 1];
        for &t in list {
            start[t as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut at = vec![0u32; list.len()];
        for (j, &t) in list.iter().enumerate() {
            at[fill[t as usize] as usize] = j as u32;
            fill[t as usize] += 1;
        }
        Columns::Listed { start, at }
    }

    /// Calls `f` with each column of vertex `v`.
    #[inline]
    fn each(&self, v: VertexId, mut f: impl FnMut(usize)) {
        match self {
            Columns::All => f(v as usize),
            Columns::Listed { start, at } => {
                let (a, b) = (start[v as usize] as usize, start[v as usize + 1] as usize);
                at[a..b].iter().for_each(|&j| f(j as usize));
            }
        }
    }
}

/// The distance `d` from `s` to `t` under the reweighted weights back in the real ones
/// (`d - h(s) + h(t)`, checked), when there are potentials `h`.
fn unweighted<D: Unweight>(d: D, h: Option<&[D]>, s: VertexId, t: VertexId) -> Result<D> {
    match h {
        Some(h) if d != D::INFINITY => {
            let (Some(&hs), Some(&ht)) = (h.get(s as usize), h.get(t as usize)) else {
                return Err(Error::InvalidArgument("potentials too short".into()));
            };
            D::unweight(d, hs, ht).ok_or_else(|| {
                Error::Overflow(format!(
                    "the distance from vertex {s} to vertex {t} leaves the {} range",
                    std::any::type_name::<D>()
                ))
            })
        }
        _ => Ok(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, EdgeList, Weights};

    /// 0 -> 1 (2), 1 -> 2 (-3), 2 -> 3 (1): the CPU's potentials are [0, 0, -3, -2].
    fn graph(weights: Weights) -> crate::Graph {
        EdgeList::new(4, vec![0, 1, 2], vec![1, 2, 3], weights)
            .unwrap()
            .build(&BuildOptions::default())
            .unwrap()
    }

    /// Feasible potentials from elsewhere are used as given; infeasible ones (all zero,
    /// NaN, of the wrong length) are replaced by the CPU's, so the weights are never
    /// wrong.
    #[test]
    fn potentials_from_elsewhere_are_checked() {
        let g = graph(Weights::from(vec![2i64, -3, 1]));
        let other = vec![-1, -1, -4, -3];
        let r = reweighted(g.out(), &mut || Ok(Potentials::Int(other.clone()))).unwrap();
        let Reweighted::I64(w, Some(h)) = r else {
            panic!("expected reweighted i64 weights")
        };
        assert_eq!((w, h), (vec![2, 0, 0], other));
        for bad in [vec![0; 4], vec![0, 0, -3]] {
            let r = reweighted(g.out(), &mut || Ok(Potentials::Int(bad.clone()))).unwrap();
            let Reweighted::I64(w, Some(h)) = r else {
                panic!("expected reweighted i64 weights")
            };
            assert_eq!((w, h), (vec![2, 0, 0], vec![0, 0, -3, -2]));
        }
        let g = graph(Weights::from(vec![2.0f64, -3.0, 1.0]));
        let nan = vec![f64::NAN; 4];
        let r = reweighted(g.out(), &mut || Ok(Potentials::Float(nan.clone()))).unwrap();
        let Reweighted::F64(w, Some(h)) = r else {
            panic!("expected reweighted f64 weights")
        };
        assert_eq!((w, h), (vec![2.0, 0.0, 0.0], vec![0.0, 0.0, -3.0, -2.0]));
        // Potentials of the other type are an error, not a guess.
        assert!(reweighted(g.out(), &mut || Ok(Potentials::Int(vec![0; 4]))).is_err());
    }
}
