//! Centrality: how central each vertex (or edge) is, by shortest paths.
//!
//! # What is computed
//! Four measures, each as NetworkX defines it (same normalizations, same options):
//! - [`betweenness`]: `c_B(v) = sum over s != v != t of sigma_st(v) / sigma_st`, where
//!   `sigma_st` counts the shortest s-t paths and `sigma_st(v)` those through `v`
//!   (optionally counting the endpoints: [`BetweennessOptions::endpoints`]);
//! - [`edge_betweenness`]: the same sum for each arc, `sigma_st(e) / sigma_st`;
//! - [`closeness`]: `(r - 1) / (sum of the distances to v)` over the `r - 1` vertices that
//!   reach `v`, scaled by `(r - 1) / (n - 1)` (Wasserman and Faust) when asked;
//! - [`harmonic`]: `sum over u != v of 1 / d(u, v)` (`1 / inf = 0`).
//!
//! Distances count arcs on an unweighted graph (or with [`Weighting::Unit`]) and add the
//! weights on a weighted one; weights must be non-negative (a negative one is refused,
//! [`Error::NegativeWeight`] naming the arc). Path counts are exact ties: two paths are
//! equally short when their lengths are equal as integers (integer weights) or as `f64`
//! sums (float weights), as NetworkX compares them. Directed graphs measure distances
//! *to* a vertex for closeness and harmonic centrality, as NetworkX does.
//!
//! # Conventions of the engine
//! - Parallel arcs are distinct paths: two parallel shortest arcs `u -> v` make two
//!   shortest `u`-`v` paths, and each has its own edge betweenness. (NetworkX's
//!   multigraphs keep one arc per neighbour, of the least weight; the Python package
//!   hands the engine that graph.) Self loops lie on no shortest path.
//! - Arcs of weight zero: a zero arc `u -> v` between two vertices at the same distance
//!   counts as a step of a shortest path only when it also shortens the number of arcs,
//!   that is when the fewest arcs on a shortest path to `v` is one more than to `u`.
//!   So zero-weight cycles never make infinitely many paths, every reached vertex has a
//!   path, and without zero weights nothing changes. (NetworkX's answer there depends
//!   on its heap order.)
//!
//! # Method
//! Brandes' algorithm, one single-source stage per source: a breadth-first
//! search (unweighted) or Dijkstra's algorithm (weighted) that also counts shortest
//! paths, then the dependencies accumulated in reverse order of distance
//! ([`betweenness`]); closeness and harmonic centrality need only the distances
//! ([`closeness`], [`harmonic`]; on a GPU the rows of a distance table, see
//! [`closeness_on`]). Sources run in parallel, each worker with its own O(n) state and its
//! own partial sums, added in a fixed order at the end (so a run is reproducible).
//! Betweenness can be estimated from `k` sources drawn at random ([`Sources::Sample`]).
//!
//! Sources: U. Brandes, "A faster algorithm for betweenness centrality", J. Math.
//! Sociol. 25 (2001); U. Brandes, "On variants of shortest-path betweenness centrality
//! and their generic computation", Social Networks 30 (2008) (edge betweenness,
//! endpoints); U. Brandes and C. Pich, "Centrality estimation in large networks",
//! Int. J. Bifurcation and Chaos 17 (2007) (sampled sources); S. Wasserman and K. Faust,
//! "Social Network Analysis" (1994) (closeness on disconnected graphs); M. Marchiori and
//! V. Latora, "Harmony in the small-world", Physica A 285 (2000), and P. Boldi and
//! S. Vigna, "Axioms for centrality", Internet Mathematics 10 (2014) (harmonic).
//!
//! [`verify_betweenness`] and its siblings check a result by recomputing some of its
//! sources with a plain serial method.
//!
//! ```
//! use warpgraph::centrality::{betweenness, BetweennessOptions};
//! use warpgraph::{BuildOptions, EdgeList, NoProgress, Weights};
//! // The path 0 - 1 - 2: every path between 0 and 2 runs through 1.
//! let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::None)
//!     .unwrap()
//!     .build(&BuildOptions { directed: false, ..Default::default() })
//!     .unwrap();
//! let b = betweenness(&g, &BetweennessOptions::default(), &NoProgress).unwrap();
//! assert_eq!(b.values, vec![0.0, 1.0, 0.0]);
//! ```

/// Runs `$body` with `$w` bound to the arc weights of `$weights` as
/// [`ArcWeights`](crate::sssp::cpu::ArcWeights) (weight 1 on every arc when there are
/// none) and `$unit` telling which.
macro_rules! dispatch {
    ($weights:expr, $unit:ident, $w:ident => $body:expr) => {
        match $weights {
            $crate::Weights::None => {
                let ($w, $unit) = (&$crate::sssp::cpu::Unit, true);
                $body
            }
            $crate::Weights::I32(x) => {
                let ($w, $unit) = (&x[..], false);
                $body
            }
            $crate::Weights::I64(x) => {
                let ($w, $unit) = (&x[..], false);
                $body
            }
            $crate::Weights::F32(x) => {
                let ($w, $unit) = (&x[..], false);
                $body
            }
            $crate::Weights::F64(x) => {
                let ($w, $unit) = (&x[..], false);
                $body
            }
        }
    };
}

mod betweenness;
pub mod cuda;
mod distance;
mod search;
mod verify;

pub use betweenness::{betweenness, betweenness_on, edge_betweenness, edge_values};
pub use distance::{closeness, closeness_on, harmonic, harmonic_on};
pub use verify::{verify_betweenness, verify_closeness, verify_edge_betweenness, verify_harmonic};

use crate::error::{Error, Result};
use crate::generate::rng::Rng;
use crate::graph::{Csr, Graph, VertexId, Weight, Weights};
use crate::memory;
use crate::with_weights;

/// Which weights measure the distances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Weighting {
    /// The graph's own weights (weight 1 on every arc of an unweighted graph).
    #[default]
    Graph,
    /// Weight 1 on every arc, whatever the graph stores.
    Unit,
}

/// The sources whose shortest paths betweenness counts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Sources {
    /// Every vertex: the exact measure.
    #[default]
    All,
    /// `k` distinct vertices drawn uniformly with the seed (Brandes and Pich), the same
    /// ones for the same seed; the sums are scaled up as NetworkX scales them.
    Sample {
        /// How many (at most the number of vertices).
        k: usize,
        /// The seed of the draw.
        seed: u64,
    },
    /// These distinct vertices, as drawn by the caller (NetworkX's own draw, say): scaled
    /// as a sample of that size.
    List(Vec<VertexId>),
}

/// Options of [`betweenness`]; the default is NetworkX's (all sources, normalized, no
/// endpoints) with the graph's weights.
#[derive(Debug, Clone, PartialEq)]
pub struct BetweennessOptions {
    /// The sources counted.
    pub sources: Sources,
    /// Divide by the number of pairs (NetworkX's `normalized`); without it, undirected
    /// graphs count each unordered pair once.
    pub normalized: bool,
    /// Count the endpoints of each path as lying on it (NetworkX's `endpoints`).
    pub endpoints: bool,
    /// Which weights measure distances.
    pub weighting: Weighting,
}

/// Options of [`edge_betweenness`]; the default is NetworkX's (all sources, normalized)
/// with the graph's weights.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeBetweennessOptions {
    /// The sources counted.
    pub sources: Sources,
    /// Divide by `k (n - 1)` for `k` sources (NetworkX's `normalized`).
    pub normalized: bool,
    /// Which weights measure distances.
    pub weighting: Weighting,
}

/// Options of [`closeness`]; the default is NetworkX's (Wasserman and Faust's scaling,
/// every vertex) with the graph's weights.
#[derive(Debug, Clone, PartialEq)]
pub struct ClosenessOptions {
    /// Scale by the fraction of the other vertices that reach each vertex (Wasserman and
    /// Faust; NetworkX's `wf_improved`).
    pub wf_improved: bool,
    /// The vertices to measure (`None`: all, in order).
    pub vertices: Option<Vec<VertexId>>,
    /// Which weights measure distances.
    pub weighting: Weighting,
}

impl Default for BetweennessOptions {
    fn default() -> Self {
        BetweennessOptions {
            sources: Sources::All,
            normalized: true,
            endpoints: false,
            weighting: Weighting::Graph,
        }
    }
}

impl Default for EdgeBetweennessOptions {
    fn default() -> Self {
        EdgeBetweennessOptions {
            sources: Sources::All,
            normalized: true,
            weighting: Weighting::Graph,
        }
    }
}

impl Default for ClosenessOptions {
    fn default() -> Self {
        ClosenessOptions {
            wf_improved: true,
            vertices: None,
            weighting: Weighting::Graph,
        }
    }
}

/// Options of [`harmonic`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HarmonicOptions {
    /// The vertices to measure (`None`: all, in order; NetworkX's `nbunch`).
    pub vertices: Option<Vec<VertexId>>,
    /// The vertices whose distances count (`None`: all; NetworkX's `sources`).
    pub sources: Option<Vec<VertexId>>,
    /// Which weights measure distances.
    pub weighting: Weighting,
}

/// Betweenness of every vertex (or every arc), with what [`verify_betweenness`] needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Centrality {
    /// One value per vertex ([`betweenness`]) or per arc, in CSR order
    /// ([`edge_betweenness`]; see [`edge_values`] for one value per edge).
    pub values: Vec<f64>,
    /// The sources counted, in the order they were assigned to workers.
    pub sources: Vec<VertexId>,
    /// For each source, its contribution to the unscaled sums as one number: the sum
    /// over vertices (arcs) `x` of `contribution(x) * fingerprint_weight(x)`.
    pub fingerprints: Vec<f64>,
    /// The factor applied to the sums of a vertex that is a sampled source, and to every
    /// other one (equal unless betweenness without endpoints was sampled).
    pub scale: (f64, f64),
    /// On a GPU, the seconds its kernels took (CUDA events).
    pub kernel_seconds: Option<f64>,
}

/// Closeness or harmonic centrality of some vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// The vertices measured.
    pub vertices: Vec<VertexId>,
    /// Their values, in the same order.
    pub values: Vec<f64>,
    /// On a GPU, the seconds its kernels took (CUDA events).
    pub kernel_seconds: Option<f64>,
}

/// The weight of vertex (arc) `x` in a fingerprint: a fixed number in `[1, 2)` drawn from
/// `x`, so that a wrong value anywhere changes the fingerprint of the sums.
pub fn fingerprint_weight(x: u64) -> f64 {
    let bits = crate::generate::rng::mix64(x ^ 0x9e37_79b9_7f4a_7c15) >> 11;
    1.0 + bits as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The weights used: the graph's (when it has some and `weighting` says so) or none.
fn weights_of(g: &Graph, weighting: Weighting) -> &Weights {
    match weighting {
        Weighting::Graph => g.out().weights(),
        Weighting::Unit => &Weights::None,
    }
}

/// The sources of `sources` for a graph of `n` vertices, checked.
fn resolve_sources(sources: &Sources, n: usize) -> Result<Vec<VertexId>> {
    match sources {
        Sources::All => Ok((0..n as VertexId).collect()),
        Sources::Sample { k, seed } => {
            if *k > n {
                return Err(Error::InvalidArgument(format!(
                    "cannot sample {k} sources from {n} vertices"
                )));
            }
            Ok(sample(n, *k, *seed))
        }
        Sources::List(list) => {
            check_vertices(list, n, "source")?;
            let mut seen = vec![false; n];
            for &v in list {
                if std::mem::replace(&mut seen[v as usize], true) {
                    return Err(Error::InvalidArgument(format!(
                        "source {v} is listed twice"
                    )));
                }
            }
            Ok(list.clone())
        }
    }
}

/// `k` distinct vertices of `0..n` drawn uniformly (a partial Fisher-Yates shuffle),
/// ascending.
fn sample(n: usize, k: usize, seed: u64) -> Vec<VertexId> {
    let mut rng = Rng::new(seed);
    let mut all: Vec<VertexId> = (0..n as VertexId).collect();
    for i in 0..k {
        let j = i + rng.below((n - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(k);
    all.sort_unstable();
    all
}

/// Refuses a vertex id out of `0..n`.
fn check_vertices(list: &[VertexId], n: usize, what: &str) -> Result<()> {
    match list.iter().find(|&&v| v as usize >= n) {
        Some(v) => Err(Error::InvalidArgument(format!(
            "{what} {v} is not a vertex (the graph has {n})"
        ))),
        None => Ok(()),
    }
}

/// Refuses when `workers` workers of `per_worker` bytes each, plus `shared` bytes, do not
/// fit in memory.
fn check_memory(what: &str, n: usize, workers: usize, per_worker: u64, shared: u64) -> Result<()> {
    let needed = per_worker
        .saturating_mul(workers as u64)
        .saturating_add(shared);
    memory::check(
        || format!("{what} on {n} vertices ({workers} workers)"),
        needed,
    )
}

/// Splits `items` into at most twice as many chunks as rayon has threads (fewer when
/// there are fewer items): each chunk is one worker's share.
fn chunks<T>(items: &[T]) -> Vec<&[T]> {
    let workers = (rayon::current_num_threads() * 2).clamp(1, items.len().max(1));
    let size = items.len().div_ceil(workers).max(1);
    items.chunks(size).collect()
}

/// The number of workers [`chunks`] makes for `len` items.
fn workers_for(len: usize) -> usize {
    (rayon::current_num_threads() * 2).clamp(1, len.max(1))
}

/// Refuses the first negative weight, naming its arc.
fn check_nonnegative(csr: &Csr, weights: &Weights) -> Result<()> {
    use rayon::prelude::*;
    let first = with_weights!(weights,
        w => w.par_iter().position_first(|x| x.to_f64() < 0.0).map(|i| (i, w[i].to_string())),
        none => None);
    let Some((i, weight)) = first else {
        return Ok(());
    };
    let from = csr.offsets().partition_point(|&o| o <= i as u64) - 1;
    Err(Error::NegativeWeight {
        algorithm: "centrality (shortest-path counting)".into(),
        from: from as VertexId,
        to: csr.targets()[i],
        weight,
    })
}

#[cfg(test)]
mod tests {
    use super::betweenness::scale;
    use super::*;
    use crate::graph::testing::graph;

    #[test]
    fn samples_are_distinct_sorted_and_seeded() {
        let a = sample(100, 10, 7);
        assert_eq!(a, sample(100, 10, 7));
        assert_ne!(a, sample(100, 10, 8));
        assert!(a.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(sample(5, 5, 1), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn scales_follow_networkx() {
        // Exact, normalized without endpoints: 1 / ((n - 1)(n - 2)).
        assert_eq!(scale(5, None, true, true, false), (1.0 / 12.0, 1.0 / 12.0));
        // Unnormalized undirected: each unordered pair once.
        assert_eq!(scale(5, None, false, false, false), (0.5, 0.5));
        // Sampled without endpoints: sources apart; one source leaves them undefined.
        assert_eq!(scale(5, Some(2), true, true, false), (1.0 / 3.0, 1.0 / 6.0));
        assert!(scale(5, Some(1), true, true, false).0.is_nan());
        // Fewer than two possible inner vertices: nothing to scale.
        assert_eq!(scale(2, None, true, true, false), (1.0, 1.0));
    }

    #[test]
    fn edge_values_pair_parallel_copies() {
        let g = graph(3, &[(0, 1), (1, 0), (1, 2), (2, 2)], false);
        // Arcs in CSR order: 0->1, 0->1, 1->0, 1->0, 1->2, 2->1, 2->2.
        let arcs = [1.0, 2.0, 10.0, 20.0, 100.0, 200.0, 1000.0];
        let e = edge_values(&g, &arcs);
        assert_eq!(
            e,
            vec![(0, 1, 11.0), (0, 1, 22.0), (1, 2, 300.0), (2, 2, 1000.0)]
        );
    }

    #[test]
    fn fingerprint_weights_lie_in_one_to_two() {
        assert!((0..1000).all(|x| (1.0..2.0).contains(&fingerprint_weight(x))));
    }
}
