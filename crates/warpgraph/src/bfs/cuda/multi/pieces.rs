//! The pieces a frontier vertex of many arcs is cut into: [`PIECE`] arcs each, a warp
//! each, shared by the whole grid.

use std::ops::Range;

use rayon::prelude::*;

use super::tuning::PIECE;
use crate::graph::{Csr, VertexId};

/// The pieces of a row of `arcs` arcs.
pub(super) fn pieces_of(arcs: u64) -> u64 {
    arcs.div_ceil(PIECE)
}

/// Entries the list of big vertices' pieces can need for the vertices `r` of `c`.
pub(super) fn pieces_bound(c: &Csr, r: Range<usize>) -> usize {
    r.into_par_iter()
        .map(|v| match c.degree(v as VertexId) {
            d if d >= PIECE => pieces_of(d) as usize,
            _ => 0,
        })
        .sum()
}
