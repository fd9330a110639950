//! Reading and writing graph files.
//!
//! | format | extensions | holds |
//! |---|---|---|
//! | [`Format::Dimacs`] | `.gr` | DIMACS 9th challenge shortest-path graphs (1-based, directed) |
//! | [`Format::Mtx`] | `.mtx` | Matrix Market coordinate matrices (general / symmetric / skew-symmetric) |
//! | [`Format::El`] | `.el` | plain edge list `u v`, any integer ids |
//! | [`Format::Wel`] | `.wel` | weighted edge list `u v w` |
//! | [`Format::Snap`] | `.txt` | SNAP edge lists (`#` comments, tab separated) |
//! | [`Format::Metis`] | `.graph` | METIS adjacency lists (undirected, 1-based) |
//! | [`Format::Wg`] | `.wg` | warpgraph's binary CSR, memory-mapped on load |
//!
//! The format is chosen by extension and checked against the content ([`detect`]);
//! [`ReadOptions::format`] forces one. DIMACS `.ss` source files are read and written by
//! [`dimacs::read_sources`] and [`dimacs::write_sources`].
//!
//! Writing is atomic ([`write()`]): the output goes to a temporary file in the destination
//! folder, which is renamed over the destination only when complete ([`OutputFile`]).
//! [`space`] says whether an output fits on its disk before it is written.

pub mod dimacs;
pub mod edgelist;
pub mod metis;
pub mod mtx;
pub mod output;
pub mod space;
mod text;
pub mod wg;

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::str::FromStr;

pub use output::OutputFile;

use crate::error::{Error, Result};
use crate::graph::{BuildOptions, Duplicates, EdgeList, Graph, SelfLoops, VertexIds, WeightType};
use crate::progress::Progress;

/// A graph file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// DIMACS shortest-path `.gr`.
    Dimacs,
    /// Matrix Market `.mtx`.
    Mtx,
    /// Edge list `.el` (written without weights).
    El,
    /// Weighted edge list `.wel`.
    Wel,
    /// SNAP edge list `.txt`.
    Snap,
    /// METIS `.graph`.
    Metis,
    /// warpgraph binary `.wg`.
    Wg,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 7] = [
        Format::Dimacs,
        Format::Mtx,
        Format::El,
        Format::Wel,
        Format::Snap,
        Format::Metis,
        Format::Wg,
    ];

    /// The name used by `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Dimacs => "gr",
            Format::Mtx => "mtx",
            Format::El => "el",
            Format::Wel => "wel",
            Format::Snap => "snap",
            Format::Metis => "metis",
            Format::Wg => "wg",
        }
    }

    /// The format a file extension names, if any.
    pub fn from_extension(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "gr" => Format::Dimacs,
            "mtx" => Format::Mtx,
            "el" => Format::El,
            "wel" => Format::Wel,
            "txt" | "tsv" | "csv" | "edges" => Format::Snap,
            "graph" | "metis" => Format::Metis,
            "wg" => Format::Wg,
            _ => return None,
        })
    }

    /// What writing `g` in this format cannot keep, in words (empty when nothing is lost).
    ///
    /// Errors that make writing impossible (METIS and a directed graph, say) are the
    /// writer's; these are the silent changes a user should hear about.
    pub fn write_losses(self, g: &Graph) -> Vec<String> {
        let mut notes = Vec::new();
        let one_based = matches!(g.ids(), VertexIds::Base(1));
        if matches!(self, Format::Dimacs | Format::Mtx | Format::Metis) && !one_based {
            notes.push(match g.ids() {
                VertexIds::Map(_) => format!(
                    "{self} numbers vertices 1..n: the input's own vertex ids are not kept \
                     (use .wg or an edge list to keep them)"
                ),
                _ => format!("{self} numbers vertices from 1: vertex ids are shifted to 1..n"),
            });
        }
        if self.is_edge_list() {
            let n = g.num_vertices() as u64;
            let isolated = crate::GraphStats::of(g).isolated_vertices;
            if isolated > 0 {
                notes.push(format!(
                    "{isolated} of {n} vertices have no edges; an edge list cannot hold them, \
                     so they will be missing when the file is read back"
                ));
            }
        }
        if self == Format::El && g.weight_type() != WeightType::None {
            notes.push("the .el format has no weights: weights are dropped (use .wel)".into());
        }
        if self == Format::Dimacs && g.weight_type() == WeightType::None {
            notes.push(
                "DIMACS arcs need a weight: the unweighted graph is written with weight 1".into(),
            );
        }
        if !g.is_directed() {
            match self {
                Format::Dimacs => notes.push(
                    "DIMACS .gr is directed: each undirected edge is written as two arcs \
                     (read it back with --undirected --duplicates drop to undo)"
                        .into(),
                ),
                Format::El | Format::Wel => notes.push(
                    "an edge list does not say it is undirected: read it back with --undirected"
                        .into(),
                ),
                _ => {}
            }
        }
        notes
    }

    fn is_edge_list(self) -> bool {
        matches!(self, Format::El | Format::Wel | Format::Snap)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim_start_matches('.').to_ascii_lowercase();
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .or(match s.as_str() {
                "dimacs" => Some(Format::Dimacs),
                "txt" => Some(Format::Snap),
                "graph" => Some(Format::Metis),
                _ => None,
            })
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown format '{s}' (expected one of gr, mtx, el, wel, snap, metis, wg)"
                ))
            })
    }
}

/// How edge-list vertex ids become vertex numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdMode {
    /// Ids that cover a whole range `lo..=hi` are used as they are (offset by `lo`);
    /// otherwise they are renumbered in increasing order and the mapping kept.
    #[default]
    Auto,
    /// Ids are vertex numbers `0..=max`; ids that never appear are isolated vertices.
    Dense,
}

crate::graph::named_enum!(IdMode, "id mode", IdMode::Auto => "auto", IdMode::Dense => "dense");

/// Options for reading a graph.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Force a format instead of the extension's.
    pub format: Option<Format>,
    /// Convert weights to this type (errors on lossy values, naming the line).
    pub weight_type: Option<WeightType>,
    /// Treat the input as undirected: store each edge in both directions.
    pub undirected: bool,
    /// Self-loop policy.
    pub self_loops: SelfLoops,
    /// Parallel-edge policy.
    pub duplicates: Duplicates,
    /// Edge-list id handling.
    pub ids: IdMode,
}

/// What a format reader gets: where the data came from, the options, a progress sink.
pub struct ReadContext<'a> {
    /// The file name, for error messages.
    pub path: &'a Path,
    /// The options.
    pub options: &'a ReadOptions,
    /// Progress sink (bytes parsed).
    pub progress: &'a dyn Progress,
}

impl ReadContext<'_> {
    /// A parse error on line `line`.
    pub fn parse_error(&self, line: u64, msg: impl Into<String>) -> Error {
        Error::parse(self.path, line, msg)
    }

    /// A whole-file format error.
    pub fn format_error(&self, msg: impl Into<String>) -> Error {
        Error::format(self.path, msg)
    }

    /// Builds the graph from parsed edges with the options' policies. `directed` is what
    /// the file says; [`ReadOptions::undirected`] overrides it to undirected.
    pub fn build(&self, edges: EdgeList, directed: bool) -> Result<Graph> {
        let o = self.options;
        let opts = BuildOptions {
            directed: directed && !o.undirected,
            self_loops: o.self_loops,
            duplicates: o.duplicates,
        };
        self.progress.begin("building CSR", 0);
        let g = edges.build(&opts);
        self.progress.finish();
        g
    }
}

/// Reads a graph file, choosing the format by extension (or `options.format`) and checking
/// it against the content.
///
/// `.wg` files are memory-mapped; text files are mapped and parsed in parallel.
///
/// # Errors
/// The file cannot be opened, the content does not match the format, or it is malformed
/// ([`Error::Parse`] names the line).
pub fn read(path: &Path, options: &ReadOptions, progress: &dyn Progress) -> Result<Graph> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::format(path, "is a directory, not a graph file"));
    }
    let map = if meta.len() == 0 {
        None
    } else {
        // SAFETY: the map is read-only; warpgraph does not guard against another process
        // truncating the file while it is being read (as with every mmap-based reader).
        Some(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?)
    };
    let data: &[u8] = map.as_deref().unwrap_or(&[]);
    let format = detect(path, data, options.format)?;
    if format == Format::Wg {
        let map = map.ok_or_else(|| Error::format(path, "the file is empty"))?;
        let cx = ReadContext {
            path,
            options,
            progress,
        };
        return wg::read_map(std::sync::Arc::new(map), &cx);
    }
    read_bytes(data, format, path, options, progress)
}

/// Parses a graph from bytes in a known format. `name` appears in error messages.
pub fn read_bytes(
    data: &[u8],
    format: Format,
    name: &Path,
    options: &ReadOptions,
    progress: &dyn Progress,
) -> Result<Graph> {
    let cx = ReadContext {
        path: name,
        options,
        progress,
    };
    progress.begin("parsing", data.len() as u64);
    let g = match format {
        Format::Dimacs => dimacs::read(data, &cx),
        Format::Mtx => mtx::read(data, &cx),
        Format::El | Format::Wel | Format::Snap => edgelist::read(data, &cx),
        Format::Metis => metis::read(data, &cx),
        Format::Wg => wg::read_bytes(data, &cx),
    };
    progress.finish();
    let g = g?;
    match options.weight_type {
        Some(t) if t != g.weight_type() => convert_weights(g, t),
        _ => Ok(g),
    }
}

/// The graph with its weights converted to `to` (see [`crate::Weights::convert`]).
pub fn convert_weights(g: Graph, to: WeightType) -> Result<Graph> {
    let (directed, out, ids) = g.into_parts();
    let w = out.weights().convert(to)?;
    let out = crate::Csr::from_raw(
        out.offsets().to_vec().into(),
        out.targets().to_vec().into(),
        w,
    );
    Ok(crate::graph::Graph::from_parts_unchecked(
        directed, out, ids,
    ))
}

/// Picks the format: `forced`, else the extension's, else a guess from the content; then
/// checks that the content looks like that format.
///
/// # Errors
/// Unknown extension and unrecognisable content, or content that contradicts the format
/// (the message names what was expected and what was found).
pub fn detect(path: &Path, data: &[u8], forced: Option<Format>) -> Result<Format> {
    if data.starts_with(&[0x1f, 0x8b])
        || data.starts_with(b"BZh")
        || data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
    {
        return Err(Error::format(
            path,
            "the file is compressed (gzip, bzip2 or zstd); decompress it first",
        ));
    }
    let sniffed = sniff(data);
    let format = match (forced, Format::from_extension(path)) {
        (Some(f), _) => return Ok(f),
        (None, Some(f)) => f,
        (None, None) => sniffed.ok_or_else(|| {
            Error::format(
                path,
                "cannot tell the format from the file name or content; name it with --format \
                 (gr, mtx, el, wel, snap, metis, wg)",
            )
        })?,
    };
    match sniffed {
        Some(s)
            if s != format
                && !(s.is_edge_list() && (format.is_edge_list() || format == Format::Metis)) =>
        {
            Err(Error::format(
                path,
                format!(
                    "the extension says {format} but the content looks like {s}; \
                     use --format {s} if that is right"
                ),
            ))
        }
        _ => Ok(format),
    }
}

/// A guess of the format from the first bytes, when they are distinctive.
fn sniff(data: &[u8]) -> Option<Format> {
    if data.starts_with(wg::MAGIC) {
        return Some(Format::Wg);
    }
    if data.len() >= 14 && data[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Some(Format::Mtx);
    }
    let head = &data[..data.len().min(64 * 1024)];
    for line in head.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let t = line.trim_ascii_start();
        match t.first() {
            None => continue,
            Some(b'c') if t.len() == 1 || t[1].is_ascii_whitespace() => continue,
            Some(b'p') if t.starts_with(b"p ") || t.starts_with(b"p\t") => {
                return Some(Format::Dimacs)
            }
            Some(b'a') if t.starts_with(b"a ") || t.starts_with(b"a\t") => {
                return Some(Format::Dimacs)
            }
            Some(b'#') | Some(b'%') => continue,
            Some(b) if b.is_ascii_digit() || *b == b'-' || *b == b'+' => return Some(Format::El),
            _ => return None,
        }
    }
    None
}

/// Options for writing a graph.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Force a format instead of the extension's.
    pub format: Option<Format>,
}

/// What a format writer gets.
pub struct WriteContext<'a> {
    /// The destination's name, for error messages.
    pub path: &'a Path,
    /// Progress sink (vertices written).
    pub progress: &'a dyn Progress,
}

impl WriteContext<'_> {
    /// Wraps an I/O error with the destination's name.
    pub fn io_error(&self, e: std::io::Error) -> Error {
        Error::io(self.path, e)
    }
}

/// Writes `g` to `path` atomically in the format of `options.format` or the extension.
///
/// The data goes to a temporary file beside `path` ([`OutputFile`]), which replaces `path`
/// only once fully written and flushed; on any failure `path` is untouched and the
/// temporary removed. Before anything is written, a safe upper bound on the file's size
/// ([`space::graph_file_bound`]) is checked against the free space of its file system.
///
/// # Errors
/// Unknown format, a graph the format cannot hold (METIS needs an undirected graph, `.wel`
/// needs weights), [`Error::NoSpace`] when the file would not fit, or an I/O failure.
pub fn write(
    g: &Graph,
    path: &Path,
    options: &WriteOptions,
    progress: &dyn Progress,
) -> Result<Format> {
    let format = match options.format.or_else(|| Format::from_extension(path)) {
        Some(f) => f,
        None => {
            return Err(Error::InvalidArgument(format!(
                "cannot tell the output format from '{}'; use an extension (.gr .mtx .el .wel .txt .graph .wg) or --to",
                path.display()
            )))
        }
    };
    space::check_space(path, space::graph_file_bound(g, format))?;
    let mut tmp = OutputFile::create(path)?;
    let cx = WriteContext { path, progress };
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut tmp);
        write_to(g, format, &mut out, &cx)?;
        out.flush().map_err(|e| cx.io_error(e))?;
    }
    tmp.file().sync_all().map_err(|e| cx.io_error(e))?;
    tmp.commit()?;
    Ok(format)
}

/// Writes `g` in `format` to any writer (no atomicity; see [`write()`] for files).
pub fn write_to(
    g: &Graph,
    format: Format,
    out: &mut dyn Write,
    cx: &WriteContext<'_>,
) -> Result<()> {
    match format {
        Format::Dimacs => dimacs::write(g, out, cx),
        Format::Mtx => mtx::write(g, out, cx),
        Format::El | Format::Wel | Format::Snap => edgelist::write(g, format, out, cx),
        Format::Metis => metis::write(g, out, cx),
        Format::Wg => wg::write(g, out, cx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_and_content_must_agree() {
        let p = Path::new("x.gr");
        assert_eq!(
            detect(p, b"c hi\np sp 1 0\n", None).unwrap(),
            Format::Dimacs
        );
        let e = detect(p, b"%%MatrixMarket matrix coordinate real general\n", None).unwrap_err();
        assert!(e.to_string().contains("looks like mtx"), "{e}");
        assert_eq!(
            detect(Path::new("x"), b"# c\n1 2\n", None).unwrap(),
            Format::El
        );
        assert_eq!(
            detect(Path::new("x.el"), b"%%MatrixMarket", Some(Format::El)).unwrap(),
            Format::El
        );
        assert!(detect(Path::new("x.gr.gz"), &[0x1f, 0x8b, 0], None)
            .unwrap_err()
            .to_string()
            .contains("compressed"));
        assert!(detect(Path::new("x.bin"), b"\x00\x01", None).is_err());
    }

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
    }
}
