//! Parallel Bellman-Ford rounds, and Johnson's potentials.
//!
//! # What it computes
//! [`bellman_ford`]: shortest-path distances and a shortest-path tree from one source, for
//! any weights, or the negative cycle that makes them undefined.
//! [`bellman_ford_potentials`]: distances from a virtual source joined to every vertex by a
//! 0-weight arc (Johnson, "Efficient algorithms for shortest paths in sparse networks",
//! JACM 24, 1977, as the GPU Johnson article uses it), so that `w(u, v) + h(u) - h(v) >= 0` on every arc, or a
//! negative cycle anywhere in the graph.
//!
//! # Method
//! Bellman (1958), Ford (1956); the CUDA SSSP thesis's Algorithm 2 ("relax every edge,
//! n - 1 rounds, stop early when nothing changed") and the GPU Johnson article's
//! vertex-parallel form. Each round
//! relaxes the out-arcs of the vertices whose distance changed in the previous round (the
//! *frontier*; round 1 has the source, or every vertex for the potentials), which does the
//! same work as relaxing every arc minus arcs whose tail did not change.
//!
//! After round k every distance is at most the lightest walk of at most k arcs (a
//! vertex whose distance last fell in round j is in frontier j + 1 and pushes that value),
//! so without a negative cycle nothing changes after round n - 1, and **a change in round n
//! proves a negative cycle** (n = vertex count). The cycle is then extracted by
//! [`super::bellman_ford_queue`]'s serial work-list, whose parent graph is guaranteed to
//! close the cycle (see that module); it is reported in order with its weight.
//!
//! **Parents** are not tracked during the rounds (concurrent improvements would race on
//! them); they are derived from the final distances, as for delta-stepping
//! ([`super::parents`]): the smallest `u` with `d(v) = d(u) + w(u, v)`, or, when arcs of
//! weight <= 0 could close a cycle of such "tight" arcs, a breadth-first search over the
//! tight arcs.
//!
//! # Parallelism
//! Rayon over the frontier in chunks of 64 vertices, each chunk its own task (so that a
//! thread descheduled on a busy machine holds up one chunk, not half the round: on the
//! shared 2-core machine rounds otherwise took up to 2.5 times longer now and then);
//! distances are `AtomicU64` holding order-preserving keys ([`super::DistKey`]), lowered by
//! compare-and-swap; a per-vertex round stamp (swapped when a vertex improves) puts each
//! vertex in the next frontier once. Rounds are separated by the end of the parallel loop.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::bellman_ford_queue::{queue_core, Start};
use super::{
    add, check_inputs, check_unrepresentable, in_pool, parents, supported, ArcWeights, DistKey, Sum,
};
use crate::error::Result;
use crate::graph::{Csr, Distance, VertexId, Weight, NO_VERTEX};
use crate::memory;
use crate::sssp::ShortestPaths;

/// Frontier vertices per parallel task.
const CHUNK: usize = 64;

/// Parallel Bellman-Ford from `source`.
///
/// # Arguments
/// - `csr`: the outgoing arcs, satisfying [`Csr::validate`].
/// - `w`: one weight per arc, parallel to `csr.targets()`; any sign.
/// - `source`: the source vertex (internal id).
///
/// # Returns
/// Distances and a shortest-path tree (parents derived from the distances: for each
/// vertex the smallest tail of a tight arc, see the module docs).
///
/// # Errors
/// - [`Error::InvalidArgument`](crate::Error::InvalidArgument): `source` is not a vertex,
///   or `w.len()` is not the number of arcs.
/// - [`Error::NegativeCycle`](crate::Error::NegativeCycle): a negative cycle is reachable
///   from `source`; the error lists it in order, with its weight.
/// - [`Error::Overflow`](crate::Error::Overflow): a reachable distance does not fit.
/// - [`Error::OutOfMemory`](crate::Error::OutOfMemory): the working arrays would not fit.
///
/// # Complexity
/// O(n m) work in the worst case, O(m) per round, at most n rounds; O(n) memory.
///
/// # Example
/// ```
/// use warpgraph::sssp::cpu::bellman_ford;
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// //  0 --3--> 1
/// //  |        |
/// //  5      (-4)
/// //  v        v
/// //  2 <------+
/// let g = EdgeList::new(3, vec![0, 0, 1], vec![1, 2, 2], Weights::from(vec![3.0f64, 5.0, -4.0]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let w = g.out().weights().as_slice::<f64>().unwrap();
/// let p = bellman_ford(g.out(), w, 0).unwrap();
/// assert_eq!(p.dist, vec![0.0, 3.0, -1.0]);
/// assert_eq!(p.parent, vec![0, 0, 1]);
/// ```
pub fn bellman_ford<W: Weight>(
    csr: &Csr,
    w: &[W],
    source: VertexId,
) -> Result<ShortestPaths<W::Dist>> {
    check_inputs(csr, Some(w.len()), Some(source))?;
    bellman_ford_with(csr, w, false, source)
}

/// [`bellman_ford`] over any [`ArcWeights`]; `symmetric` says that every arc has its
/// reverse of equal weight (an undirected graph), which lets parents be pulled.
pub(crate) fn bellman_ford_with<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    symmetric: bool,
    source: VertexId,
) -> Result<ShortestPaths<A::D>> {
    check_inputs(csr, w.len(), Some(source))?;
    match rounds(csr, w, Start::Source(source))? {
        Some(dist) => {
            let parent = parents::derive(csr, w, symmetric, &dist, source)?;
            Ok(ShortestPaths {
                source,
                dist,
                parent,
            })
        }
        None => {
            let (dist, parent) = queue_core(csr, w, Start::Source(source))?;
            Ok(ShortestPaths {
                source,
                dist,
                parent,
            })
        }
    }
}

/// Johnson's potentials: shortest distances from a virtual source joined to every vertex
/// by a 0-weight arc, by parallel Bellman-Ford.
///
/// # Arguments
/// - `csr`: the outgoing arcs, satisfying [`Csr::validate`].
/// - `w`: one weight per arc, parallel to `csr.targets()`; any sign.
///
/// # Returns
/// `h` with `h[v] <= 0` for every vertex and `w(u, v) + h[u] - h[v] >= 0` for every arc
/// `u -> v`: the reweighting under which Dijkstra finds the same shortest paths.
///
/// # Errors
/// - [`Error::InvalidArgument`](crate::Error::InvalidArgument): `w.len()` is not the
///   number of arcs.
/// - [`Error::NegativeCycle`](crate::Error::NegativeCycle): the graph has a negative cycle
///   (anywhere); the error lists it in order, with its weight.
/// - [`Error::Overflow`](crate::Error::Overflow): a potential does not fit.
/// - [`Error::OutOfMemory`](crate::Error::OutOfMemory): the working arrays would not fit.
///
/// # Complexity
/// O(n m) work in the worst case, at most n rounds of O(m); O(n) memory.
///
/// # Example
/// ```
/// use warpgraph::sssp::cpu::bellman_ford_potentials;
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 0 --2--> 1 --(-3)--> 2      3
/// let g = EdgeList::new(4, vec![0, 1], vec![1, 2], Weights::from(vec![2i32, -3]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let w = g.out().weights().as_slice::<i32>().unwrap();
/// let h = bellman_ford_potentials(g.out(), w).unwrap();
/// assert_eq!(h, vec![0, 0, -3, 0]);
/// ```
pub fn bellman_ford_potentials<W: Weight>(csr: &Csr, w: &[W]) -> Result<Vec<W::Dist>> {
    check_inputs(csr, Some(w.len()), None)?;
    potentials_with(csr, w)
}

/// [`bellman_ford_potentials`] over any [`ArcWeights`].
pub(crate) fn potentials_with<A: ArcWeights + ?Sized>(csr: &Csr, w: &A) -> Result<Vec<A::D>> {
    match rounds(csr, w, Start::Everywhere)? {
        Some(h) => Ok(h),
        None => queue_core(csr, w, Start::Everywhere).map(|(h, _)| h),
    }
}

/// The parallel rounds: `Some(distances)`, or `None` when round n still changed something
/// (a negative cycle).
fn rounds<A: ArcWeights + ?Sized>(csr: &Csr, w: &A, start: Start) -> Result<Option<Vec<A::D>>> {
    in_pool(|| rounds_in_pool(csr, w, start))
}

/// [`rounds`], on a thread of the pool.
fn rounds_in_pool<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    start: Start,
) -> Result<Option<Vec<A::D>>> {
    supported::<A::D>()?;
    let n = csr.num_vertices();
    memory::check(
        || format!("Bellman-Ford's distance, stamp and frontier arrays for {n} vertices"),
        memory::bytes_for(n as u64, 8 + 4 + 2 * 4 + std::mem::size_of::<A::D>()),
    )?;
    let t = csr.targets();
    let inf = A::D::INFINITY.to_key();
    let zero = A::D::ZERO.to_key();
    let init = if start == Start::Everywhere {
        zero
    } else {
        inf
    };
    let dist: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(init))
        .collect();
    let stamp: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let mut frontier: Vec<VertexId> = match start {
        Start::Source(s) => {
            dist[s as usize].store(zero, Relaxed);
            vec![s]
        }
        Start::Everywhere => (0..n as VertexId).collect(),
    };
    let over = AtomicBool::new(false);
    let under = AtomicU32::new(NO_VERTEX);
    let mut round: u64 = 0;
    while !frontier.is_empty() {
        round += 1;
        if round > n as u64 {
            return Ok(None); // round n changed something (the frontier of round n + 1)
        }
        // A vertex improved in this round enters the next frontier once: the first to swap
        // its stamp to this round's number pushes it (rounds run 1..=n, so never 0).
        let next_stamp = round as u32;
        let parts: Vec<Vec<VertexId>> = frontier
            .par_chunks(CHUNK)
            .with_max_len(1)
            .fold(Vec::new, |mut next, chunk| {
                for &u in chunk {
                    let du = A::D::from_key(dist[u as usize].load(Relaxed));
                    let r = csr.row(u);
                    for (&v, x) in t[r.clone()].iter().zip(w.row(r)) {
                        let nd = match add(du, x) {
                            Sum::Val(nd) => nd,
                            Sum::Over => {
                                over.store(true, Relaxed);
                                continue;
                            }
                            Sum::Under => {
                                under.store(v, Relaxed);
                                continue;
                            }
                        };
                        let nk = nd.to_key();
                        let slot = &dist[v as usize];
                        let mut old = slot.load(Relaxed);
                        while nk < old {
                            match slot.compare_exchange_weak(old, nk, Relaxed, Relaxed) {
                                Ok(_) => {
                                    if stamp[v as usize].swap(next_stamp, Relaxed) != next_stamp {
                                        next.push(v);
                                    }
                                    break;
                                }
                                Err(k) => old = k,
                            }
                        }
                    }
                }
                next
            })
            .collect();
        let u = under.load(Relaxed);
        if u != NO_VERTEX {
            return Err(super::underflow::<A::D>(u));
        }
        frontier = parts.concat();
    }
    let dist: Vec<A::D> = dist
        .into_par_iter()
        .map(|k| A::D::from_key(k.into_inner()))
        .collect();
    if over.load(Relaxed) {
        check_unrepresentable(csr, &dist)?;
    }
    Ok(Some(dist))
}
