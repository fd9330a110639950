//! SSCA#2 graphs: random cliques joined by sparse inter-clique edges.
//!
//! After the HPCS Scalable Synthetic Compact Applications #2 benchmark (Bader and Madduri,
//! "Design and implementation of the HPCS graph analysis benchmark on symmetric
//! multiprocessors", HiPC 2005) and its GTgraph generator
//! (<https://github.com/Bader-Research/GTgraph>, `SSCA2/`). The exact rules here:
//!
//! 1. **Cliques.** The `n = 2^scale` vertices are cut into consecutive cliques, from vertex 0
//!    on: each clique's size is uniform in `1..=max_clique` (`max_clique` capped at `n`), the
//!    last one truncated to end at `n`. This is one serial pass with one random stream (it is
//!    `n / (average size)` cheap steps).
//! 2. **Intra-clique arcs.** Inside a clique every ordered pair `u -> v`, `u != v`, is an arc
//!    of a directed graph; an undirected graph gets each pair once (the builder stores it
//!    both ways). Cliques are therefore complete.
//! 3. **Inter-clique edges.** For every vertex `u` and every distance `2^k < n`
//!    (`k = 0 .. scale - 1`), with probability `inter_prob`, let `t = (u + 2^k) mod n`; if
//!    `t` lies in another clique than `u`, add the edge `u -> x` with `x` uniform among the
//!    vertices of `t`'s clique. (GTgraph makes the probability decay with the distance and
//!    may add parallel edges; here one probability serves every power-of-two distance and
//!    parallel edges only arise by chance.)
//!
//! Randomness: vertices are processed in fixed blocks (the block size depends only on
//! `scale` and `max_clique`); each block has one stream for the inter-clique decisions and
//! targets and one for weights (drawn per emitted arc, in order: `u`'s clique arcs by
//! increasing target, then its inter-clique edges by increasing `k`).
//!
//! A scale-2 example (4 vertices) whose cliques came out as `{0, 1, 2}` and `{3}`, directed:
//! arcs `0->1 0->2 1->0 1->2 2->0 2->1`, plus for instance `2->3` (distance 1) and
//! `3->1` (distance 2, `t = 1`, `x` drawn from `{0, 1, 2}`).

use super::block::{BlockGen, Sink, BLOCK};
use super::rng::Rng;
use super::weights::WeightDraw;
use super::{stream, validate_scale};
use crate::error::{Error, Result};

/// The default largest clique size for a given scale: `max(1, 2^(scale / 3))` (integer
/// division), GTgraph's `MaxCliqueSize = 2^(SCALE/3)` rounded down; saturates at `u32::MAX`.
///
/// ```
/// use warpgraph::generate::default_max_clique;
/// assert_eq!(default_max_clique(0), 1);
/// assert_eq!(default_max_clique(10), 8);
/// assert_eq!(default_max_clique(20), 64);
/// ```
pub fn default_max_clique(scale: u32) -> u32 {
    1u32.checked_shl(scale / 3).unwrap_or(u32::MAX).max(1)
}

/// The SSCA#2 block generator.
pub(crate) struct Ssca2<W> {
    scale: u32,
    n: u64,
    /// Clique `c` is `starts[c]..starts[c + 1]`; the last entry is `n`.
    starts: Vec<u32>,
    /// Intra-clique arcs in total.
    intra: u64,
    inter_prob: f64,
    /// Emit both directions of each clique pair.
    directed: bool,
    /// Vertices per block.
    per_block: u64,
    seed: u64,
    weights: W,
}

impl<W: WeightDraw> Ssca2<W> {
    /// Validates the parameters and draws the clique partition.
    pub(crate) fn new(
        scale: u32,
        max_clique: u32,
        inter_prob: f64,
        directed: bool,
        seed: u64,
        weights: W,
    ) -> Result<Ssca2<W>> {
        let n = validate_scale(scale)?;
        if max_clique == 0 {
            return Err(Error::InvalidArgument(
                "SSCA#2 max_clique must be at least 1".into(),
            ));
        }
        if !(0.0..=1.0).contains(&inter_prob) {
            return Err(Error::InvalidArgument(format!(
                "SSCA#2 inter-clique probability is {inter_prob}; it must lie in [0, 1]"
            )));
        }
        let mc = u64::from(max_clique).min(n);
        // Expected cliques: n / ((mc + 1) / 2); allow some slack for the reservation.
        let expected = (2 * n / (mc + 1)).saturating_add(16);
        let reserve = expected + expected / 8;
        crate::memory::check(
            || format!("the clique table of an SSCA#2 graph of scale {scale}"),
            crate::memory::bytes_for(reserve, 4),
        )?;
        let mut starts: Vec<u32> = Vec::with_capacity(reserve as usize);
        let mut rng = Rng::for_block(seed, stream::SSCA2_CLIQUES, 0);
        let mut start = 0u64;
        let mut intra = 0u64;
        while start < n {
            let size = (1 + rng.below(mc)).min(n - start);
            let pairs = size * (size - 1); // size <= 2^31: no overflow
            intra = intra.saturating_add(if directed { pairs } else { pairs / 2 });
            starts.push(start as u32); // start < n <= 2^31
            start += size;
        }
        starts.push(n as u32);
        let per_block = (BLOCK / (mc / 2 + u64::from(scale) + 1)).clamp(16, BLOCK);
        Ok(Ssca2 {
            scale,
            n,
            starts,
            intra,
            inter_prob,
            directed,
            per_block,
            seed,
            weights,
        })
    }

    /// Number of vertices.
    pub(crate) fn num_vertices(&self) -> u64 {
        self.n
    }

    /// The clique holding vertex `t < n`.
    #[inline]
    fn clique_of(&self, t: u64) -> usize {
        self.starts
            .partition_point(|&s| u64::from(s) <= t)
            .saturating_sub(1)
    }

    /// Clique `c` as a vertex range.
    #[inline]
    fn clique(&self, c: usize) -> (u64, u64) {
        let s = self.starts.get(c).map_or(self.n, |&x| u64::from(x));
        let e = self.starts.get(c + 1).map_or(self.n, |&x| u64::from(x));
        (s, e)
    }
}

impl<W: WeightDraw> BlockGen for Ssca2<W> {
    type W = W;

    fn num_blocks(&self) -> u64 {
        self.n.div_ceil(self.per_block)
    }

    fn min_edges(&self) -> u64 {
        self.intra
    }

    fn run<S: Sink<W::T>>(&self, b: u64, sink: &mut S) {
        let first = b.saturating_mul(self.per_block).min(self.n);
        let end = first.saturating_add(self.per_block).min(self.n);
        let mut decide = Rng::for_block(self.seed, stream::SSCA2_INTER, b);
        let mut wr = Rng::for_block(self.seed, stream::SSCA2_WEIGHTS, b);
        let mut c = self.clique_of(first);
        let (mut cs, mut ce) = self.clique(c);
        let mask = self.n - 1; // n is a power of two
        for u in first..end {
            while ce <= u && c + 1 < self.starts.len() {
                c += 1;
                (cs, ce) = self.clique(c);
            }
            // All vertex numbers here are below n <= 2^31.
            let lo = if self.directed { cs } else { u + 1 };
            if S::WRITES {
                for v in lo..ce {
                    if v != u {
                        sink.emit(u as u32, v as u32, || self.weights.draw(&mut wr));
                    }
                }
            } else {
                let span = ce.saturating_sub(lo);
                sink.count(if lo <= u {
                    span.saturating_sub(1)
                } else {
                    span
                });
            }
            if self.inter_prob > 0.0 {
                for k in 0..self.scale {
                    if decide.next_f64() >= self.inter_prob {
                        continue;
                    }
                    let t = (u + (1u64 << k)) & mask;
                    let ct = self.clique_of(t);
                    if ct == c {
                        continue;
                    }
                    let (ts, te) = self.clique(ct);
                    let x = ts + decide.below(te - ts);
                    sink.emit(u as u32, x as u32, || self.weights.draw(&mut wr));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::weights::NoWeight;
    use super::*;

    #[test]
    fn partition_covers_everything() {
        let g = Ssca2::new(12, 20, 0.0, true, 5, NoWeight).unwrap();
        assert_eq!(g.starts.first(), Some(&0));
        assert_eq!(g.starts.last(), Some(&4096));
        let mut intra = 0;
        for w in g.starts.windows(2) {
            let s = u64::from(w[1] - w[0]);
            assert!((1..=20).contains(&s));
            intra += s * (s - 1);
        }
        assert_eq!(intra, g.intra);
        assert_eq!(g.clique_of(0), 0);
        assert_eq!(g.clique_of(4095), g.starts.len() - 2);
        let c = g.clique_of(1000);
        let (s, e) = g.clique(c);
        assert!(s <= 1000 && 1000 < e);
    }

    #[test]
    fn default_clique_sizes() {
        assert_eq!(default_max_clique(2), 1);
        assert_eq!(default_max_clique(3), 2);
        assert_eq!(default_max_clique(31), 1024);
        assert_eq!(default_max_clique(200), u32::MAX);
    }
}
