//! Device memory of the GPU shortest paths, reckoned before anything is allocated.

use super::delta_stepping::requests_bytes;
use super::device::csr_bytes;
use super::owned::{owned_bytes, road_like};
use super::spmv::{ell_bytes, incoming_bytes};
use crate::error::Result;
use crate::graph::Graph;
use crate::sssp::Algorithm;

/// Device bytes a search of `g` needs: the CSR with its weights, two distance vectors,
/// stamps, parents, three lists of n vertices, the counters and Dijkstra's block minima
/// (12 bytes for each of up to 1,024 blocks). What [`GpuSssp::new`](super::GpuSssp::new) checks against the free
/// memory before it allocates; the SpMV variants and delta-stepping add to it
/// ([`bytes_needed_for`]).
///
/// ```
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 3 vertices, 2 arcs with i32 weights: the CSR 8 * 4 + 8 * 2, the per-vertex state
/// // 36 * 3, the counters 256 and the block minima 12 * 1024.
/// let e = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::I32(vec![5, 7].into())).unwrap();
/// let g = e.build(&BuildOptions::default()).unwrap();
/// assert_eq!(warpgraph::sssp::cuda::bytes_needed(&g), 48 + 108 + 256 + 12 * 1024);
/// ```
pub fn bytes_needed(g: &Graph) -> u64 {
    let n = g.num_vertices() as u64;
    csr_bytes(g.out()) + 16 * n + 4 * n * 5 + 4 * 64 + 12 * 1024
}

/// Device bytes a search of `g` by `algorithm` holds once it ran: [`bytes_needed`], plus
/// delta-stepping's request layout (8 bytes for each of n + 1 vertices), plus for the SpMV
/// variants the incoming arcs of a directed graph and, for `spmv-ell`, the padded ELL
/// layout. The same figures the search checks against the free memory before it
/// allocates them.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) where `spmv-ell` refuses the graph (its padding explodes).
pub fn bytes_needed_for(g: &Graph, algorithm: &Algorithm) -> Result<u64> {
    let extra = match algorithm {
        Algorithm::DeltaStepping(_) => requests_bytes(g.num_vertices() as u64),
        Algorithm::SpmvCsr => incoming_bytes(g),
        Algorithm::SpmvEll => incoming_bytes(g) + ell_bytes(g)?,
        Algorithm::Auto if road_like(g.out()) => owned_bytes(g.num_vertices() as u64),
        _ => 0,
    };
    Ok(bytes_needed(g) + extra)
}
