//! What a solver that does Floyd-Warshall's rounds in place of the CPU's (the GPU's) is
//! given: the plan of the run ([`Work`]), the graph's arcs as cells to build the matrix
//! from, or the matrix built on the host ([`HostMatrix`]), and the way back for the rows
//! ([`Work::emit`]), which converts them for the sink as the CPU's own run does.

use rayon::prelude::*;

use super::cell::{Cell, Matrix};
use super::plan::{bytes_needed, Plan};
use crate::apsp::RowSink;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::with_weights;

/// Rows of the working matrix (whole padded rows, `big` cells each), by cell type.
#[derive(Clone, Copy)]
pub(crate) enum Rows<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    F64(&'a [f64]),
}

/// Hands rows (the first row's number, the cells, their predecessors) to the sink,
/// converted for it.
pub(super) type Emit<'a> =
    &'a dyn Fn(&mut dyn RowSink, usize, Rows<'_>, Option<&[u32]>) -> Result<()>;

/// A run for a solver: the padded side `big`, the `n` real vertices, the cell type with
/// its sentinels (`plan`), whether predecessors are asked for, and the graph.
pub(crate) struct Work<'a> {
    pub big: usize,
    pub n: usize,
    pub plan: Plan,
    pub pred: bool,
    pub g: &'a Graph,
    pub(super) sink: &'a mut dyn RowSink,
    pub(super) emit: Emit<'a>,
}

impl Work<'_> {
    /// Hands the rows from `first` on (`d`: whole rows of `big` cells, as many as it holds;
    /// rows past `n` are padding and ignored) and their predecessors to the sink. Rows
    /// must come in increasing order, each once, every row below `n` in the end.
    pub fn emit(&mut self, first: usize, d: Rows<'_>, pred: Option<&[u32]>) -> Result<()> {
        (self.emit)(&mut *self.sink, first, d, pred)
    }

    /// Readies the sink's memory ([`RowSink::prepare`]): for a solver to call while its
    /// device computes.
    pub fn prepare_sink(&mut self) -> Result<()> {
        self.sink.prepare()
    }

    /// The graph's arcs as cells (`C::from_weight` of each weight, 1 for an unweighted
    /// graph), in CSR order, for a solver that builds the matrix itself; an error naming a
    /// negative self loop, which is a negative cycle the matrix cannot show.
    pub fn arc_cells<C: Cell>(&self) -> Result<Vec<C>> {
        super::refuse_negative_self_loop::<C>(self.g)?;
        let csr = self.g.out();
        Ok(with_weights!(csr.weights(),
            ws => ws.par_iter().map(|&w| C::from_weight(w)).collect(),
            none => vec![C::from_weight(1i32); csr.targets().len()]
        ))
    }

    /// The working matrix built on the host as the CPU's run builds it, for a solver that
    /// needs it there (a team); refused when it does not fit in memory.
    pub fn host_matrix(&self) -> Result<HostMatrix> {
        let (n, big, pred) = (self.n, self.big, self.pred);
        crate::memory::check(
            || format!("Floyd-Warshall's {n} x {n} matrix on the host"),
            bytes_needed(n, self.plan.cell_size(), pred),
        )?;
        let cells = match self.plan {
            Plan::I32 { inf, thr } => {
                let (d, p) = super::initial::<i32>(self.g, big, inf, pred)?;
                (HostCells::I32(d, thr), p)
            }
            Plan::I64 { inf, thr } => {
                let (d, p) = super::initial::<i64>(self.g, big, inf, pred)?;
                (HostCells::I64(d, thr), p)
            }
            Plan::F64 => {
                let (d, p) = super::initial::<f64>(self.g, big, f64::INFINITY, pred)?;
                (HostCells::F64(d), p)
            }
            Plan::I128 => return Err(needs_128_bits()),
        };
        Ok(HostMatrix {
            d: cells.0,
            p: cells.1,
        })
    }
}

/// The refusal of weights whose sums need 128 bits, which only the CPU's run has.
pub(crate) fn needs_128_bits() -> Error {
    Error::Unsupported(
        "these weights need 128-bit sums, which the GPU Floyd-Warshall does not do: run it \
         on the CPU (--device cpu)"
            .into(),
    )
}

/// The working matrix on the host: cells with their threshold, and predecessors.
pub(crate) struct HostMatrix {
    d: HostCells,
    p: Option<Vec<u32>>,
}

enum HostCells {
    I32(Vec<i32>, i32),
    I64(Vec<i64>, i64),
    F64(Vec<f64>),
}

impl HostMatrix {
    /// The cells (with the threshold) and predecessors, to work on.
    pub fn parts(&mut self) -> (Matrix<'_>, Option<&mut [u32]>) {
        let m = match &mut self.d {
            HostCells::I32(d, thr) => Matrix::I32 { d, thr: *thr },
            HostCells::I64(d, thr) => Matrix::I64 { d, thr: *thr },
            HostCells::F64(d) => Matrix::F64 { d },
        };
        (m, self.p.as_deref_mut())
    }

    /// Every row, for [`Work::emit`].
    pub fn rows(&self) -> (Rows<'_>, Option<&[u32]>) {
        let r = match &self.d {
            HostCells::I32(d, _) => Rows::I32(d),
            HostCells::I64(d, _) => Rows::I64(d),
            HostCells::F64(d) => Rows::F64(d),
        };
        (r, self.p.as_deref())
    }
}
