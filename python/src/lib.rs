//! `warpgraph._warpgraph`: the compiled half of the `warpgraph` Python package.
//!
//! A thin layer over the `warpgraph` library: a [`graph::PyGraph`] class holding an engine
//! graph, and functions that take it (and NumPy arrays) and return NumPy arrays. Every
//! function releases the GIL while the engine computes. Inputs are read in place
//! (borrowed NumPy buffers); an engine graph is built from them once (one copy into the
//! engine's CSR layout, whose offsets are 64-bit); results are moved into NumPy without a
//! copy. The Python modules `warpgraph.csgraph` and `warpgraph.nx` give these functions
//! scipy's and NetworkX's interfaces.
//!
//! Errors are the library's [`warpgraph::Error`] values mapped to Python exceptions by
//! [`to_py`]: a negative cycle raises `NegativeCycle` (with the cycle's vertices), a
//! missing GPU raises `GpuError`, bad arguments `ValueError`, files `OSError`.

mod algo;
mod centrality;
mod convert;
mod graph;
mod io;
mod resident;

use pyo3::create_exception;
use pyo3::exceptions::{
    PyMemoryError, PyNotImplementedError, PyOSError, PyOverflowError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;

create_exception!(
    _warpgraph,
    WarpgraphError,
    PyRuntimeError,
    "An error of the warpgraph engine."
);
create_exception!(
    _warpgraph,
    NegativeCycle,
    WarpgraphError,
    "A negative cycle is reachable: args are (message, [vertices of the cycle in order])."
);
create_exception!(
    _warpgraph,
    GpuError,
    WarpgraphError,
    "A GPU was asked for and none can be used, or the GPU failed."
);

/// Maps a library error to the Python exception a caller can act on.
pub(crate) fn to_py(e: warpgraph::Error) -> PyErr {
    use warpgraph::Error as E;
    let msg = e.to_string();
    match e {
        E::NegativeCycle { cycle, .. } => NegativeCycle::new_err((msg, cycle)),
        E::NoGpu(_) | E::Gpu(_) | E::Nccl(_) => GpuError::new_err(msg),
        E::Io { .. } => PyOSError::new_err(msg),
        E::OutOfMemory { .. } => PyMemoryError::new_err(msg),
        E::Overflow(_) | E::TooLarge { .. } => PyOverflowError::new_err(msg),
        E::Unsupported(_) => PyNotImplementedError::new_err(msg),
        E::VerificationFailed(_) => WarpgraphError::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

/// The library's result, as a Python result.
pub(crate) trait OrPy<T> {
    /// Maps the error with [`to_py`].
    fn or_py(self) -> PyResult<T>;
}

impl<T> OrPy<T> for warpgraph::Result<T> {
    fn or_py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

#[pymodule]
fn _warpgraph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WarpgraphError", py.get_type::<WarpgraphError>())?;
    m.add("NegativeCycle", py.get_type::<NegativeCycle>())?;
    m.add("GpuError", py.get_type::<GpuError>())?;
    m.add_class::<graph::PyGraph>()?;
    m.add_function(wrap_pyfunction!(algo::sssp, m)?)?;
    m.add_function(wrap_pyfunction!(algo::sssp_method, m)?)?;
    m.add_function(wrap_pyfunction!(algo::apsp, m)?)?;
    m.add_function(wrap_pyfunction!(algo::potentials_check, m)?)?;
    m.add_function(wrap_pyfunction!(algo::mst, m)?)?;
    m.add_function(wrap_pyfunction!(algo::bfs_order, m)?)?;
    m.add_function(wrap_pyfunction!(algo::stable_rank, m)?)?;
    m.add_function(wrap_pyfunction!(algo::has_ties, m)?)?;
    m.add_function(wrap_pyfunction!(centrality::centrality, m)?)?;
    m.add_function(wrap_pyfunction!(algo::resolve_device, m)?)?;
    m.add_function(wrap_pyfunction!(algo::gpu_required, m)?)?;
    m.add_function(wrap_pyfunction!(convert::nx_adjacency, m)?)?;
    m.add_function(wrap_pyfunction!(io::read, m)?)?;
    m.add_function(wrap_pyfunction!(io::generate, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
