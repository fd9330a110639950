//! Centrality: the library's betweenness, edge betweenness, closeness and harmonic
//! centrality on an engine graph, for the NetworkX backend.
//!
//! The engine graphs made from NetworkX graphs are directed (an undirected graph's edges
//! stored both ways); `directed=False` measures one as undirected (its arcs must then be
//! symmetric), which changes only the scaling and nothing of the paths. Sources and
//! vertices are vertex numbers; the Python side draws NetworkX's sample itself, so that a
//! seed gives NetworkX's sources.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::str::FromStr;

use warpgraph::centrality::{
    betweenness_on, closeness_on, edge_betweenness, harmonic_on, BetweennessOptions,
    ClosenessOptions, EdgeBetweennessOptions, HarmonicOptions, Sources,
};
use warpgraph::device::Device;
use warpgraph::{Graph, NoProgress, VertexId, VertexIds};

use crate::graph::PyGraph;
use crate::OrPy;

/// Vertex numbers from Python, checked against `n`.
fn vertices(list: Option<PyReadonlyArray1<'_, i64>>, n: usize) -> PyResult<Option<Vec<VertexId>>> {
    let Some(list) = list else {
        return Ok(None);
    };
    list.as_slice()?
        .iter()
        .map(|&v| {
            u32::try_from(v)
                .ok()
                .filter(|&v| (v as usize) < n)
                .ok_or_else(|| PyValueError::new_err(format!("vertex {v} is out of range 0..{n}")))
        })
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// The graph as `directed` says: the engine's own, or a copy marked the other way.
fn as_directed(g: &Graph, directed: bool) -> warpgraph::Result<Option<Graph>> {
    if g.is_directed() == directed {
        return Ok(None);
    }
    Graph::from_parts(directed, g.out().clone(), VertexIds::default()).map(Some)
}

/// One centrality measure of `g`, as a float64 array: `betweenness` (one value per
/// vertex), `edge_betweenness` (one per arc of `g.csr()`, in that order), `closeness`
/// and `harmonic` (one per vertex of `vertices`, all by default). `sources`: the
/// betweenness sources (all by default; a list is scaled as a sample of its size) or
/// the harmonic sources. `normalized` and `endpoints` are betweenness's, `wf_improved`
/// closeness's. Weighted when `g` has weights (non-negative: a negative one raises
/// `ValueError`). `device`: `auto` (a GPU where there is one), `cpu`, `cuda`, `cuda:N`;
/// betweenness of an unweighted graph, closeness and harmonic run on a GPU, edge
/// betweenness and weighted betweenness on the CPU.
#[pyfunction]
#[pyo3(signature = (g, measure, directed, sources=None, vertices=None, normalized=true,
                    endpoints=false, wf_improved=true, device="auto"))]
#[allow(clippy::too_many_arguments)]
pub fn centrality<'py>(
    py: Python<'py>,
    g: &PyGraph,
    measure: &str,
    directed: bool,
    sources: Option<PyReadonlyArray1<'_, i64>>,
    vertices: Option<PyReadonlyArray1<'_, i64>>,
    normalized: bool,
    endpoints: bool,
    wf_improved: bool,
    device: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let n = g.g.num_vertices();
    // Betweenness counting arcs, closeness and harmonic have GPU code; the rest runs on
    // the CPU.
    let gpu_code = match measure {
        "betweenness" => g.g.weight_type() == warpgraph::WeightType::None,
        "closeness" | "harmonic" => true,
        _ => false,
    };
    let gpu = match Device::from_str(device)
        .or_py()?
        .resolve("centrality", gpu_code)
        .or_py()?
        .0
    {
        Device::Cuda(i) if gpu_code => Some(warpgraph::cuda::Gpu::open(i).or_py()?),
        _ => None,
    };
    let sources = self::vertices(sources, n)?;
    let vertices = self::vertices(vertices, n)?;
    let values = py
        .detach(|| -> warpgraph::Result<Vec<f64>> {
            let copy = as_directed(&g.g, directed)?;
            let graph = copy.as_ref().unwrap_or(&g.g);
            let list = || sources.clone().map_or(Sources::All, Sources::List);
            Ok(match measure {
                "betweenness" => {
                    let opts = BetweennessOptions {
                        sources: list(),
                        normalized,
                        endpoints,
                        ..Default::default()
                    };
                    betweenness_on(graph, &opts, gpu.as_ref(), &NoProgress)?.values
                }
                "edge_betweenness" => {
                    let opts = EdgeBetweennessOptions {
                        sources: list(),
                        normalized,
                        ..Default::default()
                    };
                    edge_betweenness(graph, &opts, &NoProgress)?.values
                }
                "closeness" => {
                    let opts = ClosenessOptions {
                        wf_improved,
                        vertices: vertices.clone(),
                        ..Default::default()
                    };
                    closeness_on(graph, &opts, gpu.as_ref(), &NoProgress)?.values
                }
                "harmonic" => {
                    let opts = HarmonicOptions {
                        vertices: vertices.clone(),
                        sources: sources.clone(),
                        ..Default::default()
                    };
                    harmonic_on(graph, &opts, gpu.as_ref(), &NoProgress)?.values
                }
                other => {
                    return Err(warpgraph::Error::InvalidArgument(format!(
                        "unknown measure '{other}' (expected betweenness, edge_betweenness, \
                         closeness or harmonic)"
                    )))
                }
            })
        })
        .or_py()?;
    Ok(values.into_pyarray(py))
}
