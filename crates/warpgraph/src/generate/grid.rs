//! Road-like grids: a `rows x cols` 4-neighbour lattice, thinned, with random shortcuts.
//!
//! Vertex `(r, c)` is number `r * cols + c`. The lattice edges are, in this order, the
//! horizontal ones `(r, c) - (r, c + 1)` (index `r * (cols - 1) + c`) and then the vertical
//! ones `(r, c) - (r + 1, c)`. Each lattice edge is removed independently with probability
//! `remove` (`0 <= remove < 1`). Then `shortcuts` extra edges join a uniform random vertex to
//! a uniform random *other* vertex (so a shortcut is never a self loop; it may repeat a
//! lattice edge or another shortcut).
//!
//! Every edge is a two-way street, as in the DIMACS road networks
//! (<https://www.diag.uniroma1.it/challenge9/>): a directed graph gets both arcs `u -> v` and
//! `v -> u` with the same weight, an undirected one gets the edge once (the builder stores
//! it both ways). Without shortcuts every vertex has degree at most 4, and with nothing
//! removed the hop diameter is `rows + cols - 2`.
//!
//! A 2 x 3 grid, vertices numbered row by row:
//!
//! ```text
//! 0 - 1 - 2
//! |   |   |
//! 3 - 4 - 5
//! ```
//!
//! Randomness: lattice edges come in blocks of 2^16 with one stream for the removal draws and
//! another for the weights (drawn for kept edges only, in order); shortcut blocks use one
//! stream for endpoints then weight.

use super::block::{BlockGen, Sink, BLOCK};
use super::rng::Rng;
use super::stream;
use super::weights::WeightDraw;
use crate::error::{Error, Result};
use crate::graph::MAX_VERTICES;

/// The grid block generator.
pub(crate) struct Grid<W> {
    cols: u64,
    n: u64,
    /// Horizontal lattice edges.
    horizontal: u64,
    /// All lattice edges.
    lattice: u64,
    remove: f64,
    shortcuts: u64,
    /// Emit both arcs of each edge (directed output).
    two_way: bool,
    seed: u64,
    weights: W,
}

impl<W: WeightDraw> Grid<W> {
    /// Validates the parameters and sets up the generator.
    pub(crate) fn new(
        rows: u32,
        cols: u32,
        remove: f64,
        shortcuts: u64,
        two_way: bool,
        seed: u64,
        weights: W,
    ) -> Result<Grid<W>> {
        if rows == 0 || cols == 0 {
            return Err(Error::InvalidArgument(format!(
                "a grid needs at least 1 row and 1 column (got {rows} x {cols})"
            )));
        }
        let (rows, cols) = (u64::from(rows), u64::from(cols));
        let n = rows * cols; // < 2^64: both are below 2^32
        if n > MAX_VERTICES {
            return Err(Error::TooLarge {
                what: format!("the number of vertices of a {rows} x {cols} grid"),
                value: n,
                limit: MAX_VERTICES,
            });
        }
        if !(0.0..1.0).contains(&remove) {
            return Err(Error::InvalidArgument(format!(
                "the fraction of grid edges to remove is {remove}; it must lie in [0, 1)"
            )));
        }
        if shortcuts > 0 && n < 2 {
            return Err(Error::InvalidArgument(
                "shortcuts join two different vertices, but the grid has only 1 vertex".into(),
            ));
        }
        let horizontal = rows * (cols - 1);
        Ok(Grid {
            cols,
            n,
            horizontal,
            lattice: horizontal + (rows - 1) * cols,
            remove,
            shortcuts,
            two_way,
            seed,
            weights,
        })
    }

    /// Number of vertices.
    pub(crate) fn num_vertices(&self) -> u64 {
        self.n
    }

    fn arcs_per_edge(&self) -> u64 {
        if self.two_way {
            2
        } else {
            1
        }
    }

    fn lattice_blocks(&self) -> u64 {
        self.lattice.div_ceil(BLOCK)
    }

    /// Block `b` as (is it a lattice block, first index, end index) in its own index space.
    fn block(&self, b: u64) -> (bool, u64, u64) {
        let lb = self.lattice_blocks();
        let (is_lattice, local, total) = if b < lb {
            (true, b, self.lattice)
        } else {
            (false, b - lb, self.shortcuts)
        };
        let start = local.saturating_mul(BLOCK).min(total);
        (is_lattice, start, start.saturating_add(BLOCK).min(total))
    }

    #[inline]
    fn lattice_edge(&self, e: u64) -> (u32, u32) {
        // Vertices are below n <= MAX_VERTICES < 2^32.
        if e < self.horizontal {
            let per_row = self.cols - 1; // >= 1 here, since there are horizontal edges
            let (r, c) = (e / per_row, e % per_row);
            let u = r * self.cols + c;
            (u as u32, (u + 1) as u32)
        } else {
            let u = e - self.horizontal;
            (u as u32, (u + self.cols) as u32)
        }
    }

    #[inline]
    fn put<S: Sink<W::T>>(&self, sink: &mut S, u: u32, v: u32, w: impl FnOnce() -> W::T) {
        if self.two_way {
            sink.emit_both(u, v, w);
        } else {
            sink.emit(u, v, w);
        }
    }
}

impl<W: WeightDraw> BlockGen for Grid<W> {
    type W = W;

    fn num_blocks(&self) -> u64 {
        self.lattice_blocks() + self.shortcuts.div_ceil(BLOCK)
    }

    fn min_edges(&self) -> u64 {
        let kept = if self.remove == 0.0 { self.lattice } else { 0 };
        kept.saturating_add(self.shortcuts)
            .saturating_mul(self.arcs_per_edge())
    }

    fn known_len(&self, b: u64) -> Option<u64> {
        let (is_lattice, s, e) = self.block(b);
        if is_lattice && self.remove > 0.0 {
            None
        } else {
            Some((e - s) * self.arcs_per_edge())
        }
    }

    fn run<S: Sink<W::T>>(&self, b: u64, sink: &mut S) {
        let (is_lattice, s, e) = self.block(b);
        if is_lattice {
            let lb = b;
            let mut keep = Rng::for_block(self.seed, stream::GRID_REMOVE, lb);
            let mut wr = Rng::for_block(self.seed, stream::GRID_WEIGHTS, lb);
            for i in s..e {
                if self.remove > 0.0 && keep.next_f64() < self.remove {
                    continue;
                }
                let (u, v) = self.lattice_edge(i);
                self.put(sink, u, v, || self.weights.draw(&mut wr));
            }
        } else {
            let sb = b - self.lattice_blocks();
            let mut rng = Rng::for_block(self.seed, stream::GRID_SHORTCUT, sb);
            for _ in s..e {
                let u = rng.below(self.n);
                let mut v = rng.below(self.n - 1);
                if v >= u {
                    v += 1;
                }
                // Both below n <= MAX_VERTICES < 2^32.
                self.put(sink, u as u32, v as u32, || self.weights.draw(&mut rng));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::Counter;
    use super::super::weights::NoWeight;
    use super::*;

    #[test]
    fn lattice_numbering() {
        let g = Grid::new(2, 3, 0.0, 0, false, 1, NoWeight).unwrap();
        let edges: Vec<(u32, u32)> = (0..g.lattice).map(|e| g.lattice_edge(e)).collect();
        assert_eq!(
            edges,
            vec![(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)]
        );
    }

    #[test]
    fn counting_matches_removal() {
        let g = Grid::new(100, 100, 0.5, 0, true, 1, NoWeight).unwrap();
        let mut c = Counter(0);
        for b in 0..g.num_blocks() {
            BlockGen::run(&g, b, &mut c);
        }
        // 19800 edges, each kept with probability 1/2, both arcs: about 19800.
        assert!((18_000..21_600).contains(&c.0), "{}", c.0);
        assert_eq!(c.0 % 2, 0);
    }
}
