//! The finished matrix to the sink: rows converted to the sink's distance type in blocks
//! of 64, and each row's predecessors checked for a cycle and, with one, rebuilt as a
//! breadth-first tree of tight arcs.

use rayon::prelude::*;

use super::cell::{Cell, OutDist, T};
use super::plan::tolerance;
use crate::apsp::{RowBlock, RowSink};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId, Weight, NO_VERTEX};
use crate::with_weights;

/// Hands the rows of `d` (whole rows of `big` cells of the `n`-vertex matrix, the first
/// one row `from`; rows from `n` on are padding) and of the predecessors `p` to the sink in
/// blocks of at most `T`, converted to the sink's type.
pub(super) fn emit<C: Cell>(
    g: &Graph,
    (d, p): (&[C], Option<&[u32]>),
    from: usize,
    (n, big): (usize, usize),
    thr: C,
    sink: &mut dyn RowSink,
) -> Result<()> {
    let tol = tolerance(g);
    let end = (from + d.len() / big).min(n);
    let mut out: Vec<C::Out> = Vec::with_capacity(T.min(n) * n);
    let mut pout: Vec<u32> = Vec::with_capacity(if p.is_some() { T.min(n) * n } else { 0 });
    for first in (from..end).step_by(T) {
        let rows = T.min(end - first);
        out.clear();
        out.resize(rows * n, C::OUT_INF);
        let bad = out.par_chunks_mut(n).enumerate().find_map_any(|(i, orow)| {
            let s = first + i;
            let drow = &d[(s - from) * big..(s - from) * big + n];
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
                    let at = (s - from) * big;
                    let (prow, drow) = (&p[at..at + n], &d[at..at + n]);
                    for ((o, &x), &dist) in orow.iter_mut().zip(prow).zip(drow) {
                        *o = if dist >= thr { NO_VERTEX } else { x };
                    }
                    if !pred_tree_ok(s, orow) {
                        tight_tree::<C::Out>(g, s, dout, orow, tol);
                    }
                });
        }
        sink.rows(&RowBlock {
            first,
            row_len: n,
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
