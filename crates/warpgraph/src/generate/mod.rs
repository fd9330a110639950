//! Deterministic, parallel graph generators.
//!
//! Every generator is a pure function of its parameters and [`GenerateOptions::seed`]:
//! the same call gives the same graph on any number of threads.
//!
//! | generator | vertices | edges | module |
//! |---|---|---|---|
//! | [`Generator::Kronecker`] (Graph500) | `2^scale` | `edge_factor * 2^scale` | `kron` |
//! | [`Generator::Rmat`] | `2^scale` | `edge_factor * 2^scale` | `kron` |
//! | [`Generator::Uniform`] (G(n, m)) | `vertices` | `edges` | `urand` |
//! | [`Generator::Grid`] (road-like) | `rows * cols` | lattice minus removed, plus shortcuts | `grid` |
//! | [`Generator::Ssca2`] | `2^scale` | complete cliques plus inter-clique edges | `ssca2` |
//!
//! "Edges" counts what the generator draws; the [`GenerateOptions`] then decide, as for a
//! file, whether self loops and parallel edges stay (by default both go, as GAPBS does) and
//! whether the graph is undirected (each drawn edge stored both ways). Grid edges are the
//! exception: they are two-way streets, so a directed grid gets both arcs of each edge.
//!
//! # Method
//! The work is cut into fixed blocks (2^16 edges, or a range of vertices for SSCA#2) and
//! each block draws from its own [`rng::Rng`] stream, seeded by a hash of
//! `(seed, generator stream, block index)`. Blocks whose edge count is random (grid
//! removal, SSCA#2) are run twice: once to count, then, after a prefix sum placed every
//! block, to write its edges straight into the preallocated source, target and weight
//! arrays; weights have their own streams there and are not drawn while counting. The
//! edge list is then built into a CSR by [`EdgeList::build`](crate::EdgeList::build).
//! Memory is checked ([`crate::memory::check`]) for the edge arrays and the CSR before
//! anything is allocated.
//!
//! Weights ([`WeightSpec`]) are drawn from the block's streams too: `Int { lo, hi }` uniform
//! in `lo..=hi` (`i32` when both bounds fit, else `i64`), `Float` uniform in `[0, 1)` as
//! `f64`.
//!
//! ```
//! use warpgraph::generate::{generate, Generator, GenerateOptions, WeightSpec};
//! use warpgraph::WeightType;
//! let opts = GenerateOptions { weights: WeightSpec::Int { lo: 1, hi: 100 }, ..Default::default() };
//! let g = generate(&Generator::Grid { rows: 3, cols: 4, remove: 0.0, shortcuts: 0 }, &opts).unwrap();
//! assert_eq!(g.num_vertices(), 12);
//! assert_eq!(g.num_arcs(), 2 * 17); // 3*3 horizontal + 2*4 vertical edges, both ways
//! assert_eq!(g.weight_type(), WeightType::I32);
//! assert_eq!(g, generate(&Generator::Grid { rows: 3, cols: 4, remove: 0.0, shortcuts: 0 }, &opts).unwrap());
//! ```

mod block;
mod grid;
mod kron;
pub mod rng;
mod ssca2;
mod urand;
mod weights;

pub use ssca2::default_max_clique;

use crate::error::{Error, Result};
use crate::graph::{BuildOptions, Duplicates, Graph, SelfLoops, MAX_VERTICES};
use crate::progress::{NoProgress, Progress};

use block::{materialize, Plan, SampledEdges};
use weights::{with_weight_draw, Draw};

/// Random stream identifiers: every generator (and every use within one) hashes its own
/// into each block's seed, so that no two share random numbers.
mod stream {
    pub(crate) const KRONECKER: u64 = 1;
    pub(crate) const RMAT: u64 = 2;
    pub(crate) const UNIFORM: u64 = 3;
    pub(crate) const GRID_REMOVE: u64 = 4;
    pub(crate) const GRID_WEIGHTS: u64 = 5;
    pub(crate) const GRID_SHORTCUT: u64 = 6;
    pub(crate) const SSCA2_CLIQUES: u64 = 7;
    pub(crate) const SSCA2_INTER: u64 = 8;
    pub(crate) const SSCA2_WEIGHTS: u64 = 9;
    pub(crate) const SCRAMBLE: u64 = 10;
}

/// Checks that `2^scale` vertices fit ([`MAX_VERTICES`]); returns `2^scale`.
fn validate_scale(scale: u32) -> Result<u64> {
    if scale >= 32 {
        return Err(Error::TooLarge {
            what: format!("the number of vertices 2^{scale}"),
            value: 1u64.checked_shl(scale).unwrap_or(u64::MAX),
            limit: MAX_VERTICES,
        });
    }
    Ok(1u64 << scale)
}

/// Which graph to generate.
#[derive(Debug, Clone, PartialEq)]
pub enum Generator {
    /// Graph500 Kronecker: 2^scale vertices, edge_factor * 2^scale edges, initiator
    /// A, B, C = 0.57, 0.19, 0.19, vertex ids scrambled.
    Kronecker {
        /// log2 of the vertex count.
        scale: u32,
        /// Edges per vertex.
        edge_factor: u32,
    },
    /// R-MAT with quadrant probabilities a, b, c and d = 1 - a - b - c.
    Rmat {
        /// log2 of the vertex count.
        scale: u32,
        /// Edges per vertex.
        edge_factor: u32,
        /// Top-left probability.
        a: f64,
        /// Top-right probability.
        b: f64,
        /// Bottom-left probability.
        c: f64,
    },
    /// Uniform random G(n, m): m edges with independent uniform endpoints.
    Uniform {
        /// Vertices.
        vertices: u64,
        /// Edges.
        edges: u64,
    },
    /// A rows x cols 2-D grid, 4-neighbour ("road-like"), with a fraction of lattice edges
    /// removed at random and some random shortcut edges added.
    Grid {
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
        /// Fraction of lattice edges removed, in [0, 1).
        remove: f64,
        /// Number of random shortcut edges.
        shortcuts: u64,
    },
    /// SSCA#2: random cliques joined by inter-clique edges.
    Ssca2 {
        /// log2 of the vertex count.
        scale: u32,
        /// Largest clique size.
        max_clique: u32,
        /// Probability of inter-clique edges.
        inter_prob: f64,
    },
}

/// Edge weights of generated graphs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum WeightSpec {
    /// Unweighted.
    #[default]
    None,
    /// Uniform integers in `lo..=hi` (i32 when both fit, else i64).
    Int {
        /// Smallest weight.
        lo: i64,
        /// Largest weight.
        hi: i64,
    },
    /// Uniform floats in [0, 1) (f64).
    Float,
}

/// Options common to every generator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerateOptions {
    /// The seed; same seed, same graph.
    pub seed: u64,
    /// Weights.
    pub weights: WeightSpec,
    /// Store each edge in both directions.
    pub undirected: bool,
    /// Self-loop policy (default: drop, as GAPBS does).
    pub self_loops: SelfLoops,
    /// Duplicate policy (default: keep the lightest, as GAPBS does).
    pub duplicates: Duplicates,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            seed: 27491095,
            weights: WeightSpec::None,
            undirected: false,
            self_loops: SelfLoops::Drop,
            duplicates: Duplicates::KeepLightest,
        }
    }
}

/// Generates a graph.
pub fn generate(gen: &Generator, opts: &GenerateOptions) -> Result<Graph> {
    generate_with(gen, opts, &NoProgress)
}

/// Generates a graph, reporting progress: a "generating" phase counted in edges (one
/// `advance` per block), then a "building the graph" phase of unknown length.
///
/// # Errors
/// [`Error::InvalidArgument`] for parameters out of range (a probability outside [0, 1],
/// R-MAT `a + b + c > 1`, `remove >= 1`, `max_clique == 0`, an empty grid or weight range);
/// [`Error::TooLarge`] when the vertex count exceeds [`MAX_VERTICES`] (`scale >= 32`);
/// [`Error::OutOfMemory`] when the edges or the graph would not fit.
pub fn generate_with(
    gen: &Generator,
    opts: &GenerateOptions,
    progress: &dyn Progress,
) -> Result<Graph> {
    let draw = Draw::new(opts.weights)?;
    let build = BuildOptions {
        directed: !opts.undirected,
        self_loops: opts.self_loops,
        duplicates: opts.duplicates,
    };
    let plan = |num_vertices| Plan {
        num_vertices,
        undirected: opts.undirected,
    };
    let seed = opts.seed;
    match *gen {
        Generator::Kronecker { scale, edge_factor } => {
            let (n, edges) = kron::sizes(scale, edge_factor)?;
            let quadrants = kron::Quadrants::graph500();
            let scramble = Some(kron::Scramble::new(scale, seed));
            with_weight_draw!(draw, weights => {
                let sampler = kron::Kron { scale, quadrants, scramble };
                let g = SampledEdges { sampler, edges, seed, stream: stream::KRONECKER, weights };
                materialize(&g, &plan(n), &build, progress)
            })
        }
        Generator::Rmat {
            scale,
            edge_factor,
            a,
            b,
            c,
        } => {
            let quadrants = kron::Quadrants::new(a, b, c)?;
            let (n, edges) = kron::sizes(scale, edge_factor)?;
            with_weight_draw!(draw, weights => {
                let sampler = kron::Kron { scale, quadrants, scramble: None };
                let g = SampledEdges { sampler, edges, seed, stream: stream::RMAT, weights };
                materialize(&g, &plan(n), &build, progress)
            })
        }
        Generator::Uniform { vertices, edges } => {
            urand::validate(vertices)?;
            with_weight_draw!(draw, weights => {
                let sampler = urand::Uniform { vertices };
                let g = SampledEdges { sampler, edges, seed, stream: stream::UNIFORM, weights };
                materialize(&g, &plan(vertices), &build, progress)
            })
        }
        Generator::Grid {
            rows,
            cols,
            remove,
            shortcuts,
        } => {
            with_weight_draw!(draw, weights => {
                let g = grid::Grid::new(rows, cols, remove, shortcuts, !opts.undirected,
                    seed, weights)?;
                materialize(&g, &plan(g.num_vertices()), &build, progress)
            })
        }
        Generator::Ssca2 {
            scale,
            max_clique,
            inter_prob,
        } => {
            with_weight_draw!(draw, weights => {
                let g = ssca2::Ssca2::new(scale, max_clique, inter_prob, !opts.undirected,
                    seed, weights)?;
                materialize(&g, &plan(g.num_vertices()), &build, progress)
            })
        }
    }
}
