//! Betweenness of vertices and of arcs: Brandes' accumulation, in parallel over sources.
//!
//! # What it computes
//! For every vertex `v` (or arc `e`) the sum over sources `s` of the dependency
//! `delta_s(v) = sum over t of sigma_st(v) / sigma_st`, then NetworkX's scaling (see
//! [`scale`]). With endpoints, every source also counts once for each vertex it reaches
//! and every reached vertex once more (Brandes 2008, section 3.3).
//!
//! # Method
//! U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol. 25
//! (2001): after one source's search ([`Search`]), vertices are taken in reverse settling
//! order and each one's dependency is summed over its DAG arcs `v -> x` as
//! `sigma(v) / sigma(x) * (1 + delta(x))` (the successors' form of the recurrence, which
//! needs no predecessor lists). The term of each arc is its edge dependency (U. Brandes,
//! "On variants of shortest-path betweenness centrality and their generic computation",
//! Social Networks 30 (2008)). Sampled sources follow Brandes and Pich (2007).
//!
//! # Parallelism
//! Sources are split into a few chunks per thread; each worker keeps its own search state
//! and partial sums (per vertex or per arc), and the partial sums are added in chunk
//! order at the end, so that equal inputs give equal outputs. Each source also leaves a
//! fingerprint of its contribution for [`verify_betweenness`](super::verify_betweenness).

use rayon::prelude::*;

use super::search::Search;
use super::{
    check_memory, check_nonnegative, chunks, fingerprint_weight, resolve_sources, weights_of,
    workers_for, BetweennessOptions, Centrality, EdgeBetweennessOptions, Sources, Weighting,
};
use crate::error::{Error, Result};
use std::sync::Arc;

use crate::cuda::Gpu;
use crate::graph::{Csr, Graph, VertexId, Weights};
use crate::progress::Progress;
use crate::sssp::cpu::ArcWeights;

/// What the sums are kept for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// One sum per vertex; with or without the endpoints.
    Vertices {
        /// Count the endpoints.
        endpoints: bool,
    },
    /// One sum per arc.
    Arcs,
}

/// Betweenness centrality of every vertex, as NetworkX's `betweenness_centrality`.
///
/// # Errors
/// - [`Error::InvalidArgument`]: a bad source list or sample size (none, too many,
///   repeated, out of range).
/// - [`Error::NegativeWeight`]: a negative weight, naming its arc.
/// - [`Error::Overflow`]: a distance beyond `i64`.
/// - [`Error::OutOfMemory`]: the workers' state would not fit.
///
/// # Complexity
/// O(k m) time for `k` sources unweighted, O(k (m + n) log n) weighted; O(n) memory per
/// worker (plus the heap's O(m) at worst).
pub fn betweenness(
    g: &Graph,
    opts: &BetweennessOptions,
    progress: &dyn Progress,
) -> Result<Centrality> {
    betweenness_on(g, opts, None, progress)
}

/// [`betweenness`] on `gpu` when one is given: Brandes' searches from many sources at
/// once ([`super::cuda`]), for an unweighted graph or [`Weighting::Unit`].
///
/// # Errors
/// As [`betweenness`]; on a GPU, [`Error::Unsupported`] for a weighted graph (weighted
/// betweenness runs on the CPU), [`Error::OutOfMemory`] when the graph and one source's
/// state do not fit (bytes needed and free), [`Error::Gpu`] for a driver error.
pub fn betweenness_on(
    g: &Graph,
    opts: &BetweennessOptions,
    gpu: Option<&Arc<Gpu>>,
    progress: &dyn Progress,
) -> Result<Centrality> {
    let target = Target::Vertices {
        endpoints: opts.endpoints,
    };
    let (mut r, sampled) = run(g, opts.weighting, &opts.sources, target, gpu, progress)?;
    let n = g.num_vertices();
    r.scale = scale(n, sampled, opts.normalized, g.is_directed(), opts.endpoints);
    let is_source = source_mask(n, &r.sources, sampled);
    let (a, b) = r.scale;
    r.values
        .par_iter_mut()
        .zip(is_source.par_iter())
        .for_each(|(x, &src)| *x *= if src { a } else { b });
    Ok(r)
}

/// Betweenness centrality of every arc, as NetworkX's `edge_betweenness_centrality`: one
/// value per arc in CSR order, the two arcs of an undirected edge each holding their own
/// share ([`edge_values`] adds them).
///
/// # Errors
/// As [`betweenness`].
pub fn edge_betweenness(
    g: &Graph,
    opts: &EdgeBetweennessOptions,
    progress: &dyn Progress,
) -> Result<Centrality> {
    let (mut r, sampled) = run(
        g,
        opts.weighting,
        &opts.sources,
        Target::Arcs,
        None,
        progress,
    )?;
    r.scale = scale(
        g.num_vertices(),
        sampled,
        opts.normalized,
        g.is_directed(),
        true,
    );
    let s = r.scale.1;
    r.values.par_iter_mut().for_each(|x| *x *= s);
    Ok(r)
}

/// One value per edge from one value per arc: every arc `(u, v, value)` of a directed
/// graph; for an undirected one each edge once as `u <= v`, with the values of its two
/// arcs added (the k-th parallel copy of `u -> v` pairs with the k-th of `v -> u`).
pub fn edge_values(g: &Graph, arcs: &[f64]) -> Vec<(VertexId, VertexId, f64)> {
    let csr = g.out();
    let t = csr.targets();
    let mut out = Vec::new();
    for u in 0..g.num_vertices() as VertexId {
        let row = csr.row(u);
        let first = row.start;
        for i in row {
            let v = t[i];
            if g.is_directed() || v == u {
                out.push((u, v, arcs[i]));
            } else if v > u {
                let copy = i - (first + t[first..i].partition_point(|&x| x < v));
                let back = csr.row(v);
                let j = back.start + t[back].partition_point(|&x| x < u) + copy;
                out.push((u, v, arcs[i] + arcs[j]));
            }
        }
    }
    out
}

/// NetworkX's `_rescale`: the factors for sampled sources and for every other vertex,
/// for `n` vertices and `sampled` sources (`None`: all of them).
pub(crate) fn scale(
    n: usize,
    sampled: Option<usize>,
    normalized: bool,
    directed: bool,
    endpoints: bool,
) -> (f64, f64) {
    let big_n = if endpoints { n } else { n.saturating_sub(1) } as f64;
    if big_n < 2.0 {
        return (1.0, 1.0);
    }
    let k = sampled.map_or(big_n, |k| k as f64);
    let correction = if directed { 1.0 } else { 2.0 };
    if sampled.is_none() || endpoints {
        let s = if normalized {
            1.0 / (k * (big_n - 1.0))
        } else {
            big_n / (k * correction)
        };
        return (s, s);
    }
    // Without endpoints a sampled source is no pair's inner vertex for its own paths.
    let source = if k <= 1.0 {
        f64::NAN
    } else if normalized {
        1.0 / ((k - 1.0) * (big_n - 1.0))
    } else {
        big_n / ((k - 1.0) * correction)
    };
    let other = if normalized {
        1.0 / (k * (big_n - 1.0))
    } else {
        big_n / (k * correction)
    };
    (source, other)
}

/// Whether each vertex is a sampled source (all false without sampling).
pub(crate) fn source_mask(n: usize, sources: &[VertexId], sampled: Option<usize>) -> Vec<bool> {
    let mut mask = vec![false; n];
    if sampled.is_some() {
        for &s in sources {
            mask[s as usize] = true;
        }
    }
    mask
}

/// The unscaled sums and the number of sampled sources (`None` for all).
fn run(
    g: &Graph,
    weighting: Weighting,
    sources: &Sources,
    target: Target,
    gpu: Option<&Arc<Gpu>>,
    progress: &dyn Progress,
) -> Result<(Centrality, Option<usize>)> {
    let n = g.num_vertices();
    let list = resolve_sources(sources, n)?;
    let sampled = match sources {
        Sources::All => None,
        _ if list.is_empty() => {
            return Err(Error::InvalidArgument(
                "betweenness needs at least one source".into(),
            ))
        }
        _ => Some(list.len()),
    };
    let csr = g.out();
    let weights = weights_of(g, weighting);
    let (values, fingerprints, kernel_seconds) = match (gpu, target) {
        (Some(gpu), Target::Vertices { endpoints }) => {
            if !matches!(weights, Weights::None) {
                return Err(Error::Unsupported(
                    "betweenness on a GPU counts arcs, not weights: ask for unweighted \
                     betweenness, or run weighted betweenness on the CPU"
                        .into(),
                ));
            }
            let (v, f, secs) = super::cuda::sums(gpu, csr, &list, endpoints, progress)?;
            (v, f, Some(secs))
        }
        (Some(_), Target::Arcs) => {
            return Err(Error::Unsupported(
                "edge betweenness runs on the CPU".into(),
            ))
        }
        (None, _) => {
            check_nonnegative(csr, weights)?;
            let (v, f) =
                dispatch!(weights, unit, w => sums(csr, w, unit, &list, target, progress))?;
            (v, f, None)
        }
    };
    let r = Centrality {
        values,
        sources: list,
        fingerprints,
        scale: (1.0, 1.0),
        kernel_seconds,
    };
    Ok((r, sampled))
}

/// The sums over `sources` of their contributions, and each source's fingerprint.
fn sums<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    unit: bool,
    sources: &[VertexId],
    target: Target,
    progress: &dyn Progress,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = csr.num_vertices();
    let m = csr.num_arcs();
    let len = match target {
        Target::Arcs => m as usize,
        Target::Vertices { .. } => n,
    };
    let per_worker = Search::<A::D>::bytes(n, m, unit) + 8 * (n + len) as u64;
    let shared = 8 * len as u64 + 12 * sources.len() as u64;
    check_memory(
        "betweenness",
        n,
        workers_for(sources.len()),
        per_worker,
        shared,
    )?;
    progress.begin("betweenness", sources.len() as u64);
    let parts = chunks(sources)
        .into_par_iter()
        .map(|chunk| worker(csr, w, unit, chunk, target, len, progress))
        .collect::<Result<Vec<_>>>()?;
    progress.finish();
    let mut total = vec![0.0; len];
    total.par_iter_mut().enumerate().for_each(|(i, x)| {
        for p in &parts {
            *x += p.0[i];
        }
    });
    Ok((total, parts.into_iter().flat_map(|p| p.1).collect()))
}

/// One worker: the partial sums of its sources and their fingerprints.
fn worker<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    unit: bool,
    sources: &[VertexId],
    target: Target,
    len: usize,
    progress: &dyn Progress,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = csr.num_vertices();
    let mut search = Search::<A::D>::new(n, unit);
    let mut delta = vec![0.0; n];
    let mut sums = vec![0.0; len];
    let mut fingerprints = Vec::with_capacity(sources.len());
    for &s in sources {
        search.run(csr, w, s, true)?;
        fingerprints.push(accumulate(&search, csr, w, target, &mut delta, &mut sums));
        progress.advance(1);
    }
    Ok((sums, fingerprints))
}

/// Adds one source's dependencies (per vertex or per arc) to `sums`; returns their
/// fingerprint.
fn accumulate<A: ArcWeights + ?Sized>(
    search: &Search<A::D>,
    csr: &Csr,
    w: &A,
    target: Target,
    delta: &mut [f64],
    sums: &mut [f64],
) -> f64 {
    let (order, sigma) = (&search.order, &search.sigma);
    let s = order[0];
    let t = csr.targets();
    let mut fp = 0.0;
    let mut add = |x: usize, c: f64| {
        sums[x] += c;
        fp += c * fingerprint_weight(x as u64);
    };
    let endpoints = target == Target::Vertices { endpoints: true };
    if endpoints {
        add(s as usize, (order.len() - 1) as f64);
    }
    for &v in order.iter().rev() {
        let sv = sigma[v as usize];
        let mut dv = 0.0;
        let r = csr.row(v);
        for (i, (&x, c)) in r.clone().zip(t[r.clone()].iter().zip(w.row(r))) {
            if search.on_dag(v, x, c) {
                let share = sv * ((1.0 + delta[x as usize]) / sigma[x as usize]);
                dv += share;
                if target == Target::Arcs {
                    add(i, share);
                }
            }
        }
        delta[v as usize] = dv;
        if v != s && target != Target::Arcs {
            add(v as usize, dv + if endpoints { 1.0 } else { 0.0 });
        }
    }
    fp
}
