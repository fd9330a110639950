//! The total order on edges that makes the minimum spanning forest unique.
//!
//! Edges compare by `(weight, smaller endpoint, larger endpoint)`. Weights compare by value;
//! floats by the IEEE 754 total order (`f64::total_cmp`: `-0.0` before `+0.0`; NaN cannot
//! occur). Under a strict total order a graph has exactly one minimum spanning forest, so
//! every algorithm and backend must return the same edges. Parallel edges with equal
//! weights are the same edge for this purpose (the forest names a pair and a weight).
//!
//! [`EdgeWeight::key`] maps each weight type onto `u64` preserving that order, so that the
//! algorithms can compare, sort and pack keys as integers.

use crate::error::{Error, Result};
use crate::graph::stats::Number;
use crate::graph::Weights;

/// A weight type as the MST algorithms see it: an order-preserving `u64` key and the
/// conversions back into the library's types.
pub(crate) trait EdgeWeight:
    Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static
{
    /// A `u64` with the same order as the weights (a bijection onto its image).
    fn key(self) -> u64;
    /// The inverse of [`EdgeWeight::key`].
    fn from_key(key: u64) -> Self;
    /// The forest's weight array.
    fn into_weights(ws: Vec<Self>) -> Weights;
    /// The sum of `ws` (integers exactly in i64, floats in f64 in the given order).
    fn total(ws: &[Self]) -> Result<Number>;
    /// Element `i` of a forest's weight array, when the array holds this type.
    fn nth(ws: &Weights, i: usize) -> Option<Self>;
}

/// The weight of every arc of an unweighted graph: 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct One;

impl EdgeWeight for One {
    fn key(self) -> u64 {
        0
    }
    fn from_key(_: u64) -> Self {
        One
    }
    fn into_weights(_: Vec<Self>) -> Weights {
        Weights::None
    }
    fn total(ws: &[Self]) -> Result<Number> {
        int_total(ws.len() as i128)
    }
    fn nth(ws: &Weights, _: usize) -> Option<Self> {
        matches!(ws, Weights::None).then_some(One)
    }
}

const SIGN32: u32 = 1 << 31;
const SIGN64: u64 = 1 << 63;

impl EdgeWeight for i32 {
    fn key(self) -> u64 {
        u64::from(self as u32 ^ SIGN32)
    }
    fn from_key(key: u64) -> Self {
        (key as u32 ^ SIGN32) as i32
    }
    fn into_weights(ws: Vec<Self>) -> Weights {
        Weights::I32(ws.into())
    }
    fn nth(ws: &Weights, i: usize) -> Option<Self> {
        ws.as_slice::<Self>()?.get(i).copied()
    }
    fn total(ws: &[Self]) -> Result<Number> {
        int_total(ws.iter().map(|&x| i128::from(x)).sum())
    }
}

impl EdgeWeight for i64 {
    fn key(self) -> u64 {
        self as u64 ^ SIGN64
    }
    fn from_key(key: u64) -> Self {
        (key ^ SIGN64) as i64
    }
    fn into_weights(ws: Vec<Self>) -> Weights {
        Weights::I64(ws.into())
    }
    fn nth(ws: &Weights, i: usize) -> Option<Self> {
        ws.as_slice::<Self>()?.get(i).copied()
    }
    fn total(ws: &[Self]) -> Result<Number> {
        int_total(ws.iter().map(|&x| i128::from(x)).sum())
    }
}

impl EdgeWeight for f32 {
    fn key(self) -> u64 {
        let b = self.to_bits();
        u64::from(if b & SIGN32 != 0 { !b } else { b | SIGN32 })
    }
    fn from_key(key: u64) -> Self {
        let k = key as u32;
        f32::from_bits(if k & SIGN32 != 0 { k ^ SIGN32 } else { !k })
    }
    fn into_weights(ws: Vec<Self>) -> Weights {
        Weights::F32(ws.into())
    }
    fn nth(ws: &Weights, i: usize) -> Option<Self> {
        ws.as_slice::<Self>()?.get(i).copied()
    }
    fn total(ws: &[Self]) -> Result<Number> {
        float_total(ws.iter().map(|&x| f64::from(x)))
    }
}

impl EdgeWeight for f64 {
    fn key(self) -> u64 {
        let b = self.to_bits();
        if b & SIGN64 != 0 {
            !b
        } else {
            b | SIGN64
        }
    }
    fn from_key(key: u64) -> Self {
        f64::from_bits(if key & SIGN64 != 0 {
            key ^ SIGN64
        } else {
            !key
        })
    }
    fn into_weights(ws: Vec<Self>) -> Weights {
        Weights::F64(ws.into())
    }
    fn nth(ws: &Weights, i: usize) -> Option<Self> {
        ws.as_slice::<Self>()?.get(i).copied()
    }
    fn total(ws: &[Self]) -> Result<Number> {
        float_total(ws.iter().copied())
    }
}

/// Bits needed to write `x`.
pub(crate) fn bits(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// The total of integer weights that sum to `sum`: [`Number::Int`], or
/// [`Error::Overflow`] when it does not fit in `i64`.
pub(crate) fn int_total(sum: i128) -> Result<Number> {
    i64::try_from(sum).map(Number::Int).map_err(|_| {
        Error::Overflow(format!(
            "the spanning forest's total weight {sum} does not fit in a 64-bit integer"
        ))
    })
}

fn float_total(ws: impl Iterator<Item = f64>) -> Result<Number> {
    let sum: f64 = ws.sum();
    if sum.is_finite() {
        Ok(Number::Float(sum))
    } else {
        Err(Error::Overflow(
            "the spanning forest's total weight exceeds the range of f64".into(),
        ))
    }
}

/// Read access to the weight of an arc (by its index in the CSR), for every weight type.
pub(crate) trait ArcWeights: Copy + Send + Sync {
    /// The weight type.
    type W: EdgeWeight;
    /// The weight of arc `arc` (an index below the number of arcs).
    fn at(self, arc: usize) -> Self::W;
}

impl<T: EdgeWeight> ArcWeights for &[T] {
    type W = T;
    #[inline]
    fn at(self, arc: usize) -> T {
        self[arc]
    }
}

/// The arc weights of an unweighted graph: all [`One`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unweighted;

impl ArcWeights for Unweighted {
    type W = One;
    #[inline]
    fn at(self, _: usize) -> One {
        One
    }
}

/// Runs `$body` with `$w` bound to an [`ArcWeights`] for the given [`Weights`].
macro_rules! with_arc_weights {
    ($weights:expr, $w:ident => $body:expr) => {
        match $weights {
            $crate::graph::Weights::None => {
                let $w = $crate::mst::order::Unweighted;
                $body
            }
            $crate::graph::Weights::I32(x) => {
                let $w: &[i32] = x;
                $body
            }
            $crate::graph::Weights::I64(x) => {
                let $w: &[i64] = x;
                $body
            }
            $crate::graph::Weights::F32(x) => {
                let $w: &[f32] = x;
                $body
            }
            $crate::graph::Weights::F64(x) => {
                let $w: &[f64] = x;
                $body
            }
        }
    };
}
pub(crate) use with_arc_weights;

#[cfg(test)]
mod tests {
    use super::*;

    fn check_order<W: EdgeWeight + PartialOrd>(sorted: &[W]) {
        for pair in sorted.windows(2) {
            assert!(pair[0].key() < pair[1].key(), "{pair:?}");
        }
        for &w in sorted {
            assert_eq!(W::from_key(w.key()), w);
        }
    }

    #[test]
    fn keys_preserve_order_and_invert() {
        check_order(&[i32::MIN, -5, -1, 0, 1, 7, i32::MAX]);
        check_order(&[i64::MIN, -1 << 40, -1, 0, 3, i64::MAX]);
        check_order(&[f32::MIN, -2.5, -1e-30, -0.0, 0.0, 1e-30, 1.5, f32::MAX]);
        check_order(&[f64::MIN, -2.5, -1e-300, -0.0, 0.0, 5e-324, 0.25, f64::MAX]);
        // -0.0 and +0.0 keep their signs through the round trip.
        assert!(f64::from_key((-0.0f64).key()).is_sign_negative());
    }

    #[test]
    fn totals_are_exact_or_overflow() {
        assert_eq!(
            i32::total(&[i32::MAX, i32::MAX]).unwrap(),
            Number::Int(4294967294)
        );
        assert!(matches!(
            i64::total(&[i64::MAX, 1]),
            Err(Error::Overflow(_))
        ));
        // An intermediate overflow that the final sum undoes is not an error.
        assert_eq!(
            i64::total(&[i64::MAX, 1, -2]).unwrap(),
            Number::Int(i64::MAX - 1)
        );
        assert!(matches!(
            f64::total(&[f64::MAX, f64::MAX]),
            Err(Error::Overflow(_))
        ));
        assert_eq!(One::total(&[One, One]).unwrap(), Number::Int(2));
    }
}
