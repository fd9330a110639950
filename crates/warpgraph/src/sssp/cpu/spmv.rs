//! Bellman-Ford as repeated (min, +) sparse matrix-vector products (the CUDA SSSP
//! thesis's SpMV variants), in CSR and in ELL.
//!
//! # What it computes
//! Shortest-path distances and a tree from one source, for any weights, or the negative
//! cycle that makes them undefined.
//!
//! # Method
//! With A the weighted adjacency matrix, each round computes d' = min(d, A^T (min,+) d):
//! every vertex v pulls `min over in-arcs u -> v of d(u) + w` from the previous round's
//! vector (Jacobi: the new vector is written beside the old one, as a matrix-vector
//! product does). Rounds stop when a product changes nothing; a change in round n proves
//! a negative cycle, which [`super::bellman_ford`] then names.
//! - **CSR**: rows are the incoming arcs of each vertex, as stored.
//! - **ELL**: every row padded to the longest one and stored column by column (entry k of
//!   every row, then entry k + 1, ...), the GPU-friendly layout of the CUDA SSSP thesis. Its size is
//!   n times the longest row: [`ell_plan`] computes it first and refuses a layout that
//!   would take more than four times the CSR's arcs (skewed graphs: a Kronecker graph's
//!   longest row is thousands of times its mean).
//!
//! Parents are derived from the final distances ([`super::parents`]).

use rayon::prelude::*;

use super::{add, check_unrepresentable, parents, underflow, ArcWeights, Sum};
use crate::error::{fmt_bytes, Error, Result};
use crate::graph::{Csr, Distance, VertexId, NO_VERTEX};
use crate::memory;
use crate::sssp::ShortestPaths;

/// The ELL layout of `csr`'s rows: column-major, `width` entries a row, padded with
/// [`NO_VERTEX`] (weights of padding unspecified).
pub(crate) struct Ell {
    /// Entries per row (the longest row).
    pub width: usize,
    /// `idx[k * n + v]`: the k-th neighbour of row v, or [`NO_VERTEX`].
    pub idx: Vec<VertexId>,
    /// `arc[k * n + v]`: the arc number of that entry in the CSR (its weight's index).
    pub arc: Vec<u64>,
}

/// Entries (with padding) of `csr` in ELL, or the error that refuses it: more than four
/// times the arcs (and more than 2^20 entries, so that small graphs always fit).
pub(crate) fn ell_plan(csr: &Csr) -> Result<usize> {
    let n = csr.num_vertices();
    let width = (0..n as VertexId)
        .into_par_iter()
        .map(|v| csr.degree(v))
        .max()
        .unwrap_or(0) as usize;
    let entries = n.saturating_mul(width);
    let arcs = csr.targets().len();
    if entries > (4 * arcs).max(1 << 20) {
        return Err(Error::InvalidArgument(format!(
            "spmv-ell would pad every row to the longest ({width} arcs; the mean is {:.1}): \
             {entries} entries, {:.0} times the {arcs} arcs ({} of indices alone); use spmv-csr",
            arcs as f64 / n.max(1) as f64,
            entries as f64 / arcs.max(1) as f64,
            fmt_bytes(4 * entries as u64)
        )));
    }
    Ok(entries)
}

/// Builds the ELL layout of `csr` (after [`ell_plan`] accepted it).
pub(crate) fn ell(csr: &Csr) -> Result<Ell> {
    let entries = ell_plan(csr)?;
    memory::check(
        || format!("the ELL layout of {entries} entries"),
        memory::bytes_for(entries as u64, 12),
    )?;
    let n = csr.num_vertices();
    let width = entries.checked_div(n).unwrap_or(0);
    let mut idx = vec![NO_VERTEX; entries];
    let mut arc = vec![0u64; entries];
    let t = csr.targets();
    for v in 0..n {
        for (k, a) in csr.row(v as VertexId).enumerate() {
            idx[k * n + v] = t[a];
            arc[k * n + v] = a as u64;
        }
    }
    Ok(Ell { width, idx, arc })
}

/// SpMV Bellman-Ford from `source` over the incoming arcs `inc` (weights `w_in`); parents
/// from the outgoing arcs `out` (weights `w_out`). With `ell`, the products run over the
/// ELL layout of `inc`.
pub(crate) fn spmv_with<A: ArcWeights + ?Sized>(
    out: &Csr,
    w_out: &A,
    inc: &Csr,
    w_in: &A,
    symmetric: bool,
    source: VertexId,
    ell_layout: bool,
) -> Result<ShortestPaths<A::D>> {
    let n = inc.num_vertices();
    memory::check(
        || format!("two distance vectors of {n} vertices"),
        memory::bytes_for(n as u64, 16),
    )?;
    let inf = A::D::INFINITY;
    let layout = if ell_layout { Some(ell(inc)?) } else { None };
    let t = inc.targets();
    let mut d = vec![inf; n];
    d[source as usize] = A::D::ZERO;
    let mut next = d.clone();
    let mut overflow = false;
    for round in 1.. {
        // One product: every row pulls from the previous vector.
        let (changed, over, under) = next
            .par_iter_mut()
            .enumerate()
            .with_min_len(1024)
            .map(|(v, out_v)| {
                let mut best = d[v];
                let (mut over, mut under) = (false, false);
                let mut take = |u: VertexId, x: A::D| {
                    let du = d[u as usize];
                    if du == inf {
                        return;
                    }
                    match add(du, x) {
                        Sum::Val(s) if s < best => best = s,
                        Sum::Val(_) => {}
                        Sum::Over => over = true,
                        Sum::Under => under = true,
                    }
                };
                match &layout {
                    Some(e) => {
                        for k in 0..e.width {
                            let u = e.idx[k * n + v];
                            if u == NO_VERTEX {
                                break;
                            }
                            let a = e.arc[k * n + v] as usize;
                            take(u, w_in.get(a).unwrap_or(A::D::ZERO));
                        }
                    }
                    None => {
                        let r = inc.row(v as VertexId);
                        for (x, a) in w_in.row(r.clone()).zip(r) {
                            take(t[a], x);
                        }
                    }
                }
                *out_v = best;
                let low = if under { v as VertexId } else { NO_VERTEX };
                (best < d[v], over, low)
            })
            .reduce(
                || (false, false, NO_VERTEX),
                |a, b| (a.0 || b.0, a.1 || b.1, a.2.min(b.2)),
            );
        if under != NO_VERTEX {
            return Err(underflow::<A::D>(under));
        }
        overflow |= over;
        std::mem::swap(&mut d, &mut next);
        if !changed {
            break;
        }
        next.copy_from_slice(&d);
        if round >= n {
            // A change in round n: a negative cycle, which Bellman-Ford names.
            return super::bellman_ford_with(out, w_out, symmetric, source);
        }
    }
    if overflow {
        // A sum that did not fit was dropped: harmless unless a distance does not fit.
        check_unrepresentable(out, &d)?;
    }
    let parent = parents::derive(out, w_out, symmetric, &d, source)?;
    Ok(ShortestPaths {
        source,
        dist: d,
        parent,
    })
}
