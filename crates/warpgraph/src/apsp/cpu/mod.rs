//! All-pairs shortest paths on the CPU: every core through rayon.
//!
//! Two variants, each streaming rows into a [`RowSink`](super::RowSink):
//! - [`floyd_warshall`](mod@floyd_warshall): blocked Floyd-Warshall (dense graphs, O(n^3), the whole matrix in
//!   memory);
//! - [`johnson`](mod@johnson): Johnson's reweighting plus Dijkstra from every source (sparse graphs,
//!   O(n m log n), memory for one block of rows).
//!
//! The GPU backend, [`crate::apsp::cuda`], runs Floyd-Warshall's rounds on the working matrix
//! built here.

pub mod floyd_warshall;
pub mod johnson;

pub use floyd_warshall::{
    floyd_warshall, floyd_warshall_bytes, floyd_warshall_with, floyd_warshall_with_isa, Isa,
};
pub use johnson::{johnson, johnson_with, table_with};

pub(crate) use floyd_warshall::{floyd_warshall_fits, has_negative_weight};

use crate::error::Error;
use crate::graph::Graph;
use crate::with_weights;

/// A negative cycle of `g` as [`Error::NegativeCycle`], found by Bellman-Ford from a virtual
/// source ([`crate::sssp::cpu::bellman_ford_potentials`]); `None` when it finds none (or the
/// graph is unweighted, which rules one out).
pub(crate) fn find_negative_cycle(g: &Graph) -> Option<Error> {
    let csr = g.out();
    let r = with_weights!(csr.weights(),
        ws => crate::sssp::cpu::bellman_ford_potentials(csr, ws).map(|_| ()),
        none => Ok(()));
    r.err()
}
