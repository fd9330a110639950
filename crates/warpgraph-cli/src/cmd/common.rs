//! Pieces shared by the algorithm commands: device and source choice, result files checked
//! for room and written whole or not at all, the GPU Dijkstra's block size.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;
use warpgraph::device::Device;
use warpgraph::error::fmt_bytes;
use warpgraph::io::OutputFile;
use warpgraph::sssp::{Algorithm, SsspRunner};
use warpgraph::{Graph, VertexId};

use crate::args::parse_device;
use crate::source::GraphArgs;

/// Where to run and what to do with the result.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Device: auto (a GPU when there is one and the algorithm has GPU code, else the
    /// CPU), cpu, cuda (GPU 0) or cuda:N. `warpgraph devices` lists the GPUs.
    #[arg(long, default_value = "auto", value_name = "DEVICE", value_parser = parse_device)]
    pub device: Device,
    /// Check the result with an independent verifier and report PASS or fail.
    #[arg(long)]
    pub verify: bool,
    /// Write the result as TSV (with a header line) to this file: refused first when its
    /// file system has no room for it; written under a temporary name and renamed when
    /// complete (a failure or Ctrl-C leaves neither file).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<std::path::PathBuf>,
    /// Print a machine-readable JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
}

impl RunArgs {
    /// Starts the GPU a command may run on while its graph loads (see
    /// [`Device::open_early`]): for `cuda:N`, and for `auto` where the graph may be large.
    pub fn open_early(&self, graph: &GraphArgs) {
        if matches!(self.device, Device::Cuda(_)) || graph.may_be_large() {
            self.device.open_early();
        }
    }

    /// The device to run `what` on once for the loaded graph `g` (`rate`: the CPU's arcs
    /// a thread-second in it; `auto` takes the CPU where a GPU's start would not pay:
    /// [`Device::resolve_for`]), saying on stderr what `auto` chose.
    pub fn device_for(&self, what: &str, rate: f64, g: &Graph, quiet: bool) -> Result<Device> {
        let work = warpgraph::device::Work {
            arcs: g.num_arcs(),
            vertices: g.num_vertices() as u64,
            cpu_arcs_per_thread_second: rate,
        };
        let (d, note) = self.device.resolve_for(what, true, &work)?;
        if let (Some(note), false) = (note, quiet || self.json) {
            eprintln!("{note}");
        }
        Ok(d)
    }

    /// [`RunArgs::device`] for a command that runs on a team with `--gpus` (`team`: given;
    /// see [`resolve_team_device`]).
    pub fn team_device(&self, what: &str, quiet: bool, team: bool) -> Result<Device> {
        resolve_team_device(self.device, what, quiet || self.json, team)
    }
}

/// The device of a command with GPU code that runs on a team with `--gpus` (`team`:
/// given): [`resolve_device`]'s, but for a team without `auto`'s note (the team says
/// where it runs itself) and an error where no GPU can be used, before any graph is
/// loaded.
pub fn resolve_team_device(device: Device, what: &str, quiet: bool, team: bool) -> Result<Device> {
    let d = resolve_device(device, what, true, quiet || team)?;
    if team && d == Device::Cpu {
        return Err(crate::args::gpus_without_a_gpu());
    }
    Ok(d)
}

/// Resolves a device choice, printing `auto`'s note on stderr unless `quiet`.
pub fn resolve_device(device: Device, what: &str, gpu_code: bool, quiet: bool) -> Result<Device> {
    let (d, note) = device.resolve(what, gpu_code)?;
    if let (Some(note), false) = (note, quiet) {
        eprintln!("{note}");
    }
    Ok(d)
}

/// The source vertex: the user's file id, or a random vertex with an arc (fixed seed).
pub fn source(g: &Graph, given: Option<u64>) -> Result<VertexId> {
    match given {
        Some(id) => Ok(g.vertex(id)?),
        None => warpgraph::bench::pick_sources(g, 1, 27491095)
            .first()
            .copied()
            .context("the graph has no arcs: give a source with --source"),
    }
}

/// Refuses, before any work, an output of `needed` bytes (exact or an upper bound) that
/// its file system has no room for: `what` names the output ("the distance matrix") and
/// `hint` says what to do instead, after both sizes.
pub fn check_output(path: &Path, what: &str, needed: u64, hint: &str) -> Result<()> {
    match warpgraph::io::space::check_space(path, needed) {
        Err(warpgraph::Error::NoSpace { needed, free, .. }) => Err(anyhow::anyhow!(
            "{}: {what} needs {} but the file system there has only {} free; {hint}",
            path.display(),
            fmt_bytes(needed),
            fmt_bytes(free)
        )),
        r => Ok(r?),
    }
}

/// The hint of a result table that does not fit.
pub const TABLE_HINT: &str = "write it to a file system with more room (another -o path)";

/// Writes a result file whole or not at all: checks that `size` bytes (an upper bound;
/// `None`: counted by a first, discarded pass of `body`) fit, then writes a temporary
/// file beside `path` ([`OutputFile`]: removed on a failure or Ctrl-C), renamed to `path`
/// when complete.
pub fn write_atomic(
    path: &Path,
    size: Option<u64>,
    body: impl Fn(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let size = match size {
        Some(s) => s,
        None => {
            let mut count = Counter(0);
            body(&mut count)?;
            count.0
        }
    };
    check_output(path, "the result", size, TABLE_HINT)?;
    let mut file = OutputFile::create(path)?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, &mut file);
        body(&mut w)
            .and_then(|_| w.flush())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    file.commit()?;
    Ok(())
}

/// A writer that only counts bytes.
struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A vertex for output: its file id, or -1 for "none".
pub fn ext(g: &Graph, v: VertexId) -> i128 {
    if v == warpgraph::NO_VERTEX {
        -1
    } else {
        g.ids().external(v) as i128
    }
}

/// " (0.000457 s in kernels)" for a GPU run's kernel time, nothing for a CPU run.
pub fn in_kernels(kernel_seconds: Option<f64>) -> String {
    kernel_seconds.map_or(String::new(), |k| format!(" ({k:.6} s in kernels)"))
}

/// The GPU dijkstra's block size (for `sssp` and `bench sssp`).
#[derive(Debug, Clone, Args)]
pub struct ExtractMinArgs {
    /// GPU dijkstra: threads per block of ExtractMin's reduction (the CUDA SSSP thesis
    /// found 512 best).
    #[arg(long, value_name = "N", value_parser = ["128", "256", "512", "1024"])]
    threads_per_block: Option<String>,
}

impl ExtractMinArgs {
    /// Sets the block size on `runner`, if given (only with dijkstra on a GPU).
    pub fn apply(&self, runner: &mut SsspRunner, algo: &Algorithm) -> Result<()> {
        let Some(t) = &self.threads_per_block else {
            return Ok(());
        };
        if *algo != Algorithm::Dijkstra {
            anyhow::bail!("--threads-per-block is for --algo dijkstra on a GPU");
        }
        runner.set_extract_min_threads(t.parse()?)?;
        Ok(())
    }
}
