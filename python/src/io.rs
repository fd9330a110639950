//! Graph files and generators: the library's readers and generators, from Python.

use std::path::PathBuf;
use std::str::FromStr;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use warpgraph::generate::{GenerateOptions, Generator, WeightSpec};
use warpgraph::io::{Format, ReadOptions};
use warpgraph::{Duplicates, SelfLoops, WeightType};

use crate::graph::PyGraph;
use crate::OrPy;

/// Reads a graph file (DIMACS `.gr`, Matrix Market `.mtx`, edge lists `.el`/`.wel`/`.txt`,
/// METIS `.graph`, warpgraph `.wg`; the format from the extension unless `format` names
/// it). `undirected` stores every edge both ways; `weight_type` converts the weights
/// (`i32`, `i64`, `f32`, `f64`, `none`); `self_loops` is `keep` or `drop`, `duplicates`
/// `keep`, `drop` or `min`.
#[pyfunction]
#[pyo3(signature = (path, format=None, undirected=false, weight_type=None, self_loops="keep", duplicates="keep"))]
pub fn read(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    undirected: bool,
    weight_type: Option<&str>,
    self_loops: &str,
    duplicates: &str,
) -> PyResult<PyGraph> {
    let options = ReadOptions {
        format: format.map(Format::from_str).transpose().or_py()?,
        weight_type: weight_type.map(WeightType::from_str).transpose().or_py()?,
        undirected,
        self_loops: SelfLoops::from_str(self_loops).or_py()?,
        duplicates: Duplicates::from_str(duplicates).or_py()?,
        ..Default::default()
    };
    let g = py
        .detach(|| warpgraph::io::read(&path, &options, &warpgraph::NoProgress))
        .or_py()?;
    Ok(PyGraph::new(g))
}

/// Generates a graph: `kind` is `kron` (Graph500 Kronecker: `scale`, `edge_factor`),
/// `rmat` (`scale`, `edge_factor`, `a`, `b`, `c`), `urand` (`vertices`, `edges`), `grid`
/// (`rows`, `cols`, `remove`, `shortcuts`) or `ssca2` (`scale`, `max_clique`,
/// `inter_prob`). `weights` is `None` (unweighted), `(lo, hi)` (uniform integers) or
/// `"float"` (uniform in [0, 1)); `undirected` stores each edge both ways. Self loops are
/// dropped and of parallel edges the lightest kept, as GAPBS does. Same seed, same graph.
#[pyfunction]
#[pyo3(signature = (kind, *, scale=10, edge_factor=16, vertices=1024, edges=16384, rows=32,
    cols=32, remove=0.0, shortcuts=0, a=0.57, b=0.19, c=0.19, max_clique=8, inter_prob=0.5,
    seed=27491095, weights=None, undirected=true))]
#[allow(clippy::too_many_arguments)]
pub fn generate(
    py: Python<'_>,
    kind: &str,
    scale: u32,
    edge_factor: u32,
    vertices: u64,
    edges: u64,
    rows: u32,
    cols: u32,
    remove: f64,
    shortcuts: u64,
    a: f64,
    b: f64,
    c: f64,
    max_clique: u32,
    inter_prob: f64,
    seed: u64,
    weights: Option<&Bound<'_, PyAny>>,
    undirected: bool,
) -> PyResult<PyGraph> {
    let generator = match kind {
        "kron" => Generator::Kronecker { scale, edge_factor },
        "rmat" => Generator::Rmat {
            scale,
            edge_factor,
            a,
            b,
            c,
        },
        "urand" => Generator::Uniform { vertices, edges },
        "grid" => Generator::Grid {
            rows,
            cols,
            remove,
            shortcuts,
        },
        "ssca2" => Generator::Ssca2 {
            scale,
            max_clique,
            inter_prob,
        },
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown generator '{kind}' (expected kron, rmat, urand, grid or ssca2)"
            )))
        }
    };
    let weights = match weights {
        None => WeightSpec::None,
        Some(w) if w.is_none() => WeightSpec::None,
        Some(w) => match w.extract::<(i64, i64)>() {
            Ok((lo, hi)) => WeightSpec::Int { lo, hi },
            Err(_) if w.extract::<String>().is_ok_and(|s| s == "float") => WeightSpec::Float,
            Err(_) => {
                return Err(PyValueError::new_err(
                    "weights must be None, (lo, hi) or \"float\"",
                ))
            }
        },
    };
    let opts = GenerateOptions {
        seed,
        weights,
        undirected,
        ..Default::default()
    };
    let g = py
        .detach(|| warpgraph::generate::generate(&generator, &opts))
        .or_py()?;
    Ok(PyGraph::new(g))
}
