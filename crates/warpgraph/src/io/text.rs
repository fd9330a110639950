//! Machinery shared by the text parsers.
//!
//! Parsing is parallel: the body of a file is cut into chunks at line boundaries
//! ([`line_chunks`]), each chunk is parsed on its own thread into local vectors, and the
//! pieces are joined ([`concat`]). Line numbers are not tracked while parsing; an error
//! carries the byte offset of its line ([`At`]) and only then is the line number counted
//! ([`line_of`]), so the fast path pays nothing for good error messages.
//!
//! Writing is parallel too: [`write_row_blocks`] formats a CSR in blocks on every thread and
//! writes the blocks in order; [`write_arc_lines`] is its one-line-per-arc form, and
//! [`put`] appends a number's text.

use std::io::Write;
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use super::WriteContext;
use crate::error::{Error, Result};
use crate::graph::{Graph, WeightType, Weights};
use crate::par::SharedMut;
use crate::progress::Progress;

/// A parse failure at byte `offset` (any byte of the offending line).
#[derive(Debug)]
pub(crate) struct At {
    pub offset: usize,
    pub msg: String,
}

impl At {
    pub fn new(offset: usize, msg: impl Into<String>) -> Self {
        At {
            offset,
            msg: msg.into(),
        }
    }

    /// The [`Error::Parse`] for this failure, with its 1-based line number.
    pub fn into_error(self, path: &Path, data: &[u8]) -> Error {
        Error::parse(path, line_of(data, self.offset), self.msg)
    }
}

/// 1-based number of the line holding byte `offset`.
pub(crate) fn line_of(data: &[u8], offset: usize) -> u64 {
    let end = offset.min(data.len());
    memchr::memchr_iter(b'\n', &data[..end]).count() as u64 + 1
}

/// Target chunk size for parallel parsing.
pub(crate) const CHUNK: usize = 1 << 20;

/// Cuts `data[body]` into ranges of about `chunk` bytes, each ending just after a newline
/// (the last at the end of the data).
pub(crate) fn line_chunks(data: &[u8], body: Range<usize>, chunk: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = body.start;
    while start < body.end {
        let mut end = (start + chunk).min(body.end);
        if end < body.end {
            end = match memchr::memchr(b'\n', &data[end..body.end]) {
                Some(i) => end + i + 1,
                None => body.end,
            };
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// Iterates the lines of `data[range]` as `(offset of line start, line)`, the line without
/// its `\n` or `\r\n`.
pub(crate) fn lines(data: &[u8], range: Range<usize>) -> impl Iterator<Item = (usize, &[u8])> {
    let mut pos = range.start;
    let end = range.end;
    std::iter::from_fn(move || {
        if pos >= end {
            return None;
        }
        let start = pos;
        let stop = memchr::memchr(b'\n', &data[pos..end]).map_or(end, |i| pos + i);
        pos = stop + 1;
        let mut line = &data[start..stop];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        Some((start, line))
    })
}

/// Parses every chunk of `data[body]` in parallel with `f(chunk range)`, reporting bytes
/// done to `progress`. On failure returns the error of the earliest chunk that failed.
pub(crate) fn parse_chunks<T, F>(
    data: &[u8],
    body: Range<usize>,
    progress: &dyn Progress,
    f: F,
) -> Result<Vec<T>, At>
where
    T: Send,
    F: Fn(Range<usize>) -> Result<T, At> + Sync,
{
    let chunks = line_chunks(data, body, CHUNK);
    // Collect every chunk's result, then take the first error in file order: rayon's
    // `collect::<Result<..>>` would return whichever error happened first in time.
    let results: Vec<Result<T, At>> = chunks
        .into_par_iter()
        .map(|r| {
            let len = (r.end - r.start) as u64;
            let out = f(r);
            progress.advance(len);
            out
        })
        .collect();
    results.into_iter().collect()
}

/// Joins per-chunk vectors in order, copying in parallel.
pub(crate) fn concat<T: Copy + Send + Sync + Default>(parts: &[Vec<T>]) -> Vec<T> {
    let mut starts = Vec::with_capacity(parts.len());
    let mut total = 0;
    for p in parts {
        starts.push(total);
        total += p.len();
    }
    let mut out = vec![T::default(); total];
    let ptr = SharedMut::new(&mut out);
    parts.par_iter().zip(starts).for_each(|(p, s)| {
        // SAFETY: the ranges s..s+p.len() are disjoint and inside `out`.
        unsafe { ptr.slice(s, p.len()) }.copy_from_slice(p);
    });
    out
}

/// Joins the per-chunk arcs of a parse, each chunk given as `(sources, targets, weight
/// column)`: the sources and the targets concatenated in order (the sources' pieces freed
/// before the targets are joined, to keep the peak low), and the weight columns in order.
pub(crate) fn join_arcs<I>(parts: I) -> (Vec<u32>, Vec<u32>, Vec<WeightCol>)
where
    I: IntoIterator<Item = (Vec<u32>, Vec<u32>, Option<WeightCol>)>,
{
    let mut srcs = Vec::new();
    let mut dsts = Vec::new();
    let mut cols = Vec::new();
    for (s, d, w) in parts {
        srcs.push(s);
        dsts.push(d);
        cols.extend(w);
    }
    let src = concat(&srcs);
    drop(srcs);
    let dst = concat(&dsts);
    (src, dst, cols)
}

/// Splits a line into fields separated by spaces, tabs (and commas when `commas`).
pub(crate) struct Fields<'a> {
    line: &'a [u8],
    pos: usize,
    commas: bool,
}

impl<'a> Fields<'a> {
    pub fn new(line: &'a [u8]) -> Self {
        Fields {
            line,
            pos: 0,
            commas: false,
        }
    }

    /// Also treat `,` as a separator (CSV-style edge lists).
    pub fn with_commas(line: &'a [u8]) -> Self {
        Fields {
            line,
            pos: 0,
            commas: true,
        }
    }

    #[inline]
    fn is_sep(&self, b: u8) -> bool {
        b == b' ' || b == b'\t' || b == 0x0b || b == 0x0c || (self.commas && b == b',')
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let l = self.line;
        while self.pos < l.len() && self.is_sep(l[self.pos]) {
            self.pos += 1;
        }
        if self.pos >= l.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < l.len() && !self.is_sep(l[self.pos]) {
            self.pos += 1;
        }
        Some(&l[start..self.pos])
    }
}

/// Whether a line is empty or only whitespace.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

/// A token for messages: lossy UTF-8, shortened.
pub(crate) fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// Parses an unsigned decimal integer (an optional leading `+`); `None` on anything else
/// or overflow.
#[inline]
pub(crate) fn parse_u64(tok: &[u8]) -> Option<u64> {
    let digits = tok.strip_prefix(b"+").unwrap_or(tok);
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// Parses a signed decimal integer; `None` on anything else or overflow.
#[inline]
pub(crate) fn parse_i64(tok: &[u8]) -> Option<i64> {
    match tok.strip_prefix(b"-") {
        Some(d) if !d.starts_with(b"+") => {
            let v = parse_u64(d)?;
            if v <= i64::MAX as u64 {
                Some(-(v as i64))
            } else if v == i64::MAX as u64 + 1 {
                Some(i64::MIN)
            } else {
                None
            }
        }
        Some(_) => None,
        None => parse_u64(tok).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Parses a finite decimal number (integer, fraction or exponent form).
pub(crate) fn parse_f64(tok: &[u8]) -> Result<f64, String> {
    let s = std::str::from_utf8(tok).map_err(|_| format!("'{}' is not a number", show(tok)))?;
    // Rust accepts "inf", "nan", "infinity": numbers, but not finite ones.
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!(
            "weight '{}' is not finite; weights must be finite numbers",
            show(tok)
        )),
        Err(_) => Err(format!("expected a number, found '{}'", show(tok))),
    }
}

/// Parses a 1-based vertex id and checks it against `n`; returns the 0-based id.
#[inline]
pub(crate) fn parse_vertex_1based(tok: &[u8], n: u64, what: &str) -> Result<u32, String> {
    match parse_u64(tok) {
        Some(v) if v >= 1 && v <= n => Ok((v - 1) as u32),
        Some(v) => Err(format!(
            "{what} {v} is out of range: vertices are numbered 1 to {n}"
        )),
        None => Err(format!(
            "expected a vertex number as {what}, found '{}'",
            show(tok)
        )),
    }
}

/// A weight column being parsed: integers until the first non-integer, then floats.
#[derive(Debug)]
pub(crate) enum WeightCol {
    Int(Vec<i64>),
    Float(Vec<f64>),
}

/// How weight tokens are read: the type forced by the user, or inferred.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WeightParser {
    pub forced: Option<WeightType>,
}

impl WeightParser {
    /// An empty column of the right kind.
    pub fn column(&self, capacity: usize) -> WeightCol {
        match self.forced {
            Some(WeightType::F32 | WeightType::F64) => {
                WeightCol::Float(Vec::with_capacity(capacity))
            }
            _ => WeightCol::Int(Vec::with_capacity(capacity)),
        }
    }

    /// Parses one weight token into `col`. Errors say what was expected.
    #[inline]
    pub fn push(&self, col: &mut WeightCol, tok: &[u8]) -> Result<(), String> {
        match col {
            WeightCol::Int(v) => match parse_i64(tok) {
                Some(x) => {
                    if self.forced == Some(WeightType::I32) && i32::try_from(x).is_err() {
                        return Err(format!(
                            "weight {x} does not fit in i32 (--weight-type i32)"
                        ));
                    }
                    v.push(x);
                }
                None => {
                    let digits = tok
                        .strip_prefix(b"-")
                        .or_else(|| tok.strip_prefix(b"+"))
                        .unwrap_or(tok);
                    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
                        return Err(format!(
                            "integer weight '{}' is out of the range of i64",
                            show(tok)
                        ));
                    }
                    let x = parse_f64(tok)?;
                    if let Some(t) = self.forced {
                        return Err(format!(
                            "weight '{}' is not an integer, but the weight type is {t}",
                            show(tok)
                        ));
                    }
                    let mut f: Vec<f64> = v.iter().map(|&i| i as f64).collect();
                    f.push(x);
                    *col = WeightCol::Float(f);
                }
            },
            WeightCol::Float(v) => {
                let x = parse_f64(tok)?;
                if self.forced == Some(WeightType::F32) && !(x as f32).is_finite() {
                    return Err(format!("weight {x} overflows f32 (--weight-type f32)"));
                }
                v.push(x);
            }
        }
        Ok(())
    }

    /// Joins per-chunk columns and produces the final weights: the forced type, or `i32`
    /// when every integer fits, else `i64`, and `f64` for any fractional weight.
    pub fn finish(&self, cols: Vec<WeightCol>) -> Weights {
        let any_float = cols.iter().any(|c| matches!(c, WeightCol::Float(_)));
        if any_float {
            let parts: Vec<Vec<f64>> = cols
                .into_iter()
                .map(|c| match c {
                    WeightCol::Float(v) => v,
                    WeightCol::Int(v) => v.into_iter().map(|x| x as f64).collect(),
                })
                .collect();
            let all = concat(&parts);
            return match self.forced {
                Some(WeightType::F32) => {
                    Weights::from(all.into_par_iter().map(|x| x as f32).collect::<Vec<f32>>())
                }
                _ => Weights::from(all),
            };
        }
        let parts: Vec<Vec<i64>> = cols
            .into_iter()
            .map(|c| match c {
                WeightCol::Int(v) => v,
                WeightCol::Float(_) => unreachable!("no float columns here"),
            })
            .collect();
        let all = concat(&parts);
        let fits_i32 = || all.par_iter().all(|&x| i32::try_from(x).is_ok());
        match self.forced {
            Some(WeightType::I64) => Weights::from(all),
            Some(WeightType::F64) => {
                Weights::from(all.into_par_iter().map(|x| x as f64).collect::<Vec<f64>>())
            }
            Some(WeightType::F32) => {
                Weights::from(all.into_par_iter().map(|x| x as f32).collect::<Vec<f32>>())
            }
            Some(WeightType::I32) => {
                Weights::from(all.into_par_iter().map(|x| x as i32).collect::<Vec<i32>>())
            }
            _ if fits_i32() => {
                Weights::from(all.into_par_iter().map(|x| x as i32).collect::<Vec<i32>>())
            }
            _ => Weights::from(all),
        }
    }
}

/// Numbers that can be appended to a byte buffer as text: integers by `itoa`, floats by
/// `ryu` (the shortest text that reads back to the same value).
pub(crate) trait PutNum: Copy {
    /// Appends the number's text to `buf`.
    fn put_to(self, buf: &mut Vec<u8>);
}

macro_rules! put_num {
    ($fmt:ident: $($t:ty),*) => {$(
        impl PutNum for $t {
            #[inline]
            fn put_to(self, buf: &mut Vec<u8>) {
                buf.extend_from_slice($fmt::Buffer::new().format(self).as_bytes());
            }
        }
    )*};
}
put_num!(itoa: u32, u64, i32, i64);
put_num!(ryu: f32, f64);

/// Appends a number's text to `buf`.
#[inline]
pub(crate) fn put<N: PutNum>(buf: &mut Vec<u8>, x: N) {
    x.put_to(buf);
}

/// Checks that a weighted graph has one weight per arc, so writers may index weights by
/// arc number.
pub(crate) fn check_weight_count(g: &Graph) -> Result<()> {
    let w = g.out().weights();
    if w.weight_type() != WeightType::None && w.len() as u64 != g.num_arcs() {
        return Err(Error::InvalidArgument(format!(
            "the graph has {} weights for {} arcs",
            w.len(),
            g.num_arcs()
        )));
    }
    Ok(())
}

/// Arcs plus row ends handled per formatting block.
const BLOCK_COST: u64 = 1 << 16;

/// Formats the rows of a CSR with `offsets` in parallel blocks and writes the blocks in
/// order to `out`, reporting arcs written to `cx.progress` under `phase`.
///
/// The rows are laid out as a sequence of positions: row `u`'s arcs, then one position for
/// its end. Blocks are [`BLOCK_COST`] consecutive positions, so a block may start or stop
/// inside a row: neither a vertex of huge degree nor a long run of empty rows makes a block
/// large. Within a block `piece(u, arcs, ends_row, buf)` is called for each row it touches,
/// in order, with the arc indices of `u` that fall in the block and whether `u`'s end does;
/// it appends their text to `buf`. A few blocks per thread are in memory at once.
pub(crate) fn write_row_blocks<F>(
    offsets: &[u64],
    out: &mut dyn Write,
    cx: &WriteContext<'_>,
    phase: &str,
    piece: F,
) -> Result<()>
where
    F: Fn(usize, Range<usize>, bool, &mut Vec<u8>) + Sync,
{
    let n = offsets.len().saturating_sub(1);
    let arcs_total = offsets.last().copied().unwrap_or(0);
    let positions = arcs_total + n as u64;
    // Row u occupies positions start(u)..start(u + 1), its end at start(u + 1) - 1.
    let start = |r: usize| offsets[r] + r as u64;
    let format_block = |b: u64| -> (Vec<u8>, u64) {
        let p = b * BLOCK_COST;
        let q = (p + BLOCK_COST).min(positions);
        // The row holding position p: the last u < n with start(u) <= p.
        let (mut lo, mut hi) = (0usize, n.saturating_sub(1));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if start(mid) <= p {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let mut buf = Vec::with_capacity(BLOCK_COST as usize * 16);
        let mut arcs = 0;
        let mut u = lo;
        while u < n && start(u) < q {
            let uu = u as u64;
            let a = offsets[u].max(p.saturating_sub(uu));
            let e = offsets[u + 1].min(q.saturating_sub(uu)).max(a);
            let end = offsets[u + 1] + uu;
            arcs += e - a;
            piece(u, a as usize..e as usize, p <= end && end < q, &mut buf);
            u += 1;
        }
        (buf, arcs)
    };
    let blocks = positions.div_ceil(BLOCK_COST);
    let wave = rayon::current_num_threads().max(1) as u64 * 4;
    cx.progress.begin(phase, arcs_total);
    let mut first = 0;
    while first < blocks {
        let last = (first + wave).min(blocks);
        let texts: Vec<(Vec<u8>, u64)> = (first..last).into_par_iter().map(format_block).collect();
        for (buf, arcs) in texts {
            if let Err(e) = out.write_all(&buf) {
                cx.progress.finish();
                return Err(cx.io_error(e));
            }
            cx.progress.advance(arcs);
        }
        first = last;
    }
    cx.progress.finish();
    Ok(())
}

/// Which arcs `u -> v` of a graph [`write_arc_lines`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArcSet {
    /// Every arc.
    All,
    /// Arcs with `u <= v`: each edge of an undirected graph once.
    Upper,
    /// Arcs with `v <= u`: each edge of an undirected graph once.
    Lower,
}

/// Writes one line per arc `u -> v` of `g` in `set`, in CSR order, through
/// [`write_row_blocks`]: `head(buf, u)` appends the text every line of row `u` starts with
/// and `rest(buf, v, arc index)` the rest of the line, newline included. The head is
/// formatted once per row and block, then copied for the row's other lines.
pub(crate) fn write_arc_lines<H, R>(
    g: &Graph,
    out: &mut dyn Write,
    cx: &WriteContext<'_>,
    phase: &str,
    set: ArcSet,
    head: H,
    rest: R,
) -> Result<()>
where
    H: Fn(&mut Vec<u8>, u32) + Sync,
    R: Fn(&mut Vec<u8>, u32, usize) + Sync,
{
    let targets = g.out().targets();
    write_row_blocks(g.out().offsets(), out, cx, phase, |u, arcs, _, buf| {
        let first = arcs.start;
        let Some(row) = targets.get(arcs) else { return };
        // Where this row's head was written in `buf`, once it has been.
        let mut written: Option<Range<usize>> = None;
        for (k, &v) in row.iter().enumerate() {
            let keep = match set {
                ArcSet::All => true,
                ArcSet::Upper => u <= v as usize,
                ArcSet::Lower => v as usize <= u,
            };
            if !keep {
                continue;
            }
            match &written {
                Some(r) => buf.extend_from_within(r.clone()),
                None => {
                    let start = buf.len();
                    head(buf, u as u32);
                    written = Some(start..buf.len());
                }
            }
            rest(buf, v, first + k);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_at_newlines_and_cover_everything() {
        let data = b"1 2\n3 4\n5 6\n7 8";
        for size in 1..20 {
            let c = line_chunks(data, 0..data.len(), size);
            assert_eq!(c.first().unwrap().start, 0);
            assert_eq!(c.last().unwrap().end, data.len());
            for w in c.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_eq!(data[w[0].end - 1], b'\n');
            }
        }
    }

    #[test]
    fn lines_strip_crlf_and_count() {
        let data = b"a\r\nb\n\nc";
        let l: Vec<_> = lines(data, 0..data.len()).collect();
        assert_eq!(
            l,
            vec![
                (0, &b"a"[..]),
                (3, &b"b"[..]),
                (5, &b""[..]),
                (6, &b"c"[..])
            ]
        );
        assert_eq!(line_of(data, 6), 4);
    }

    #[test]
    fn integers_parse_strictly() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"12a"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"-+1"), None);
        assert_eq!(parse_i64(b"-"), None);
        assert_eq!(parse_i64(b"+7"), Some(7));
    }

    #[test]
    fn weights_infer_their_type() {
        let p = WeightParser { forced: None };
        let mut a = p.column(0);
        p.push(&mut a, b"3").unwrap();
        let mut b = p.column(0);
        p.push(&mut b, b"-4").unwrap();
        assert_eq!(p.finish(vec![a, b]), Weights::I32(vec![3, -4].into()));
        let mut a = p.column(0);
        p.push(&mut a, b"3").unwrap();
        p.push(&mut a, b"0.5").unwrap();
        assert_eq!(p.finish(vec![a]), Weights::F64(vec![3.0, 0.5].into()));
        let mut a = p.column(0);
        assert!(p.push(&mut a, b"nan").unwrap_err().contains("not finite"));
        assert!(p.push(&mut a, b"inf").is_err());
        assert!(p
            .push(&mut a, b"x")
            .unwrap_err()
            .contains("expected a number"));
        let forced = WeightParser {
            forced: Some(WeightType::I32),
        };
        let mut a = forced.column(0);
        assert!(forced.push(&mut a, b"1.5").is_err());
        assert!(forced.push(&mut a, b"3000000000").is_err());
    }

    #[test]
    fn row_blocks_split_long_rows_and_cover_everything_once() {
        // A long row, empty rows, a row of one arc, another long row.
        let degrees = [0u64, 150_000, 0, 0, 1, 70_000];
        let mut offsets = vec![0u64];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        let mut out = Vec::new();
        let cx = WriteContext {
            path: Path::new("x"),
            progress: &crate::NoProgress,
        };
        let pieces = std::sync::atomic::AtomicUsize::new(0);
        write_row_blocks(&offsets, &mut out, &cx, "t", |u, arcs, ends, buf| {
            pieces.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            for i in arcs {
                assert!(offsets[u] as usize <= i && i < offsets[u + 1] as usize);
                buf.extend_from_slice(format!("{i},").as_bytes());
            }
            if ends {
                buf.extend_from_slice(format!("end {u};").as_bytes());
            }
        })
        .unwrap();
        let mut expect = String::new();
        for u in 0..degrees.len() {
            for i in offsets[u]..offsets[u + 1] {
                expect.push_str(&format!("{i},"));
            }
            expect.push_str(&format!("end {u};"));
        }
        assert_eq!(String::from_utf8(out).unwrap(), expect);
        // 220 007 positions make 4 blocks; the long rows are cut.
        assert!(pieces.into_inner() >= 9);
        let mut out = Vec::new();
        write_row_blocks(&[0], &mut out, &cx, "t", |_, _, _, _| unreachable!()).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn arc_lines_pick_their_triangle() {
        use crate::graph::{BuildOptions, EdgeList};
        let e = EdgeList::new(3, vec![0, 2, 2], vec![1, 1, 2], Weights::None).unwrap();
        let g = e
            .build(&BuildOptions {
                directed: false,
                ..Default::default()
            })
            .unwrap();
        let cx = WriteContext {
            path: Path::new("x"),
            progress: &crate::NoProgress,
        };
        let text = |set| {
            let mut out = Vec::new();
            write_arc_lines(
                &g,
                &mut out,
                &cx,
                "t",
                set,
                |buf, u| {
                    put(buf, u);
                    buf.push(b' ');
                },
                |buf, v, i| {
                    for x in [v as u64, i as u64] {
                        put(buf, x);
                        buf.push(b' ');
                    }
                    buf.push(b'\n');
                },
            )
            .unwrap();
            String::from_utf8(out).unwrap()
        };
        // Arcs in CSR order: 0->1, 1->0, 1->2, 2->1, 2->2.
        assert_eq!(
            text(ArcSet::All),
            "0 1 0 \n1 0 1 \n1 2 2 \n2 1 3 \n2 2 4 \n"
        );
        assert_eq!(text(ArcSet::Upper), "0 1 0 \n1 2 2 \n2 2 4 \n");
        assert_eq!(text(ArcSet::Lower), "1 0 1 \n2 1 3 \n2 2 4 \n");
    }
}
