//! NetworkX graphs to CSR arrays, in one pass over the adjacency dictionaries.
//!
//! Walking `G._adj` from Rust (with the GIL held: these are Python objects) is several
//! times faster than the same loop in Python, and it is what the NetworkX backend's
//! conversion costs. Rows keep NetworkX's neighbour order, so that searches scanning them
//! in stored order meet vertices in the order NetworkX does.

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt};

/// A weight as NetworkX would add it: an int (bools included) or a float.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn of(x: &Bound<'_, PyAny>) -> PyResult<Num> {
        if let Ok(f) = x.cast::<PyFloat>() {
            let v = f.value();
            if !v.is_finite() {
                return Err(PyValueError::new_err(format!("weight {v} is not finite")));
            }
            return Ok(Num::Float(v));
        }
        if x.is_instance_of::<PyInt>() || x.is_instance_of::<PyBool>() {
            return x
                .extract::<i64>()
                .map(Num::Int)
                .map_err(|_| PyValueError::new_err("integer weight does not fit in int64"));
        }
        Err(PyTypeError::new_err(format!(
            "weight {} is neither an int nor a float",
            x.repr()?
        )))
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    fn min(self, other: Num) -> Num {
        if other.as_f64() < self.as_f64() {
            other
        } else {
            self
        }
    }
}

/// Each node's position by its label, when every label in `index` is a non-negative
/// `int` below four times their number (a graph read from an edge list whose isolated or
/// unnamed vertices are missing): an array, so that an arc's neighbour costs no
/// dictionary lookup (which, its hash probe and the position's object each a cache miss,
/// is most of a large graph's conversion). -1 for a label that is not a node.
fn int_positions(index: &Bound<'_, PyDict>) -> PyResult<Option<Vec<i32>>> {
    let bound = 4 * index.len() as i64 + 1024;
    let mut pairs = Vec::with_capacity(index.len());
    for (label, at) in index.iter() {
        if !label.is_exact_instance_of::<PyInt>() {
            return Ok(None);
        }
        match label.extract::<i64>() {
            Ok(l) if (0..bound).contains(&l) => pairs.push((l as usize, at.extract::<i32>()?)),
            _ => return Ok(None),
        }
    }
    let mut out = vec![-1; pairs.iter().map(|&(l, _)| l + 1).max().unwrap_or(0)];
    for (l, at) in pairs {
        out[l] = at;
    }
    Ok(Some(out))
}

/// CSR arrays of a NetworkX graph: `adj` is `G._adj`, `index` maps each node to its
/// position in `G` (the order of `adj`); None when the nodes are the ints `0..n` in
/// order (then a node is its own position, and no dictionary lookup is needed; nor is
/// one for the int labels [`int_positions`] takes). With `weight` (an attribute name),
/// each arc's weight is `attrs.get(weight, default)` (for a multigraph, the least over
/// the parallel edges, as NetworkX's shortest paths take it).
///
/// Returns `(indptr int64, indices int32, weights)`: weights None without `weight`,
/// int64 when every weight is an int, else float64. Raises `TypeError` for a weight that
/// is neither int nor float and `ValueError` for a NaN or infinite one (NetworkX would
/// treat them its own way; the caller falls back to it).
#[pyfunction]
#[pyo3(signature = (adj, index, weight=None, default=None, multigraph=false))]
#[allow(clippy::type_complexity)]
pub fn nx_adjacency<'py>(
    py: Python<'py>,
    adj: &Bound<'py, PyDict>,
    index: Option<&Bound<'py, PyDict>>,
    weight: Option<&str>,
    default: Option<&Bound<'py, PyAny>>,
    multigraph: bool,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i32>>,
    Option<Bound<'py, PyAny>>,
)> {
    let default = match default {
        Some(d) if !d.is_none() => Some(Num::of(d)?),
        _ => None,
    };
    let key = weight.map(|w| pyo3::types::PyString::new(py, w));
    let n = adj.len() as i64;
    let mut indptr = Vec::with_capacity(adj.len() + 1);
    indptr.push(0i64);
    let mut indices: Vec<i32> = Vec::new();
    let mut weights: Vec<Num> = Vec::new();
    let weight_of = |attrs: &Bound<'py, PyAny>| -> PyResult<Num> {
        let key = key.as_ref().expect("weights asked for");
        let attrs = attrs.cast::<PyDict>()?;
        match attrs.get_item(key)? {
            Some(x) => Num::of(&x),
            None => default.ok_or_else(|| PyValueError::new_err("an edge has no weight")),
        }
    };
    let positions = index.map(int_positions).transpose()?.flatten();
    let not_a_node = || PyValueError::new_err("a neighbour is not a node");
    for (row, (_, nbrs)) in adj.iter().enumerate() {
        if row > i32::MAX as usize {
            return Err(PyValueError::new_err("too many nodes"));
        }
        let nbrs = nbrs.cast::<PyDict>()?;
        for (v, data) in nbrs.iter() {
            let j = match (&positions, index) {
                // (Every key is an exact int, so no other label equals v.)
                (Some(at), _) if v.is_exact_instance_of::<PyInt>() => v
                    .extract::<i64>()
                    .ok()
                    .and_then(|l| at.get(usize::try_from(l).ok()?).copied())
                    .filter(|&j| j >= 0)
                    .ok_or_else(not_a_node)?,
                (_, Some(index)) => match index.get_item(&v)? {
                    Some(j) => j.extract::<i32>()?,
                    None => return Err(not_a_node()),
                },
                (_, None) => match v.extract::<i64>() {
                    Ok(j) if (0..n).contains(&j) => j as i32,
                    _ => return Err(not_a_node()),
                },
            };
            indices.push(j);
            if key.is_none() {
                continue;
            }
            let w = if multigraph {
                let mut least: Option<Num> = None;
                for attrs in data.cast::<PyDict>()?.values() {
                    let x = weight_of(&attrs)?;
                    least = Some(least.map_or(x, |l| l.min(x)));
                }
                least.ok_or_else(|| PyValueError::new_err("a multigraph edge has no keys"))?
            } else {
                weight_of(&data)?
            };
            weights.push(w);
        }
        indptr.push(indices.len() as i64);
    }
    let w = key.map(|_| {
        if weights.iter().all(|w| matches!(w, Num::Int(_))) {
            let w: Vec<i64> = weights
                .iter()
                .map(|w| match w {
                    Num::Int(i) => *i,
                    Num::Float(_) => unreachable!(),
                })
                .collect();
            w.into_pyarray(py).into_any()
        } else {
            let w: Vec<f64> = weights.iter().map(|w| w.as_f64()).collect();
            w.into_pyarray(py).into_any()
        }
    });
    Ok((indptr.into_pyarray(py), indices.into_pyarray(py), w))
}
