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

use super::block::EdgeSampler;
use super::rng::Rng;
use crate::error::{Error, Result};
use crate::graph::MAX_VERTICES;

/// The uniform edge sampler (run by [`SampledEdges`](super::block::SampledEdges)).
pub(crate) struct Uniform {
    pub(crate) vertices: u64,
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

impl EdgeSampler for Uniform {
    #[inline]
    fn sample(&self, rng: &mut Rng) -> (u32, u32) {
        // Both are below `vertices` <= MAX_VERTICES < 2^32.
        let u = rng.below(self.vertices) as u32;
        let v = rng.below(self.vertices) as u32;
        (u, v)
    }
}
