//! `warpgraph convert`: read a graph in one format and write it in another.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use warpgraph::io::{self, Format, WriteOptions};
use warpgraph::Graph;

use crate::args::{commas, file_size, format_choice, ReadArgs};
use crate::progress::Bar;

#[derive(Debug, Args)]
#[command(after_help = "\
The output is written to a temporary file beside OUT (.OUT.tmp-PID) and renamed into place
only when complete: a failure or Ctrl-C never leaves a truncated OUT (nor the temporary
file), and IN is never modified. An upper bound on OUT's size is checked against the free
space of its file system first; an output that cannot fit is refused with both sizes.

METIS (.graph) holds undirected graphs: a directed graph (.gr, an edge list) converts when
it holds both directions of every arc with equal weights; otherwise the first arc without
an equal reverse is named, in the input's ids (read it with --undirected instead).

Examples:
  warpgraph convert road.gr road.wg                   # DIMACS to binary (fast reloads)
  warpgraph convert web.txt web.wg                    # SNAP ids are kept in the .wg
  warpgraph convert g.mtx g.el --to el                # Matrix Market to edge list
  warpgraph convert sym.gr sym.graph                  # both directions of each arc: METIS
  warpgraph convert g.gr g.graph --undirected --duplicates min   # any .gr made undirected")]
pub struct ConvertArgs {
    /// Input graph file.
    input: PathBuf,
    /// Output graph file; the extension picks the format.
    output: PathBuf,
    /// Output format, overriding the extension.
    #[arg(long, value_name = "FORMAT", value_parser = format_choice())]
    to: Option<Format>,
    #[command(flatten)]
    read: ReadArgs,
}

/// Loads a graph, timing it and showing progress.
pub fn load(path: &Path, read: &ReadArgs, quiet: bool) -> Result<(Graph, f64)> {
    let bar = Bar::new(quiet, true);
    let t = Instant::now();
    let g = io::read(path, &read.options(), &bar)?;
    Ok((g, t.elapsed().as_secs_f64()))
}

/// Writes a graph atomically, printing what the format cannot keep and a summary line.
pub fn save(g: &Graph, output: &Path, to: Option<Format>, quiet: bool) -> Result<()> {
    let format = to.or_else(|| Format::from_extension(output));
    let Some(format) = format else {
        bail!(
            "cannot tell the output format from '{}': use an extension (.wg .gr .mtx .el .wel .txt .graph) or --to",
            output.display()
        );
    };
    for note in format.write_losses(g) {
        eprintln!("note: {note}");
    }
    let bar = Bar::new(quiet, false);
    let t = Instant::now();
    io::write(
        g,
        output,
        &WriteOptions {
            format: Some(format),
        },
        &bar,
    )
    .with_context(|| format!("writing {}", output.display()))?;
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "wrote {} ({format}, {}) in {secs:.2} s",
        output.display(),
        warpgraph::error::fmt_bytes(file_size(output))
    );
    Ok(())
}

pub fn run(args: ConvertArgs, quiet: bool) -> Result<()> {
    if same_file(&args.input, &args.output) {
        bail!(
            "'{}' is both input and output; convert never modifies its input: choose another output",
            args.output.display()
        );
    }
    let (g, secs) = load(&args.input, &args.read, quiet)?;
    let size = file_size(&args.input);
    eprintln!(
        "read {} vertices, {} arcs in {secs:.2} s ({}/s)",
        commas(g.num_vertices() as u64),
        commas(g.num_arcs()),
        warpgraph::error::fmt_bytes((size as f64 / secs.max(1e-9)) as u64)
    );
    save(&g, &args.output, args.to, quiet)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
