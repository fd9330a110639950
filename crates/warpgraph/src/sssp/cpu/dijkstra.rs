//! Dijkstra's algorithm with a binary heap: the serial, label-setting baseline.
//!
//! # What it computes
//! Shortest-path distances and a shortest-path tree from one source, for non-negative
//! weights.
//!
//! # Method
//! E. W. Dijkstra, "A note on two problems in connexion with graphs", Numerische
//! Mathematik 1 (1959); the heap form as in the Boost Graph Library's
//! `dijkstra_shortest_paths` and GAPBS's verifier (the CUDA SSSP thesis times its CUDA variants
//! against BGL). A `std::collections::BinaryHeap` of `(distance, vertex)` pairs, packed into one
//! `u128` (an order-preserving key of the distance, then the vertex), with *lazy
//! deletion*: an improved vertex is pushed again, and a popped pair whose distance is no
//! longer the vertex's is skipped. Each vertex is settled once, in order of distance, and
//! relaxes its arcs; the parent is set at every strict improvement, so a parent is always
//! settled before its child and the parents form a tree, zero-weight arcs included.
//!
//! A negative weight is refused when it is met
//! ([`Error::NegativeWeight`](crate::Error::NegativeWeight) naming the arc): arcs out of
//! vertices the source cannot reach are never looked at, and when none of the arcs relaxed
//! is negative the answer is exact.
//!
//! # Parallelism
//! None: this is the serial reference. Johnson's all-pairs method runs one per source in
//! parallel.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{
    add, check_inputs, check_unrepresentable, negative_weight, supported, ArcWeights, DistKey, Sum,
};
use crate::error::Result;
use crate::graph::{Csr, Distance, VertexId, Weight, NO_VERTEX};
use crate::memory;
use crate::sssp::ShortestPaths;

/// Dijkstra's algorithm with a binary heap, from `source`.
///
/// # Arguments
/// - `csr`: the outgoing arcs (for example `graph.out()`), satisfying [`Csr::validate`].
/// - `w`: one weight per arc, parallel to `csr.targets()`; they must be non-negative.
/// - `source`: the source vertex (internal id).
///
/// # Returns
/// Distances (`W::Dist`: `i64` for integer weights, `f64` for floats) and a shortest-path
/// tree.
///
/// # Errors
/// - [`Error::InvalidArgument`](crate::Error::InvalidArgument): `source` is not a vertex, or `w.len()` is not the number
///   of arcs.
/// - [`Error::NegativeWeight`](crate::Error::NegativeWeight): an arc reachable from `source` has a negative weight.
/// - [`Error::Overflow`](crate::Error::Overflow): a reachable distance does not fit in `W::Dist`.
/// - [`Error::OutOfMemory`](crate::Error::OutOfMemory): the distance and parent arrays would not fit.
///
/// # Complexity
/// O((n + m) log n) time, O(n + m) memory in the worst case (lazy deletion can hold one
/// heap entry per arc).
///
/// # Example
/// ```
/// use warpgraph::sssp::cpu::dijkstra;
/// use warpgraph::{BuildOptions, EdgeList, Weights, NO_VERTEX};
/// //  0 --5--> 1
/// //  |        ^
/// //  1        1
/// //  v        |
/// //  2 --1--> 3        4 (unreachable)
/// let g = EdgeList::new(5, vec![0, 0, 2, 3], vec![1, 2, 3, 1], Weights::from(vec![5i32, 1, 1, 1]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let w = g.out().weights().as_slice::<i32>().unwrap();
/// let p = dijkstra(g.out(), w, 0).unwrap();
/// assert_eq!(p.dist, vec![0, 3, 1, 2, i64::MAX]);
/// assert_eq!(p.parent, vec![0, 3, 0, 2, NO_VERTEX]);
/// assert_eq!(p.reached(), 4);
/// ```
pub fn dijkstra<W: Weight>(csr: &Csr, w: &[W], source: VertexId) -> Result<ShortestPaths<W::Dist>> {
    check_inputs(csr, Some(w.len()), Some(source))?;
    dijkstra_with(csr, w, source)
}

/// [`dijkstra`] over any [`ArcWeights`] (lengths already checked).
pub(crate) fn dijkstra_with<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    source: VertexId,
) -> Result<ShortestPaths<A::D>> {
    dijkstra_until(csr, w, source, None)
}

/// The vertices whose distances a search must settle before it may stop early.
pub(crate) struct Targets {
    /// Whether each vertex is one.
    marked: Vec<bool>,
    /// How many distinct vertices are marked.
    count: usize,
}

impl Targets {
    /// The distinct vertices of `list`, all below `n`.
    pub(crate) fn new(n: usize, list: &[VertexId]) -> Targets {
        let mut marked = vec![false; n];
        let mut count = 0;
        for &t in list {
            let m = &mut marked[t as usize];
            count += usize::from(!*m);
            *m = true;
        }
        Targets { marked, count }
    }
}

/// [`dijkstra_with`], stopping as soon as every one of `targets` is settled: their
/// distances and parents are then final, those of other vertices may not be.
pub(crate) fn dijkstra_until<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    source: VertexId,
    targets: Option<&Targets>,
) -> Result<ShortestPaths<A::D>> {
    supported::<A::D>()?;
    check_inputs(csr, w.len(), Some(source))?;
    let n = csr.num_vertices();
    memory::check(
        || format!("Dijkstra's distance and parent arrays for {n} vertices"),
        memory::bytes_for(n as u64, std::mem::size_of::<A::D>() + 4),
    )?;
    let mut dist = vec![A::D::INFINITY; n];
    let mut parent = vec![NO_VERTEX; n];
    let t = csr.targets();
    let s = source as usize;
    dist[s] = A::D::ZERO;
    parent[s] = source;
    let mut heap = BinaryHeap::new();
    // Entries `(key << 32) | vertex` for the order-preserving key of the distance: one
    // integer comparison orders by distance, then by vertex.
    let entry = |d: A::D, v: VertexId| Reverse((d.to_key() as u128) << 32 | v as u128);
    heap.push(entry(A::D::ZERO, source));
    let mut over = false;
    let mut left = targets.map_or(usize::MAX, |t| t.count);
    while let Some(Reverse(x)) = heap.pop() {
        let (d, u) = (A::D::from_key((x >> 32) as u64), x as u32);
        if d > dist[u as usize] {
            continue; // a stale entry: u was improved after this was pushed
        }
        if let Some(targets) = targets {
            if targets.marked[u as usize] {
                left -= 1;
            }
            if left == 0 {
                break;
            }
        }
        let r = csr.row(u);
        for (&v, x) in t[r.clone()].iter().zip(w.row(r)) {
            if x < A::D::ZERO {
                return Err(negative_weight("dijkstra", u, v, x));
            }
            match add(d, x) {
                Sum::Val(nd) => {
                    let dv = &mut dist[v as usize];
                    if nd < *dv {
                        *dv = nd;
                        parent[v as usize] = u;
                        heap.push(entry(nd, v));
                    }
                }
                Sum::Over => over = true,
                Sum::Under => return Err(super::underflow::<A::D>(v)),
            }
        }
    }
    // (A search that stopped early settled every target: an overflow elsewhere is moot.)
    if over && left != 0 {
        check_unrepresentable(csr, &dist)?;
    }
    Ok(ShortestPaths {
        source,
        dist,
        parent,
    })
}
