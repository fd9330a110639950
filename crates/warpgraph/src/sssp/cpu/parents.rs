//! A shortest-path tree from final distances, in parallel.
//!
//! The parallel variants (Bellman-Ford rounds, delta-stepping) lower distances with
//! compare-and-swap and leave parents to the end: once distances are final, an arc
//! `u -> v` is *tight* when `d(v) = d(u) + w(u, v)`, and every reached `v` other than the
//! source has a tight arc in (the last arc of a shortest path).
//!
//! - **Direct choice.** Each reached `v` takes the smallest `u` of a tight arc `u -> v`:
//!   pulled from `v`'s own row when the graph is symmetric (an undirected graph: its row
//!   lists its in-neighbours, sorted, so the first tight one is the smallest), or pushed
//!   with an atomic `fetch_min` from every reached `u` otherwise. When every chosen arc
//!   weighs more than 0, `d` strictly grows along parents and they form a tree.
//! - **Tight breadth-first search.** With arcs of weight <= 0 the tight arcs may hold
//!   cycles (two vertices at one distance joined by 0-weight arcs both ways), so the
//!   direct choice could pick a parent cycle. Then parents come from a level-synchronous
//!   BFS from the source over tight arcs only: `v` on level L + 1 takes the smallest tight
//!   in-neighbour on level L. Levels, and so parents, do not depend on thread timing.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::{add, ArcWeights, Sum};
use crate::error::Result;
use crate::graph::{Csr, Distance, VertexId, NO_VERTEX};
use crate::memory;

/// Whether `u -> v` of weight `x` is tight for `du = d(u)` (finite) and `dv = d(v)`.
#[inline(always)]
fn tight<D: Distance>(du: D, x: D, dv: D) -> bool {
    matches!(add(du, x), Sum::Val(s) if s == dv)
}

/// Parents for final distances `dist` from `source` (see the module docs).
pub(crate) fn derive<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    symmetric: bool,
    dist: &[A::D],
    source: VertexId,
) -> Result<Vec<VertexId>> {
    let n = csr.num_vertices();
    memory::check(
        || format!("the parent array for {n} vertices"),
        memory::bytes_for(n as u64, 8),
    )?;
    let inf = A::D::INFINITY;
    let t = csr.targets();
    let nonpositive = AtomicBool::new(false);
    let positive = w.all_positive();
    let parent: Vec<VertexId> = if symmetric {
        (0..n as VertexId)
            .into_par_iter()
            .with_min_len(1024)
            .map(|v| {
                let dv = dist[v as usize];
                if v == source {
                    return source;
                }
                if dv == inf {
                    return NO_VERTEX;
                }
                let r = csr.row(v);
                for (&u, x) in t[r.clone()].iter().zip(w.row(r)) {
                    let du = dist[u as usize];
                    if du != inf && tight(du, x, dv) {
                        if !positive && x <= A::D::ZERO {
                            nonpositive.store(true, Relaxed);
                        }
                        return u;
                    }
                }
                NO_VERTEX
            })
            .collect()
    } else {
        let parent: Vec<AtomicU32> = (0..n)
            .into_par_iter()
            .map(|_| AtomicU32::new(NO_VERTEX))
            .collect();
        (0..n as VertexId)
            .into_par_iter()
            .with_min_len(1024)
            .for_each(|u| {
                let du = dist[u as usize];
                if du == inf {
                    return;
                }
                let r = csr.row(u);
                for (&v, x) in t[r.clone()].iter().zip(w.row(r)) {
                    if v != source && tight(du, x, dist[v as usize]) {
                        if !positive && x <= A::D::ZERO {
                            nonpositive.store(true, Relaxed);
                        }
                        let p = &parent[v as usize];
                        if u < p.load(Relaxed) {
                            p.fetch_min(u, Relaxed);
                        }
                    }
                }
            });
        let mut parent: Vec<VertexId> = parent.into_par_iter().map(|p| p.into_inner()).collect();
        if let Some(p) = parent.get_mut(source as usize) {
            *p = source;
        }
        parent
    };
    if nonpositive.into_inner() {
        return tight_bfs(csr, w, dist, source);
    }
    Ok(parent)
}

/// Parents from a level-synchronous BFS over tight arcs (see the module docs).
fn tight_bfs<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    dist: &[A::D],
    source: VertexId,
) -> Result<Vec<VertexId>> {
    const UNSET: u32 = u32::MAX;
    let n = csr.num_vertices();
    memory::check(
        || format!("the tight-arc search's arrays for {n} vertices"),
        memory::bytes_for(n as u64, 4 + 4 + 8),
    )?;
    let t = csr.targets();
    let level: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNSET))
        .collect();
    let parent: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(NO_VERTEX))
        .collect();
    level[source as usize].store(0, Relaxed);
    parent[source as usize].store(source, Relaxed);
    let mut frontier = vec![source];
    let mut depth: u32 = 0;
    while !frontier.is_empty() {
        let next_level = depth + 1;
        let parts: Vec<Vec<VertexId>> = frontier
            .par_chunks(64)
            .fold(Vec::new, |mut next, chunk| {
                for &u in chunk {
                    let du = dist[u as usize];
                    let r = csr.row(u);
                    for (&v, x) in t[r.clone()].iter().zip(w.row(r)) {
                        if !tight(du, x, dist[v as usize]) {
                            continue;
                        }
                        let lv = &level[v as usize];
                        let mut l = lv.load(Relaxed);
                        if l == UNSET {
                            l = match lv.compare_exchange(UNSET, next_level, Relaxed, Relaxed) {
                                Ok(_) => {
                                    next.push(v);
                                    next_level
                                }
                                Err(now) => now,
                            };
                        }
                        if l == next_level {
                            parent[v as usize].fetch_min(u, Relaxed);
                        }
                    }
                }
                next
            })
            .collect();
        frontier = parts.concat();
        depth = next_level;
    }
    Ok(parent.into_par_iter().map(|p| p.into_inner()).collect())
}
