//! Kronecker (Graph500) and R-MAT graphs: the recursive quadrant sampler.
//!
//! Both draw `m = edge_factor * 2^scale` edges over `n = 2^scale` vertices. Each edge is
//! placed by descending `scale` levels of the adjacency matrix: at every level one of the
//! four quadrants is chosen with probabilities `a` (top left), `b` (top right), `c` (bottom
//! left) and `d = 1 - a - b - c` (bottom right), which fixes one bit of the source (row) and
//! one bit of the target (column). (Chakrabarti, Zhan and Faloutsos, "R-MAT: A recursive
//! model for graph mining", SDM 2004; the Graph500 specification, section 3,
//! <https://graph500.org/?page_id=12>.)
//!
//! - **Kronecker** is the Graph500 generator: `a, b, c = 0.57, 0.19, 0.19` (`d = 0.05`), and
//!   vertex ids are then scrambled by a seed-dependent bijection of `[0, 2^scale)` so that
//!   vertex number says nothing about degree (the reference code permutes vertices for the
//!   same reason). The bijection is three rounds of `x = (x * k_i + c_i) mod 2^scale`
//!   (odd `k_i`: invertible) followed by `x ^= x >> ceil(scale / 2)` (invertible within
//!   `scale` bits), with `k_i` and `c_i` hashed from the seed.
//! - **R-MAT** uses the caller's `a, b, c` and does not scramble: vertex 0 is the hub when
//!   `a` is largest.
//!
//! Conventions: each quadrant choice uses 32 random bits (probabilities are rounded to
//! multiples of 2^-32), so one 64-bit draw serves two levels; no per-level noise is added.
//! Edges are produced in blocks of 2^16 with their own random streams; weights come from
//! the same stream, right after the edge's endpoints.
//!
//! ```
//! use warpgraph::generate::{generate, Generator, GenerateOptions};
//! let g = generate(&Generator::Kronecker { scale: 10, edge_factor: 16 },
//!                  &GenerateOptions::default()).unwrap();
//! assert_eq!(g.num_vertices(), 1024);
//! ```

use super::block::EdgeSampler;
use super::rng::{hash3, Rng};
use super::{stream, validate_scale};
use crate::error::{Error, Result};

/// Validated R-MAT parameters: cumulative quadrant thresholds out of 2^32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quadrants {
    /// `P(a)`, `P(a + b)`, `P(a + b + c)`, each times 2^32 (at most 2^32).
    t: [u64; 3],
}

impl Quadrants {
    /// The Graph500 initiator A, B, C = 0.57, 0.19, 0.19.
    pub(crate) fn graph500() -> Quadrants {
        // The constants are valid, so this cannot fail; fall back to uniform regardless.
        Quadrants::new(0.57, 0.19, 0.19).unwrap_or(Quadrants {
            t: [1 << 30, 2 << 30, 3 << 30],
        })
    }

    /// Validates `a, b, c` (each in [0, 1], `a + b + c <= 1`).
    pub(crate) fn new(a: f64, b: f64, c: f64) -> Result<Quadrants> {
        for (name, p) in [("a", a), ("b", b), ("c", c)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::InvalidArgument(format!(
                    "R-MAT probability {name} = {p} must lie in [0, 1]"
                )));
            }
        }
        let sum = a + b + c;
        if sum > 1.0 + 1e-9 {
            return Err(Error::InvalidArgument(format!(
                "R-MAT probabilities a + b + c = {sum} exceed 1 (d = 1 - a - b - c must not be \
                 negative)"
            )));
        }
        let scale = (1u64 << 32) as f64;
        let t = |p: f64| ((p * scale).round() as u64).min(1 << 32);
        Ok(Quadrants {
            t: [t(a), t(a + b), t(a + b + c)],
        })
    }

    /// One level: the (source bit, target bit) for 32 random bits `r`.
    #[inline]
    fn pick(&self, r: u64) -> (u64, u64) {
        let ge0 = (r >= self.t[0]) as u64;
        let ge1 = (r >= self.t[1]) as u64;
        let ge2 = (r >= self.t[2]) as u64;
        // a: (0,0), b: (0,1), c: (1,0), d: (1,1).
        (ge1, ge0 ^ ge1 ^ ge2)
    }

    /// One edge of a `2^scale` matrix.
    #[inline]
    fn sample(&self, rng: &mut Rng, scale: u32) -> (u64, u64) {
        let (mut u, mut v) = (0u64, 0u64);
        let mut level = 0;
        while level < scale {
            let r = rng.next_u64();
            let (su, sv) = self.pick(r >> 32);
            u = (u << 1) | su;
            v = (v << 1) | sv;
            level += 1;
            if level < scale {
                let (su, sv) = self.pick(r & 0xffff_ffff);
                u = (u << 1) | su;
                v = (v << 1) | sv;
                level += 1;
            }
        }
        (u, v)
    }
}

/// A seed-dependent bijection of `[0, 2^scale)`; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scramble {
    mask: u64,
    shift: u32,
    mul: [u64; 3],
    add: [u64; 3],
}

impl Scramble {
    /// The bijection for `scale` bits and `seed`.
    pub(crate) fn new(scale: u32, seed: u64) -> Scramble {
        let mask = if scale >= 64 {
            u64::MAX
        } else {
            (1u64 << scale) - 1
        };
        let h = |i: u64| hash3(seed, stream::SCRAMBLE, i);
        Scramble {
            mask,
            shift: scale.div_ceil(2).max(1),
            mul: [h(0) | 1, h(1) | 1, h(2) | 1],
            add: [h(3), h(4), h(5)],
        }
    }

    /// The image of `x < 2^scale`.
    #[inline]
    pub(crate) fn apply(&self, mut x: u64) -> u64 {
        for i in 0..3 {
            x = x.wrapping_mul(self.mul[i]).wrapping_add(self.add[i]) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }
}

/// The Kronecker / R-MAT edge sampler (run by [`SampledEdges`](super::block::SampledEdges)).
pub(crate) struct Kron {
    pub(crate) scale: u32,
    pub(crate) quadrants: Quadrants,
    pub(crate) scramble: Option<Scramble>,
}

/// Validates `scale`; returns `(n, m)` = `(2^scale, edge_factor * 2^scale)`.
pub(crate) fn sizes(scale: u32, edge_factor: u32) -> Result<(u64, u64)> {
    let n = validate_scale(scale)?;
    // n <= 2^31 and edge_factor < 2^32, so this cannot overflow.
    Ok((n, n * u64::from(edge_factor)))
}

impl EdgeSampler for Kron {
    #[inline]
    fn sample(&self, rng: &mut Rng) -> (u32, u32) {
        let (mut u, mut v) = self.quadrants.sample(rng, self.scale);
        if let Some(p) = &self.scramble {
            u = p.apply(u);
            v = p.apply(v);
        }
        // u, v < 2^scale <= 2^31.
        (u as u32, v as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_is_a_bijection() {
        for scale in [0u32, 1, 2, 3, 7, 12] {
            let p = Scramble::new(scale, 99);
            let n = 1usize << scale;
            let mut seen = vec![false; n];
            for x in 0..n as u64 {
                let y = p.apply(x) as usize;
                assert!(y < n);
                assert!(!seen[y], "scale {scale}: {y} hit twice");
                seen[y] = true;
            }
        }
        // It actually moves things, and depends on the seed.
        let (p, q) = (Scramble::new(16, 1), Scramble::new(16, 2));
        assert!((0..100).any(|x| p.apply(x) != x));
        assert!((0..100).any(|x| p.apply(x) != q.apply(x)));
    }

    #[test]
    fn quadrant_choice() {
        let q = Quadrants::new(0.25, 0.25, 0.25).unwrap();
        assert_eq!(q.t, [1 << 30, 2 << 30, 3 << 30]);
        assert_eq!(q.pick(0), (0, 0));
        assert_eq!(q.pick((1 << 30) + 5), (0, 1));
        assert_eq!(q.pick((2 << 30) + 5), (1, 0));
        assert_eq!(q.pick(u32::MAX as u64), (1, 1));
        // a = 1: always the top-left quadrant, so every edge is 0 -> 0.
        let q = Quadrants::new(1.0, 0.0, 0.0).unwrap();
        let mut r = Rng::new(3);
        for _ in 0..100 {
            assert_eq!(q.sample(&mut r, 9), (0, 0));
        }
        // d = 1: always the bottom-right quadrant.
        let q = Quadrants::new(0.0, 0.0, 0.0).unwrap();
        assert_eq!(q.sample(&mut r, 5), (31, 31));
    }

    #[test]
    fn bad_probabilities() {
        assert!(Quadrants::new(-0.1, 0.2, 0.2).is_err());
        assert!(Quadrants::new(0.6, 0.3, 0.3).is_err());
        assert!(Quadrants::new(f64::NAN, 0.1, 0.1).is_err());
        assert!(Quadrants::new(0.1, 1.5, 0.1).is_err());
        assert!(Quadrants::new(0.1 + 0.2, 0.3, 0.4).is_ok());
    }
}
