//! The cells of Floyd-Warshall's working matrix (`i32`, `i64`, `i128` or `f64`, as the
//! plan picks): one tile row's relaxation `c[j] = min(c[j], a + b[j])` (with and without
//! predecessors), and the conversion to the distances handed to sinks.

use super::solver::Rows;
use crate::apsp::Dists;
use crate::graph::Weight;

/// Tile edge: 64 x 64 tiles (16 KiB of `i32`, 32 KiB of `i64`/`f64`).
pub(super) const T: usize = 64;

/// A working matrix on the host, by cell type, for a solver that works on it there (see
/// [`super::solver::HostMatrix`]): a value at least `thr` means unreachable.
pub(crate) enum Matrix<'a> {
    I32 { d: &'a mut [i32], thr: i32 },
    I64 { d: &'a mut [i64], thr: i64 },
    F64 { d: &'a mut [f64] },
}

/// One distance cell of the working matrix.
pub(crate) trait Cell:
    Copy + Send + Sync + PartialOrd + std::fmt::Display + 'static
{
    /// The zero distance.
    const ZERO: Self;
    /// The type handed to sinks.
    type Out: OutDist + 'static;
    /// The sink's "unreachable".
    const OUT_INF: Self::Out;
    /// A weight as a cell (the plan guarantees it fits).
    fn from_weight<W: Weight>(w: W) -> Self;
    /// The value for the sink, `None` when it does not fit.
    fn to_out(self, thr: Self) -> Option<Self::Out>;
    /// The rows of `Out` values as [`Dists`].
    fn dists(rows: &[Self::Out]) -> Dists<'_>;
    /// `c[j] = min(c[j], a + b[j])`, with `a` finite.
    fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]);
    /// As `relax`, also `p[j] = pb[j]` where `c[j]` improved.
    fn relax_pred(c: &mut [Self; T], p: &mut [u32; T], a: Self, b: &[Self; T], pb: &[u32; T]);
    /// The cells of `rows`, when they are of this type.
    fn rows_of(rows: Rows<'_>) -> Option<&[Self]>;
}

macro_rules! int_cell {
    ($t:ty, $variant:ident) => {
        impl Cell for $t {
            fn rows_of(rows: Rows<'_>) -> Option<&[Self]> {
                match rows {
                    Rows::$variant(d) => Some(d),
                    _ => None,
                }
            }
            const ZERO: Self = 0;
            type Out = i64;
            const OUT_INF: i64 = i64::MAX;
            #[inline(always)]
            fn from_weight<W: Weight>(w: W) -> Self {
                w.to_i64().unwrap_or(0) as $t
            }
            #[inline]
            fn to_out(self, thr: Self) -> Option<i64> {
                Some(if self >= thr { i64::MAX } else { self as i64 })
            }
            fn dists(rows: &[i64]) -> Dists<'_> {
                Dists::I64(rows)
            }
            #[inline(always)]
            fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]) {
                for (c, &b) in c.iter_mut().zip(b) {
                    *c = (*c).min(a.wrapping_add(b));
                }
            }
            #[inline(always)]
            fn relax_pred(
                c: &mut [Self; T],
                p: &mut [u32; T],
                a: Self,
                b: &[Self; T],
                pb: &[u32; T],
            ) {
                // Unconditional stores (a min and a bitwise blend) keep both rows in
                // registers; a conditional store would become a masked store to memory.
                for ((c, p), (&b, &pb)) in c.iter_mut().zip(p.iter_mut()).zip(b.iter().zip(pb)) {
                    let s = a.wrapping_add(b);
                    let mask = u32::from(s < *c).wrapping_neg();
                    *c = (*c).min(s);
                    *p = (pb & mask) | (*p & !mask);
                }
            }
        }
    };
}
int_cell!(i32, I32);
int_cell!(i64, I64);

impl Cell for i128 {
    fn rows_of(_rows: Rows<'_>) -> Option<&[Self]> {
        None
    }
    const ZERO: Self = 0;
    type Out = i64;
    const OUT_INF: i64 = i64::MAX;
    #[inline(always)]
    fn from_weight<W: Weight>(w: W) -> Self {
        i128::from(w.to_i64().unwrap_or(0))
    }
    fn to_out(self, _thr: Self) -> Option<i64> {
        if self == i128::MAX {
            Some(i64::MAX)
        } else {
            i64::try_from(self).ok().filter(|&x| x != i64::MAX)
        }
    }
    fn dists(rows: &[i64]) -> Dists<'_> {
        Dists::I64(rows)
    }
    #[inline(always)]
    fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]) {
        // Values stay within [-4B, B] with B < 2^96, so real sums cannot overflow; the
        // sentinel i128::MAX is never added.
        for (c, &b) in c.iter_mut().zip(b) {
            if b != i128::MAX {
                *c = (*c).min(a.wrapping_add(b));
            }
        }
    }
    #[inline(always)]
    fn relax_pred(c: &mut [Self; T], p: &mut [u32; T], a: Self, b: &[Self; T], pb: &[u32; T]) {
        for j in 0..T {
            if b[j] != i128::MAX {
                let s = a.wrapping_add(b[j]);
                if s < c[j] {
                    c[j] = s;
                    p[j] = pb[j];
                }
            }
        }
    }
}

impl Cell for f64 {
    fn rows_of(rows: Rows<'_>) -> Option<&[Self]> {
        match rows {
            Rows::F64(d) => Some(d),
            _ => None,
        }
    }
    const ZERO: Self = 0.0;
    type Out = f64;
    const OUT_INF: f64 = f64::INFINITY;
    #[inline(always)]
    fn from_weight<W: Weight>(w: W) -> Self {
        w.to_f64()
    }
    #[inline]
    fn to_out(self, _thr: Self) -> Option<f64> {
        Some(self)
    }
    fn dists(rows: &[f64]) -> Dists<'_> {
        Dists::F64(rows)
    }
    #[inline(always)]
    fn relax(c: &mut [Self; T], a: Self, b: &[Self; T]) {
        // inf + finite = inf, and `a` is finite: no NaN can arise.
        for (c, &b) in c.iter_mut().zip(b) {
            let s = a + b;
            *c = if s < *c { s } else { *c };
        }
    }
    #[inline(always)]
    fn relax_pred(c: &mut [Self; T], p: &mut [u32; T], a: Self, b: &[Self; T], pb: &[u32; T]) {
        for ((c, p), (&b, &pb)) in c.iter_mut().zip(p.iter_mut()).zip(b.iter().zip(pb)) {
            let s = a + b;
            let better = s < *c;
            *c = if better { s } else { *c };
            *p = if better { pb } else { *p };
        }
    }
}

/// A distance as handed to sinks, for rebuilding predecessors.
pub(crate) trait OutDist: Copy + Send + Sync {
    fn finite(self) -> bool;
    /// Whether `du + w == dv` (within `tol` for floats); `w` given both ways.
    fn tight(du: Self, wi: i128, wf: f64, dv: Self, tol: f64) -> bool;
}

impl OutDist for i64 {
    fn finite(self) -> bool {
        self != i64::MAX
    }
    fn tight(du: i64, wi: i128, _wf: f64, dv: i64, _tol: f64) -> bool {
        i128::from(du) + wi == i128::from(dv)
    }
}

impl OutDist for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn tight(du: f64, _wi: i128, wf: f64, dv: f64, tol: f64) -> bool {
        (du + wf - dv).abs() <= tol
    }
}
