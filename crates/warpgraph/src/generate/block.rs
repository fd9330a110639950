//! The block machinery shared by every generator.
//!
//! A generator is a [`BlockGen`]: a fixed number of blocks, each a deterministic function of
//! `(seed, block index)` that emits its edges into a [`Sink`]. [`materialize`] runs it:
//!
//! 1. block lengths: known in advance ([`BlockGen::known_len`]), or counted by running the
//!    block into a [`Counter`] (generators skip weight draws and bulk loops when counting);
//! 2. a prefix sum places each block; the memory is checked and the `src`, `dst` and weight
//!    arrays allocated once;
//! 3. the arrays are split into per-block slices and the blocks run again in parallel, each
//!    writing its own slices through a [`Writer`].
//!
//! Because blocks are fixed by the parameters and every block owns its random streams, the
//! arrays are identical whatever the number of threads.

use rayon::prelude::*;

use super::rng::Rng;
use super::weights::WeightDraw;
use crate::error::{Error, Result};
use crate::graph::{BuildOptions, EdgeList, Graph, VertexIds};
use crate::progress::Progress;

/// Edges per block for generators whose blocks are ranges of the edge index space.
pub(crate) const BLOCK: u64 = 1 << 16;

/// Where a block's edges go.
pub(crate) trait Sink<T> {
    /// Whether edges are stored (`false`: only counted; weights are then never drawn).
    const WRITES: bool;
    /// One arc `u -> v`; `w` draws its weight and is only called when storing.
    fn emit(&mut self, u: u32, v: u32, w: impl FnOnce() -> T);
    /// Arcs `u -> v` and `v -> u` with one shared weight.
    fn emit_both(&mut self, u: u32, v: u32, w: impl FnOnce() -> T);
    /// `k` arcs counted without being produced (only used when `WRITES` is false).
    fn count(&mut self, k: u64);
}

/// A [`Sink`] that only counts.
#[derive(Debug, Default)]
pub(crate) struct Counter(pub(crate) u64);

impl<T> Sink<T> for Counter {
    const WRITES: bool = false;
    #[inline]
    fn emit(&mut self, _u: u32, _v: u32, _w: impl FnOnce() -> T) {
        self.0 += 1;
    }
    #[inline]
    fn emit_both(&mut self, _u: u32, _v: u32, _w: impl FnOnce() -> T) {
        self.0 += 2;
    }
    #[inline]
    fn count(&mut self, k: u64) {
        self.0 += k;
    }
}

/// A [`Sink`] that writes into a block's slices of the edge arrays, in order.
pub(crate) struct Writer<'a, T> {
    src: std::slice::IterMut<'a, u32>,
    dst: std::slice::IterMut<'a, u32>,
    w: std::slice::IterMut<'a, T>,
}

impl<T: Copy> Writer<'_, T> {
    #[inline]
    fn put(&mut self, u: u32, v: u32, w: T) {
        // The slices have exactly the counted length, so these never run out; if they did,
        // the extra edge would be dropped rather than written out of bounds.
        if let (Some(s), Some(d), Some(x)) = (self.src.next(), self.dst.next(), self.w.next()) {
            *s = u;
            *d = v;
            *x = w;
        }
    }
}

impl<T: Copy> Sink<T> for Writer<'_, T> {
    const WRITES: bool = true;
    #[inline]
    fn emit(&mut self, u: u32, v: u32, w: impl FnOnce() -> T) {
        let w = w();
        self.put(u, v, w);
    }
    #[inline]
    fn emit_both(&mut self, u: u32, v: u32, w: impl FnOnce() -> T) {
        let w = w();
        self.put(u, v, w);
        self.put(v, u, w);
    }
    #[inline]
    fn count(&mut self, _k: u64) {}
}

/// A generator cut into deterministic blocks.
pub(crate) trait BlockGen: Sync {
    /// How weights are drawn.
    type W: WeightDraw;
    /// Number of blocks.
    fn num_blocks(&self) -> u64;
    /// A lower bound on the number of arcs (exact when nothing is random in the count),
    /// checked against memory before any work, so absurd sizes fail at once.
    fn min_edges(&self) -> u64;
    /// The number of arcs block `b` emits, when known without running it.
    fn known_len(&self, _b: u64) -> Option<u64> {
        None
    }
    /// Emits block `b`'s arcs. Must emit the same arcs, in the same order, every time.
    fn run<S: Sink<<Self::W as WeightDraw>::T>>(&self, b: u64, sink: &mut S);
}

/// Draws the endpoints of independent random edges.
pub(crate) trait EdgeSampler: Sync {
    /// The endpoints `(u, v)` of the next edge, drawn from `rng`.
    fn sample(&self, rng: &mut Rng) -> (u32, u32);
}

/// A generator of `edges` independent edges drawn by `sampler`: its blocks are [`BLOCK`]
/// consecutive edge indices, and block `b` draws from its own stream
/// `Rng::for_block(seed, stream, b)` each edge's endpoints, then its weight.
pub(crate) struct SampledEdges<S, W> {
    pub(crate) sampler: S,
    pub(crate) edges: u64,
    pub(crate) seed: u64,
    pub(crate) stream: u64,
    pub(crate) weights: W,
}

impl<S, W> SampledEdges<S, W> {
    fn block_range(&self, b: u64) -> (u64, u64) {
        let start = b.saturating_mul(BLOCK).min(self.edges);
        (start, start.saturating_add(BLOCK).min(self.edges))
    }
}

impl<S: EdgeSampler, W: WeightDraw> BlockGen for SampledEdges<S, W> {
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

    fn run<K: Sink<W::T>>(&self, b: u64, sink: &mut K) {
        let (s, e) = self.block_range(b);
        let mut rng = Rng::for_block(self.seed, self.stream, b);
        for _ in s..e {
            let (u, v) = self.sampler.sample(&mut rng);
            sink.emit(u, v, || self.weights.draw(&mut rng));
        }
    }
}

/// Sizes of the finished graph, for the memory check made before the edge arrays exist.
pub(crate) struct Plan {
    /// Number of vertices.
    pub(crate) num_vertices: u64,
    /// Whether the builder mirrors every edge.
    pub(crate) undirected: bool,
}

/// Bytes needed to hold `edges` generated edges and then build them into a CSR.
pub(crate) fn bytes_needed(edges: u64, weight_bytes: u64, plan: &Plan) -> u64 {
    let arcs = if plan.undirected {
        edges.saturating_mul(2)
    } else {
        edges
    };
    edges
        .saturating_mul(8 + weight_bytes)
        .saturating_add(arcs.saturating_mul(20 + weight_bytes))
        .saturating_add(plan.num_vertices.saturating_add(1).saturating_mul(24))
}

/// Checks that `edges` generated edges and their CSR fit in memory.
pub(crate) fn check_memory(edges: u64, weight_bytes: u64, plan: &Plan) -> Result<()> {
    crate::memory::check(
        || {
            format!(
                "generating {edges} edges on {} vertices and building the graph",
                plan.num_vertices
            )
        },
        bytes_needed(edges, weight_bytes, plan),
    )
}

/// Runs every block of `g` into freshly allocated edge arrays (see the module docs), then
/// builds the graph.
pub(crate) fn materialize<G: BlockGen>(
    g: &G,
    plan: &Plan,
    build: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Graph> {
    let wbytes = <G::W as WeightDraw>::BYTES;
    check_memory(g.min_edges(), wbytes, plan)?;
    let nb = g.num_blocks();
    let lens: Vec<u64> = (0..nb)
        .into_par_iter()
        .map(|b| {
            g.known_len(b).unwrap_or_else(|| {
                let mut c = Counter(0);
                g.run(b, &mut c);
                c.0
            })
        })
        .collect();
    let total = lens
        .iter()
        .try_fold(0u64, |acc, &l| acc.checked_add(l))
        .ok_or_else(|| Error::TooLarge {
            what: "the number of generated edges".into(),
            value: u64::MAX,
            limit: u64::MAX,
        })?;
    check_memory(total, wbytes, plan)?;
    let len = usize::try_from(total).map_err(|_| Error::TooLarge {
        what: "the number of generated edges".into(),
        value: total,
        limit: usize::MAX as u64,
    })?;

    progress.begin("generating", total);
    let mut src = vec![0u32; len];
    let mut dst = vec![0u32; len];
    let mut w = vec![<G::W as WeightDraw>::T::default(); len];
    let parts: Vec<(u64, Writer<'_, _>)> = {
        let (mut s, mut d, mut x) = (&mut src[..], &mut dst[..], &mut w[..]);
        let mut parts = Vec::with_capacity(lens.len());
        for (b, &l) in lens.iter().enumerate() {
            let l = (l as usize).min(s.len());
            let (s0, s1) = std::mem::take(&mut s).split_at_mut(l);
            let (d0, d1) = std::mem::take(&mut d).split_at_mut(l);
            let (x0, x1) = std::mem::take(&mut x).split_at_mut(l);
            (s, d, x) = (s1, d1, x1);
            let writer = Writer {
                src: s0.iter_mut(),
                dst: d0.iter_mut(),
                w: x0.iter_mut(),
            };
            parts.push((b as u64, writer));
        }
        parts
    };
    parts.into_par_iter().for_each(|(b, mut writer)| {
        let n = writer.src.len() as u64;
        g.run(b, &mut writer);
        progress.advance(n);
    });
    progress.finish();

    let edges = EdgeList {
        num_vertices: plan.num_vertices,
        src,
        dst,
        weights: <G::W as WeightDraw>::into_weights(w),
        ids: VertexIds::Base(0),
    };
    progress.begin("building the graph", 0);
    let graph = edges.build(build);
    progress.finish();
    graph
}
