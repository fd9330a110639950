//! Every vertex's arcs into a rank's range, so that a rank expands hubs (or a whole
//! frontier) into its own range.

use cudarc::driver::CudaSlice;
use rayon::prelude::*;

use super::pieces::pieces_of;
use super::tuning::PIECE;
use crate::graph::Csr;

/// Delegates (Pearce et al., IPDPS 2013): in a team of several ranks each rank holds every
/// vertex's arcs into its own range (rows by vertex; rows are sorted, so each is one run
/// of the vertex's), and the hubs, the vertices of [`PIECE`] out-arcs or more. On a long
/// top-down level every rank expands each frontier hub into its own range, so no (vertex,
/// parent) pair for another rank comes from a hub; and where the frontier's vertices have
/// [`WHOLE_DEGREE`] out-arcs each on average, every rank expands the whole frontier into
/// its range, and no pair crosses GPUs at all.
pub(super) struct Delegates {
    pub(super) hubs: Vec<u32>,
    pub(super) off: Vec<u64>,
    pub(super) tgt: Vec<u32>,
}

impl Delegates {
    /// The hubs of `c`, ascending.
    pub(super) fn hubs(c: &Csr) -> Vec<u32> {
        (0..c.num_vertices() as u32)
            .into_par_iter()
            .filter(|&v| c.degree(v) >= PIECE)
            .collect()
    }

    /// The run of `v`'s arcs into `r`.
    pub(super) fn run(c: &Csr, v: u32, r: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        let row = c.neighbors(v);
        row.partition_point(|&t| (t as usize) < r.start)
            ..row.partition_point(|&t| (t as usize) < r.end)
    }

    /// The arcs of `c` into `r`, by vertex.
    pub(super) fn new(c: &Csr, r: std::ops::Range<usize>) -> Delegates {
        let n = c.num_vertices();
        let mut off = vec![0u64; n + 1];
        off[1..]
            .par_iter_mut()
            .enumerate()
            .for_each(|(v, o)| *o = Self::run(c, v as u32, &r).len() as u64);
        for v in 0..n {
            off[v + 1] += off[v];
        }
        let mut tgt = vec![0u32; off[n] as usize];
        // Blocks of vertices, each filling its own slice of `tgt`.
        const BLOCK: usize = 1 << 14;
        let mut blocks = Vec::with_capacity(n.div_ceil(BLOCK));
        let mut rest = &mut tgt[..];
        for lo in (0..n).step_by(BLOCK) {
            let hi = (lo + BLOCK).min(n);
            let (head, tail) = std::mem::take(&mut rest).split_at_mut((off[hi] - off[lo]) as usize);
            blocks.push((lo..hi, head));
            rest = tail;
        }
        blocks.into_par_iter().for_each(|(vs, out)| {
            let mut at = 0;
            for v in vs {
                let run = &c.neighbors(v as u32)[Self::run(c, v as u32, &r)];
                out[at..at + run.len()].copy_from_slice(run);
                at += run.len();
            }
        });
        Delegates {
            hubs: Self::hubs(c),
            off,
            tgt,
        }
    }

    /// The pieces of all rows of hubs (every row of [`PIECE`] arcs or more is a hub's).
    pub(super) fn pieces(&self) -> u64 {
        self.hubs
            .iter()
            .map(|&h| pieces_of(self.off[h as usize + 1] - self.off[h as usize]))
            .sum()
    }

    /// Without building them: the hubs, the arcs into `r`, and the pieces of the hubs'.
    pub(super) fn sizes(c: &Csr, r: std::ops::Range<usize>) -> (u64, u64, u64) {
        (0..c.num_vertices() as u32)
            .into_par_iter()
            .map(|v| {
                let arcs = Self::run(c, v, &r).len() as u64;
                match c.degree(v) >= PIECE {
                    true => (1, arcs, pieces_of(arcs)),
                    false => (0, arcs, 0),
                }
            })
            .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
    }
}

/// [`Delegates`] on a GPU, and the number of hubs.
pub(super) struct DelegatesOnGpu {
    pub(super) hubs: CudaSlice<u32>,
    pub(super) off: CudaSlice<u64>,
    pub(super) tgt: CudaSlice<u32>,
    pub(super) count: u32,
}
