//! The engine graph as a Python object, built from CSR arrays or from the library.
//!
//! [`PyGraph::from_csr`] takes scipy's CSR arrays (any row order, parallel arcs, self
//! loops) and builds the engine's CSR. A directed graph whose rows are already sorted by
//! column goes straight to [`Graph::from_parts`] (one copy, the checks run in parallel);
//! everything else (undirected graphs, unsorted rows, dropped self loops) goes through the
//! library's parallel builder.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use warpgraph::{
    Buf, BuildOptions, Csr, Duplicates, EdgeList, Graph, SelfLoops, VertexIds, Weights,
};

use crate::OrPy;

/// An engine graph: CSR arrays (64-bit offsets, 32-bit targets, optional weights),
/// directed or undirected, immutable.
#[pyclass(name = "Graph", module = "warpgraph._warpgraph", frozen)]
pub struct PyGraph {
    /// The graph.
    pub g: Arc<Graph>,
}

/// Weights as they come from Python: a float64 or an int64 array, or none.
pub(crate) fn weights_from(w: Option<&Bound<'_, PyAny>>) -> PyResult<Weights> {
    let Some(w) = w.filter(|w| !w.is_none()) else {
        return Ok(Weights::None);
    };
    if let Ok(a) = w.extract::<PyReadonlyArray1<'_, f64>>() {
        return Ok(Weights::F64(a.as_slice()?.to_vec().into()));
    }
    if let Ok(a) = w.extract::<PyReadonlyArray1<'_, i64>>() {
        return Ok(Weights::I64(a.as_slice()?.to_vec().into()));
    }
    Err(PyValueError::new_err(
        "weights must be a contiguous float64 or int64 array",
    ))
}

/// Builds an engine graph from CSR arrays; see the module docs.
fn build_from_csr(
    indptr: &[i64],
    indices: &[i32],
    weights: Weights,
    directed: bool,
    drop_self_loops: bool,
) -> warpgraph::Result<Graph> {
    let bad = |msg: &str| warpgraph::Error::InvalidArgument(msg.to_string());
    if indptr.is_empty() || indptr[0] != 0 || indptr[indptr.len() - 1] as usize != indices.len() {
        return Err(bad("indptr must start at 0 and end at len(indices)"));
    }
    let n = indptr.len() - 1;
    if indptr.par_windows(2).any(|p| p[0] > p[1]) || indices.par_iter().any(|&x| x < 0) {
        return Err(bad(
            "indptr must be non-decreasing and indices non-negative",
        ));
    }
    let sorted = || {
        (0..n).into_par_iter().all(|v| {
            indices[indptr[v] as usize..indptr[v + 1] as usize]
                .windows(2)
                .all(|p| p[0] <= p[1])
        })
    };
    if directed && !drop_self_loops && sorted() {
        let offsets: Vec<u64> = indptr.par_iter().map(|&x| x as u64).collect();
        let targets: Vec<u32> = indices.par_iter().map(|&x| x as u32).collect();
        let csr = Csr::from_raw(Buf::from(offsets), Buf::from(targets), weights);
        return Graph::from_parts(true, csr, VertexIds::default());
    }
    let mut src = vec![0u32; indices.len()];
    src.par_chunks_mut(1 << 14)
        .enumerate()
        .for_each(|(c, chunk)| {
            let first = c << 14;
            // The row of the chunk's first arc, then walk forward.
            let mut v = indptr.partition_point(|&x| x as usize <= first) - 1;
            for (i, s) in chunk.iter_mut().enumerate() {
                while indptr[v + 1] as usize <= first + i {
                    v += 1;
                }
                *s = v as u32;
            }
        });
    let dst: Vec<u32> = indices.par_iter().map(|&x| x as u32).collect();
    let edges = EdgeList::new(n as u64, src, dst, weights)?;
    edges.build(&BuildOptions {
        directed,
        self_loops: if drop_self_loops {
            SelfLoops::Drop
        } else {
            SelfLoops::Keep
        },
        duplicates: Duplicates::Keep,
    })
}

#[pymethods]
impl PyGraph {
    /// Builds a graph from CSR arrays: row `u` holds the arcs `u -> indices[k]` for `k` in
    /// `indptr[u]..indptr[u+1]`, with `weights[k]` (float64 or int64; None: unweighted).
    /// `directed=False` stores every arc in both directions (scipy's `directed=False`).
    #[staticmethod]
    #[pyo3(signature = (indptr, indices, weights=None, directed=true, drop_self_loops=false))]
    fn from_csr(
        py: Python<'_>,
        indptr: PyReadonlyArray1<'_, i64>,
        indices: PyReadonlyArray1<'_, i32>,
        weights: Option<&Bound<'_, PyAny>>,
        directed: bool,
        drop_self_loops: bool,
    ) -> PyResult<PyGraph> {
        let weights = weights_from(weights)?;
        if !matches!(weights, Weights::None) && weights.len() != indices.len()? {
            return Err(PyValueError::new_err(format!(
                "{} weights for {} arcs",
                weights.len(),
                indices.len()?
            )));
        }
        let (ip, ix) = (indptr.as_slice()?, indices.as_slice()?);
        let g = py
            .detach(|| build_from_csr(ip, ix, weights, directed, drop_self_loops))
            .or_py()?;
        Ok(PyGraph { g: Arc::new(g) })
    }

    /// The number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.g.num_vertices()
    }

    /// The number of stored arcs (an undirected edge counts twice, a self loop once).
    #[getter]
    fn num_arcs(&self) -> u64 {
        self.g.num_arcs()
    }

    /// Whether arcs have a direction.
    #[getter]
    fn directed(&self) -> bool {
        self.g.is_directed()
    }

    /// `"none"`, `"i32"`, `"i64"`, `"f32"` or `"f64"`.
    #[getter]
    fn weight_type(&self) -> &'static str {
        self.g.weight_type().name()
    }

    /// The outgoing CSR as NumPy arrays `(indptr int64, indices int32, weights)`, rows
    /// sorted by target; weights are float64 for float graphs, int64 for integer graphs,
    /// None for unweighted ones.
    #[allow(clippy::type_complexity)]
    fn csr<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i32>>,
        Option<Bound<'py, PyAny>>,
    ) {
        let out = self.g.out();
        let (ip, ix, w) = py.detach(|| {
            let ip: Vec<i64> = out.offsets().par_iter().map(|&x| x as i64).collect();
            let ix: Vec<i32> = out.targets().par_iter().map(|&x| x as i32).collect();
            let w = match out.weights() {
                Weights::None => None,
                Weights::I32(w) => Some(Err(w.iter().map(|&x| x as i64).collect::<Vec<_>>())),
                Weights::I64(w) => Some(Err(w.to_vec())),
                Weights::F32(w) => Some(Ok(w.iter().map(|&x| x as f64).collect::<Vec<_>>())),
                Weights::F64(w) => Some(Ok(w.to_vec())),
            };
            (ip, ix, w)
        });
        let w = w.map(|w| match w {
            Ok(f) => f.into_pyarray(py).into_any(),
            Err(i) => i.into_pyarray(py).into_any(),
        });
        (ip.into_pyarray(py), ix.into_pyarray(py), w)
    }

    /// The file's vertex ids when they are not `0..n`: an int64 array (`ids[v]` is the
    /// id of vertex `v`), else None. Files numbered from 1 (DIMACS, METIS, Matrix Market)
    /// give `v + 1`.
    fn ids<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<u64>>> {
        let ids = self.g.ids();
        if ids.is_identity() {
            return None;
        }
        let n = self.g.num_vertices() as u32;
        let v: Vec<u64> = (0..n).map(|v| ids.external(v)).collect();
        Some(v.into_pyarray(py))
    }

    fn __repr__(&self) -> String {
        format!(
            "<warpgraph engine graph: {} vertices, {} arcs, {}, weights {}>",
            self.g.num_vertices(),
            self.g.num_arcs(),
            if self.g.is_directed() {
                "directed"
            } else {
                "undirected"
            },
            self.g.weight_type()
        )
    }
}
