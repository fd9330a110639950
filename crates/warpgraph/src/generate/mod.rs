//! Deterministic, parallel graph generators.
//!
//! Every generator is a pure function of its parameters and [`GenerateOptions::seed`]:
//! the same call gives the same graph on any number of threads.

use crate::error::{Error, Result};
use crate::graph::{Duplicates, Graph, SelfLoops};
use crate::progress::{NoProgress, Progress};

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

/// Generates a graph, reporting progress.
pub fn generate_with(
    _gen: &Generator,
    _opts: &GenerateOptions,
    _progress: &dyn Progress,
) -> Result<Graph> {
    Err(Error::Unsupported(
        "generators are not implemented yet".into(),
    ))
}
