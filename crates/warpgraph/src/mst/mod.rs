//! Minimum spanning forests.
//!
//! [`mst`] returns the [`SpanningForest`] of a graph: a minimum spanning tree of every
//! connected component (isolated vertices included, as one-vertex trees).
//!
//! Conventions a user will notice:
//! - **One answer.** Edges are ordered by `(weight, smaller endpoint, larger endpoint)`,
//!   floats by the IEEE total order (`-0.0` before `+0.0`). Under this strict total order
//!   the minimum spanning forest is unique, so [`Algorithm::Kruskal`], [`Algorithm::Boruvka`]
//!   and every future backend return the *identical* edge list, not merely the same total.
//!   The forest lists its edges in that order, each as `(u, v)` with `u < v`.
//! - **Directed graphs** are read as undirected: every arc `u -> v` is an edge `{u, v}`,
//!   so between two vertices the lightest arc in either direction counts
//!   ([`treats_as_undirected`] says when this happens).
//! - **Self loops** never belong to a forest and are ignored; of parallel edges only the
//!   lightest can be chosen.
//! - **Unweighted graphs** weigh 1 per edge: the forest is the spanning forest whose edges
//!   come first in vertex order, and its total is its edge count.
//! - **Negative and zero weights** are fine. Totals of integer weights are exact `i64`
//!   ([`Error::Overflow`] if the sum does not fit); float totals
//!   are `f64`, summed in the forest's edge order so that they are reproducible.
//!
//! Methods: Kruskal (serial, the baseline) and Borůvka (parallel, the default); see
//! [`cpu`]. [`verify`] checks any result independently.
//!
//! ```
//! use warpgraph::mst::{mst, verify, Algorithm};
//! use warpgraph::graph::stats::Number;
//! use warpgraph::{EdgeList, BuildOptions, Weights};
//! //     4       1
//! //  0 --- 1 ------ 2      3 (isolated)
//! //   \____________/
//! //         2
//! let g = EdgeList::new(4, vec![0, 1, 0], vec![1, 2, 2], Weights::I32(vec![4, 1, 2].into()))
//!     .unwrap()
//!     .build(&BuildOptions { directed: false, ..Default::default() })
//!     .unwrap();
//! let forest = mst(&g, Algorithm::Boruvka).unwrap();
//! assert_eq!(forest.edges, vec![(1, 2), (0, 2)]);
//! assert_eq!(forest.weights, Weights::I32(vec![1, 2].into()));
//! assert_eq!(forest.total_weight, Number::Int(3));
//! assert_eq!(forest.components, 2);
//! verify(&g, &forest).unwrap();
//! ```

/// Arcs a second one CPU thread gets through in MST (Boruvka: about 0.5 s for the 128M
/// arcs of Kronecker 22 on 16 threads): what `--device auto`
/// weighs against a GPU's start ([`crate::device::Work`]).
pub const CPU_ARCS_PER_THREAD_SECOND: f64 = 1.5e7;

pub mod cpu;
pub mod cuda;
pub(crate) mod order;
mod verify;

pub use verify::verify;

use crate::error::{Error, Result};
use crate::graph::stats::Number;
use crate::graph::{
    named_enum, BuildOptions, Duplicates, EdgeList, Graph, SelfLoops, VertexId, Weights,
};
use order::EdgeWeight;

/// A minimum spanning forest.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanningForest {
    /// The forest's edges `(u, v)`, `u < v` (internal ids), sorted by
    /// `(weight, u, v)`; see the [module docs](self) for the order.
    pub edges: Vec<(VertexId, VertexId)>,
    /// The edges' weights, parallel to `edges`, of the graph's weight type;
    /// [`Weights::None`] for an unweighted graph (every edge weighs 1).
    pub weights: Weights,
    /// The sum of the weights: [`Number::Int`] for integer weights (and the edge count of
    /// an unweighted graph), [`Number::Float`] for float weights.
    pub total_weight: Number,
    /// The number of connected components, isolated vertices included:
    /// `edges.len() == num_vertices - components`.
    pub components: u64,
}

/// Which minimum spanning forest algorithm to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// Kruskal: sort the edges, add each that joins two trees (serial union-find).
    Kruskal,
    /// Borůvka: every tree takes its lightest outgoing edge, in parallel rounds.
    #[default]
    Boruvka,
}

named_enum!(
    Algorithm,
    "MST algorithm",
    Algorithm::Kruskal => "kruskal",
    Algorithm::Boruvka => "boruvka"
);

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The minimum spanning forest of `g`.
///
/// # Arguments
/// - `g`: any graph. Directed graphs are read as undirected (see [`treats_as_undirected`]);
///   unweighted graphs weigh 1 per edge; self loops are ignored.
/// - `algorithm`: [`Algorithm::Boruvka`] (parallel) or [`Algorithm::Kruskal`] (serial).
///   Both return the identical forest.
///
/// # Returns
/// The [`SpanningForest`], its edges in the documented total order.
///
/// # Errors
/// [`Error::Overflow`] when an integer total does not fit in `i64` or a float total is not
/// finite; [`Error::OutOfMemory`] when the working arrays (about
/// 16 bytes per edge) do not fit.
///
/// # Complexity
/// Kruskal O(m log m) (a parallel sort, then a serial union-find pass); Borůvka O(m log n)
/// work in at most log2(n) parallel rounds, usually far fewer. Directed graphs are first
/// symmetrised (O(m) extra memory).
///
/// # Example
/// ```
/// use warpgraph::mst::{mst, Algorithm};
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// // A directed triangle: the lighter direction of each pair counts.
/// let g = EdgeList::new(3, vec![0, 1, 1, 2], vec![1, 0, 2, 0],
///     Weights::F64(vec![5.0, 1.5, 2.0, 0.5].into())).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// let a = mst(&g, Algorithm::Kruskal).unwrap();
/// assert_eq!(a.edges, vec![(0, 2), (0, 1)]);
/// assert_eq!(a, mst(&g, Algorithm::Boruvka).unwrap());
/// ```
pub fn mst(g: &Graph, algorithm: Algorithm) -> Result<SpanningForest> {
    match algorithm {
        Algorithm::Kruskal => cpu::kruskal(g),
        Algorithm::Boruvka => cpu::boruvka(g),
    }
}

/// Where [`mst_on`] runs.
#[derive(Debug, Clone, Copy)]
pub enum Backend<'a> {
    /// Every CPU core.
    Cpu,
    /// A GPU ([`cuda`]; Borůvka only).
    Cuda(&'a std::sync::Arc<crate::cuda::Gpu>),
}

/// [`mst`] on `backend`. On a GPU only [`Algorithm::Boruvka`] runs, and the GPU's
/// statistics (times, rounds) come back beside the forest, which is identical to the CPU's.
///
/// # Errors
/// As [`mst`]; on a GPU, those of [`cuda::GpuMst::new`] (refused with the bytes needed and
/// free when the graph does not fit) and [`Error::Unsupported`] for Kruskal.
pub fn mst_on(
    g: &Graph,
    algorithm: Algorithm,
    backend: Backend<'_>,
) -> Result<(SpanningForest, Option<cuda::MstStats>)> {
    match (backend, algorithm) {
        (Backend::Cpu, _) => mst(g, algorithm).map(|f| (f, None)),
        (Backend::Cuda(gpu), Algorithm::Boruvka) => {
            cuda::boruvka(gpu, g).map(|(f, s)| (f, Some(s)))
        }
        (Backend::Cuda(_), Algorithm::Kruskal) => Err(Error::Unsupported(
            "Kruskal is serial and runs on the CPU only: use --algo boruvka on the GPU, or --device cpu".into(),
        )),
    }
}

/// Whether [`mst`] reads `g` differently from how it is stored: true for a directed graph,
/// whose arcs become undirected edges (the lighter of `u -> v` and `v -> u` counts).
///
/// # Arguments
/// - `g`: the graph to be given to [`mst`].
///
/// # Returns
/// `true` when `g` is directed (so that a front end can say the direction is ignored).
/// No errors; O(1).
///
/// # Example
/// ```
/// use warpgraph::mst::treats_as_undirected;
/// assert!(treats_as_undirected(&warpgraph::Graph::empty(3, true)));
/// assert!(!treats_as_undirected(&warpgraph::Graph::empty(3, false)));
/// ```
pub fn treats_as_undirected(g: &Graph) -> bool {
    g.is_directed()
}

/// The undirected graph with an edge `{u, v}` for every arc `u -> v` (`u != v`) of `g`:
/// how both backends read a directed graph.
pub(crate) fn symmetrise(g: &Graph) -> Result<Graph> {
    use rayon::prelude::*;
    let out = g.out();
    let n = g.num_vertices();
    crate::memory::check(
        || format!("a copy of the {} arcs to symmetrise", out.num_arcs()),
        crate::memory::bytes_for(out.num_arcs(), 8 + g.weight_type().size()),
    )?;
    let src: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .flat_map_iter(|u| std::iter::repeat_n(u, out.neighbors(u).len()))
        .collect();
    let edges = EdgeList::new(n as u64, src, out.targets().to_vec(), out.weights().clone())?;
    edges.build(&BuildOptions {
        directed: false,
        self_loops: SelfLoops::Drop,
        duplicates: Duplicates::Keep,
    })
}

/// Names arcs of a graph by their ends. An arc's row is found in a sample of every
/// [`ARC_SAMPLE`]-th row offset (small enough to stay in cache), then among the offsets
/// of that stretch: a few cache lines, where a binary search over all the offsets misses
/// the cache at most of its steps.
pub(crate) struct ArcEnds<'g> {
    g: &'g Graph,
    sample: Vec<u64>,
}

/// Rows per sampled offset of [`ArcEnds`].
const ARC_SAMPLE: usize = 32;

impl<'g> ArcEnds<'g> {
    pub(crate) fn new(g: &'g Graph) -> ArcEnds<'g> {
        use rayon::prelude::*;
        let sample = g
            .out()
            .offsets()
            .par_iter()
            .step_by(ARC_SAMPLE)
            .copied()
            .collect();
        ArcEnds { g, sample }
    }

    /// The ends and weight of arc `arc`.
    pub(crate) fn edge<A: order::ArcWeights>(
        &self,
        w: A,
        arc: usize,
    ) -> (VertexId, VertexId, A::W) {
        let out = self.g.out();
        let off = out.offsets();
        let a = arc as u64;
        let lo = (self.sample.partition_point(|&o| o <= a) - 1) * ARC_SAMPLE;
        let hi = (lo + ARC_SAMPLE + 1).min(off.len());
        let u = lo + off[lo..hi].partition_point(|&o| o <= a) - 1;
        (u as VertexId, out.targets()[arc], w.at(arc))
    }
}

/// Assembles a forest on `n` vertices from its edges `(u, v, weight)`, `u < v`, in any
/// order: sorts them into the documented order first.
pub(crate) fn assemble_sorted<W: EdgeWeight>(
    n: usize,
    mut forest: Vec<(VertexId, VertexId, W)>,
) -> Result<SpanningForest> {
    use rayon::prelude::*;
    forest.par_sort_unstable_by_key(|&(u, v, w)| (w.key(), u, v));
    let (edges, weights) = forest.into_iter().map(|(u, v, w)| ((u, v), w)).unzip();
    assemble(n, edges, weights)
}

/// Assembles a forest from its edges, already in the documented order.
pub(crate) fn assemble<W: EdgeWeight>(
    n: usize,
    edges: Vec<(VertexId, VertexId)>,
    weights: Vec<W>,
) -> Result<SpanningForest> {
    let total_weight = W::total(&weights)?;
    forest_of(n, edges, W::into_weights(weights), total_weight)
}

/// The forest of `edges` (already in the documented order) on `n` vertices, with its
/// weights and their total.
pub(crate) fn forest_of(
    n: usize,
    edges: Vec<(VertexId, VertexId)>,
    weights: Weights,
    total_weight: Number,
) -> Result<SpanningForest> {
    let components = (n as u64).checked_sub(edges.len() as u64).ok_or_else(|| {
        Error::VerificationFailed(format!(
            "MST: a forest on {n} vertices cannot have {} edges",
            edges.len()
        ))
    })?;
    Ok(SpanningForest {
        edges,
        weights,
        total_weight,
        components,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every arc's row, against a plain scan: rows empty and full, runs of empty rows
    /// longer than a sample stride, the first and the last row.
    #[test]
    fn arc_ends_name_every_arc() {
        use crate::{BuildOptions, EdgeList, Weights};
        let n = 300u32;
        // Vertex u has u % 7 arcs when u % 50 < 40, none otherwise (runs of 10 empty rows,
        // and 0..=6 arcs elsewhere); the last vertex has some.
        let (mut src, mut dst) = (vec![], vec![]);
        for u in 0..n {
            let k = if u % 50 < 40 || u == n - 1 {
                u % 7 + u32::from(u == n - 1)
            } else {
                0
            };
            for j in 0..k {
                src.push(u);
                dst.push((u + j + 1) % n);
            }
        }
        let opts = BuildOptions {
            directed: true,
            ..Default::default()
        };
        let g = EdgeList::new(n.into(), src, dst, Weights::None)
            .unwrap()
            .build(&opts)
            .unwrap();
        let ends = ArcEnds::new(&g);
        let out = g.out();
        for u in 0..n {
            for arc in out.offsets()[u as usize]..out.offsets()[u as usize + 1] {
                let (a, b, _) = ends.edge(order::Unweighted, arc as usize);
                assert_eq!((a, b), (u, out.targets()[arc as usize]), "arc {arc}");
            }
        }
    }

    #[test]
    fn algorithm_names_round_trip() {
        for &a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
            assert_eq!(a.to_string(), a.name());
        }
        assert!("prim".parse::<Algorithm>().is_err());
        assert_eq!(Algorithm::default(), Algorithm::Boruvka);
    }
}
