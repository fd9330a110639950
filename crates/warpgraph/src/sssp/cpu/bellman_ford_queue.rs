//! Queue-based Bellman-Ford with the SLF and LLL heuristics, serial.
//!
//! # What it computes
//! Shortest-path distances and a shortest-path tree from one source, for any weights;
//! a negative cycle reachable from the source is reported instead
//! ([`Error::NegativeCycle`](crate::Error::NegativeCycle), with the cycle).
//!
//! # Method
//! The label-correcting work-list method (Moore 1959; "Bellman-Ford with a queue", the CUDA
//! SSSP thesis's circular-queue variant): only vertices whose distance changed are scanned
//! again. The work-list is a deque with an in-queue flag per vertex, so a vertex is queued
//! at most once at a time, and two ordering heuristics from the shortest-path literature
//! that the thesis cites (Bertsekas, "A simple and fast label correcting algorithm for
//! shortest paths", Networks 23, 1993; Bertsekas, Guerriero and Musmanno, "Parallel
//! asynchronous label-correcting methods for shortest paths", JOTA 88, 1996):
//! - **SLF** (small label first): a vertex entering the queue goes to the front when its
//!   label is smaller than the front's, else to the back;
//! - **LLL** (large label last): before taking the front, fronts whose label exceeds the
//!   mean label of the queue are moved to the back (at most one pass over the queue).
//!
//! **Negative cycles.** Every relaxation sets the parent of the improved vertex, so each
//! parent cycle ever formed is a negative cycle (Cormen et al., *Introduction to
//! Algorithms*, lemma 24.16). The number of improvements of each vertex is counted; when
//! one exceeds n (impossible for FIFO order without a negative cycle), the parent graph is
//! searched for a cycle in O(n); a cycle found is reported, otherwise (SLF and LLL can
//! exceed the FIFO bound without a cycle) that vertex's count restarts. This always ends:
//! with a reachable negative cycle distances fall without bound, and once one falls below
//! the lightest simple path the parent graph holds a cycle for good.
//!
//! # Parallelism
//! None; [`super::bellman_ford`] is the parallel variant.

use std::collections::VecDeque;

use super::{
    add, check_inputs, check_unrepresentable, negative_cycle, parent_cycle, supported, ArcWeights,
    Sum,
};
use crate::error::Result;
use crate::graph::{Csr, Distance, VertexId, Weight, NO_VERTEX};
use crate::memory;
use crate::sssp::ShortestPaths;

/// Where the search starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Start {
    /// From one source (distance 0, every other vertex unreached).
    Source(VertexId),
    /// From a virtual source joined to every vertex by a 0-weight arc: every distance
    /// starts at 0 and parents start empty (Johnson's potentials).
    Everywhere,
}

/// Bellman-Ford with an SLF/LLL deque, from `source`.
///
/// # Arguments
/// - `csr`: the outgoing arcs, satisfying [`Csr::validate`].
/// - `w`: one weight per arc, parallel to `csr.targets()`; any sign.
/// - `source`: the source vertex (internal id).
///
/// # Returns
/// Distances and a shortest-path tree.
///
/// # Errors
/// - [`Error::InvalidArgument`](crate::Error::InvalidArgument): `source` is not a vertex, or `w.len()` is not the number
///   of arcs.
/// - [`Error::NegativeCycle`](crate::Error::NegativeCycle): a negative cycle is reachable from `source` (the error lists
///   its vertices in order and its weight).
/// - [`Error::Overflow`](crate::Error::Overflow): a reachable distance does not fit in `W::Dist`.
/// - [`Error::OutOfMemory`](crate::Error::OutOfMemory): the working arrays would not fit.
///
/// # Complexity
/// O(n m) time in the worst case for FIFO order; the heuristics usually do far better, but
/// label-correcting orders have exponential worst cases. O(n) memory.
///
/// # Example
/// ```
/// use warpgraph::sssp::cpu::bellman_ford_queue;
/// use warpgraph::{BuildOptions, EdgeList, Error, Weights};
/// // 0 --4--> 1 --(-3)--> 2 --3--> 1   (the cycle 1 -> 2 -> 1 weighs 0)
/// let g = EdgeList::new(3, vec![0, 1, 2], vec![1, 2, 1], Weights::from(vec![4i32, -3, 3]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let w = g.out().weights().as_slice::<i32>().unwrap();
/// let p = bellman_ford_queue(g.out(), w, 0).unwrap();
/// assert_eq!(p.dist, vec![0, 4, 1]);
/// assert_eq!(p.parent, vec![0, 0, 1]);
/// // Make 2 -> 1 weigh -1: the cycle 1 -> 2 -> 1 weighs -4.
/// let w2 = [4i32, -3, -1];
/// match bellman_ford_queue(g.out(), &w2, 0) {
///     Err(Error::NegativeCycle { cycle, weight }) => {
///         assert_eq!(cycle, vec![1, 2]);
///         assert_eq!(weight, "-4");
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn bellman_ford_queue<W: Weight>(
    csr: &Csr,
    w: &[W],
    source: VertexId,
) -> Result<ShortestPaths<W::Dist>> {
    check_inputs(csr, Some(w.len()), Some(source))?;
    bellman_ford_queue_with(csr, w, source)
}

/// [`bellman_ford_queue`] over any [`ArcWeights`].
pub(crate) fn bellman_ford_queue_with<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    source: VertexId,
) -> Result<ShortestPaths<A::D>> {
    check_inputs(csr, w.len(), Some(source))?;
    let (dist, parent) = queue_core(csr, w, Start::Source(source))?;
    Ok(ShortestPaths {
        source,
        dist,
        parent,
    })
}

/// Moves fronts whose label exceeds the queue's mean label to the back (LLL), then pops.
#[inline]
fn pop_lll<D: Distance>(q: &mut VecDeque<VertexId>, dist: &[D], sum: f64) -> Option<VertexId> {
    let len = q.len();
    if len > 1 {
        let mean = sum / len as f64;
        for _ in 0..len {
            match q.front() {
                Some(&f) if dist[f as usize].as_f64() > mean => q.rotate_left(1),
                _ => break,
            }
        }
    }
    q.pop_front()
}

/// The work-list algorithm; returns distances and parents (`parent[source] == source` for
/// [`Start::Source`]; with [`Start::Everywhere`] vertices never improved keep
/// [`NO_VERTEX`]).
pub(crate) fn queue_core<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    start: Start,
) -> Result<(Vec<A::D>, Vec<VertexId>)> {
    supported::<A::D>()?;
    let n = csr.num_vertices();
    memory::check(
        || format!("Bellman-Ford's work-list arrays for {n} vertices"),
        memory::bytes_for(n as u64, std::mem::size_of::<A::D>() + 4 + 4 + 4 + 1),
    )?;
    let t = csr.targets();
    let mut dist = vec![A::D::INFINITY; n];
    let mut parent = vec![NO_VERTEX; n];
    let mut count = vec![0u32; n];
    let mut queued = vec![false; n];
    let mut q: VecDeque<VertexId> = VecDeque::new();
    match start {
        Start::Source(s) => {
            dist[s as usize] = A::D::ZERO;
            queued[s as usize] = true;
            q.push_back(s);
        }
        Start::Everywhere => {
            dist.fill(A::D::ZERO);
            queued.fill(true);
            q.extend(0..n as VertexId);
        }
    }
    // Improvements of one vertex after which the parent graph is searched for a cycle.
    let limit = n.min(u32::MAX as usize - 1) as u32;
    let mut sum = 0.0f64; // sum of the labels in the queue, for LLL
    let mut over = false;
    while let Some(u) = pop_lll(&mut q, &dist, sum) {
        let ui = u as usize;
        queued[ui] = false;
        let du = dist[ui];
        sum = if q.is_empty() { 0.0 } else { sum - du.as_f64() };
        let r = csr.row(u);
        for (&v, x) in t[r.clone()].iter().zip(w.row(r)) {
            let vi = v as usize;
            let nd = match add(du, x) {
                Sum::Val(nd) => nd,
                Sum::Over => {
                    over = true;
                    continue;
                }
                Sum::Under => return Err(super::underflow::<A::D>(v)),
            };
            let old = dist[vi];
            if nd >= old {
                continue;
            }
            dist[vi] = nd;
            parent[vi] = u;
            if queued[vi] {
                sum += nd.as_f64() - old.as_f64();
            } else {
                queued[vi] = true;
                sum += nd.as_f64();
                match q.front() {
                    Some(&f) if nd < dist[f as usize] => q.push_front(v),
                    _ => q.push_back(v),
                }
            }
            count[vi] += 1;
            if count[vi] > limit {
                if let Some(e) = parent_cycle(&parent).and_then(|c| negative_cycle(csr, w, c)) {
                    return Err(e);
                }
                count[vi] = 0;
            }
        }
    }
    if let Start::Source(s) = start {
        parent[s as usize] = s;
        if over {
            check_unrepresentable(csr, &dist)?;
        }
    }
    Ok((dist, parent))
}
