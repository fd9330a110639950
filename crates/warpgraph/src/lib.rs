//! # warpgraph
//!
//! Graph analytics on NVIDIA GPUs and on every CPU core: shortest paths, breadth-first
//! search and spanning trees on graphs with billions of edges.
//!
//! The library is organised as the tree shows:
//! - [`graph`]: the CSR graph core and its parallel builder;
//! - [`io`]: reading and writing graph files (DIMACS, Matrix Market, edge lists, METIS,
//!   and warpgraph's own memory-mappable `.wg`);
//! - [`generate`]: deterministic parallel generators (Kronecker, R-MAT, uniform, grid, SSCA#2);
//! - [`bfs`], [`sssp`], [`apsp`], [`mst`]: the algorithm families, each with its CPU code
//!   and its verifier side by side;
//! - [`centrality`]: betweenness, closeness and harmonic centrality on the CPU;
//! - [`cuda`]: the CUDA backend's common ground (finding GPUs, compiling kernels, device
//!   memory); each algorithm's GPU code sits in its family's `cuda` module;
//! - [`resident`]: a graph kept on a GPU for many queries of any algorithm;
//! - [`memory`]: knowing how much memory there is before allocating;
//! - [`settings`]: the process-wide settings (`WARPGRAPH_*` environment variables), read
//!   once.
//!
//! ```
//! use warpgraph::generate::{Generator, GenerateOptions};
//! let g = warpgraph::generate::generate(
//!     &Generator::Grid { rows: 3, cols: 4, remove: 0.0, shortcuts: 0 },
//!     &GenerateOptions::default(),
//! ).unwrap();
//! assert_eq!(g.num_vertices(), 12);
//! ```

pub mod apsp;
pub mod bench;
pub mod bfs;
pub mod centrality;
pub mod cuda;
pub mod device;
pub mod error;
pub mod generate;
pub mod graph;
pub mod io;
pub mod memory;
pub mod mst;
pub mod par;
pub mod progress;
pub mod resident;
pub mod settings;
pub mod sssp;

pub use error::{Error, Result};
pub use graph::stats::GraphStats;
pub use graph::{
    Buf, BuildOptions, Csr, Distance, Duplicates, EdgeList, Graph, SelfLoops, VertexId, VertexIds,
    Weight, WeightType, Weights, MAX_VERTICES, NO_VERTEX,
};
pub use progress::{NoProgress, Progress};
