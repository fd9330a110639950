//! Kruskal's minimum spanning forest: the serial baseline.
//!
//! **Computes** the minimum spanning forest under the family's total order
//! `(weight, smaller endpoint, larger endpoint)`.
//!
//! **Method** (Kruskal, "On the shortest spanning subtree of a graph and the traveling
//! salesman problem", Proc. AMS 7, 1956): list every edge once as a 128-bit key
//! `weight key << 64 | u << 32 | v` (`u < v`; an undirected graph's arc `u -> v` with
//! `u < v`, every non-loop arc of a directed graph), sort the keys, and scan them in order,
//! adding each edge whose ends are in different trees of a union-find forest (union by
//! rank, path halving; Tarjan, "Efficiency of a good but not linear set union algorithm",
//! JACM 1975). The scan stops once `n - 1` edges are in. The sorted order is the output
//! order, so the forest needs no final sort.
//!
//! **Parallelisation**: building and sorting the keys run on every core (rayon's parallel
//! pattern-defeating quicksort); the union-find scan is serial.

use rayon::prelude::*;

use super::super::order::{with_arc_weights, ArcWeights, EdgeWeight};
use super::super::{assemble, SpanningForest};
use crate::error::Result;
use crate::graph::{Graph, VertexId};
use crate::memory;

/// Kruskal's minimum spanning forest: sort every edge by the family's total order
/// (a parallel sort of 128-bit keys), then add each edge that joins two trees of a
/// union-find forest (a serial pass).
///
/// # Arguments
/// - `g`: any graph (directed graphs are read as undirected, unweighted ones weigh 1 per
///   edge, self loops are ignored).
///
/// # Returns
/// The [`SpanningForest`], identical to [`boruvka`](super::boruvka)'s.
///
/// # Errors
/// [`Error::Overflow`](crate::Error::Overflow) when the total does not fit;
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the key array (16 bytes per
/// edge, twice while it is built) does not fit.
///
/// # Complexity
/// O(m log m) for the sort (parallel), then O(m α(n)) for the serial scan; O(m) memory.
///
/// # Example
/// ```
/// use warpgraph::mst::cpu;
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// // A square 0-1-2-3-0 with weights 1, 2, 1, 2: ties are broken by the endpoints, so
/// // of the two weight-2 edges {1, 2} and {0, 3}, {0, 3} comes first.
/// let g = EdgeList::new(4, vec![0, 1, 2, 3], vec![1, 2, 3, 0],
///     Weights::I64(vec![1, 2, 1, 2].into())).unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let forest = cpu::kruskal(&g).unwrap();
/// assert_eq!(forest.edges, vec![(0, 1), (2, 3), (0, 3)]);
/// assert_eq!(forest.components, 1);
/// ```
pub fn kruskal(g: &Graph) -> Result<SpanningForest> {
    with_arc_weights!(g.out().weights(), w => run(g, w))
}

fn run<A: ArcWeights>(g: &Graph, w: A) -> Result<SpanningForest> {
    let n = g.num_vertices();
    let out = g.out();
    let directed = g.is_directed();
    // The arcs that stand for edges: each undirected edge once, every directed non-loop arc.
    let first = |u: VertexId| {
        let row = out.neighbors(u);
        if directed {
            0
        } else {
            row.partition_point(|&v| v <= u)
        }
    };
    let count: u64 = (0..n as u32)
        .into_par_iter()
        .map(|u| {
            let row = out.neighbors(u);
            row.get(first(u)..)
                .unwrap_or_default()
                .iter()
                .filter(|&&v| v != u)
                .count() as u64
        })
        .sum();
    memory::check(
        || format!("Kruskal's sorted list of {count} edges"),
        memory::bytes_for(count, 32),
    )?;

    let mut keys: Vec<u128> = (0..n as u32)
        .into_par_iter()
        .flat_map_iter(|u| {
            let row = out.row(u);
            let skip = first(u);
            out.targets()[row.clone()]
                .iter()
                .zip(row)
                .skip(skip)
                .filter(move |&(&v, _)| v != u)
                .map(move |(&v, arc)| {
                    let (a, b) = if u < v { (u, v) } else { (v, u) };
                    u128::from(w.at(arc).key()) << 64 | u128::from(a) << 32 | u128::from(b)
                })
        })
        .collect();
    keys.par_sort_unstable();

    let mut sets = UnionFind::new(n);
    let target = n.saturating_sub(1);
    let mut edges = Vec::new();
    let mut weights = Vec::new();
    for &k in &keys {
        if edges.len() == target {
            break;
        }
        let (u, v) = ((k >> 32) as u32, k as u32);
        if sets.union(u, v) {
            edges.push((u, v));
            weights.push(A::W::from_key((k >> 64) as u64));
        }
    }
    drop(keys);
    assemble(n, edges, weights)
}

/// Disjoint sets over `0..n` with union by rank and path halving.
struct UnionFind {
    parent: Vec<u32>,
    rank: Vec<u8>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            rank: vec![0; n],
        }
    }

    /// The representative of `x` (< n).
    fn find(&mut self, mut x: u32) -> u32 {
        loop {
            let p = self.parent[x as usize];
            if p == x {
                return x;
            }
            let gp = self.parent[p as usize];
            self.parent[x as usize] = gp;
            x = gp;
        }
    }

    /// Joins the sets of `a` and `b`; false when they were already one.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        let (ra, rb) = (self.rank[a as usize], self.rank[b as usize]);
        if ra < rb {
            self.parent[a as usize] = b;
        } else {
            self.parent[b as usize] = a;
            if ra == rb {
                self.rank[a as usize] = ra.saturating_add(1);
            }
        }
        true
    }
}
