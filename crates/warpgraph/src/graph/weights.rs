//! Edge weights: none, or one of four numeric types.
//!
//! Weights are stored per arc, parallel to the CSR target array. Integer weights may be
//! negative; floating weights must be finite (NaN and infinities are rejected when a graph
//! is built or loaded).

use std::fmt;

use super::buf::{Buf, Pod};
use crate::error::{Error, Result};

/// The type of a graph's edge weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightType {
    /// Unweighted.
    None,
    /// 32-bit signed integers.
    I32,
    /// 64-bit signed integers.
    I64,
    /// 32-bit IEEE floats.
    F32,
    /// 64-bit IEEE floats.
    F64,
}

super::builder::named_enum!(
    WeightType,
    "weight type",
    WeightType::None => "none",
    WeightType::I32 => "i32",
    WeightType::I64 => "i64",
    WeightType::F32 => "f32",
    WeightType::F64 => "f64"
);

impl WeightType {
    /// Bytes per weight (0 for unweighted).
    pub fn size(self) -> usize {
        match self {
            WeightType::None => 0,
            WeightType::I32 | WeightType::F32 => 4,
            WeightType::I64 | WeightType::F64 => 8,
        }
    }

    /// Whether this is a floating type.
    pub fn is_float(self) -> bool {
        matches!(self, WeightType::F32 | WeightType::F64)
    }
}

impl fmt::Display for WeightType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A path length: the sum of weights along a path.
///
/// Integer weights sum in `i64` and float weights in `f64`, so `i32` weights can never
/// overflow (n < 2^32 arcs of at most 2^31 each); `i64` sums are checked.
pub trait Distance: Copy + PartialOrd + Send + Sync + fmt::Debug + fmt::Display + 'static {
    /// The empty path.
    const ZERO: Self;
    /// "Unreachable": larger than every finite distance.
    const INFINITY: Self;
    /// `self + other`, or `None` when the sum overflows (integers) or is not finite (floats).
    fn checked_add(self, other: Self) -> Option<Self>;
    /// The value as f64.
    fn as_f64(self) -> f64;
}

impl Distance for i64 {
    const ZERO: Self = 0;
    const INFINITY: Self = i64::MAX;
    #[inline]
    fn checked_add(self, other: Self) -> Option<Self> {
        i64::checked_add(self, other).filter(|&x| x != i64::MAX)
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}

impl Distance for f64 {
    const ZERO: Self = 0.0;
    const INFINITY: Self = f64::INFINITY;
    #[inline]
    fn checked_add(self, other: Self) -> Option<Self> {
        Some(self + other).filter(|x| x.is_finite())
    }
    fn as_f64(self) -> f64 {
        self
    }
}

/// A numeric weight type usable in generic graph code.
pub trait Weight: Pod + PartialOrd + fmt::Debug + fmt::Display {
    /// The matching [`WeightType`].
    const TYPE: WeightType;
    /// The type path lengths are summed in.
    type Dist: Distance;
    /// The weight as a distance.
    fn to_dist(self) -> Self::Dist;
    /// Whether the value is finite (always true for integers).
    fn is_finite_weight(self) -> bool;
    /// The value as f64 (for statistics and display).
    fn to_f64(self) -> f64;
    /// The value as i64 when the type is an integer type.
    fn to_i64(self) -> Option<i64>;
    /// The typed slice when `w` holds this type.
    fn slice_of(w: &Weights) -> Option<&[Self]>;
}

macro_rules! int_weight {
    ($t:ty, $wt:expr, $v:ident) => {
        impl Weight for $t {
            const TYPE: WeightType = $wt;
            type Dist = i64;
            #[inline]
            fn to_dist(self) -> i64 {
                i64::from(self)
            }
            fn slice_of(w: &Weights) -> Option<&[Self]> {
                match w {
                    Weights::$v(x) => Some(x),
                    _ => None,
                }
            }
            fn is_finite_weight(self) -> bool {
                true
            }
            fn to_i64(self) -> Option<i64> {
                Some(i64::from(self))
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
macro_rules! float_weight {
    ($t:ty, $wt:expr, $v:ident) => {
        impl Weight for $t {
            const TYPE: WeightType = $wt;
            type Dist = f64;
            #[inline]
            fn to_dist(self) -> f64 {
                f64::from(self)
            }
            fn slice_of(w: &Weights) -> Option<&[Self]> {
                match w {
                    Weights::$v(x) => Some(x),
                    _ => None,
                }
            }
            fn is_finite_weight(self) -> bool {
                self.is_finite()
            }
            fn to_i64(self) -> Option<i64> {
                None
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
int_weight!(i32, WeightType::I32, I32);
int_weight!(i64, WeightType::I64, I64);
float_weight!(f32, WeightType::F32, F32);
float_weight!(f64, WeightType::F64, F64);

/// Per-arc weights of one of the supported types.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Weights {
    /// Unweighted.
    #[default]
    None,
    /// `i32` weights.
    I32(Buf<i32>),
    /// `i64` weights.
    I64(Buf<i64>),
    /// `f32` weights.
    F32(Buf<f32>),
    /// `f64` weights.
    F64(Buf<f64>),
}

/// Runs `$body` with `$w` bound to the typed weight slice, or `$none` when unweighted.
///
/// ```ignore
/// with_weights!(&graph.out().weights(), w => w.len(), none => 0)
/// ```
#[macro_export]
macro_rules! with_weights {
    ($weights:expr, $w:ident => $body:expr, none => $none:expr) => {
        match $weights {
            $crate::Weights::None => $none,
            $crate::Weights::I32($w) => $body,
            $crate::Weights::I64($w) => $body,
            $crate::Weights::F32($w) => $body,
            $crate::Weights::F64($w) => $body,
        }
    };
}

impl Weights {
    /// The weight type.
    pub fn weight_type(&self) -> WeightType {
        match self {
            Weights::None => WeightType::None,
            Weights::I32(_) => WeightType::I32,
            Weights::I64(_) => WeightType::I64,
            Weights::F32(_) => WeightType::F32,
            Weights::F64(_) => WeightType::F64,
        }
    }

    /// Number of weights (0 when unweighted).
    pub fn len(&self) -> usize {
        with_weights!(self, w => w.len(), none => 0)
    }

    /// Whether there are no weights stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Weight `i` as f64, `None` when unweighted.
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        with_weights!(self, w => w.get(i).map(|x| x.to_f64()), none => None)
    }

    /// The smallest weight as f64, in parallel; `None` when unweighted or empty.
    pub fn min_f64(&self) -> Option<f64> {
        self.range_f64().map(|r| r.0)
    }

    /// The smallest and the largest weight as f64, in parallel; `None` when unweighted or
    /// empty.
    pub fn range_f64(&self) -> Option<(f64, f64)> {
        use rayon::prelude::*;
        with_weights!(self,
            w => w
                .par_iter()
                .map(|x| (x.to_f64(), x.to_f64()))
                .reduce_with(|a, b| (a.0.min(b.0), a.1.max(b.1))),
            none => None)
    }

    /// The typed slice, when the weights are of type `W`.
    pub fn as_slice<W: Weight>(&self) -> Option<&[W]> {
        W::slice_of(self)
    }

    /// The weights converted to another type.
    ///
    /// Conversions that would lose information are refused: a fractional or out-of-range
    /// float to an integer, an integer too large for `i32`, a value that overflows `f32`.
    pub fn convert(&self, to: WeightType) -> Result<Weights, Error> {
        if self.weight_type() == to {
            return Ok(self.clone());
        }
        if to == WeightType::None {
            return Ok(Weights::None);
        }
        let values: Vec<f64>;
        let src: &[f64] = match self {
            Weights::None => {
                return Err(Error::InvalidArgument(format!(
                    "the graph is unweighted; it cannot be given {to} weights"
                )))
            }
            Weights::I32(w) => return Ok(from_ints(w.iter().map(|&x| x as i64), w.len(), to)),
            Weights::I64(w) => {
                return from_i64(w, to);
            }
            Weights::F32(w) => {
                values = w.iter().map(|&x| x as f64).collect();
                &values
            }
            Weights::F64(w) => w,
        };
        from_floats(src, to)
    }
}

fn lossy(i: usize, v: impl fmt::Display, to: WeightType) -> Error {
    Error::InvalidArgument(format!(
        "arc {i} has weight {v}, which is not representable as {to}"
    ))
}

fn from_ints(it: impl Iterator<Item = i64>, n: usize, to: WeightType) -> Weights {
    let mut v = Vec::with_capacity(n);
    v.extend(it);
    match to {
        WeightType::I64 => Weights::I64(v.into()),
        WeightType::F64 => Weights::F64(v.into_iter().map(|x| x as f64).collect::<Vec<_>>().into()),
        WeightType::F32 => Weights::F32(v.into_iter().map(|x| x as f32).collect::<Vec<_>>().into()),
        WeightType::I32 => Weights::I32(v.into_iter().map(|x| x as i32).collect::<Vec<_>>().into()),
        WeightType::None => Weights::None,
    }
}

fn from_i64(w: &[i64], to: WeightType) -> Result<Weights, Error> {
    if to == WeightType::I32 {
        if let Some((i, x)) = w
            .iter()
            .enumerate()
            .find(|(_, &x)| i32::try_from(x).is_err())
        {
            return Err(lossy(i, x, to));
        }
    }
    Ok(from_ints(w.iter().copied(), w.len(), to))
}

fn from_floats(w: &[f64], to: WeightType) -> Result<Weights, Error> {
    // In range means lo <= x < hi_exclusive (2^31 and 2^63 are exact as f64).
    let int_ok = |x: f64, lo: f64, hi_excl: f64| x.fract() == 0.0 && x >= lo && x < hi_excl;
    Ok(match to {
        WeightType::F64 => Weights::F64(w.to_vec().into()),
        WeightType::F32 => {
            let v: Vec<f32> = w.iter().map(|&x| x as f32).collect();
            if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                return Err(lossy(i, w[i], to));
            }
            Weights::F32(v.into())
        }
        WeightType::I32 => {
            if let Some(i) = w
                .iter()
                .position(|&x| !int_ok(x, i32::MIN as f64, -(i32::MIN as f64)))
            {
                return Err(lossy(i, w[i], to));
            }
            Weights::I32(w.iter().map(|&x| x as i32).collect::<Vec<_>>().into())
        }
        WeightType::I64 => {
            if let Some(i) = w
                .iter()
                .position(|&x| !int_ok(x, i64::MIN as f64, -(i64::MIN as f64)))
            {
                return Err(lossy(i, w[i], to));
            }
            Weights::I64(w.iter().map(|&x| x as i64).collect::<Vec<_>>().into())
        }
        WeightType::None => Weights::None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_slice_matches_only_its_type() {
        let w = Weights::I32(vec![1, -2].into());
        assert_eq!(w.as_slice::<i32>(), Some(&[1, -2][..]));
        assert_eq!(w.as_slice::<i64>(), None);
        assert_eq!(Weights::None.as_slice::<f64>(), None);
    }

    #[test]
    fn lossless_conversions_only() {
        let w = Weights::F64(vec![1.0, 2.5].into());
        assert!(w.convert(WeightType::I32).is_err());
        let w = Weights::F64(vec![1.0, -2.0].into());
        assert_eq!(
            w.convert(WeightType::I32).unwrap(),
            Weights::I32(vec![1, -2].into())
        );
        let w = Weights::I64(vec![1 << 40].into());
        assert!(w.convert(WeightType::I32).is_err());
        assert_eq!(
            w.convert(WeightType::F64).unwrap(),
            Weights::F64(vec![(1u64 << 40) as f64].into())
        );
        let w = Weights::F64(vec![1e300].into());
        assert!(w.convert(WeightType::F32).is_err());
    }
}
