//! Random edge weights for generated graphs.
//!
//! A [`WeightSpec`] becomes a [`WeightDraw`]: a small value that draws one weight from a
//! block's [`Rng`] and knows which [`Weights`] array to make. Integer weights
//! `Int { lo, hi }` are uniform in `lo..=hi` (Lemire's unbiased method) and stored as `i32`
//! when both bounds fit in `i32`, else as `i64`; `Float` weights are uniform in `[0, 1)` with
//! 53 random bits, stored as `f64`.
//!
//! The generators are generic over [`WeightDraw`]; [`with_weight_draw!`] picks the concrete
//! type once per call, so the per-edge loop has no dispatch.

use super::rng::Rng;
use super::WeightSpec;
use crate::error::{Error, Result};
use crate::graph::Weights;

/// Draws weights of one type from a random stream.
pub(crate) trait WeightDraw: Copy + Send + Sync {
    /// The stored type (`()` for unweighted graphs: arrays of it take no memory).
    type T: Copy + Default + Send + Sync;
    /// Bytes per stored weight.
    const BYTES: u64;
    /// One weight.
    fn draw(&self, rng: &mut Rng) -> Self::T;
    /// The finished weight array.
    fn into_weights(v: Vec<Self::T>) -> Weights;
}

/// No weights.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoWeight;

impl WeightDraw for NoWeight {
    type T = ();
    const BYTES: u64 = 0;
    #[inline]
    fn draw(&self, _rng: &mut Rng) {}
    fn into_weights(_v: Vec<()>) -> Weights {
        Weights::None
    }
}

/// Uniform integers in `lo..=hi`, stored as `T` (`i32` or `i64`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IntWeight<T> {
    lo: T,
    hi: T,
}

impl<T> WeightDraw for IntWeight<T>
where
    T: Copy + Default + Send + Sync + Into<i64> + TryFrom<i64>,
    Weights: From<Vec<T>>,
{
    type T = T;
    const BYTES: u64 = std::mem::size_of::<T>() as u64;
    #[inline]
    fn draw(&self, rng: &mut Rng) -> T {
        // The result lies in lo..=hi, so it fits in T and the fallback is never taken.
        T::try_from(rng.range_i64(self.lo.into(), self.hi.into())).unwrap_or(self.lo)
    }
    fn into_weights(v: Vec<T>) -> Weights {
        Weights::from(v)
    }
}

/// Uniform `f64` in `[0, 1)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FloatWeight;

impl WeightDraw for FloatWeight {
    type T = f64;
    const BYTES: u64 = 8;
    #[inline]
    fn draw(&self, rng: &mut Rng) -> f64 {
        rng.next_f64()
    }
    fn into_weights(v: Vec<f64>) -> Weights {
        Weights::from(v)
    }
}

/// A validated [`WeightSpec`], one variant per stored type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Draw {
    /// Unweighted.
    None(NoWeight),
    /// `i32` integers.
    I32(IntWeight<i32>),
    /// `i64` integers.
    I64(IntWeight<i64>),
    /// `f64` floats.
    F64(FloatWeight),
}

impl Draw {
    /// Validates `spec` (`lo <= hi`) and picks the stored type.
    pub(crate) fn new(spec: WeightSpec) -> Result<Draw> {
        Ok(match spec {
            WeightSpec::None => Draw::None(NoWeight),
            WeightSpec::Float => Draw::F64(FloatWeight),
            WeightSpec::Int { lo, hi } => {
                if lo > hi {
                    return Err(Error::InvalidArgument(format!(
                        "integer weight range {lo}..={hi} is empty: the low bound must not \
                         exceed the high bound"
                    )));
                }
                match (i32::try_from(lo), i32::try_from(hi)) {
                    (Ok(lo), Ok(hi)) => Draw::I32(IntWeight { lo, hi }),
                    _ => Draw::I64(IntWeight { lo, hi }),
                }
            }
        })
    }
}

/// Evaluates `$body` with `$w` bound to the concrete [`WeightDraw`] that `$draw` (a
/// [`Draw`]) names.
macro_rules! with_weight_draw {
    ($draw:expr, $w:ident => $body:expr) => {
        match $draw {
            $crate::generate::weights::Draw::None($w) => $body,
            $crate::generate::weights::Draw::I32($w) => $body,
            $crate::generate::weights::Draw::I64($w) => $body,
            $crate::generate::weights::Draw::F64($w) => $body,
        }
    };
}
pub(crate) use with_weight_draw;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_picks_type() {
        assert!(matches!(
            Draw::new(WeightSpec::Int { lo: -5, hi: 5 }),
            Ok(Draw::I32(_))
        ));
        assert!(matches!(
            Draw::new(WeightSpec::Int { lo: 0, hi: 1 << 31 }),
            Ok(Draw::I64(_))
        ));
        assert!(matches!(Draw::new(WeightSpec::Float), Ok(Draw::F64(_))));
        assert!(matches!(
            Draw::new(WeightSpec::Int { lo: 2, hi: 1 }),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn extreme_i32_range() {
        let w = IntWeight::<i32> {
            lo: i32::MIN,
            hi: i32::MAX,
        };
        let mut r = Rng::new(5);
        let v: Vec<i32> = (0..1000).map(|_| w.draw(&mut r)).collect();
        assert!(v.iter().any(|&x| x < 0) && v.iter().any(|&x| x > 0));
    }
}
