//! Checking centrality results by recomputing a sample of them another way.
//!
//! # Betweenness (vertices and arcs)
//! A result keeps, for each source, a fingerprint of its contribution: the sum over
//! vertices (arcs) `x` of `contribution(x) * f(x)` for fixed weights `f(x)` in `[1, 2)`
//! ([`fingerprint_weight`]). Two checks follow:
//! 1. the sums: the result's values, unscaled, weighted by `f`, must add up to the sum
//!    of all fingerprints (a wrong value, a lost or doubled source, a wrong scale fails
//!    here);
//! 2. the sources: for a sample of sources, the contribution is recomputed serially by
//!    the textbook method (Dijkstra on `(distance, hops)` keeping predecessor lists,
//!    path counts pulled from the predecessors, dependencies pushed back to them, as in
//!    Brandes' paper) and its fingerprint must match the stored one (a wrong search or
//!    accumulation fails here).
//!
//! Both compare `f64` sums taken in different orders, within a relative `1e-9`.
//!
//! # Closeness and harmonic centrality
//! A sample of the measured vertices is recomputed from the distances of the library's
//! serial Dijkstra ([`crate::sssp::cpu::dijkstra`]) over the reversed arcs, and must
//! match within a relative `1e-9`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::betweenness::{source_mask, Target};
use super::distance::{closeness_of, reversed};
use super::{
    fingerprint_weight, sample, weights_of, BetweennessOptions, Centrality, ClosenessOptions,
    EdgeBetweennessOptions, HarmonicOptions, Scores, Weighting,
};
use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, Graph, VertexId, NO_VERTEX};
use crate::sssp::cpu::{dijkstra_with, ArcWeights, DistKey};

/// Checks a [`betweenness`](super::betweenness) result: its sums, and `samples` of its
/// sources (drawn with `seed`) recomputed serially.
///
/// # Errors
/// [`Error::VerificationFailed`] saying what does not match; the errors of the
/// computation when a recomputed source fails.
pub fn verify_betweenness(
    g: &Graph,
    opts: &BetweennessOptions,
    r: &Centrality,
    samples: usize,
    seed: u64,
) -> Result<()> {
    let target = Target::Vertices {
        endpoints: opts.endpoints,
    };
    check_sums(g, opts.weighting, r, target, samples, seed)
}

/// Checks an [`edge_betweenness`](super::edge_betweenness) result, as
/// [`verify_betweenness`].
///
/// # Errors
/// As [`verify_betweenness`].
pub fn verify_edge_betweenness(
    g: &Graph,
    opts: &EdgeBetweennessOptions,
    r: &Centrality,
    samples: usize,
    seed: u64,
) -> Result<()> {
    check_sums(g, opts.weighting, r, Target::Arcs, samples, seed)
}

/// Checks a [`closeness`](super::closeness) result on `samples` of its vertices.
///
/// # Errors
/// [`Error::VerificationFailed`] naming a vertex whose value differs.
pub fn verify_closeness(
    g: &Graph,
    opts: &ClosenessOptions,
    r: &Scores,
    samples: usize,
    seed: u64,
) -> Result<()> {
    let n = g.num_vertices();
    check_scores(
        g,
        opts.weighting,
        r,
        samples,
        seed,
        "closeness",
        |order, dist| closeness_of(order, dist, n, opts.wf_improved),
    )
}

/// Checks a [`harmonic`](super::harmonic) result on `samples` of its vertices.
///
/// # Errors
/// As [`verify_closeness`].
pub fn verify_harmonic(
    g: &Graph,
    opts: &HarmonicOptions,
    r: &Scores,
    samples: usize,
    seed: u64,
) -> Result<()> {
    let mut counts = vec![opts.sources.is_none(); g.num_vertices()];
    for &u in opts.sources.iter().flatten() {
        if let Some(c) = counts.get_mut(u as usize) {
            *c = true;
        }
    }
    check_scores(
        g,
        opts.weighting,
        r,
        samples,
        seed,
        "harmonic",
        |order, dist| {
            order
                .iter()
                .filter(|&&u| counts[u as usize] && dist(u) > 0.0)
                .map(|&u| 1.0 / dist(u))
                .sum()
        },
    )
}

fn fail(msg: String) -> Error {
    Error::VerificationFailed(msg)
}

/// Whether `a` and `b` agree within a relative `1e-9` of `magnitude`.
fn close(a: f64, b: f64, magnitude: f64) -> bool {
    (a - b).abs() <= 1e-9 * magnitude.max(1.0) || (a.is_nan() && b.is_nan())
}

/// The two betweenness checks of the module docs.
fn check_sums(
    g: &Graph,
    weighting: Weighting,
    r: &Centrality,
    target: Target,
    samples: usize,
    seed: u64,
) -> Result<()> {
    let n = g.num_vertices();
    let len = match target {
        Target::Arcs => g.num_arcs() as usize,
        Target::Vertices { .. } => n,
    };
    if r.values.len() != len || r.fingerprints.len() != r.sources.len() {
        return Err(fail(format!(
            "{} values for {len} and {} fingerprints for {} sources",
            r.values.len(),
            r.fingerprints.len(),
            r.sources.len()
        )));
    }
    if r.sources.iter().any(|&s| s as usize >= n) {
        return Err(fail("a source is not a vertex".into()));
    }
    check_total(r, target, n)?;
    let csr = g.out();
    let picks = sample(r.sources.len(), samples.min(r.sources.len()), seed);
    dispatch!(weights_of(g, weighting), _unit, w => {
        for i in picks {
            let c = contributions(csr, w, r.sources[i as usize], target)?;
            let (fp, mag) = fingerprint(&c);
            if !close(fp, r.fingerprints[i as usize], mag) {
                return Err(fail(format!(
                    "source {}: recomputed contribution has fingerprint {fp}, the result \
                     holds {}",
                    r.sources[i as usize], r.fingerprints[i as usize]
                )));
            }
        }
    });
    Ok(())
}

/// Check 1: the unscaled values against the sum of the fingerprints.
fn check_total(r: &Centrality, target: Target, n: usize) -> Result<()> {
    let sampled = (target != Target::Arcs && r.scale.0 != r.scale.1).then_some(0);
    let mask = source_mask(n, &r.sources, sampled);
    let (mut got, mut mag) = (0.0, 0.0);
    for (x, &v) in r.values.iter().enumerate() {
        let s = if mask.get(x) == Some(&true) {
            r.scale.0
        } else {
            r.scale.1
        };
        if s.is_finite() && s != 0.0 {
            let term = v / s * fingerprint_weight(x as u64);
            got += term;
            mag += term.abs();
        }
    }
    let want: f64 = r.fingerprints.iter().sum();
    mag += r.fingerprints.iter().map(|f| f.abs()).sum::<f64>();
    if close(got, want, mag) {
        Ok(())
    } else {
        Err(fail(format!(
            "the values add up to fingerprint {got}, the sources to {want}"
        )))
    }
}

/// The fingerprint of one contribution vector and its magnitude.
fn fingerprint(c: &[f64]) -> (f64, f64) {
    c.iter().enumerate().fold((0.0, 0.0), |(fp, mag), (x, &v)| {
        let t = v * fingerprint_weight(x as u64);
        (fp + t, mag + t.abs())
    })
}

/// One source's contribution (per vertex or per arc) by the textbook method.
fn contributions<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    s: VertexId,
    target: Target,
) -> Result<Vec<f64>> {
    let n = csr.num_vertices();
    let (key, settled) = settle(csr, w, s)?;
    // preds[x]: the DAG arcs (tail, arc index) into x.
    let mut preds: Vec<Vec<(VertexId, usize)>> = vec![Vec::new(); n];
    let t = csr.targets();
    for &v in &settled {
        let (dv, hv) = key[v as usize].expect("settled");
        let r = csr.row(v);
        for (i, (&x, c)) in r.clone().zip(t[r.clone()].iter().zip(w.row(r))) {
            if let (Some((dx, hx)), Some(d)) = (key[x as usize], dv.checked_add(c)) {
                if d == dx && (dv < dx || hv < hx) {
                    preds[x as usize].push((v, i));
                }
            }
        }
    }
    let mut sigma = vec![0.0; n];
    sigma[s as usize] = 1.0;
    for &x in &settled[1..] {
        sigma[x as usize] = preds[x as usize].iter().map(|p| sigma[p.0 as usize]).sum();
    }
    let len = if target == Target::Arcs {
        csr.num_arcs() as usize
    } else {
        n
    };
    let mut out = vec![0.0; len];
    let mut delta = vec![0.0; n];
    let endpoints = target == Target::Vertices { endpoints: true };
    for &x in settled.iter().rev() {
        let coeff = (1.0 + delta[x as usize]) / sigma[x as usize];
        for &(v, i) in &preds[x as usize] {
            let c = sigma[v as usize] * coeff;
            delta[v as usize] += c;
            if target == Target::Arcs {
                out[i] += c;
            }
        }
        if x != s && target != Target::Arcs {
            out[x as usize] += delta[x as usize] + if endpoints { 1.0 } else { 0.0 };
        }
    }
    if endpoints {
        out[s as usize] += (settled.len() - 1) as f64;
    }
    Ok(out)
}

/// Dijkstra on `(distance, hops)` from `s`: the final key of every vertex and the order
/// in which they settle.
#[allow(clippy::type_complexity)]
fn settle<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    s: VertexId,
) -> Result<(Vec<Option<(A::D, u32)>>, Vec<VertexId>)> {
    let n = csr.num_vertices();
    let mut key: Vec<Option<(A::D, u32)>> = vec![None; n];
    let mut best: Vec<Option<(A::D, u32)>> = vec![None; n];
    let mut settled = Vec::new();
    let mut heap = BinaryHeap::new();
    best[s as usize] = Some((A::D::ZERO, 0));
    heap.push(Reverse((A::D::ZERO.to_key(), 0u32, s)));
    let t = csr.targets();
    while let Some(Reverse((k, h, v))) = heap.pop() {
        let b = best[v as usize].expect("pushed");
        if key[v as usize].is_some() || (b.0.to_key(), b.1) != (k, h) {
            continue;
        }
        key[v as usize] = Some(b);
        settled.push(v);
        let r = csr.row(v);
        for (&x, c) in t[r.clone()].iter().zip(w.row(r)) {
            let d = b.0.checked_add(c).ok_or_else(|| {
                Error::Overflow(format!("a path through the arc {v} -> {x} is too long"))
            })?;
            let improves = match best[x as usize] {
                None => true,
                Some((bd, bh)) => d < bd || (d == bd && h + 1 < bh),
            };
            if key[x as usize].is_none() && improves {
                best[x as usize] = Some((d, h + 1));
                heap.push(Reverse((d.to_key(), h + 1, x)));
            }
        }
    }
    Ok((key, settled))
}

/// Closeness and harmonic checks: `value(order, dist)` from the vertices reaching each
/// sampled vertex and their distances must match the result.
fn check_scores<F>(
    g: &Graph,
    weighting: Weighting,
    r: &Scores,
    samples: usize,
    seed: u64,
    what: &str,
    value: F,
) -> Result<()>
where
    F: Fn(&[VertexId], &dyn Fn(VertexId) -> f64) -> f64,
{
    if r.values.len() != r.vertices.len() {
        return Err(fail(format!(
            "{} {what} values for {} vertices",
            r.values.len(),
            r.vertices.len()
        )));
    }
    let (csr, weights) = reversed(g, weighting);
    let picks = sample(r.vertices.len(), samples.min(r.vertices.len()), seed);
    dispatch!(weights, _unit, w => {
        for i in picks {
            let v = r.vertices[i as usize];
            let p = dijkstra_with(csr, w, v)?;
            let order: Vec<VertexId> = (0..csr.num_vertices() as VertexId)
                .filter(|&u| p.parent[u as usize] != NO_VERTEX)
                .collect();
            let want = value(&order, &|u| p.dist[u as usize].as_f64());
            let got = r.values[i as usize];
            if !close(got, want, want.abs()) {
                return Err(fail(format!(
                    "{what} of vertex {v} is {got}; recomputed, {want}"
                )));
            }
        }
    });
    Ok(())
}
