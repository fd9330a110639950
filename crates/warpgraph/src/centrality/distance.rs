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
//! # Parallelism
//! Vertices are split into a few chunks per thread, each worker with its own search
//! state; every vertex's value is its own, so there is nothing to reduce.

use rayon::prelude::*;

use super::search::Search;
use super::{
    check_memory, check_nonnegative, check_vertices, chunks, weights_of, workers_for,
    ClosenessOptions, HarmonicOptions, Scores, Weighting,
};
use crate::error::Result;
use crate::graph::{Csr, Distance, Graph, VertexId, Weights};
use crate::progress::Progress;
use crate::sssp::cpu::ArcWeights;

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
    let n = g.num_vertices();
    let wf = opts.wf_improved;
    per_vertex(
        g,
        opts.weighting,
        opts.vertices.as_deref(),
        "closeness",
        progress,
        |order, dist| closeness_of(order, dist, n, wf),
    )
}

/// Harmonic centrality, as NetworkX's `harmonic_centrality`.
///
/// # Errors
/// As [`closeness`] (a source out of range too).
pub fn harmonic(g: &Graph, opts: &HarmonicOptions, progress: &dyn Progress) -> Result<Scores> {
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
    per_vertex(
        g,
        opts.weighting,
        opts.vertices.as_deref(),
        "harmonic",
        progress,
        |order, dist| {
            let mut sum = 0.0;
            for &u in order {
                let d = dist(u);
                if d > 0.0 && mask.as_ref().is_none_or(|m| m[u as usize]) {
                    sum += 1.0 / d;
                }
            }
            sum
        },
    )
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

/// `value(order, dist)` for each vertex of `vertices` (all when `None`), from one search
/// over the reversed arcs each.
fn per_vertex<F>(
    g: &Graph,
    weighting: Weighting,
    vertices: Option<&[VertexId]>,
    what: &str,
    progress: &dyn Progress,
    value: F,
) -> Result<Scores>
where
    F: Fn(&[VertexId], &dyn Fn(VertexId) -> f64) -> f64 + Sync,
{
    let n = g.num_vertices();
    let all: Vec<VertexId>;
    let vertices = match vertices {
        Some(v) => {
            check_vertices(v, n, "vertex")?;
            v
        }
        None => {
            all = (0..n as VertexId).collect();
            &all
        }
    };
    check_nonnegative(g.out(), weights_of(g, weighting))?;
    let (csr, weights) = reversed(g, weighting);
    let values =
        dispatch!(weights, unit, w => searches(csr, w, unit, vertices, what, progress, &value))?;
    Ok(Scores {
        vertices: vertices.to_vec(),
        values,
    })
}

/// The values of `vertices`, in parallel.
fn searches<A, F>(
    csr: &Csr,
    w: &A,
    unit: bool,
    vertices: &[VertexId],
    what: &str,
    progress: &dyn Progress,
    value: &F,
) -> Result<Vec<f64>>
where
    A: ArcWeights + ?Sized,
    F: Fn(&[VertexId], &dyn Fn(VertexId) -> f64) -> f64 + Sync,
{
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
