//! Where all-pairs rows go: memory, a NumPy `.npy` file, or a TSV file.
//!
//! Every sink implements [`RowSink`] and checks the row contract (every row in order,
//! each once, of the announced type and length); every sink takes a distance table of
//! chosen pairs as well as the whole matrix (rows and columns then follow the table's
//! sources and targets); files are written as rows arrive, so a file sink
//! keeps only one block in memory whatever `n` is.
//!
//! # `.npy` ([`NpySink`])
//! NumPy's format version 1.0 (<https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html>):
//! the magic `\x93NUMPY`, version `1 0`, a little-endian `u16` header length, then the
//! header dictionary padded with spaces to a multiple of 64 bytes and ended by `\n`, then
//! the `n x n` matrix (a table: `sources x targets`) row-major (C order), little-endian:
//! ```text
//! \x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (3, 3), }   ...\n
//! ```
//! Rows and columns are **internal vertex numbers** `0..n` (not the file's ids: map them
//! with the graph's [`VertexIds`]). [`NpyDtype::Native`] writes `int64` (`<i8`) for integer
//! distances, with `i64::MAX` (`np.iinfo(np.int64).max`) for unreachable pairs, and
//! `float64` (`<f8`) with `inf` for float distances; [`NpyDtype::F64`] always writes
//! `float64` with `inf` (integer distances beyond 2^53 then lose precision). Load with
//! `np.load(path)` or, without reading it all, `np.load(path, mmap_mode='r')`.
//! Predecessors are not written to `.npy`.
//!
//! # TSV ([`TsvSink`])
//! A header line, then one line per **reachable** pair, the diagonal included (fields are
//! separated by one tab, shown as `\t` here), sources in order, targets in order within a
//! source, in the graph's **file ids** ([`VertexIds::external`]):
//! ```text
//! source\ttarget\tdistance
//! 1\t1\t0
//! 1\t2\t4
//! ```
//! Integer distances are printed as integers, float distances in the shortest form that
//! reads back to the same `f64` (`3.5`, `1e-7`). With predecessors, a fourth column
//! `predecessor` holds the file id of the vertex before `target` (`source` itself on the
//! diagonal). Unreachable pairs have no line. Load with
//! `pandas.read_csv(path, sep='\t')`.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{Axis, DistMatrix, DistType, DistValues, Dists, RowBlock, RowSink, RowsInfo};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId, VertexIds, NO_VERTEX};
use crate::io::{space, OutputFile};

/// Checks the row contract; returns the number of rows in `block`.
fn check_block(info: Option<&RowsInfo>, next: usize, block: &RowBlock<'_>) -> Result<usize> {
    let info = info.ok_or_else(|| Error::InvalidArgument("rows before begin".into()))?;
    let (k, c) = (info.rows.len(), info.cols.len());
    let rows = block.num_rows();
    let bad = |msg: String| Err(Error::InvalidArgument(format!("row block: {msg}")));
    if block.row_len != c {
        return bad(format!("rows of {} values, expected {c}", block.row_len));
    }
    if rows.checked_mul(c) != Some(block.dist.len()) && !(c == 0 && block.dist.is_empty()) {
        return bad(format!(
            "{} values are not whole rows of {c}",
            block.dist.len()
        ));
    }
    if block.dist.dist_type() != info.dist_type {
        return bad(format!(
            "{} distances, expected {}",
            block.dist.dist_type().name(),
            info.dist_type.name()
        ));
    }
    if block.first != next || next + rows > k {
        return bad(format!(
            "rows {}..{} arrived, expected row {next} of {k}",
            block.first,
            block.first + rows
        ));
    }
    if info.predecessors != block.pred.is_some()
        || block.pred.is_some_and(|p| p.len() != block.dist.len())
    {
        return bad("predecessors missing or of the wrong length".into());
    }
    Ok(rows)
}

fn check_complete(info: Option<&RowsInfo>, next: usize) -> Result<()> {
    match info {
        Some(info) if next == info.rows.len() || info.cols.is_empty() => Ok(()),
        Some(info) => Err(Error::InvalidArgument(format!(
            "only {next} of {} rows arrived",
            info.rows.len()
        ))),
        None => Err(Error::InvalidArgument("finish before begin".into())),
    }
}

/// Keeps the whole result in memory as a [`DistMatrix`].
///
/// ```
/// use warpgraph::apsp::{apsp, Algorithm, ApspOptions, MatrixSink};
/// use warpgraph::Graph;
/// let g = Graph::empty(2, true);
/// let mut sink = MatrixSink::new();
/// apsp(&g, Algorithm::FloydWarshall, &ApspOptions::default(), &mut sink).unwrap();
/// let m = sink.into_matrix().unwrap();
/// assert_eq!(m.as_i64().unwrap(), &[0, i64::MAX, i64::MAX, 0]);
/// ```
#[derive(Debug, Default)]
pub struct MatrixSink {
    info: Option<RowsInfo>,
    dist: Option<DistValues>,
    pred: Option<Vec<VertexId>>,
    next: usize,
    finished: bool,
}

impl MatrixSink {
    /// An empty sink.
    pub fn new() -> MatrixSink {
        MatrixSink::default()
    }

    /// The matrix, once every row arrived and `finish` was called.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the run did not complete, or gave a table of other
    /// pairs than all of them ([`MatrixSink::into_table`]).
    pub fn into_matrix(self) -> Result<DistMatrix> {
        match (self.info, self.dist, self.finished) {
            (Some(info), Some(dist), true) if info.is_square() => {
                DistMatrix::new(info.num_vertices, dist, self.pred)
            }
            (Some(_), Some(_), true) => Err(Error::InvalidArgument(
                "the run gave a table of chosen pairs: take it with into_table".into(),
            )),
            _ => Err(Error::InvalidArgument(
                "the all-pairs run did not complete; there is no matrix".into(),
            )),
        }
    }

    /// The table (of any rows and columns), once every row arrived and `finish` was
    /// called.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the run did not complete.
    pub fn into_table(self) -> Result<DistTable> {
        match (self.info, self.dist, self.finished) {
            (Some(info), Some(dist), true) => Ok(DistTable {
                rows: info.rows,
                cols: info.cols,
                dist,
                pred: self.pred,
            }),
            _ => Err(Error::InvalidArgument(
                "the run did not complete; there is no table".into(),
            )),
        }
    }
}

/// Distances from chosen sources (rows) to chosen targets (columns), row-major, as
/// [`MatrixSink::into_table`] keeps them.
#[derive(Debug, Clone, PartialEq)]
pub struct DistTable {
    /// The source of each row.
    pub rows: Axis,
    /// The target of each column.
    pub cols: Axis,
    dist: DistValues,
    pred: Option<Vec<VertexId>>,
}

impl DistTable {
    /// Integer distances (`i64::MAX`: unreachable), row-major.
    pub fn as_i64(&self) -> Option<&[i64]> {
        self.dist.as_i64()
    }

    /// Float distances (`inf`: unreachable), row-major.
    pub fn as_f64(&self) -> Option<&[f64]> {
        self.dist.as_f64()
    }

    /// The distance of row `i`, column `j` as `f64` (`inf` when unreachable).
    pub fn get_f64(&self, i: usize, j: usize) -> Option<f64> {
        if i >= self.rows.len() || j >= self.cols.len() {
            return None;
        }
        self.dist.get_f64(i * self.cols.len() + j)
    }

    /// The predecessors, row-major, when the run computed them.
    pub fn predecessors(&self) -> Option<&[VertexId]> {
        self.pred.as_deref()
    }
}

/// Keeps nothing: for timing and verification runs without an output, and for the
/// processes other than rank 0's in a team that spans processes.
#[derive(Debug, Default, Clone, Copy)]
pub struct Discard;

impl RowSink for Discard {
    fn begin(&mut self, _info: &RowsInfo) -> Result<()> {
        Ok(())
    }

    fn rows(&mut self, _block: &RowBlock<'_>) -> Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

impl RowSink for MatrixSink {
    fn memory_needed(&self, info: &RowsInfo) -> u64 {
        let per = 8 + if info.predecessors { 4 } else { 0 };
        info.num_pairs().saturating_mul(per)
    }

    fn begin(&mut self, info: &RowsInfo) -> Result<()> {
        let pairs = usize::try_from(info.num_pairs()).map_err(|_| Error::TooLarge {
            what: "the distance matrix (vertices squared)".into(),
            value: info.num_pairs(),
            limit: usize::MAX as u64,
        })?;
        crate::memory::check(
            || format!("a {} x {} distance table", info.rows.len(), info.cols.len()),
            self.memory_needed(info),
        )?;
        self.dist = Some(match info.dist_type {
            DistType::I64 => DistValues::I64(Vec::with_capacity(pairs)),
            DistType::F64 => DistValues::F64(Vec::with_capacity(pairs)),
        });
        self.pred = info.predecessors.then(|| Vec::with_capacity(pairs));
        self.info = Some(info.clone());
        self.next = 0;
        self.finished = false;
        Ok(())
    }

    /// Maps the whole matrix now (every cell written once, on every core): the rows then
    /// land in mapped memory.
    fn prepare(&mut self) -> Result<()> {
        let Some(info) = &self.info else {
            return Ok(());
        };
        let pairs = info.num_pairs() as usize;
        match &mut self.dist {
            Some(DistValues::I64(v)) => par_fill(v, pairs, i64::MAX),
            Some(DistValues::F64(v)) => par_fill(v, pairs, f64::INFINITY),
            None => {}
        }
        if let Some(p) = &mut self.pred {
            par_fill(p, pairs, crate::graph::NO_VERTEX);
        }
        Ok(())
    }

    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()> {
        let rows = check_block(self.info.as_ref(), self.next, block)?;
        let at = self.next * self.info.as_ref().map_or(0, |i| i.cols.len());
        match (&mut self.dist, block.dist) {
            (Some(DistValues::I64(v)), Dists::I64(d)) => put(v, at, d),
            (Some(DistValues::F64(v)), Dists::F64(d)) => put(v, at, d),
            _ => return Err(Error::InvalidArgument("row block of the wrong type".into())),
        }
        if let (Some(v), Some(p)) = (&mut self.pred, block.pred) {
            put(v, at, p);
        }
        self.next += rows;
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        check_complete(self.info.as_ref(), self.next)?;
        self.finished = true;
        Ok(())
    }
}

/// `d` into `v` from element `at` on, on every core: copied over what
/// [`MatrixSink::prepare`] wrote there, else appended ([`par_extend`]; `at` is then `v`'s
/// length).
fn put<T: Copy + Send + Sync>(v: &mut Vec<T>, at: usize, d: &[T]) {
    match v.len() >= at + d.len() {
        true => crate::par::copy(&mut v[at..at + d.len()], d),
        false => par_extend(v, d),
    }
}

/// Extends the empty `v` to `len` copies of `x`, on every core (within its capacity).
fn par_fill<T: Copy + Send + Sync>(v: &mut Vec<T>, len: usize, x: T) {
    if v.is_empty() {
        use rayon::prelude::*;
        v.par_extend(rayon::iter::repeat_n(x, len));
    }
}

/// `v.extend_from_slice(d)` on every core: a big matrix's fresh pages are first touched,
/// and copied, by many threads instead of one.
fn par_extend<T: Copy + Send + Sync>(v: &mut Vec<T>, d: &[T]) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    v.reserve(d.len());
    let len = v.len();
    v.spare_capacity_mut()[..d.len()]
        .par_chunks_mut(CHUNK)
        .zip(d.par_chunks(CHUNK))
        .for_each(|(to, from)| {
            for (slot, &x) in to.iter_mut().zip(from) {
                slot.write(x);
            }
        });
    // SAFETY: the reserve made room for d.len() more elements, and the loop above wrote
    // every one of them (the chunks of both sides pair up one to one).
    unsafe { v.set_len(len + d.len()) };
}

/// The element type of a `.npy` file (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NpyDtype {
    /// `int64` for integer distances (unreachable `i64::MAX`), `float64` for float ones.
    #[default]
    Native,
    /// Always `float64` (unreachable `inf`).
    F64,
}

/// Streams the matrix into a NumPy `.npy` file (see the [module docs](self)).
///
/// ```
/// use warpgraph::apsp::{apsp, Algorithm, ApspOptions, NpySink};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// let g = EdgeList::new(2, vec![0], vec![1], Weights::from(vec![7])).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// let mut sink = NpySink::new(Vec::new(), "<memory>");
/// apsp(&g, Algorithm::Johnson, &ApspOptions::default(), &mut sink).unwrap();
/// let bytes = sink.into_inner();
/// assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
/// let data = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
/// assert_eq!(data % 64, 0);
/// assert_eq!(bytes.len(), data + 4 * 8);
/// assert_eq!(&bytes[data + 8..data + 16], &7i64.to_le_bytes());
/// ```
#[derive(Debug)]
pub struct NpySink<W: Write + Send> {
    out: W,
    path: PathBuf,
    dtype: NpyDtype,
    info: Option<RowsInfo>,
    next: usize,
    buf: Vec<u8>,
}

impl NpySink<BufWriter<OutputFile>> {
    /// Writes to a temporary file beside `path` ([`OutputFile`]): [`commit`] renames it to
    /// `path` after `finish`; dropped without a commit, it is removed and `path` is left
    /// as it was.
    ///
    /// [`commit`]: NpySink::commit
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be created.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = OutputFile::create(path)?;
        Ok(NpySink::new(BufWriter::with_capacity(1 << 20, f), path))
    }

    /// Puts the complete file in place (call after the run's `finish`).
    ///
    /// # Errors
    /// [`Error::Io`] when flushing or the rename fails.
    pub fn commit(self) -> Result<()> {
        commit(self.out, &self.path)
    }
}

/// Flushes `out` and renames its file into place.
fn commit(out: BufWriter<OutputFile>, path: &Path) -> Result<()> {
    out.into_inner()
        .map_err(|e| Error::io(path, e.into_error()))?
        .commit()
}

/// The exact size in bytes of [`NpySink`]'s file of a `rows x cols` table: the header (a
/// multiple of 64 bytes) and 8 bytes per pair, saturating.
pub fn npy_file_size(rows: usize, cols: usize) -> u64 {
    (npy_header("<i8", rows, cols).len() as u64)
        .saturating_add((rows as u64).saturating_mul(cols as u64).saturating_mul(8))
}

impl<W: Write + Send> NpySink<W> {
    /// Writes to `out`; `path` names it in error messages.
    pub fn new(out: W, path: impl Into<PathBuf>) -> Self {
        NpySink {
            out,
            path: path.into(),
            dtype: NpyDtype::Native,
            info: None,
            next: 0,
            buf: Vec::new(),
        }
    }

    /// Chooses the element type (default [`NpyDtype::Native`]).
    pub fn with_dtype(mut self, dtype: NpyDtype) -> Self {
        self.dtype = dtype;
        self
    }

    /// The writer back (after `finish`).
    pub fn into_inner(self) -> W {
        self.out
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// The `.npy` v1.0 header for a `rows x cols` table of `descr` (`<i8` or `<f8`).
pub(crate) fn npy_header(descr: &str, rows: usize, cols: usize) -> Vec<u8> {
    let dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let header_len = (total - 10) as u16;
    let mut h = Vec::with_capacity(total);
    h.extend_from_slice(b"\x93NUMPY\x01\x00");
    h.extend_from_slice(&header_len.to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.resize(total - 1, b' ');
    h.push(b'\n');
    h
}

impl<W: Write + Send> RowSink for NpySink<W> {
    fn begin(&mut self, info: &RowsInfo) -> Result<()> {
        let descr = match (self.dtype, info.dist_type) {
            (NpyDtype::Native, DistType::I64) => "<i8",
            _ => "<f8",
        };
        let header = npy_header(descr, info.rows.len(), info.cols.len());
        self.write(&header)?;
        self.info = Some(info.clone());
        self.next = 0;
        Ok(())
    }

    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()> {
        let rows = check_block(self.info.as_ref(), self.next, block)?;
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        buf.resize(block.dist.len() * 8, 0);
        match (block.dist, self.dtype) {
            (Dists::I64(d), NpyDtype::Native) => {
                buf.par_chunks_mut(8 << 12)
                    .zip(d.par_chunks(1 << 12))
                    .for_each(|(b, d)| {
                        for (b, x) in b.chunks_exact_mut(8).zip(d) {
                            b.copy_from_slice(&x.to_le_bytes());
                        }
                    });
            }
            (Dists::I64(d), NpyDtype::F64) => {
                buf.par_chunks_mut(8 << 12)
                    .zip(d.par_chunks(1 << 12))
                    .for_each(|(b, d)| {
                        for (b, &x) in b.chunks_exact_mut(8).zip(d) {
                            let f = if x == i64::MAX {
                                f64::INFINITY
                            } else {
                                x as f64
                            };
                            b.copy_from_slice(&f.to_le_bytes());
                        }
                    });
            }
            (Dists::F64(d), _) => {
                buf.par_chunks_mut(8 << 12)
                    .zip(d.par_chunks(1 << 12))
                    .for_each(|(b, d)| {
                        for (b, x) in b.chunks_exact_mut(8).zip(d) {
                            b.copy_from_slice(&x.to_le_bytes());
                        }
                    });
            }
        }
        let result = self.write(&buf);
        self.buf = buf;
        result?;
        self.next += rows;
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        check_complete(self.info.as_ref(), self.next)?;
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }
}

/// Streams the reachable pairs into a TSV file (see the [module docs](self)).
///
/// ```
/// use warpgraph::apsp::{apsp, Algorithm, ApspOptions, TsvSink};
/// use warpgraph::{BuildOptions, EdgeList, VertexIds, Weights};
/// let g = EdgeList::new(2, vec![0], vec![1], Weights::from(vec![2.5f64])).unwrap()
///     .build(&BuildOptions::default()).unwrap()
///     .with_ids(VertexIds::Base(1)).unwrap();
/// let mut sink = TsvSink::new(Vec::new(), "<memory>", g.ids());
/// apsp(&g, Algorithm::FloydWarshall, &ApspOptions::default(), &mut sink).unwrap();
/// let text = String::from_utf8(sink.into_inner()).unwrap();
/// assert_eq!(text, "source\ttarget\tdistance\n1\t1\t0.0\n1\t2\t2.5\n2\t2\t0.0\n");
/// ```
#[derive(Debug)]
pub struct TsvSink<'a, W: Write + Send> {
    out: W,
    path: PathBuf,
    ids: &'a VertexIds,
    info: Option<RowsInfo>,
    next: usize,
}

impl<'a> TsvSink<'a, BufWriter<OutputFile>> {
    /// Writes to a temporary file beside `path` ([`OutputFile`]), renamed to `path` by
    /// [`commit`](TsvSink::commit); `ids` are the graph's ([`Graph::ids`]).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be created.
    pub fn create(path: impl AsRef<Path>, ids: &'a VertexIds) -> Result<Self> {
        let path = path.as_ref();
        let f = OutputFile::create(path)?;
        Ok(TsvSink::new(
            BufWriter::with_capacity(1 << 20, f),
            path,
            ids,
        ))
    }

    /// Puts the complete file in place (call after the run's `finish`).
    ///
    /// # Errors
    /// [`Error::Io`] when flushing or the rename fails.
    pub fn commit(self) -> Result<()> {
        commit(self.out, &self.path)
    }
}

/// An upper bound on the size in bytes of [`TsvSink`]'s file of `g`'s all pairs, reached
/// when every pair is reachable and every distance is as long as the longest possible
/// ([`space::int_distance_len`], or [`space::FLOAT_TEXT_MAX`] for float weights): the
/// header, then per pair the source's and the target's ids, the distance, (with
/// `predecessors` the longest id again) and the separators.
pub fn tsv_size_bound(g: &Graph, predecessors: bool) -> u64 {
    let n = g.num_vertices();
    tsv_table_bound(g, &Axis::All(n), &Axis::All(n), predecessors)
}

/// [`tsv_size_bound`] for the table of `rows x cols` ([`RowsInfo`]'s axes).
pub fn tsv_table_bound(g: &Graph, rows: &Axis, cols: &Axis, predecessors: bool) -> u64 {
    let (_, max) = space::id_digits(g.ids(), g.num_vertices());
    let dist = space::int_distance_len(g).unwrap_or(space::FLOAT_TEXT_MAX);
    let (header, per_pair) = if predecessors {
        (TSV_HEADER_PRED.len() as u64, 3 + dist + 1 + max)
    } else {
        (TSV_HEADER.len() as u64, 3 + dist)
    };
    let digits = |a: &Axis| -> u128 {
        match a {
            Axis::All(n) => u128::from(space::id_digits(g.ids(), *n).0),
            Axis::List(v) => v
                .iter()
                .map(|&x| u128::from(space::id_digits_of(g.ids(), x)))
                .sum(),
        }
    };
    let (k, c) = (rows.len() as u128, cols.len() as u128);
    // Every row's id appears once per column, every column's once per row.
    let ids = digits(rows) * c + digits(cols) * k;
    let total = header as u128 + ids + k * c * (per_pair as u128);
    u64::try_from(total).unwrap_or(u64::MAX)
}

const TSV_HEADER: &[u8] = b"source\ttarget\tdistance\n";
const TSV_HEADER_PRED: &[u8] = b"source\ttarget\tdistance\tpredecessor\n";

impl<'a, W: Write + Send> TsvSink<'a, W> {
    /// Writes to `out`, naming vertices by `ids`; `path` names `out` in error messages.
    pub fn new(out: W, path: impl Into<PathBuf>, ids: &'a VertexIds) -> Self {
        TsvSink {
            out,
            path: path.into(),
            ids,
            info: None,
            next: 0,
        }
    }

    /// The writer back (after `finish`).
    pub fn into_inner(self) -> W {
        self.out
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// One row's lines: the distances from `s` to the vertices of `cols`.
fn tsv_row(
    ids: &VertexIds,
    s: VertexId,
    cols: &Axis,
    dist: Dists<'_>,
    pred: Option<&[VertexId]>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ib = itoa::Buffer::new();
    let mut db = itoa::Buffer::new();
    let mut fb = ryu::Buffer::new();
    let src = ids.external(s);
    for j in 0..dist.len() {
        let text: &str = match dist {
            Dists::I64(d) => match d.get(j) {
                Some(&x) if x != i64::MAX => db.format(x),
                _ => continue,
            },
            Dists::F64(d) => match d.get(j) {
                Some(&x) if x.is_finite() => fb.format_finite(x),
                _ => continue,
            },
        };
        out.extend_from_slice(ib.format(src).as_bytes());
        out.push(b'\t');
        out.extend_from_slice(ib.format(ids.external(cols.vertex(j))).as_bytes());
        out.push(b'\t');
        out.extend_from_slice(text.as_bytes());
        if let Some(p) = pred.and_then(|p| p.get(j)) {
            out.push(b'\t');
            if *p != NO_VERTEX {
                out.extend_from_slice(ib.format(ids.external(*p)).as_bytes());
            }
        }
        out.push(b'\n');
    }
    out
}

impl<W: Write + Send> RowSink for TsvSink<'_, W> {
    fn begin(&mut self, info: &RowsInfo) -> Result<()> {
        if let VertexIds::Map(m) = self.ids {
            if m.len() != info.num_vertices {
                return Err(Error::InvalidArgument(format!(
                    "TSV output: {} vertex ids for {} vertices",
                    m.len(),
                    info.num_vertices
                )));
            }
        }
        let header = if info.predecessors {
            TSV_HEADER_PRED
        } else {
            TSV_HEADER
        };
        self.write(header)?;
        self.info = Some(info.clone());
        self.next = 0;
        Ok(())
    }

    fn rows(&mut self, block: &RowBlock<'_>) -> Result<()> {
        let rows = check_block(self.info.as_ref(), self.next, block)?;
        let (ids, info) = (self.ids, self.info.as_ref().expect("checked above"));
        let lines: Vec<Vec<u8>> = (0..rows)
            .into_par_iter()
            .map(|i| match block.row(i) {
                Some((dist, pred)) => {
                    let s = info.rows.vertex(block.first + i);
                    tsv_row(ids, s, &info.cols, dist, pred)
                }
                None => Vec::new(),
            })
            .collect();
        for l in &lines {
            self.write(l)?;
        }
        self.next += rows;
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        check_complete(self.info.as_ref(), self.next)?;
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }
}
