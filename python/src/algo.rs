//! The algorithms, with the conventions both front ends share.
//!
//! Distances come back as float64 (`inf`: unreachable), predecessors as int32 with
//! `-9999` for "none" (the source itself and unreachable vertices), as scipy returns
//! them. Shortest paths from many sources with non-negative weights are a distance table,
//! the library's batched searches (one Dijkstra per core on the CPU, a block per source
//! on a GPU); one source, other methods, and predecessors on a GPU run source by source
//! (on a GPU on the graph kept there: see `resident`).
//!
//! [`bfs_order`] is the one search written here rather than in the library: scipy and
//! NetworkX define the *order* in which a breadth-first search discovers vertices (a
//! serial queue scanning each row in its stored order), which the library's parallel
//! direction-optimising BFS does not (and should not) follow.

use std::str::FromStr;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use warpgraph::apsp::{self as engine_apsp, ApspOptions, DistValues};
use warpgraph::device::Device;
use warpgraph::par::prefetch as prefetch_at;
use warpgraph::sssp::{self as engine_sssp, Algorithm, Request, SsspResult};
use warpgraph::{with_weights, Csr, Graph, VertexId, Weights, NO_VERTEX};

use crate::graph::{weights_to_py, PyGraph};
use crate::OrPy;

/// scipy's "no predecessor".
const NULL_PRED: i32 = -9999;

type Pair<'py> = (Bound<'py, PyArray2<f64>>, Option<Bound<'py, PyArray2<i32>>>);

/// Parses and resolves a device name for `what`; `gpu_code` says whether it has GPU code.
fn device(name: &str, what: &str, gpu_code: bool) -> PyResult<Device> {
    let d = Device::from_str(name).or_py()?;
    Ok(d.resolve(what, gpu_code).or_py()?.0)
}

/// The device `name` (`auto`, `cpu`, `cuda`, `cuda:N`) resolves to for an algorithm with
/// (`gpu_code=True`) or without GPU code, as a string: `"cpu"` or `"cuda:N"`. Raises
/// `GpuError` when a GPU is named and none can be used.
#[pyfunction]
#[pyo3(signature = (name, what="this algorithm", gpu_code=true))]
pub fn resolve_device(name: &str, what: &str, gpu_code: bool) -> PyResult<String> {
    Ok(device(name, what, gpu_code)?.to_string())
}

/// Whether a missing GPU must fail a GPU test rather than skip it
/// (`WARPGRAPH_REQUIRE_GPU=1`, read by the library's settings).
#[pyfunction]
pub fn gpu_required() -> bool {
    warpgraph::settings::get().require_gpu
}

/// Writes one search's distances and predecessors into output rows.
fn fill_row(r: &SsspResult, dist: &mut [f64], pred: Option<&mut [i32]>) {
    // On every core: a row of a million vertices is milliseconds for one, the fresh
    // array's pages mapped as it goes.
    dist.par_iter_mut()
        .enumerate()
        .with_min_len(1 << 14)
        .for_each(|(v, d)| *d = r.dist_f64(v as VertexId));
    if let Some(pred) = pred {
        let s = r.source();
        pred.par_iter_mut()
            .zip(r.parent())
            .enumerate()
            .with_min_len(1 << 14)
            .for_each(|(v, (p, &parent))| {
                *p = if parent == NO_VERTEX || v as VertexId == s {
                    NULL_PRED
                } else {
                    parent as i32
                };
            });
    }
}

/// Checks source ids against the graph.
fn sources_of(g: &Graph, sources: &[i64]) -> PyResult<Vec<VertexId>> {
    let n = g.num_vertices() as i64;
    sources
        .iter()
        .map(|&s| {
            if (0..n).contains(&s) {
                Ok(s as VertexId)
            } else {
                Err(PyValueError::new_err(format!(
                    "source {s} is out of range 0..{n}"
                )))
            }
        })
        .collect()
}

/// The method [`sssp`] runs for `method` (a library method's name, or `"nonnegative"`:
/// shortest paths with non-negative weights, the method left to the engine) from
/// `sources` sources on `device` (`cpu`, `cuda`, `cuda:N`, or `auto`, resolved), on a
/// graph with (`negative`) or without a negative arc: the library's
/// `sssp::Request::algorithm`, the one place that decides. `cuda` is not resolved, so
/// that the choice can be asked where no GPU is.
#[pyfunction]
#[pyo3(signature = (method, sources, device, negative=false))]
pub fn sssp_method(method: &str, sources: usize, device: &str, negative: bool) -> PyResult<String> {
    let request = Request::from_str(method).or_py()?;
    let dev = match Device::from_str(device).or_py()? {
        Device::Auto => self::device(device, "shortest paths", true)?,
        d => d,
    };
    Ok(request.algorithm(dev, sources, negative).name().to_string())
}

/// Shortest paths from each of `sources`: a `(len(sources), n)` float64 distance array
/// and, when `predecessors`, an int32 predecessor array of the same shape.
///
/// `method` is a library SSSP name (`dijkstra`, `bellman-ford`, `delta-stepping`,
/// `auto`, ...) or `"nonnegative"` ([`sssp_method`] says what runs). Raises
/// `NegativeCycle`, or `ValueError` for a negative weight under a method that needs
/// non-negative weights. On a GPU the graph stays there for the next call (the object's
/// [`Slot`](crate::resident::Slot)); on the CPU the sources run one per core.
#[pyfunction]
#[pyo3(signature = (g, sources, method="auto", device="auto", predecessors=false))]
pub fn sssp<'py>(
    py: Python<'py>,
    g: &PyGraph,
    sources: PyReadonlyArray1<'_, i64>,
    method: &str,
    device: &str,
    predecessors: bool,
) -> PyResult<Pair<'py>> {
    let request = Request::from_str(method).or_py()?;
    let dev = self::device(device, "shortest paths", true)?;
    let graph = &*g.g;
    let sources = sources_of(graph, sources.as_slice()?)?;
    let n = graph.num_vertices();
    let k = sources.len();
    let (dist, pred) = py
        .detach(|| -> warpgraph::Result<(Vec<f64>, Option<Vec<i32>>)> {
            let mut dist = vec![0.0f64; k * n];
            let mut pred = predecessors.then(|| vec![0i32; k * n]);
            if n == 0 {
                return Ok((dist, pred));
            }
            // Several sources with non-negative weights, or under Bellman-Ford with any
            // weights: the batched searches of a distance table (the GPU's do not give
            // predecessors). Johnson's reweighting refuses a negative cycle anywhere,
            // where Bellman-Ford refuses only one its sources reach: on that refusal, the
            // sources run one by one to tell.
            let bellman_ford = request == Request::Named(Algorithm::BellmanFord);
            let batched = |negative: bool, on_gpu: bool| {
                k > 1
                    && (bellman_ford || request == Request::NonNegative && !negative)
                    && !(on_gpu && predecessors)
            };
            let one_by_one = |e: &warpgraph::Error| {
                bellman_ford && matches!(e, warpgraph::Error::NegativeCycle { .. })
            };
            match dev {
                Device::Cuda(i) => g.resident.with(&g.g, i, |on_gpu, negative| {
                    if batched(negative, true) {
                        let backend = engine_apsp::Backend::Cuda(on_gpu.gpu(), Default::default());
                        match table(graph, &sources, backend, &mut dist, None) {
                            Err(e) if one_by_one(&e) => {}
                            done => return done,
                        }
                    }
                    let algorithm = request.algorithm(dev, k, negative);
                    for (i, &s) in sources.iter().enumerate() {
                        let (r, _) = on_gpu.sssp(s, &algorithm)?;
                        let p = pred.as_mut().map(|p| &mut p[i * n..(i + 1) * n]);
                        fill_row(&r, &mut dist[i * n..(i + 1) * n], p);
                    }
                    Ok(())
                })?,
                _ => {
                    let negative = graph.out().weights().min_f64().is_some_and(|x| x < 0.0);
                    let tabled = batched(negative, false).then(|| {
                        let backend = engine_apsp::Backend::Cpu;
                        table(graph, &sources, backend, &mut dist, pred.as_deref_mut())
                    });
                    match tabled {
                        Some(Ok(())) => {}
                        Some(Err(e)) if !one_by_one(&e) => return Err(e),
                        _ => {
                            one_per_core(graph, &sources, &request, &mut dist, pred.as_deref_mut())?
                        }
                    }
                }
            }
            Ok((dist, pred))
        })
        .or_py()?;
    Ok(to_arrays(py, k, n, dist, pred))
}

/// The searches from each of `sources` on the CPU, one per core, into `(k, n)` rows of
/// `dist` (and of `pred`, when given).
fn one_per_core(
    g: &Graph,
    sources: &[VertexId],
    request: &Request,
    dist: &mut [f64],
    pred: Option<&mut [i32]>,
) -> warpgraph::Result<()> {
    let n = g.num_vertices();
    // (The CPU's choice does not depend on the weights' signs.)
    let algorithm = request.algorithm(Device::Cpu, sources.len(), false);
    let rows = dist.par_chunks_mut(n);
    let each = |(i, d): (usize, &mut [f64]), p: Option<&mut [i32]>| {
        engine_sssp::sssp(g, sources[i], &algorithm).map(|r| fill_row(&r, d, p))
    };
    match pred {
        Some(p) => rows
            .enumerate()
            .zip(p.par_chunks_mut(n))
            .try_for_each(|(row, p)| each(row, Some(p))),
        None => rows.enumerate().try_for_each(|row| each(row, None)),
    }
}

/// The distances (and, when `pred` is given, predecessors) from each of `sources` to
/// every vertex into `(k, n)` rows: a distance table by the library's batched searches
/// ([`engine_apsp::distances_on`]).
fn table(
    g: &Graph,
    sources: &[VertexId],
    backend: engine_apsp::Backend<'_>,
    dist: &mut [f64],
    pred: Option<&mut [i32]>,
) -> warpgraph::Result<()> {
    let n = g.num_vertices();
    let sel = engine_apsp::Selection {
        sources: engine_apsp::Axis::List(sources.into()),
        targets: engine_apsp::Axis::All(n),
    };
    let opts = ApspOptions {
        predecessors: pred.is_some(),
    };
    let mut sink = Fill {
        sources,
        dist,
        pred,
        n,
    };
    engine_apsp::distances_on(g, &sel, &opts, backend, &mut sink, &warpgraph::NoProgress)?;
    Ok(())
}

/// A table's rows into float64 distances and scipy's int32 predecessors.
struct Fill<'a> {
    sources: &'a [VertexId],
    dist: &'a mut [f64],
    pred: Option<&'a mut [i32]>,
    n: usize,
}

impl engine_apsp::RowSink for Fill<'_> {
    fn begin(&mut self, _info: &engine_apsp::RowsInfo) -> warpgraph::Result<()> {
        Ok(())
    }

    fn rows(&mut self, block: &engine_apsp::RowBlock<'_>) -> warpgraph::Result<()> {
        let n = self.n;
        let at = block.first * n;
        let out = &mut self.dist[at..at + block.dist.len()];
        match block.dist {
            engine_apsp::Dists::I64(d) => out.par_iter_mut().zip(d).for_each(|(o, &x)| {
                *o = if x == i64::MAX {
                    f64::INFINITY
                } else {
                    x as f64
                };
            }),
            engine_apsp::Dists::F64(d) => out.par_iter_mut().zip(d).for_each(|(o, &x)| *o = x),
        }
        if let (Some(pred), Some(p)) = (self.pred.as_deref_mut(), block.pred) {
            let first = block.first;
            let sources = self.sources;
            pred[at..at + p.len()]
                .par_iter_mut()
                .zip(p)
                .enumerate()
                .for_each(|(i, (o, &x))| {
                    let (row, v) = (first + i / n, (i % n) as VertexId);
                    *o = if x == NO_VERTEX || v == sources[row] {
                        NULL_PRED
                    } else {
                        x as i32
                    };
                });
        }
        Ok(())
    }

    fn finish(&mut self) -> warpgraph::Result<()> {
        Ok(())
    }
}

/// Moves row-major results into NumPy arrays of shape `(k, n)` without copying.
fn to_arrays(
    py: Python<'_>,
    k: usize,
    n: usize,
    dist: Vec<f64>,
    pred: Option<Vec<i32>>,
) -> Pair<'_> {
    let shape = |v: usize| (v, n);
    let d = Array2::from_shape_vec(shape(k), dist).expect("k * n values");
    let p = pred.map(|p| {
        Array2::from_shape_vec(shape(k), p)
            .expect("k * n values")
            .into_pyarray(py)
    });
    (d.into_pyarray(py), p)
}

/// All-pairs shortest paths: an `(n, n)` float64 distance array and optionally the
/// int32 predecessors. `method`: `floyd-warshall`, `johnson` or `auto`. Raises
/// `NegativeCycle` when the graph has a negative cycle anywhere.
#[pyfunction]
#[pyo3(signature = (g, method="auto", device="auto", predecessors=false))]
pub fn apsp<'py>(
    py: Python<'py>,
    g: &PyGraph,
    method: &str,
    device: &str,
    predecessors: bool,
) -> PyResult<Pair<'py>> {
    let algorithm = engine_apsp::Algorithm::from_str(method).or_py()?;
    let dev = self::device(device, "all-pairs shortest paths", true)?;
    let graph = &*g.g;
    let n = graph.num_vertices();
    let opts = ApspOptions { predecessors };
    let (dist, pred) = py
        .detach(|| -> warpgraph::Result<(Vec<f64>, Option<Vec<i32>>)> {
            let mut sink = engine_apsp::MatrixSink::new();
            let gpu = dev.gpu()?;
            let backend = match &gpu {
                Some(gpu) => engine_apsp::Backend::Cuda(gpu, Default::default()),
                None => engine_apsp::Backend::Cpu,
            };
            let progress = warpgraph::NoProgress;
            engine_apsp::apsp_on(graph, algorithm, &opts, backend, &mut sink, &progress)?;
            let (values, pred) = sink.into_matrix()?.into_parts();
            let pred = pred.map(|p| {
                p.into_par_iter()
                    .enumerate()
                    .map(|(i, x)| {
                        if x == NO_VERTEX || i / n == i % n {
                            NULL_PRED
                        } else {
                            x as i32
                        }
                    })
                    .collect()
            });
            let dist = match values {
                DistValues::F64(d) => d,
                DistValues::I64(d) => d
                    .into_par_iter()
                    .map(|x| {
                        if x == i64::MAX {
                            f64::INFINITY
                        } else {
                            x as f64
                        }
                    })
                    .collect(),
            };
            Ok((dist, pred))
        })
        .or_py()?;
    Ok(to_arrays(py, n, n, dist, pred))
}

/// Raises `NegativeCycle` when the graph has a negative cycle anywhere (Bellman-Ford
/// from a virtual source joined to every vertex, as Johnson's algorithm starts).
#[pyfunction]
pub fn potentials_check(py: Python<'_>, g: &PyGraph) -> PyResult<()> {
    let out = g.g.out();
    py.detach(|| -> warpgraph::Result<()> {
        with_weights!(out.weights(),
            w => engine_sssp::cpu::bellman_ford_potentials(out, w).map(|_| ()),
            none => Ok(()))
    })
    .or_py()
}

/// The minimum spanning forest: `(u, v, weights)` with `u < v` (int32 arrays) and the
/// weights of the graph's type (float64 or int64; None for an unweighted graph), in the
/// library's order (weight, then `u`, then `v`).
#[pyfunction]
#[pyo3(signature = (g, device="auto", algorithm="boruvka"))]
#[allow(clippy::type_complexity)]
pub fn mst<'py>(
    py: Python<'py>,
    g: &PyGraph,
    device: &str,
    algorithm: &str,
) -> PyResult<(
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<i32>>,
    Option<Bound<'py, PyAny>>,
)> {
    self::device(device, "MST", false)?;
    let graph = &*g.g;
    let algorithm = warpgraph::mst::Algorithm::from_str(algorithm).or_py()?;
    let f = py
        .detach(|| warpgraph::mst::mst(graph, algorithm))
        .or_py()?;
    let (u, v): (Vec<i32>, Vec<i32>) = f.edges.iter().map(|&(u, v)| (u as i32, v as i32)).unzip();
    let w = weights_to_py(py, f.weights);
    Ok((u.into_pyarray(py), v.into_pyarray(py), w))
}

/// The rank of each value in a stable sort (equal values ranked by position), and the
/// order (the positions by rank): NumPy's `argsort(kind="stable")`, in parallel.
/// `values` is a float64 or int64 array without NaN.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn stable_rank<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    /// Sorts (order-preserving key, position) pairs: ties fall to the position.
    fn rank(keys: impl IndexedParallelIterator<Item = u64>) -> (Vec<i64>, Vec<i64>) {
        let mut pairs: Vec<(u64, u32)> = keys.enumerate().map(|(i, k)| (k, i as u32)).collect();
        pairs.par_sort_unstable();
        let order: Vec<i64> = pairs.par_iter().map(|&(_, i)| i as i64).collect();
        let mut rank = vec![0i64; pairs.len()];
        for (r, &(_, i)) in pairs.iter().enumerate() {
            rank[i as usize] = r as i64;
        }
        (order, rank)
    }
    /// A u64 ordered as the float (-0.0 and 0.0 equal, as NumPy sorts them).
    fn float_key(x: f64) -> u64 {
        let b = if x == 0.0 { 0 } else { x.to_bits() };
        if b >> 63 == 1 {
            !b
        } else {
            b | 1 << 63
        }
    }
    let (order, rank) = if let Ok(a) = values.extract::<PyReadonlyArray1<'_, f64>>() {
        let v = a.as_slice()?;
        py.detach(|| rank(v.par_iter().map(|&x| float_key(x))))
    } else {
        let a = values.extract::<PyReadonlyArray1<'_, i64>>()?;
        let v = a.as_slice()?;
        py.detach(|| rank(v.par_iter().map(|&x| (x as u64) ^ (1 << 63))))
    };
    Ok((order.into_pyarray(py), rank.into_pyarray(py)))
}

/// Breadth-first order from `source` (a vertex, or a sequence of vertices that all start
/// at depth 0 in that order, as NetworkX's `bfs_layers` takes them: duplicates kept) of
/// the CSR arrays `indptr` (int64), `indices`
/// (int32), scanning each row in its stored order; with `undirected`, each vertex's row
/// and then its column (the row of the transpose, sources ascending), as scipy's
/// `directed=False` reads a matrix. Returns the vertices in the order found (the source
/// first), the int32 predecessor of each vertex (`-9999`: none), and the depth of each
/// vertex of `order`, parallel to it; vertices at `depth_limit` are not expanded.
#[pyfunction]
#[pyo3(signature = (indptr, indices, source, depth_limit=None, undirected=false))]
#[allow(clippy::type_complexity)]
pub fn bfs_order<'py>(
    py: Python<'py>,
    indptr: PyReadonlyArray1<'py, i64>,
    indices: PyReadonlyArray1<'py, i32>,
    source: &Bound<'py, PyAny>,
    depth_limit: Option<u32>,
    undirected: bool,
) -> PyResult<(
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<i32>>,
)> {
    let rows = (indptr.as_slice()?, indices.as_slice()?);
    let (p, ix) = rows;
    let n = p.len().saturating_sub(1);
    let malformed = || PyValueError::new_err("malformed CSR arrays");
    if p.first() != Some(&0) || p.last() != Some(&(ix.len() as i64)) {
        return Err(malformed());
    }
    let sources: Vec<i64> = match source.extract::<i64>() {
        Ok(s) => vec![s],
        Err(_) => source.extract()?,
    };
    if let Some(s) = sources.iter().find(|&&s| !(0..n as i64).contains(&s)) {
        return Err(PyValueError::new_err(format!(
            "source {s} is out of range 0..{n}"
        )));
    }
    let sources: Vec<usize> = sources.iter().map(|&s| s as usize).collect();
    let limit = depth_limit.unwrap_or(u32::MAX);
    let found = py.detach(|| {
        if !undirected {
            // The rows read are checked as they are read (a directed search reads only
            // what it reaches).
            return bfs(n, &sources, limit, &rows, None::<&Csr>);
        }
        // The transpose reads every arc: check them all first.
        let valid = p.par_windows(2).all(|w| w[0] <= w[1])
            && ix.par_iter().all(|&x| x >= 0 && (x as usize) < n);
        if !valid {
            return None;
        }
        let csr = Csr::from_raw(
            p.par_iter().map(|&x| x as u64).collect::<Vec<_>>().into(),
            ix.par_iter().map(|&x| x as u32).collect::<Vec<_>>().into(),
            Weights::None,
        );
        bfs(n, &sources, limit, &rows, Some(&csr.transpose()))
    });
    let (order, pred, depth) = found.ok_or_else(malformed)?;
    Ok((
        order.into_pyarray(py),
        pred.into_pyarray(py),
        depth.into_pyarray(py),
    ))
}

/// Rows of a CSR as the breadth-first search reads them.
trait Rows {
    /// Calls `f` on each target of row `u` (below n), in stored order; false where the
    /// row's bounds are not a valid range of the targets.
    fn each(&self, u: usize, f: impl FnMut(usize)) -> bool;
    /// Asks the processor to start loading row `u`'s bounds (`bounds`) or, once they are
    /// likely in cache, its first targets (a hint only: any `u` is harmless).
    fn prefetch(&self, u: usize, bounds: bool);
}

impl Rows for (&[i64], &[i32]) {
    #[inline]
    fn each(&self, u: usize, mut f: impl FnMut(usize)) -> bool {
        let (a, b) = (self.0[u], self.0[u + 1]);
        let Some(row) = (0 <= a && a <= b)
            .then(|| self.1.get(a as usize..b as usize))
            .flatten()
        else {
            return false;
        };
        for &v in row {
            // A negative target becomes a huge one, which the caller refuses.
            f(v as u32 as usize);
        }
        true
    }
    #[inline]
    fn prefetch(&self, u: usize, bounds: bool) {
        match bounds {
            true => prefetch_at(self.0, u),
            false => prefetch_at(self.1, self.0.get(u).map_or(usize::MAX, |&a| a as usize)),
        }
    }
}

impl Rows for Csr {
    #[inline]
    fn each(&self, u: usize, mut f: impl FnMut(usize)) -> bool {
        for &v in self.neighbors(u as VertexId) {
            f(v as usize);
        }
        true
    }
    #[inline]
    fn prefetch(&self, u: usize, bounds: bool) {
        let off = self.offsets();
        match bounds {
            true => prefetch_at(off, u),
            false => prefetch_at(
                self.targets(),
                off.get(u).map_or(usize::MAX, |&a| a as usize),
            ),
        }
    }
}

/// How far ahead in the queue [`bfs`] prefetches a row's bounds, and its targets: the
/// rows are read in queue order, all over memory, and each first touch would otherwise
/// wait on memory.
const AHEAD_BOUNDS: usize = 16;
const AHEAD_TARGETS: usize = 8;

/// The serial queue of [`bfs_order`] from `sources` (all below n) over `a`'s rows, then
/// `b`'s (CSRs of `n` rows), level by level: order, predecessors, depths; `None` where a
/// row read is malformed (its bounds, or a target not below n). The predecessor array
/// doubles as the "seen" mark (a source marks itself until the end), as in scipy; depths
/// come from the levels' bounds at the end.
fn bfs<A: Rows, B: Rows>(
    n: usize,
    sources: &[usize],
    limit: u32,
    a: &A,
    b: Option<&B>,
) -> Option<(Vec<i32>, Vec<i32>, Vec<i32>)> {
    let mut pred = vec![NULL_PRED; n];
    let mut order = Vec::with_capacity(n.max(sources.len()));
    for &s in sources {
        order.push(s as i32);
        pred[s] = s as i32;
    }
    // Level d holds order[ends[d]..ends[d + 1]].
    let mut ends = vec![0, sources.len()];
    let mut bad = false;
    for level in 0..limit {
        let (first, last) = (ends[level as usize], order.len());
        if first == last {
            break;
        }
        for i in first..last {
            for (ahead, bounds) in [(AHEAD_BOUNDS, true), (AHEAD_TARGETS, false)] {
                if let Some(&w) = order.get(i + ahead) {
                    a.prefetch(w as usize, bounds);
                    if let Some(b) = b {
                        b.prefetch(w as usize, bounds);
                    }
                }
            }
            let u = order[i] as usize;
            let mut visit = |v: usize| match pred.get_mut(v) {
                Some(p) if *p == NULL_PRED => {
                    *p = u as i32;
                    order.push(v as i32);
                }
                Some(_) => {}
                None => bad = true,
            };
            let mut ok = a.each(u, &mut visit);
            if let Some(b) = b {
                ok &= b.each(u, &mut visit);
            }
            if !ok || bad {
                return None;
            }
        }
        ends.push(order.len());
    }
    for &s in sources {
        pred[s] = NULL_PRED;
    }
    let mut depth = Vec::with_capacity(order.len());
    for (d, w) in ends.windows(2).enumerate() {
        depth.resize(w[1], d as i32);
    }
    Some((order, pred, depth))
}

/// Whether some shortest-path tree of the given distances is not unique: a vertex with
/// two or more tight in-arcs (`dist[u] + w == dist[v]`, both finite), or a source with
/// one. `dist` is `(len(sources), n)` as [`sssp`] returns it. Front ends that must return
/// exactly the paths another library would pick fall back to it when this is true.
#[pyfunction]
pub fn has_ties(
    py: Python<'_>,
    g: &PyGraph,
    sources: PyReadonlyArray1<'_, i64>,
    dist: PyReadonlyArray2<'_, f64>,
) -> PyResult<bool> {
    let graph = &*g.g;
    let n = graph.num_vertices();
    let sources = sources_of(graph, sources.as_slice()?)?;
    let dist = dist.as_slice()?;
    if dist.len() != sources.len() * n {
        return Err(PyValueError::new_err(
            "dist must have one row of n per source",
        ));
    }
    Ok(py.detach(|| {
        let inc = graph.incoming();
        let w = inc.weights();
        sources.par_iter().enumerate().any(|(i, &s)| {
            let d = &dist[i * n..(i + 1) * n];
            (0..n as VertexId).into_par_iter().any(|v| {
                let dv = d[v as usize];
                if !dv.is_finite() {
                    return false;
                }
                let row = inc.row(v);
                let tight = inc.targets()[row.clone()]
                    .iter()
                    .zip(row)
                    .filter(|&(&u, k)| {
                        let wk = w.get_f64(k).unwrap_or(1.0);
                        d[u as usize].is_finite() && d[u as usize] + wk == dv
                    })
                    .count();
                tight >= 2 || (tight >= 1 && v == s)
            })
        })
    }))
}
