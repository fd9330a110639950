//! Machinery shared by the text parsers.
//!
//! Parsing is parallel: the body of a file is cut into chunks at line boundaries
//! ([`line_chunks`]), each chunk is parsed on its own thread into local vectors, and the
//! pieces are joined ([`concat`]). Line numbers are not tracked while parsing; an error
//! carries the byte offset of its line ([`At`]) and only then is the line number counted
//! ([`line_of`]), so the fast path pays nothing for good error messages.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use crate::error::Error;
use crate::graph::{WeightType, Weights};
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
}
