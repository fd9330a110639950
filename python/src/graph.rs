//! The engine graph as a Python object, built from CSR arrays or from the library.
//!
//! [`PyGraph::from_csr`] takes scipy's CSR arrays (any row order, parallel arcs, self
//! loops) and builds the engine's CSR: one copy into its layout, rows sorted by column in
//! parallel, then [`Graph::from_parts`] (the checks run in parallel). An undirected
//! reading then merges each row with the same row of the transpose (the library's
//! parallel [`Csr::transpose`]); dropped self loops go through the library's parallel
//! builder.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use warpgraph::{
    Buf, BuildOptions, Csr, Duplicates, EdgeList, Graph, SelfLoops, VertexIds, Weights,
};

use crate::resident::Slot;
use crate::OrPy;

/// An engine graph: CSR arrays (64-bit offsets, 32-bit targets, optional weights),
/// directed or undirected, immutable.
#[pyclass(name = "Graph", module = "warpgraph._warpgraph", frozen)]
pub struct PyGraph {
    /// The graph.
    pub g: Arc<Graph>,
    /// Its handle on a GPU, made by the first GPU query and kept.
    pub resident: Slot,
}

impl PyGraph {
    /// A Python object for `g` (nothing on a GPU yet).
    pub fn new(g: Graph) -> PyGraph {
        PyGraph {
            g: Arc::new(g),
            resident: Slot::default(),
        }
    }
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

/// Splits `data` into consecutive mutable rows by `offsets` (n + 1 entries).
fn rows_mut<'a, T>(offsets: &[u64], mut data: &'a mut [T]) -> Vec<&'a mut [T]> {
    let mut rows = Vec::with_capacity(offsets.len().saturating_sub(1));
    for p in offsets.windows(2) {
        let (row, rest) = data.split_at_mut((p[1] - p[0]) as usize);
        rows.push(row);
        data = rest;
    }
    rows
}

/// Sorts every row by target in parallel, parallel arcs keeping their order.
fn sort_rows<T: Copy + Send + Sync>(offsets: &[u64], targets: &mut [u32], w: Option<&mut [T]>) {
    let t_rows = rows_mut(offsets, targets);
    match w {
        None => t_rows.into_par_iter().for_each(|r| r.sort()),
        Some(w) => t_rows
            .into_par_iter()
            .zip(rows_mut(offsets, w))
            .for_each(|(t, w)| {
                if t.windows(2).all(|p| p[0] <= p[1]) {
                    return;
                }
                let mut pairs: Vec<(u32, T)> = t.iter().copied().zip(w.iter().copied()).collect();
                pairs.sort_by_key(|p| p.0);
                for (i, (a, b)) in pairs.into_iter().enumerate() {
                    t[i] = a;
                    w[i] = b;
                }
            }),
    }
}

/// One CSR's arrays: offsets, targets, optional weights.
type Parts<'a, T> = (&'a [u64], &'a [u32], Option<&'a [T]>);

/// The union of the arcs of `a` and `b` (a graph and its transpose), row by row, each row
/// merged in target order: the symmetric graph of an undirected reading.
fn merge_rows<T: Copy + Send + Sync + Default>(
    (off_a, ta, wa): Parts<'_, T>,
    (off_b, tb, wb): Parts<'_, T>,
) -> (Vec<u64>, Vec<u32>, Option<Vec<T>>) {
    let offsets: Vec<u64> = off_a.iter().zip(off_b).map(|(a, b)| a + b).collect();
    let m = *offsets.last().unwrap_or(&0) as usize;
    let n = offsets.len() - 1;
    let mut targets = vec![0u32; m];
    let mut weights = wa.map(|_| vec![T::default(); m]);
    let t_rows = rows_mut(&offsets, &mut targets);
    let w_rows: Vec<Option<&mut [T]>> = match weights.as_mut() {
        Some(w) => rows_mut(&offsets, w).into_iter().map(Some).collect(),
        None => (0..n).map(|_| None).collect(),
    };
    t_rows
        .into_par_iter()
        .zip(w_rows)
        .enumerate()
        .for_each(|(v, (t, mut w))| {
            let (a0, a1) = (off_a[v] as usize, off_a[v + 1] as usize);
            let (b0, b1) = (off_b[v] as usize, off_b[v + 1] as usize);
            let (ra, rb) = (&ta[a0..a1], &tb[b0..b1]);
            let (mut i, mut j) = (0, 0);
            for k in 0..t.len() {
                let from_a = j == rb.len() || (i < ra.len() && ra[i] <= rb[j]);
                let (target, weight) = if from_a {
                    i += 1;
                    (ra[i - 1], wa.map(|w| w[a0 + i - 1]))
                } else {
                    j += 1;
                    (rb[j - 1], wb.map(|w| w[b0 + j - 1]))
                };
                t[k] = target;
                if let (Some(w), Some(x)) = (w.as_deref_mut(), weight) {
                    w[k] = x;
                }
            }
        });
    (offsets, targets, weights)
}

/// Weights as NumPy arrays: float64 for float types, int64 for integer types, None when
/// unweighted.
pub(crate) fn weights_to_py(py: Python<'_>, w: Weights) -> Option<Bound<'_, PyAny>> {
    let ints = |v: Vec<i64>| v.into_pyarray(py).into_any();
    let floats = |v: Vec<f64>| v.into_pyarray(py).into_any();
    match w {
        Weights::None => None,
        Weights::I32(w) => Some(ints(w.iter().map(|&x| x as i64).collect())),
        Weights::I64(w) => Some(ints(w.into_vec())),
        Weights::F32(w) => Some(floats(w.iter().map(|&x| x as f64).collect())),
        Weights::F64(w) => Some(floats(w.into_vec())),
    }
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
    if drop_self_loops {
        return build_with_builder(indptr, indices, weights, directed);
    }
    let offsets: Vec<u64> = indptr.par_iter().map(|&x| x as u64).collect();
    let mut targets: Vec<u32> = indices.par_iter().map(|&x| x as u32).collect();
    let weights = match weights {
        Weights::None => {
            sort_rows::<u8>(&offsets, &mut targets, None);
            Weights::None
        }
        Weights::F64(w) => {
            let mut w = w.into_vec();
            sort_rows(&offsets, &mut targets, Some(&mut w));
            Weights::F64(w.into())
        }
        Weights::I64(w) => {
            let mut w = w.into_vec();
            sort_rows(&offsets, &mut targets, Some(&mut w));
            Weights::I64(w.into())
        }
        other => return build_with_builder(indptr, indices, other, directed),
    };
    let csr = Csr::from_raw(Buf::from(offsets), Buf::from(targets), weights);
    let g = Graph::from_parts(true, csr, VertexIds::default())?;
    if directed || n == 0 {
        return Ok(g);
    }
    // The symmetric graph: each row merged with the same row of the transpose (the
    // library's parallel one, rows sorted by source).
    let (out, inc) = (g.out(), g.incoming());
    let (off, tgt) = (out.offsets(), out.targets());
    let (ioff, itgt) = (inc.offsets(), inc.targets());
    let (offsets, targets, weights) = match (out.weights(), inc.weights()) {
        (Weights::F64(w), Weights::F64(iw)) => {
            let (o, t, w) = merge_rows((off, tgt, Some(&w[..])), (ioff, itgt, Some(&iw[..])));
            (o, t, Weights::F64(w.unwrap_or_default().into()))
        }
        (Weights::I64(w), Weights::I64(iw)) => {
            let (o, t, w) = merge_rows((off, tgt, Some(&w[..])), (ioff, itgt, Some(&iw[..])));
            (o, t, Weights::I64(w.unwrap_or_default().into()))
        }
        _ => {
            let (o, t, _) = merge_rows::<u8>((off, tgt, None), (ioff, itgt, None));
            (o, t, Weights::None)
        }
    };
    let csr = Csr::from_raw(Buf::from(offsets), Buf::from(targets), weights);
    Graph::from_parts(true, csr, VertexIds::default())
}

/// The library's parallel builder (self loops dropped when asked).
fn build_with_builder(
    indptr: &[i64],
    indices: &[i32],
    weights: Weights,
    directed: bool,
) -> warpgraph::Result<Graph> {
    let n = indptr.len() - 1;
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
        self_loops: SelfLoops::Drop,
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
        Ok(PyGraph::new(g))
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
        let (ip, ix) = py.detach(|| {
            let ip: Vec<i64> = out.offsets().par_iter().map(|&x| x as i64).collect();
            let ix: Vec<i32> = out.targets().par_iter().map(|&x| x as i32).collect();
            (ip, ix)
        });
        let w = weights_to_py(py, out.weights().clone());
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

    /// What the graph holds on a GPU: None before its first GPU query (or after
    /// `release_gpu()`), else a dict: `device` (the GPU's ordinal), `bfs`, `sssp`, `mst`
    /// (whether that family's runner, with its copy of the graph, is there), `bytes`
    /// (their device memory), and `uploads` (handles made over the object's life).
    fn gpu_resident<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.resident.status() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("device", s.device)?;
        d.set_item("bfs", s.held.bfs)?;
        d.set_item("sssp", s.held.sssp)?;
        d.set_item("mst", s.held.mst)?;
        d.set_item("bytes", s.bytes)?;
        d.set_item("uploads", self.resident.created())?;
        Ok(Some(d))
    }

    /// The number of GPU handles made over the object's life (one per GPU used, again
    /// after `release_gpu()`).
    #[getter]
    fn gpu_uploads(&self) -> u64 {
        self.resident.created()
    }

    /// Frees what the graph holds on a GPU; the next GPU query uploads it again.
    fn release_gpu(&self) {
        self.resident.release();
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
