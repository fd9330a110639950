//! The plan of a Floyd-Warshall run: the side of the padded matrix, the bytes it needs,
//! and the narrowest cell type whose sums cannot overflow with its sentinels (the bounds
//! are derived in the docs of [`super`]).

use rayon::prelude::*;

use super::cell::T;
use crate::error::{Error, Result};
use crate::graph::{Graph, Weight, Weights};
use crate::with_weights;

pub(super) fn padded(n: usize) -> u64 {
    (n as u64).div_ceil(T as u64) * T as u64
}

pub(super) fn bytes_needed(n: usize, cell: usize, pred: bool) -> u64 {
    let nn = padded(n).saturating_mul(padded(n));
    let per_pair = cell as u64 + if pred { 4 } else { 0 };
    let block = (T.min(n) as u64).saturating_mul(n as u64);
    nn.saturating_mul(per_pair)
        .saturating_add(block.saturating_mul(8 + if pred { 4 } else { 0 }))
}

/// The cell type and sentinels chosen for a graph (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plan {
    I32 { inf: i32, thr: i32 },
    I64 { inf: i64, thr: i64 },
    I128,
    F64,
}

impl Plan {
    pub(crate) fn cell_size(self) -> usize {
        match self {
            Plan::I32 { .. } => 4,
            Plan::I64 { .. } | Plan::F64 => 8,
            Plan::I128 => 16,
        }
    }
}

/// Largest |weight| (as u128 for integers, f64 for floats) and whether one is negative.
fn weight_range(w: &Weights) -> (u128, f64, bool) {
    fn scan<W: Weight>(w: &[W]) -> (u128, f64, bool) {
        w.par_iter()
            .map(|&x| match x.to_i64() {
                Some(i) => (u128::from(i.unsigned_abs()), 0.0, i < 0),
                None => (0, x.to_f64().abs(), x.to_f64() < 0.0),
            })
            .reduce(
                || (0, 0.0, false),
                |a, b| (a.0.max(b.0), a.1.max(b.1), a.2 || b.2),
            )
    }
    with_weights!(w, x => scan(x), none => (1, 1.0, false))
}

/// Whether the graph has a negative arc weight.
pub(crate) fn has_negative_weight(g: &Graph) -> bool {
    weight_range(g.out().weights()).2
}

pub(super) fn plan(g: &Graph) -> Result<Plan> {
    let n = g.num_vertices();
    let (wmax_int, wmax_float, negative) = weight_range(g.out().weights());
    let paths = n.saturating_sub(1) as u128;
    if g.weight_type().is_float() {
        let b = paths as f64 * wmax_float;
        if !(4.0 * b).is_finite() {
            return Err(Error::Overflow(format!(
                "weights up to {wmax_float:e} on {n} vertices can make path lengths leave the \
                 f64 range; scale the weights down"
            )));
        }
        return Ok(Plan::F64);
    }
    let b = paths.saturating_mul(wmax_int);
    let levels = if negative {
        2 * padded(n) as u128 + 6
    } else {
        0
    };
    // Largest value ever formed: H + B = (L + 2) B + 1.
    let need = (levels + 2).checked_mul(b).and_then(|x| x.checked_add(1));
    let inf = (levels + 1).saturating_mul(b).saturating_add(1);
    let thr = b.saturating_add(1);
    Ok(match need {
        Some(x) if x <= i32::MAX as u128 => Plan::I32 {
            inf: inf as i32,
            thr: thr as i32,
        },
        Some(x) if x <= i64::MAX as u128 => Plan::I64 {
            inf: inf as i64,
            thr: thr as i64,
        },
        _ => Plan::I128,
    })
}

/// The rounding tolerance of float distances (0 for integers): as the verifier's.
pub(super) fn tolerance(g: &Graph) -> f64 {
    if !g.weight_type().is_float() {
        return 0.0;
    }
    let (_, wmax, _) = weight_range(g.out().weights());
    let n = g.num_vertices() as f64;
    64.0 * f64::EPSILON * (n + 1.0) * n * wmax
}
