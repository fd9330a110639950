//! Matrix Market coordinate files (`.mtx`): sparse matrices read as graphs.
//!
//! ```text
//! %%MatrixMarket matrix coordinate real general
//! % any number of comment lines
//! 3 3 2
//! 1 2 0.5
//! 3 1 -2
//! ```
//!
//! The first line is the banner `%%MatrixMarket matrix coordinate FIELD SYMMETRY`
//! (keywords case-insensitive), then `%` comment lines, then the size line `ROWS COLS NNZ`,
//! then `NNZ` entry lines `I J [V]` with 1-based indices. The example is the directed graph
//! 1 -> 2 (weight 0.5), 3 -> 1 (weight -2).
//!
//! Conventions:
//! - Entry `(I, J, V)` is the arc `I -> J` with weight `V`: row = source, column = target,
//!   as in `scipy.sparse.csgraph`. Vertex ids are the 1-based indices
//!   ([`VertexIds::Base`]`(1)`); a graph needs a square matrix, `ROWS` = `COLS` = vertices.
//! - FIELD `real` (or `double`) gives `f64` weights even when every value is integral;
//!   `integer` gives `i32` when every value fits, else `i64`; `pattern` is unweighted.
//!   [`ReadOptions::weight_type`](super::ReadOptions::weight_type) forces a type, and a value
//!   it cannot hold exactly is an error naming the line. `complex` is refused.
//! - SYMMETRY `general` is a directed graph. `symmetric` is an undirected graph: each entry
//!   is one edge, in either triangle, a diagonal entry one self loop; a file that lists both
//!   `(i, j)` and `(j, i)` therefore yields two parallel edges (a multi-edge) unless the read
//!   options drop duplicates. `skew-symmetric` is a directed graph in which each entry
//!   `(I, J, V)` gives the arcs `I -> J` of weight `V` and `J -> I` of weight `-V`; its
//!   diagonal must be empty and it must have values. `hermitian` and dense `array` files are
//!   refused. [`ReadOptions::undirected`](super::ReadOptions::undirected) makes any of them
//!   undirected (each arc read becomes an edge).
//! - Blank lines and `%` lines are allowed among the entries; the number of entries must
//!   equal `NNZ`.
//!
//! Writing: an undirected graph is written `symmetric`, each edge once in the lower
//! triangle (row >= column); a directed one `general`, every arc in CSR order. The field is
//! `integer`, `real` or `pattern` from the weight type; floats are written in the shortest
//! form that reads back to the same value (`ryu`), so every graph reads back equal (an
//! `i64` graph whose weights all fit in `i32` reads back as `i32` unless the type is forced;
//! an `f32` one as `f64`). Vertices are written as `1..n`; when the graph's own ids differ
//! (a renumbered edge list), a comment line says so.
//!
//! Source: R. F. Boisvert, R. Pozo, K. A. Remington, "The Matrix Market Exchange Formats:
//! Initial Design", NISTIR 5935, 1996 (<https://math.nist.gov/MatrixMarket/formats.html>).

use std::io::Write;
use std::ops::Range;

use super::text::{self, put, write_arc_lines, ArcSet, At, Fields, WeightCol, WeightParser};
use super::{ReadContext, WriteContext};
use crate::error::Result;
use crate::graph::{EdgeList, Graph, VertexIds, WeightType, MAX_VERTICES};
use crate::with_weights;

/// The FIELD of the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Real,
    Integer,
    Pattern,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Pattern => "pattern",
        }
    }
}

/// The SYMMETRY of the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    Skew,
}

const BANNER_FORM: &str = "'%%MatrixMarket matrix coordinate <real|integer|pattern> \
                           <general|symmetric|skew-symmetric>'";

/// Parses the banner (line 1).
fn parse_banner(data: &[u8], cx: &ReadContext<'_>) -> Result<(Field, Symmetry)> {
    let line = text::lines(data, 0..data.len())
        .next()
        .map_or(&b""[..], |(_, l)| l);
    let err = |msg: String| cx.parse_error(1, msg);
    let mut f = Fields::new(line);
    let mut next = |what: &str| {
        f.next().ok_or_else(|| {
            err(format!(
                "the header ends before the {what}: expected {BANNER_FORM}, found '{}'",
                text::show(line)
            ))
        })
    };
    let banner = next("banner")?;
    if !banner.eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Err(err(format!(
            "expected the Matrix Market header {BANNER_FORM}, found '{}'",
            text::show(line)
        )));
    }
    let object = next("object ('matrix')")?;
    if !object.eq_ignore_ascii_case(b"matrix") {
        return Err(err(format!(
            "the object is '{}', but only a 'matrix' can be read as a graph",
            text::show(object)
        )));
    }
    let format = next("format ('coordinate')")?;
    if format.eq_ignore_ascii_case(b"array") {
        return Err(err(
            "dense 'array' matrices are not supported: a graph needs the sparse \
             'coordinate' format; convert the file to coordinate form"
                .into(),
        ));
    }
    if !format.eq_ignore_ascii_case(b"coordinate") {
        return Err(err(format!(
            "expected the format 'coordinate', found '{}'",
            text::show(format)
        )));
    }
    let field = next("field")?.to_ascii_lowercase();
    let field = match &field[..] {
        b"real" | b"double" => Field::Real,
        b"integer" => Field::Integer,
        b"pattern" => Field::Pattern,
        b"complex" => {
            return Err(err(
                "complex matrices are not graphs: edge weights must be real numbers \
                 (field 'complex' is not supported)"
                    .into(),
            ))
        }
        other => {
            return Err(err(format!(
                "expected the field 'real', 'integer' or 'pattern', found '{}'",
                text::show(other)
            )))
        }
    };
    let symmetry = next("symmetry")?.to_ascii_lowercase();
    let symmetry = match &symmetry[..] {
        b"general" => Symmetry::General,
        b"symmetric" => Symmetry::Symmetric,
        b"skew-symmetric" => Symmetry::Skew,
        b"hermitian" => {
            return Err(err(
                "hermitian matrices are not supported (they are complex); \
                 expected 'general', 'symmetric' or 'skew-symmetric'"
                    .into(),
            ))
        }
        other => {
            return Err(err(format!(
                "expected the symmetry 'general', 'symmetric' or 'skew-symmetric', found '{}'",
                text::show(other)
            )))
        }
    };
    if let Some(extra) = f.next() {
        return Err(err(format!(
            "unexpected '{}' after the symmetry: expected {BANNER_FORM}",
            text::show(extra)
        )));
    }
    if field == Field::Pattern && symmetry == Symmetry::Skew {
        return Err(err(
            "'pattern skew-symmetric' is not a valid combination: a skew-symmetric matrix \
             needs values"
                .into(),
        ));
    }
    Ok((field, symmetry))
}

/// Whether a line holds nothing to parse: blank, or a `%` comment.
fn is_skippable(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    t.is_empty() || t[0] == b'%'
}

/// The byte just after the line starting at `start` (after its `\n`, or the end).
fn after_line(data: &[u8], start: usize) -> usize {
    let rest = data.get(start..).unwrap_or(&[]);
    memchr::memchr(b'\n', rest).map_or(data.len(), |i| start + i + 1)
}

/// How entry values are read: into an integer or a float column, checked per token.
#[derive(Debug, Clone, Copy)]
struct Values {
    field: Field,
    /// The type the user forced, if any.
    forced: Option<WeightType>,
}

impl Values {
    /// Whether values go to an integer column.
    fn int_column(self) -> bool {
        match self.field {
            Field::Integer => true,
            Field::Real => matches!(self.forced, Some(WeightType::I32 | WeightType::I64)),
            Field::Pattern => false,
        }
    }

    fn column(self, capacity: usize) -> WeightCol {
        if self.int_column() {
            WeightCol::Int(Vec::with_capacity(capacity))
        } else {
            WeightCol::Float(Vec::with_capacity(capacity))
        }
    }

    /// Parses an integer value of an `integer` file.
    #[inline]
    fn integer(self, tok: &[u8]) -> Result<i64, String> {
        let x = match text::parse_i64(tok) {
            Some(x) => x,
            None => {
                return Err(if text::parse_f64(tok).is_ok() {
                    format!(
                        "expected an integer value (the header says 'integer'), found '{}'",
                        text::show(tok)
                    )
                } else {
                    format!(
                        "expected an integer value (a 64-bit integer), found '{}'",
                        text::show(tok)
                    )
                })
            }
        };
        if self.forced == Some(WeightType::I32) && i32::try_from(x).is_err() {
            return Err(format!("value {x} does not fit in i32 (--weight-type i32)"));
        }
        Ok(x)
    }

    /// Parses a `real` value that the user wants as integer type `t`.
    fn real_as_int(tok: &[u8], t: WeightType) -> Result<i64, String> {
        let x = text::parse_f64(tok)?;
        // Integral values in [MIN, -MIN) fit: both bounds are powers of two, exact in f64.
        let lo = if t == WeightType::I32 {
            i32::MIN as f64
        } else {
            i64::MIN as f64
        };
        if x.fract() != 0.0 || x < lo || x >= -lo {
            return Err(format!(
                "value '{}' is not representable as {t} (--weight-type {t})",
                text::show(tok)
            ));
        }
        Ok(x as i64)
    }

    /// Parses one value into `col`; with `mirror`, also pushes its negation (skew-symmetric).
    #[inline]
    fn push(self, col: &mut WeightCol, tok: &[u8], mirror: bool) -> Result<(), String> {
        match col {
            WeightCol::Int(v) => {
                let x = match (self.field, self.forced) {
                    (Field::Real, Some(t)) => Self::real_as_int(tok, t)?,
                    _ => self.integer(tok)?,
                };
                v.push(x);
                if mirror {
                    let neg = x
                        .checked_neg()
                        .filter(|&y| {
                            self.forced != Some(WeightType::I32) || i32::try_from(y).is_ok()
                        })
                        .ok_or_else(|| {
                            format!(
                                "value {x} cannot be negated for the mirrored entry of a \
                                 skew-symmetric matrix without overflow"
                            )
                        })?;
                    v.push(neg);
                }
            }
            WeightCol::Float(v) => {
                let x = text::parse_f64(tok)?;
                if self.forced == Some(WeightType::F32) && !(x as f32).is_finite() {
                    return Err(format!("value {x} overflows f32 (--weight-type f32)"));
                }
                v.push(x);
                if mirror {
                    v.push(-x);
                }
            }
        }
        Ok(())
    }
}

/// The entries of one chunk.
struct Part {
    src: Vec<u32>,
    dst: Vec<u32>,
    values: Option<WeightCol>,
    /// Entry lines seen (a skew-symmetric entry is one line but two arcs).
    entries: u64,
}

/// Parses the entry lines of `data[r]`.
fn parse_part(
    data: &[u8],
    r: Range<usize>,
    n: u64,
    field: Field,
    symmetry: Symmetry,
    values: Values,
) -> Result<Part, At> {
    let skew = symmetry == Symmetry::Skew;
    // A guess at the capacity: entry lines are rarely shorter than 8 bytes.
    let cap = ((r.end - r.start) / 8) << usize::from(skew);
    let mut p = Part {
        src: Vec::with_capacity(cap),
        dst: Vec::with_capacity(cap),
        values: (field != Field::Pattern).then(|| values.column(cap)),
        entries: 0,
    };
    let form = if field == Field::Pattern {
        "'I J'"
    } else {
        "'I J V'"
    };
    for (off, line) in text::lines(data, r) {
        let mut f = Fields::new(line);
        let Some(a) = f.next() else { continue };
        if a.first() == Some(&b'%') {
            continue;
        }
        let Some(b) = f.next() else {
            return Err(At::new(
                off,
                format!("expected an entry {form}, found '{}'", text::show(line)),
            ));
        };
        let i = text::parse_vertex_1based(a, n, "row index").map_err(|m| At::new(off, m))?;
        let j = text::parse_vertex_1based(b, n, "column index").map_err(|m| At::new(off, m))?;
        if skew && i == j {
            return Err(At::new(
                off,
                format!(
                    "entry ({}, {}) is on the diagonal, but a skew-symmetric matrix has a \
                     zero diagonal and lists no diagonal entries",
                    i as u64 + 1,
                    j as u64 + 1
                ),
            ));
        }
        if let Some(col) = &mut p.values {
            let Some(v) = f.next() else {
                return Err(At::new(
                    off,
                    format!(
                        "expected an entry {form} (the header says '{}'), found '{}'",
                        field.name(),
                        text::show(line)
                    ),
                ));
            };
            values.push(col, v, skew).map_err(|m| At::new(off, m))?;
        }
        if let Some(extra) = f.next() {
            return Err(At::new(
                off,
                format!(
                    "unexpected '{}' after the entry: expected {form} (the header says '{}')",
                    text::show(extra),
                    field.name()
                ),
            ));
        }
        p.src.push(i);
        p.dst.push(j);
        if skew {
            p.src.push(j);
            p.dst.push(i);
        }
        p.entries += 1;
    }
    Ok(p)
}

/// Parses a Matrix Market coordinate file; see the [module docs](self) for the conventions.
///
/// # Errors
/// [`Error::Parse`](crate::Error::Parse) naming the line for a malformed banner, size line or entry, an index
/// out of range, a non-finite value or an entry count that differs from the size line's;
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the declared entries cannot fit.
pub fn read(data: &[u8], cx: &ReadContext<'_>) -> Result<Graph> {
    if data.is_empty() {
        return Err(cx.parse_error(
            1,
            format!("the file is empty; expected the Matrix Market header {BANNER_FORM}"),
        ));
    }
    let (field, symmetry) = parse_banner(data, cx)?;

    // The size line: the first line after the banner that is neither blank nor a comment.
    let start = after_line(data, 0);
    let Some((size_at, size_line)) =
        text::lines(data, start..data.len()).find(|(_, l)| !is_skippable(l))
    else {
        return Err(cx.parse_error(
            text::line_of(data, data.len().saturating_sub(1)),
            "the file ends before the size line 'ROWS COLS NNZ'",
        ));
    };
    let size_line_no = || text::line_of(data, size_at);
    let size_err = |msg: String| cx.parse_error(size_line_no(), msg);
    let mut f = Fields::new(size_line);
    let nums: Vec<Option<u64>> = f.by_ref().take(3).map(text::parse_u64).collect();
    let (rows, cols, nnz) = match (&nums[..], f.next()) {
        ([Some(r), Some(c), Some(z)], None) => (*r, *c, *z),
        _ => {
            return Err(size_err(format!(
                "expected the size line 'ROWS COLS NNZ' (three non-negative integers), \
                 found '{}'",
                text::show(size_line)
            )))
        }
    };
    if rows != cols {
        return Err(size_err(format!(
            "the matrix is {rows} x {cols}; a graph needs a square matrix (ROWS = COLS = \
             the number of vertices)"
        )));
    }
    if rows > MAX_VERTICES {
        return Err(size_err(format!(
            "the matrix has {rows} rows, more than the limit of {MAX_VERTICES} vertices"
        )));
    }
    let body = after_line(data, size_at)..data.len();
    let remaining = (body.end - body.start) as u64;
    // An entry line needs at least 4 bytes ("1 1\n"), the last one 3.
    let most = (remaining + 1) / 4;
    if nnz > most {
        return Err(size_err(format!(
            "the size line declares {nnz} entries, but the rest of the file ({remaining} \
             bytes) can hold at most {most} (an entry line takes at least 4 bytes)"
        )));
    }
    let arcs = if symmetry == Symmetry::Skew {
        2 * nnz
    } else {
        nnz
    };
    let per_arc = 8 + if field == Field::Pattern { 0 } else { 8 };
    // Per-chunk arrays and their concatenation.
    crate::memory::check(
        || format!("reading {nnz} Matrix Market entries"),
        arcs.saturating_mul(2 * per_arc),
    )?;

    let values = Values {
        field,
        forced: cx.options.weight_type.filter(|&t| t != WeightType::None),
    };
    let parts = text::parse_chunks(data, body, cx.progress, |r| {
        parse_part(data, r, rows, field, symmetry, values)
    })
    .map_err(|e| e.into_error(cx.path, data))?;
    let found: u64 = parts.iter().map(|p| p.entries).sum();
    if found != nnz {
        return Err(size_err(format!(
            "the size line declares {nnz} entries, but the file has {found}"
        )));
    }

    let (src, dst, mut cols_parts) =
        text::join_arcs(parts.into_iter().map(|p| (p.src, p.dst, p.values)));
    let weights = if field == Field::Pattern {
        crate::Weights::None
    } else {
        if cols_parts.is_empty() {
            // No entry lines at all: an empty column keeps the field's type.
            cols_parts.push(values.column(0));
        }
        WeightParser {
            forced: values.forced,
        }
        .finish(cols_parts)
    };
    let edges = EdgeList {
        num_vertices: rows,
        src,
        dst,
        weights,
        ids: VertexIds::Base(1),
    };
    cx.build(edges, symmetry != Symmetry::Symmetric)
}

/// A `%` comment line saying how the written ids relate to the graph's own, when they
/// differ; empty when they are the same (`1..n`).
pub(super) fn ids_comment(ids: &VertexIds) -> String {
    match ids {
        VertexIds::Base(1) => String::new(),
        VertexIds::Base(b) => format!(
            "% vertex ids were shifted to start at 1: file id k is original id k - 1 + {b}\n"
        ),
        VertexIds::Map(_) => "% vertex ids were renumbered 1..n in increasing order of the \
                              original ids\n"
            .into(),
    }
}

/// Writes `g` as a Matrix Market coordinate file; see the [module docs](self).
///
/// # Errors
/// [`Error::Io`](crate::Error::Io) when writing fails.
pub fn write(g: &Graph, out: &mut dyn Write, cx: &WriteContext<'_>) -> Result<()> {
    let n = g.num_vertices();
    let field = match g.weight_type() {
        WeightType::None => "pattern",
        WeightType::I32 | WeightType::I64 => "integer",
        WeightType::F32 | WeightType::F64 => "real",
    };
    let (symmetry, entries) = if g.is_directed() {
        ("general", g.num_arcs())
    } else {
        ("symmetric", g.num_edges())
    };
    let head = format!(
        "%%MatrixMarket matrix coordinate {field} {symmetry}\n\
         % written by warpgraph: entry (I, J) is the {} I {} J\n{}{n} {n} {entries}\n",
        if g.is_directed() { "arc" } else { "edge" },
        if g.is_directed() { "->" } else { "--" },
        ids_comment(g.ids()),
    );
    out.write_all(head.as_bytes()).map_err(|e| cx.io_error(e))?;
    // An undirected graph's edges once each, in the lower triangle (row >= column).
    let set = if g.is_directed() {
        ArcSet::All
    } else {
        ArcSet::Lower
    };
    // "<row> " once per row, then "<column>[ <value>]\n" per entry.
    let row = |buf: &mut Vec<u8>, u: u32| {
        put(buf, u as u64 + 1);
        buf.push(b' ');
    };
    with_weights!(g.out().weights(),
    w => write_arc_lines(g, out, cx, "writing mtx", set, row, |buf, v, i| {
        put(buf, v as u64 + 1);
        if let Some(&x) = w.get(i) {
            buf.push(b' ');
            put(buf, x);
        }
        buf.push(b'\n');
    }),
    none => write_arc_lines(g, out, cx, "writing mtx", set, row, |buf, v, _| {
        put(buf, v as u64 + 1);
        buf.push(b'\n');
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ReadOptions;
    use crate::NoProgress;
    use std::path::Path;

    fn read_str(s: &str) -> Result<Graph> {
        let o = ReadOptions::default();
        let cx = ReadContext {
            path: Path::new("t.mtx"),
            options: &o,
            progress: &NoProgress,
        };
        read(s.as_bytes(), &cx)
    }

    #[test]
    fn banner_keywords_are_case_insensitive() {
        let g =
            read_str("%%matrixmarket MATRIX Coordinate Double General\n2 2 1\n1 2 3\n").unwrap();
        assert_eq!(g.neighbors(0), &[1]);
        assert_eq!(g.out().weights().as_slice::<f64>().unwrap(), &[3.0]);
    }

    #[test]
    fn size_line_may_follow_blank_and_comment_lines() {
        let g = read_str("%%MatrixMarket matrix coordinate pattern general\n%c\n\n  %d\n3 3 0")
            .unwrap();
        assert_eq!(g.num_vertices(), 3);
        assert_eq!(g.num_arcs(), 0);
    }
}
