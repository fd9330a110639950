//! Uniform random graphs: Erdős–Rényi G(n, m) with independent endpoints.
//!
//! Each of the `m` edges picks its source and its target independently and uniformly from
//! `0..n` (so self loops and parallel edges can occur; the build options decide whether they
//! stay). This is GAPBS's `-u` generator and the Erdős–Rényi model "G(n, m)" sampled with
//! replacement (Erdős and Rényi, "On random graphs I", 1959; Beamer, Asanović and Patterson,
//! "The GAP benchmark suite", arXiv:1508.03619).
//!
//! Conventions: edges are made in blocks of 2^16, each with its own random stream; an edge
//! draws its source, its target, then its weight. Endpoints are unbiased (Lemire's method).
//!
//! ```
//! use warpgraph::generate::{generate, Generator, GenerateOptions};
//! let g = generate(&Generator::Uniform { vertices: 100, edges: 500 },
//!                  &GenerateOptions::default()).unwrap();
//! assert_eq!(g.num_vertices(), 100);
//! assert!(g.num_arcs() <= 500);
//! ```

use super::block::{BlockGen, Sink, BLOCK};
use super::rng::Rng;
use super::stream;
use super::weights::WeightDraw;
use crate::error::{Error, Result};
use crate::graph::MAX_VERTICES;

/// The uniform block generator.
pub(crate) struct Uniform<W> {
    pub(crate) vertices: u64,
    pub(crate) edges: u64,
    pub(crate) seed: u64,
    pub(crate) weights: W,
}

/// Validates the vertex count: at least 1, at most [`MAX_VERTICES`].
pub(crate) fn validate(vertices: u64) -> Result<()> {
    if vertices == 0 {
        return Err(Error::InvalidArgument(
            "a uniform random graph needs at least 1 vertex".into(),
        ));
    }
    if vertices > MAX_VERTICES {
        return Err(Error::TooLarge {
            what: "the number of vertices".into(),
            value: vertices,
            limit: MAX_VERTICES,
        });
    }
    Ok(())
}

impl<W> Uniform<W> {
    fn block_range(&self, b: u64) -> (u64, u64) {
        let start = b.saturating_mul(BLOCK).min(self.edges);
        (start, start.saturating_add(BLOCK).min(self.edges))
    }
}

impl<W: WeightDraw> BlockGen for Uniform<W> {
    type W = W;

    fn num_blocks(&self) -> u64 {
        self.edges.div_ceil(BLOCK)
    }

    fn min_edges(&self) -> u64 {
        self.edges
    }

    fn known_len(&self, b: u64) -> Option<u64> {
        let (s, e) = self.block_range(b);
        Some(e - s)
    }

    fn run<S: Sink<W::T>>(&self, b: u64, sink: &mut S) {
        let (s, e) = self.block_range(b);
        let mut rng = Rng::for_block(self.seed, stream::UNIFORM, b);
        for _ in s..e {
            // Both are below `vertices` <= MAX_VERTICES < 2^32.
            let u = rng.below(self.vertices) as u32;
            let v = rng.below(self.vertices) as u32;
            sink.emit(u, v, || self.weights.draw(&mut rng));
        }
    }
}
