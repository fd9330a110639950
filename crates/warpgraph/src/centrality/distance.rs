//! Closeness and harmonic centrality: measures of the distances to each vertex.
//!
//! # What it computes
//! For each vertex `v`, with `d(u, v)` the distance from `u` to `v` (so on a directed
//! graph the paths *into* `v`, as NetworkX measures them) and `r` the number of vertices
//! that reach `v`, `v` included:
//! - closeness: `(r - 1) / sum of d(u, v)`, times `(r - 1) / (n - 1)` with Wasserman and
//!   Faust's correction (S. Wasserman and K. Faust, "Social Network Analysis", 1994),
//!   and 0 when the sum is 0 or `n < 2`;
//! - harmonic centrality: the sum of `1 / d(u, v)` over the vertices `u` (of the chosen
//!   sources) with `0 < d(u, v) < inf` (M. Marchiori and V. Latora, "Harmony in the
//!   small-world", Physica A 285 (2000); P. Boldi and S. Vigna, "Axioms for centrality",
//!   Internet Mathematics 10 (2014)).
//!
//! # Method
//! One search per measured vertex ([`Search`] without path counts) over the incoming
//! arcs of a directed graph (the outgoing ones of an undirected graph): breadth-first
//! unweighted, Dijkstra's algorithm weighted. Distances are summed in `f64` (exactly for
//! integer distances summing below 2^53).
//!
//! On a GPU ([`closeness_on`], [`harmonic_on`]) the searches are the rows of a distance
//! table over the reversed arcs, made by the batched searches of
//! [`crate::apsp::distances_on`] (buckets per source, or multi-source BFS on unweighted
//! small-world graphs) and streamed back batch by batch; each row's value is then
//! computed on the host as the CPU's is, its distances summed in vertex order rather than
//! in the order of discovery (the same sums for integer distances).
//!
//! # Parallelism
//! Vertices are split into a few chunks per thread, each worker with its own search
//! state; every vertex's value is its own, so there is nothing to reduce. The rows of a
//! GPU's batch are valued in parallel.

use std::borrow::Cow;
use std::sync::Arc;

use rayon::prelude::*;

use super::search::Search;
use super::{
    check_memory, check_nonnegative, check_vertices, chunks, weights_of, workers_for,
    ClosenessOptions, HarmonicOptions, Scores, Weighting,
};
use crate::apsp::{self, ApspOptions, Axis, Backend, Dists, RowBlock, RowSink, RowsInfo};
use crate::cuda::Gpu;
use crate::error::Result;
use crate::graph::{Csr, Distance, Graph, VertexId, VertexIds, Weights};
use crate::progress::Progress;
use crate::sssp::cpu::ArcWeights;

/// What a vertex's value is made of: the vertices that reach it (itself included) and a
/// function giving their distances to it.
trait Value: Fn(&[VertexId], &dyn Fn(VertexId) -> f64) -> f64 + Sync {}
impl<F: Fn(&[VertexId], &dyn Fn(VertexId) -> f64) -> f64 + Sync> Value for F {}

/// Closeness centrality, as NetworkX's `closeness_centrality`.
///
/// # Errors
/// - [`Error::InvalidArgument`](crate::Error::InvalidArgument): a vertex out of range.
/// - [`Error::NegativeWeight`](crate::Error::NegativeWeight): a negative weight, naming
///   its arc.
/// - [`Error::Overflow`](crate::Error::Overflow): a distance beyond `i64`.
/// - [`Error::OutOfMemory`](crate::Error::OutOfMemory): the workers' state would not fit.
///
/// # Complexity
/// One search per measured vertex: O(m) each unweighted, O((n + m) log n) weighted.
pub fn closeness(g: &Graph, opts: &ClosenessOptions, progress: &dyn Progress) -> Result<Scores> {
    closeness_on(g, opts, None, progress)
}

/// [`closeness`] on `gpu` when one is given: the distances to each vertex as rows of a
/// distance table made there (see the module's method).
///
/// # Errors
/// As [`closeness`]; on a GPU, [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the
/// graph and one search do not fit (bytes needed and free), [`Error::Gpu`](crate::Error::Gpu)
/// for a driver error.
pub fn closeness_on(
    g: &Graph,
    opts: &ClosenessOptions,
    gpu: Option<&Arc<Gpu>>,
    progress: &dyn Progress,
) -> Result<Scores> {
    let n = g.num_vertices();
    let wf = opts.wf_improved;
    let on = On {
        weighting: opts.weighting,
        vertices: opts.vertices.as_deref(),
        what: "closeness",
        table: gpu.map(|gpu| Backend::Cuda(gpu, Default::default())),
    };
    per_vertex(g, on, progress, |order, dist| {
        closeness_of(order, dist, n, wf)
    })
}

/// Harmonic centrality, as NetworkX's `harmonic_centrality`.
///
/// # Errors
/// As [`closeness`] (a source out of range too).
pub fn harmonic(g: &Graph, opts: &HarmonicOptions, progress: &dyn Progress) -> Result<Scores> {
    harmonic_on(g, opts, None, progress)
}

/// [`harmonic`] on `gpu` when one is given, as [`closeness_on`].
///
/// # Errors
/// As [`closeness_on`]; a source out of range too.
pub fn harmonic_on(
    g: &Graph,
    opts: &HarmonicOptions,
    gpu: Option<&Arc<Gpu>>,
    progress: &dyn Progress,
) -> Result<Scores> {
    let n = g.num_vertices();
    let mask = match &opts.sources {
        None => None,
        Some(list) => {
            check_vertices(list, n, "source")?;
            let mut m = vec![false; n];
            list.iter().for_each(|&v| m[v as usize] = true);
            Some(m)
        }
    };
    let on = On {
        weighting: opts.weighting,
        vertices: opts.vertices.as_deref(),
        what: "harmonic",
        table: gpu.map(|gpu| Backend::Cuda(gpu, Default::default())),
    };
    per_vertex(g, on, progress, |order, dist| {
        let mut sum = 0.0;
        for &u in order {
            let d = dist(u);
            if d > 0.0 && mask.as_ref().is_none_or(|m| m[u as usize]) {
                sum += 1.0 / d;
            }
        }
        sum
    })
}

/// Closeness from one search: `order` the reached vertices, `dist` their distances.
pub(crate) fn closeness_of(
    order: &[VertexId],
    dist: &dyn Fn(VertexId) -> f64,
    n: usize,
    wf_improved: bool,
) -> f64 {
    let total: f64 = order.iter().map(|&u| dist(u)).sum();
    let reached = order.len() as f64;
    if total > 0.0 && n > 1 {
        let mut c = (reached - 1.0) / total;
        if wf_improved {
            c *= (reached - 1.0) / (n as f64 - 1.0);
        }
        c
    } else {
        0.0
    }
}

/// The arcs into each vertex (the graph's own arcs when undirected) and their weights.
pub(crate) fn reversed(g: &Graph, weighting: Weighting) -> (&Csr, &Weights) {
    let csr = if g.is_directed() {
        g.incoming()
    } else {
        g.out()
    };
    match weighting {
        Weighting::Graph => (csr, csr.weights()),
        Weighting::Unit => (csr, &Weights::None),
    }
}

/// What [`per_vertex`] measures and where.
struct On<'a> {
    weighting: Weighting,
    /// The vertices measured (all when `None`).
    vertices: Option<&'a [VertexId]>,
    /// The measure's name, for progress and errors.
    what: &'a str,
    /// Where the distance table is made, if the searches are its rows (on a GPU); else
    /// the CPU's searches, each worker valuing its own.
    table: Option<Backend<'a>>,
}

/// `value(order, dist)` for each vertex measured, from one search over the reversed arcs
/// each: on the CPU, or as the rows of a distance table on a GPU.
fn per_vertex(g: &Graph, on: On<'_>, progress: &dyn Progress, value: impl Value) -> Result<Scores> {
    let n = g.num_vertices();
    let all: Vec<VertexId>;
    let vertices = match on.vertices {
        Some(v) => {
            check_vertices(v, n, "vertex")?;
            v
        }
        None => {
            all = (0..n as VertexId).collect();
            &all
        }
    };
    check_nonnegative(g.out(), weights_of(g, on.weighting))?;
    let (values, kernel_seconds) = match on.table {
        Some(backend) if !vertices.is_empty() => {
            table_rows(backend, g, on.weighting, vertices, progress, &value)?
        }
        _ => {
            let (csr, weights) = reversed(g, on.weighting);
            let what = on.what;
            let values = dispatch!(weights, unit, w =>
                searches(csr, w, unit, vertices, what, progress, &value))?;
            (values, None)
        }
    };
    Ok(Scores {
        vertices: vertices.to_vec(),
        values,
        kernel_seconds,
    })
}

/// The values of `vertices` from the rows of a distance table on `backend` over the
/// reversed arcs (weighed as `weighting` says), and the seconds its kernels took.
fn table_rows(
    backend: Backend<'_>,
    g: &Graph,
    weighting: Weighting,
    vertices: &[VertexId],
    progress: &dyn Progress,
    value: &impl Value,
) -> Result<(Vec<f64>, Option<f64>)> {
    let into = reversed_graph(g, weighting);
    let sel = apsp::Selection {
        sources: Axis::List(Arc::from(vertices)),
        targets: Axis::All(g.num_vertices()),
    };
    let mut sink = ValueSink {
        value,
        values: Vec::with_capacity(vertices.len()),
    };
    let ran = apsp::distances_on(
        &into,
        &sel,
        &ApspOptions::default(),
        backend,
        &mut sink,
        progress,
    )?;
    Ok((sink.values, ran.kernel_seconds))
}

/// `g` with its arcs reversed when directed, and without weights when `weighting` counts
/// arcs: a search from `v` over it finds the distances to `v`. `g` itself when it is
/// already that.
fn reversed_graph(g: &Graph, weighting: Weighting) -> Cow<'_, Graph> {
    let (csr, weights) = reversed(g, weighting);
    let unweighed = matches!(weights, Weights::None) && g.weight_type() != crate::WeightType::None;
    if !g.is_directed() && !unweighed {
        return Cow::Borrowed(g);
    }
    let arcs = Csr::from_raw(
        csr.offsets().to_vec().into(),
        csr.targets().to_vec().into(),
        weights.clone(),
    );
    Cow::Owned(Graph::from_parts_unchecked(
        g.is_directed(),
        arcs,
        VertexIds::default(),
    ))
}

/// Values each row of a distance table as it comes (rows in the order of the measured
/// vertices, a column per vertex).
struct ValueSink<'a, F> {
    value: &'a F,
    values: Vec<f64>,
}

impl<F: Value> RowSink for ValueSink<'_, F> {
    fn begin(&mut self, _info: &RowsInfo) -> Result<()> {
        Ok(())
    }

    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()> {
        // (A row of no columns is a graph of no vertices: nothing is measured there.)
        let n = block.row_len.max(1);
        let value = self.value;
        let rows: Vec<f64> = match block.dist {
            Dists::I64(d) => d
                .par_chunks(n)
                .map(|d| row_value(value, d, |x| (x != i64::MAX).then_some(x as f64)))
                .collect(),
            Dists::F64(d) => d
                .par_chunks(n)
                .map(|d| row_value(value, d, |x| x.is_finite().then_some(x)))
                .collect(),
        };
        self.values.extend(rows);
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// `value` of one row `d` of distances, `finite` giving each reached one as `f64`.
fn row_value<T: Copy>(value: &impl Value, d: &[T], finite: impl Fn(T) -> Option<f64>) -> f64 {
    let order: Vec<VertexId> = (0..d.len() as VertexId)
        .filter(|&u| finite(d[u as usize]).is_some())
        .collect();
    value(&order, &|u| finite(d[u as usize]).unwrap_or(f64::INFINITY))
}

/// The values of `vertices`, in parallel.
fn searches<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    unit: bool,
    vertices: &[VertexId],
    what: &str,
    progress: &dyn Progress,
    value: &impl Value,
) -> Result<Vec<f64>> {
    let n = csr.num_vertices();
    let per_worker = Search::<A::D>::bytes(n, csr.num_arcs(), unit);
    let workers = workers_for(vertices.len());
    check_memory(what, n, workers, per_worker, 8 * vertices.len() as u64)?;
    progress.begin(what, vertices.len() as u64);
    let parts = chunks(vertices)
        .into_par_iter()
        .map(|chunk| {
            let mut search = Search::<A::D>::new(n, unit);
            let mut out = Vec::with_capacity(chunk.len());
            for &v in chunk {
                search.run(csr, w, v, false)?;
                let dist = |u: VertexId| search.dist[u as usize].as_f64();
                out.push(value(&search.order, &dist));
                progress.advance(1);
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>>>()?;
    progress.finish();
    Ok(parts.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::EdgeList;
    use crate::{BuildOptions, NoProgress};

    /// Valued from the rows of a distance table (made here on the CPU, as a GPU makes
    /// it), closeness and harmonic centrality are the searches' values: directed and
    /// undirected, weighted, float, arcs counted, unreachable and isolated vertices, some
    /// vertices measured.
    #[test]
    fn table_rows_value_as_the_searches_do() {
        let (from, to) = (vec![0, 1, 2, 2, 4, 1], vec![1, 2, 0, 3, 4, 3]);
        let weights = [
            Weights::None,
            Weights::from(vec![3i32, 0, 2, 5, 1, 7]),
            Weights::from(vec![0.5f64, 0.25, 2.0, 1.5, 1.0, 0.75]),
        ];
        for w in weights {
            for directed in [true, false] {
                let g = EdgeList::new(7, from.clone(), to.clone(), w.clone())
                    .unwrap()
                    .build(&BuildOptions {
                        directed,
                        ..Default::default()
                    })
                    .unwrap();
                for weighting in [Weighting::Graph, Weighting::Unit] {
                    for vertices in [None, Some(&[3, 0, 6][..])] {
                        let on = |table| On {
                            weighting,
                            vertices,
                            what: "closeness",
                            table,
                        };
                        let value = |order: &[VertexId], dist: &dyn Fn(VertexId) -> f64| {
                            closeness_of(order, dist, 7, true)
                                + 1e3 * order.iter().map(|&u| dist(u)).sum::<f64>()
                        };
                        let searched = per_vertex(&g, on(None), &NoProgress, value).unwrap();
                        let rows =
                            per_vertex(&g, on(Some(Backend::Cpu)), &NoProgress, value).unwrap();
                        assert_eq!(rows, searched, "{w:?} directed {directed} {weighting:?}");
                    }
                }
            }
        }
    }
}
