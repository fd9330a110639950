//! DIMACS shortest-path graphs (`.gr`) and source files (`.ss`).
//!
//! The format of the 9th DIMACS Implementation Challenge on shortest paths:
//!
//! ```text
//! c a tiny graph
//! p sp 3 2
//! a 1 2 7
//! a 2 3 -1
//! ```
//!
//! - `c ...` lines are comments and may appear anywhere; blank lines are ignored.
//! - Exactly one problem line `p sp <vertices> <arcs>` comes before any arc.
//! - `a <tail> <head> <weight>` is an arc; vertices are numbered `1..=vertices` and the
//!   weight is required. Any other line type is an error.
//! - The number of `a` lines must equal the problem line's arc count.
//!
//! Conventions: the graph is directed and keeps the file's 1-based ids
//! ([`VertexIds::Base`]`(1)`). Weights are `i32` when every integer fits, else `i64`,
//! and `f64` when any weight has a fraction or exponent (an extension: the challenge uses
//! integers), unless [`ReadOptions::weight_type`](super::ReadOptions::weight_type) forces
//! a type; NaN and infinities are refused. The problem line's counts are checked before
//! anything is allocated: more vertices than [`MAX_VERTICES`], or more arcs than the rest of
//! the file could hold (an arc line takes at least 8 bytes), are errors naming that line.
//! Arcs are parsed in parallel chunks of about 1 MiB.
//!
//! Writing emits `c` comments (who wrote it, the counts, and notes when the graph was
//! undirected, unweighted or had its ids renumbered), the problem line, then `a u v w` per
//! stored arc with `u`, `v` the internal numbers plus one. An undirected graph is written
//! as its stored arcs, each edge as two arcs (a self loop as one); reading the file back
//! gives a directed graph. An unweighted graph is written with weight 1.
//!
//! Source files (`.ss`) list the sources of a shortest-path run:
//!
//! ```text
//! c sources
//! p aux sp ss 2
//! s 1
//! s 3
//! ```
//!
//! Source: the challenge's format pages,
//! <http://www.diag.uniroma1.it/challenge9/format.shtml>.

use std::io::Write;
use std::ops::Range;
use std::path::Path;

use super::text::{
    self, check_weight_count, put, write_arc_lines, ArcSet, At, Fields, WeightCol, WeightParser,
};
use super::{ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::{EdgeList, Graph, VertexIds, WeightType, MAX_VERTICES};
use crate::with_weights;

/// Shortest byte length of an arc line (`a 1 1 1` and its newline).
const MIN_ARC_LINE: u64 = 8;

/// Parses a DIMACS `.gr` graph (see the [module docs](self)).
///
/// # Errors
/// [`Error::Parse`] naming the line for: a missing or second problem line, an arc before
/// the problem line, a problem other than `sp`, a wrong field count, a vertex outside
/// `1..=n`, a bad or non-finite weight, an unknown line type, and (naming the problem line)
/// an arc count that differs from the problem line's or that the file is too short to
/// hold, or too many vertices. [`Error::OutOfMemory`] when the graph cannot fit.
pub fn read(data: &[u8], cx: &ReadContext<'_>) -> Result<Graph> {
    let start = if data.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let p = problem_line(data, start, cx)?;
    cx.progress.advance(p.body as u64);
    let wp = WeightParser {
        forced: cx.options.weight_type.filter(|&t| t != WeightType::None),
    };
    let parts = text::parse_chunks(data, p.body..data.len(), cx.progress, |r| {
        parse_arcs(data, r, &p, &wp)
    })
    .map_err(|e| e.into_error(cx.path, data))?;

    let found: u64 = parts.iter().map(|a| a.src.len() as u64).sum();
    if found != p.m {
        return Err(cx.parse_error(
            text::line_of(data, p.at),
            format!(
                "the problem line announces {} arc{} but the file has {found} arc line{}",
                p.m,
                if p.m == 1 { "" } else { "s" },
                if found == 1 { "" } else { "s" },
            ),
        ));
    }
    let (src, dst, cols) =
        text::join_arcs(parts.into_iter().map(|a| (a.src, a.dst, Some(a.weights))));
    let weights = wp.finish(cols);
    let edges = EdgeList {
        num_vertices: p.n,
        src,
        dst,
        weights,
        ids: VertexIds::Base(1),
    };
    cx.build(edges, true)
}

/// The problem line and where the arcs begin.
struct Problem {
    /// Vertices.
    n: u64,
    /// Arcs announced.
    m: u64,
    /// Byte offset of the problem line.
    at: usize,
    /// Byte offset just after it.
    body: usize,
}

/// Whether the first token of a (left-trimmed) line is exactly `kind`.
#[inline]
fn is_kind(line: &[u8], kind: u8) -> bool {
    line.first() == Some(&kind) && line.get(1).is_none_or(|&b| b == b' ' || b == b'\t')
}

/// `line` without leading spaces and tabs.
#[inline]
fn trim_start(line: &[u8]) -> &[u8] {
    let k = line
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(line.len());
    &line[k..]
}

#[cold]
fn unknown_line(off: usize, line: &[u8], expected: &str) -> At {
    let tok = Fields::new(line).next().unwrap_or_default();
    At::new(
        off,
        format!(
            "unknown line type '{}': expected {expected}",
            text::show(tok)
        ),
    )
}

/// Finds the problem line: comments and blank lines may precede it, nothing else.
fn problem_line(data: &[u8], start: usize, cx: &ReadContext<'_>) -> Result<Problem> {
    let err = |off: usize, msg: String| cx.parse_error(text::line_of(data, off), msg);
    for (off, raw) in text::lines(data, start..data.len()) {
        let line = trim_start(raw);
        if text::is_blank(line) || is_kind(line, b'c') {
            continue;
        }
        if is_kind(line, b'a') {
            return Err(err(
                off,
                "arc line before the problem line: expected 'p sp <vertices> <arcs>' first".into(),
            ));
        }
        if !is_kind(line, b'p') {
            return Err(
                unknown_line(off, line, "'c' (comment) or 'p' (problem line)")
                    .into_error(cx.path, data),
            );
        }
        let f: Vec<&[u8]> = Fields::new(line).take(6).collect();
        if f.len() != 4 {
            return Err(err(
                off,
                format!(
                    "expected the problem line 'p sp <vertices> <arcs>', found '{}'",
                    text::show(line)
                ),
            ));
        }
        if f[1] != b"sp" {
            return Err(err(
                off,
                format!(
                    "expected problem type 'sp' (shortest paths), found '{}'",
                    text::show(f[1])
                ),
            ));
        }
        let count = |tok: &[u8], what: &str| {
            text::parse_u64(tok).ok_or_else(|| {
                err(
                    off,
                    format!(
                        "expected the number of {what} (a non-negative integer), found '{}'",
                        text::show(tok)
                    ),
                )
            })
        };
        let n = count(f[2], "vertices")?;
        let m = count(f[3], "arcs")?;
        let body = memchr::memchr(b'\n', &data[off..]).map_or(data.len(), |i| off + i + 1);
        if n > MAX_VERTICES {
            return Err(err(
                off,
                format!("{n} vertices exceed the limit of {MAX_VERTICES}"),
            ));
        }
        let room = (data.len() - body) as u64 + 1;
        if m > room / MIN_ARC_LINE {
            return Err(err(
                off,
                format!(
                    "the problem line announces {m} arc{}, but the {} bytes after it can hold \
                     at most {} (an arc line takes at least {MIN_ARC_LINE} bytes)",
                    if m == 1 { "" } else { "s" },
                    room - 1,
                    room / MIN_ARC_LINE
                ),
            ));
        }
        crate::memory::check(
            || format!("reading {m} arcs"),
            m.saturating_mul(16).saturating_add(n.saturating_mul(8)),
        )?;
        return Ok(Problem {
            n,
            m,
            at: off,
            body,
        });
    }
    Err(cx.parse_error(
        text::line_of(data, data.len().saturating_sub(1)),
        "no problem line: expected 'p sp <vertices> <arcs>' before the arcs, found the end \
         of the file",
    ))
}

/// The arcs of one chunk.
struct Arcs {
    src: Vec<u32>,
    dst: Vec<u32>,
    weights: WeightCol,
}

/// Parses the arc lines of one chunk (after the problem line).
fn parse_arcs(data: &[u8], r: Range<usize>, p: &Problem, wp: &WeightParser) -> Result<Arcs, At> {
    let cap = ((r.end - r.start) / 16).min(p.m as usize);
    let mut a = Arcs {
        src: Vec::with_capacity(cap),
        dst: Vec::with_capacity(cap),
        weights: wp.column(cap),
    };
    for (off, raw) in text::lines(data, r) {
        let line = trim_start(raw);
        match line.first() {
            Some(b'a') if is_kind(line, b'a') => {}
            None => continue,
            Some(b'c') if is_kind(line, b'c') => continue,
            Some(b'p') if is_kind(line, b'p') => {
                return Err(At::new(
                    off,
                    format!(
                        "a second problem line (the first is line {}); a file has exactly one",
                        text::line_of(data, p.at)
                    ),
                ))
            }
            _ if text::is_blank(line) => continue,
            _ => {
                return Err(unknown_line(
                    off,
                    line,
                    "'c' (comment) or 'a' (arc) after the problem line",
                ))
            }
        }
        let mut f = Fields::new(line);
        f.next(); // "a"
        let (Some(u), Some(v), Some(w), None) = (f.next(), f.next(), f.next(), f.next()) else {
            return Err(arc_fields(off, line));
        };
        let u = text::parse_vertex_1based(u, p.n, "tail").map_err(|m| At::new(off, m))?;
        let v = text::parse_vertex_1based(v, p.n, "head").map_err(|m| At::new(off, m))?;
        wp.push(&mut a.weights, w)
            .map_err(|m| At::new(off, format!("bad arc weight: {m}")))?;
        a.src.push(u);
        a.dst.push(v);
    }
    Ok(a)
}

#[cold]
fn arc_fields(off: usize, line: &[u8]) -> At {
    let found = Fields::new(line).count();
    At::new(
        off,
        format!(
            "expected an arc 'a <tail> <head> <weight>' (4 fields), found {found} field{}: '{}'",
            if found == 1 { "" } else { "s" },
            text::show(line)
        ),
    )
}

/// Writes `g` as a DIMACS `.gr` file (see the [module docs](self)).
///
/// # Errors
/// [`Error::Io`] when writing fails.
pub fn write(g: &Graph, out: &mut dyn Write, cx: &WriteContext<'_>) -> Result<()> {
    check_weight_count(g)?;
    let n = g.num_vertices();
    let m = g.num_arcs();
    let mut head = String::from("c written by warpgraph\n");
    head.push_str(&format!("c vertices: {n}, arcs: {m}\n"));
    if !g.is_directed() {
        head.push_str(&format!(
            "c the graph is undirected: each of its {} edges appears as two arcs \
             (a self loop as one)\n",
            g.num_edges()
        ));
    }
    match g.ids() {
        VertexIds::Base(1) => {}
        VertexIds::Base(b) => head.push_str(&format!(
            "c vertex ids were renumbered 1..{n} (the graph's ids ran from {b})\n"
        )),
        VertexIds::Map(_) => head.push_str(&format!(
            "c vertex ids were renumbered 1..{n} in increasing order of the graph's own ids\n"
        )),
    }
    let weights = g.out().weights();
    if weights.weight_type() == WeightType::None {
        head.push_str("c the graph is unweighted: every arc is written with weight 1\n");
    }
    head.push_str(&format!("p sp {n} {m}\n"));
    out.write_all(head.as_bytes()).map_err(|e| cx.io_error(e))?;
    // "a <tail> " once per row, then "<head> <weight>\n" per arc.
    let tail = |buf: &mut Vec<u8>, u: u32| {
        buf.extend_from_slice(b"a ");
        put(buf, u as u64 + 1);
        buf.push(b' ');
    };
    let head = |buf: &mut Vec<u8>, v: u32| {
        put(buf, v as u64 + 1);
        buf.push(b' ');
    };
    let set = ArcSet::All;
    with_weights!(weights,
    w => write_arc_lines(g, out, cx, "writing", set, tail, |buf, v, i| {
        head(buf, v);
        put(buf, w[i]);
        buf.push(b'\n');
    }),
    none => write_arc_lines(g, out, cx, "writing", set, tail, |buf, v, _| {
        head(buf, v);
        buf.extend_from_slice(b"1\n");
    }))
}

/// Reads a `.ss` source file: the file ids of the sources, in order, as written.
///
/// # Errors
/// [`Error::Parse`] naming the line for a missing or second problem line (`p aux sp ss
/// <count>`), a source line before it, a malformed source line (`s <vertex>`), an unknown
/// line type, and (naming the problem line) a source count that differs from the problem
/// line's.
pub fn read_sources(data: &[u8], path: &Path) -> Result<Vec<u64>> {
    let start = if data.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let mut problem: Option<(u64, u64)> = None; // (line, count)
    let mut sources = Vec::new();
    let mut line_no = 0u64;
    for (_, raw) in text::lines(data, start..data.len()) {
        line_no += 1;
        let line = trim_start(raw);
        if text::is_blank(line) || is_kind(line, b'c') {
            continue;
        }
        let err = |msg: String| Error::parse(path, line_no, msg);
        if is_kind(line, b'p') {
            if let Some((first, _)) = problem {
                return Err(err(format!(
                    "a second problem line (the first is line {first}); a file has exactly one"
                )));
            }
            let f: Vec<&[u8]> = Fields::new(line).take(7).collect();
            let count = match f[..] {
                [_, b"aux", b"sp", b"ss", k] => text::parse_u64(k).ok_or_else(|| {
                    err(format!(
                        "expected the number of sources (a non-negative integer), found '{}'",
                        text::show(k)
                    ))
                })?,
                _ => {
                    return Err(err(format!(
                        "expected the problem line 'p aux sp ss <count>', found '{}'",
                        text::show(line)
                    )))
                }
            };
            // A source line takes at least 4 bytes ("s 1\n").
            sources.reserve(count.min(data.len() as u64 / 4) as usize);
            problem = Some((line_no, count));
        } else if is_kind(line, b's') {
            if problem.is_none() {
                return Err(err(
                    "source line before the problem line: expected 'p aux sp ss <count>' first"
                        .into(),
                ));
            }
            let mut f = Fields::new(line);
            f.next();
            let (Some(v), None) = (f.next(), f.next()) else {
                return Err(err(format!(
                    "expected a source line 's <vertex>', found '{}'",
                    text::show(line)
                )));
            };
            let v = text::parse_u64(v).ok_or_else(|| {
                err(format!(
                    "expected a source vertex id (a non-negative integer), found '{}'",
                    text::show(v)
                ))
            })?;
            sources.push(v);
        } else {
            let tok = Fields::new(line).next().unwrap_or_default();
            return Err(err(format!(
                "unknown line type '{}': expected 'c' (comment), 'p' (problem line) or 's' \
                 (source)",
                text::show(tok)
            )));
        }
    }
    let Some((p_line, count)) = problem else {
        return Err(Error::parse(
            path,
            text::line_of(data, data.len().saturating_sub(1)),
            "no problem line: expected 'p aux sp ss <count>', found the end of the file",
        ));
    };
    if sources.len() as u64 != count {
        return Err(Error::parse(
            path,
            p_line,
            format!(
                "the problem line announces {count} source{} but the file has {} source line{}",
                if count == 1 { "" } else { "s" },
                sources.len(),
                if sources.len() == 1 { "" } else { "s" },
            ),
        ));
    }
    Ok(sources)
}

/// Writes a `.ss` source file listing `sources` (file ids) in order.
///
/// # Errors
/// [`Error::Io`] when writing fails.
pub fn write_sources(sources: &[u64], out: &mut dyn Write, cx: &WriteContext<'_>) -> Result<()> {
    let mut buf = Vec::with_capacity(64 + sources.len() * 12);
    buf.extend_from_slice(b"c sources written by warpgraph\n");
    buf.extend_from_slice(format!("p aux sp ss {}\n", sources.len()).as_bytes());
    for &s in sources {
        buf.extend_from_slice(b"s ");
        put(&mut buf, s);
        buf.push(b'\n');
    }
    out.write_all(&buf).map_err(|e| cx.io_error(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_kinds() {
        assert!(is_kind(b"a 1 2 3", b'a'));
        assert!(is_kind(b"c", b'c'));
        assert!(is_kind(b"c\tx", b'c'));
        assert!(!is_kind(b"ab 1", b'a'));
        assert!(!is_kind(b"", b'a'));
        assert_eq!(trim_start(b" \t a"), b"a");
        assert_eq!(trim_start(b"  "), b"");
    }
}
