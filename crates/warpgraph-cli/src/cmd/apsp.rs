//! `warpgraph apsp`: all-pairs shortest paths, streamed to a file.

use std::io::BufWriter;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::Args;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{
    self, Algorithm, ApspOptions, Backend, Discard, NpySink, RowSink, TsvSink, VerifyingSink,
};
use warpgraph::cuda::team::TeamSpec;
use warpgraph::io::OutputFile;
use warpgraph::{Error, Graph};

use crate::args::{choice, commas};
use crate::cmd::common::{check_output, ext, RunArgs};
use crate::cmd::sssp::EXIT_NEGATIVE_CYCLE;
use crate::progress::Bar;
use crate::source::GraphArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
The n x n result is streamed to --output as rows are produced: .npy (NumPy, row-major,
indexed by vertex number 0..n in file order; inf / the documented sentinel for unreachable)
or .tsv (source, target, distance in file ids, reachable pairs only). Before any work the
output is checked for room: a .npy's exact size (n x n x 8 bytes and a header), a .tsv's
upper bound (every pair reachable at the longest possible distance) against the free space
of the file system that holds it; one that cannot fit is refused with both sizes. The rows
go to a temporary file beside the output (.NAME.tmp-PID), renamed when complete: a failure,
a negative cycle or Ctrl-C (SIGINT, SIGTERM) leaves neither file. Floyd-Warshall needs
the whole matrix in memory and is refused, with the bytes needed and available, when it
does not fit; Johnson needs only a block of rows.

On a GPU (--device cuda) Floyd-Warshall runs there, by --gpu-variant: fw-naive (one
launch per pivot, a thread per element), fw-blocked (the GPU Floyd-Warshall article's
three phases over 32 x 32 tiles in shared memory) or fw-tuned (the default: fw-blocked
with a register-tiled DPX third phase for non-negative integer weights without
predecessors). The matrix must fit in GPU memory (refused with the bytes needed and free
otherwise). Johnson on the GPU (--algo johnson, or auto on a sparse
graph) searches from many sources at once, a block each, and streams the rows back batch
by batch; it does not give --predecessors yet.

Examples:
  warpgraph apsp small.gr --verify
  warpgraph apsp road.gr --algo johnson -o dist.npy
  warpgraph apsp dense.mtx --algo floyd-warshall -o dist.tsv
  warpgraph apsp --generate urand:12 --algo floyd-warshall --device cuda --verify
  warpgraph apsp --generate urand:15 --algo floyd-warshall --gpus all  # every GPU (NCCL)

Several GPUs (--gpus, Floyd-Warshall only): the matrix is split into blocks of whole rows,
one per GPU; each round the owner of the pivot rows broadcasts them through NCCL
(libnccl.so.2 needed). The result is the single GPU's, cell for cell. Hosts join as for
`warpgraph bfs --gpus` (see its help); a wait for the team ends in an error after
WARPGRAPH_NCCL_TIMEOUT seconds (default 300).")]
pub struct ApspArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Algorithm: auto (by density), floyd-warshall (dense) or johnson (sparse).
    #[arg(long, default_value = "auto", value_parser = choice::<Algorithm>(Algorithm::ALL.iter().map(|a| a.name())))]
    algo: Algorithm,
    /// Also compute predecessors (the vertex before each target on a shortest path from the
    /// source), written as a fourth column of a .tsv output and checked by --verify.
    #[arg(long)]
    predecessors: bool,
    /// GPU Floyd-Warshall: fw-naive, fw-blocked or fw-tuned.
    #[arg(long, default_value = "fw-tuned", value_parser = choice::<FwVariant>(FwVariant::ALL.iter().map(|a| a.name())))]
    gpu_variant: FwVariant,
    /// Run Floyd-Warshall on this many GPUs of this machine (or all) as one team over
    /// NCCL, the matrix split by rows.
    #[arg(long, value_name = "N|all", value_parser = crate::args::parse_gpus)]
    gpus: Option<crate::args::Gpus>,
    #[command(flatten)]
    run: RunArgs,
}

/// The kind of `--output` file, told by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Npy,
    Tsv,
}

/// The output's kind, refused before any work when the extension or the options do not
/// suit it.
pub fn output_kind(p: &Path, predecessors: bool) -> Result<Kind> {
    match p.extension().and_then(|e| e.to_str()) {
        Some("npy") if predecessors => bail!(
            "{}: .npy holds distances only; write predecessors to a .tsv",
            p.display()
        ),
        Some("npy") => Ok(Kind::Npy),
        Some("tsv" | "txt") => Ok(Kind::Tsv),
        _ => bail!("{}: give the output a .npy or .tsv extension", p.display()),
    }
}

/// The vertex count of `--generate SPEC`, where the spec alone fixes it.
fn generated_vertices(spec: &str) -> Option<u64> {
    use warpgraph::generate::Generator as G;
    match crate::source::parse_spec(spec).ok()? {
        G::Kronecker { scale, .. } | G::Rmat { scale, .. } | G::Ssca2 { scale, .. } => {
            1u64.checked_shl(scale)
        }
        G::Uniform { vertices, .. } => Some(vertices),
        G::Grid { rows, cols, .. } => Some(rows as u64 * cols as u64),
    }
}

/// Refuses an output that cannot fit on its disk: `.npy` by its exact size (from the
/// vertex count alone), `.tsv` by the bound of every pair reachable at the longest
/// distance.
fn check_room(p: &Path, kind: Kind, n: u64, g: Option<&Graph>, predecessors: bool) -> Result<()> {
    let needed = match (kind, g) {
        (Kind::Npy, _) => {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            apsp::npy_file_size(n, n)
        }
        (Kind::Tsv, Some(g)) => apsp::tsv_size_bound(g, predecessors),
        (Kind::Tsv, None) => return Ok(()),
    };
    let what = match kind {
        Kind::Npy => format!("the {0} x {0} distance matrix", commas(n)),
        Kind::Tsv => format!("the .tsv of up to {0} x {0} reachable pairs", commas(n)),
    };
    check_output(p, &what, needed, ROOM_HINT)
}

/// Where a table's rows go: a `.npy` or `.tsv` file written as they arrive, or nowhere.
pub enum Out<'g> {
    Npy(NpySink<BufWriter<OutputFile>>),
    Tsv(TsvSink<'g, BufWriter<OutputFile>>),
    Nowhere(Discard),
}

impl<'g> Out<'g> {
    /// The sink of `kind` at its path (`None`: nowhere), naming `g`'s vertices by its ids.
    pub fn create(kind: Option<(&Path, Kind)>, g: &'g Graph) -> Result<Out<'g>> {
        Ok(match kind {
            None => Out::Nowhere(Discard),
            Some((p, Kind::Npy)) => Out::Npy(NpySink::create(p)?),
            Some((p, Kind::Tsv)) => Out::Tsv(TsvSink::create(p, g.ids())?),
        })
    }

    pub fn sink(&mut self) -> &mut dyn RowSink {
        match self {
            Out::Npy(s) => s,
            Out::Tsv(s) => s,
            Out::Nowhere(s) => s,
        }
    }

    /// Gives the complete file its name (an unfinished one is removed when its sink is
    /// dropped, on an error before this).
    pub fn commit(self) -> Result<()> {
        match self {
            Out::Npy(s) => s.commit()?,
            Out::Tsv(s) => s.commit()?,
            Out::Nowhere(_) => {}
        }
        Ok(())
    }
}

/// The exit of a run that met a negative cycle: the cycle printed in file ids, then
/// [`EXIT_NEGATIVE_CYCLE`]; any other error is returned.
pub fn negative_cycle_exit(g: &Graph, e: Error) -> Result<ExitCode> {
    let Error::NegativeCycle { cycle, weight } = e else {
        return Err(e.into());
    };
    let ids: Vec<String> = cycle.iter().map(|&v| ext(g, v).to_string()).collect();
    eprintln!(
        "error: the graph has a negative cycle: {} -> {} (total weight {weight})",
        ids.join(" -> "),
        ids.first().map_or("", String::as_str)
    );
    Ok(ExitCode::from(EXIT_NEGATIVE_CYCLE))
}

const ROOM_HINT: &str = "apsp writes a row for every vertex: give -o a path on a file system \
    with more room, run without -o (--verify checks the rows as they stream by), or write \
    single rows with `warpgraph sssp --source V -o FILE`";

pub fn run(args: ApspArgs, quiet: bool) -> Result<ExitCode> {
    // In a team spanning processes only rank 0's process gets the matrix (and writes it).
    let kind = match &args.run.output {
        Some(p) => Some((p.as_path(), output_kind(p, args.predecessors)?)),
        None => None,
    };
    if let (Some((p, k @ Kind::Npy)), Some(n)) = (
        kind,
        args.graph.generate.as_deref().and_then(generated_vertices),
    ) {
        check_room(p, k, n, None, args.predecessors)?;
    }
    let device = args.run.team_device("APSP", quiet, args.gpus.is_some())?;
    let gpu = device.gpu()?;
    let team = match args.gpus {
        None => None,
        Some(n) => Some(TeamSpec::from_env(n.resolve()?)?),
    };
    let backend = match (&team, &gpu) {
        (Some(spec), _) => Backend::Team(spec, args.gpu_variant),
        (None, Some(gpu)) => Backend::Cuda(gpu, args.gpu_variant),
        (None, None) => Backend::Cpu,
    };
    let where_ = match &team {
        Some(spec) => spec.describe(),
        None => device.describe(),
    };
    let (g, graph_name) = args.graph.load(quiet)?;
    let reports = team.as_ref().is_none_or(TeamSpec::has_root);
    let kind = kind.filter(|_| reports);
    if let Some((p, k)) = kind {
        check_room(p, k, g.num_vertices() as u64, Some(&g), args.predecessors)?;
    }
    let mut out = Out::create(kind, &g)?;
    let mut verifying;
    let sink: &mut dyn RowSink = if args.run.verify && reports {
        verifying = VerifyingSink::new(&g, out.sink());
        &mut verifying
    } else {
        out.sink()
    };
    let bar = Bar::new(quiet || args.run.json, false);
    let t = Instant::now();
    let opts = ApspOptions {
        predecessors: args.predecessors,
    };
    let summary = match apsp::apsp_on(&g, args.algo, &opts, backend, sink, &bar) {
        Ok(s) => s,
        Err(e) => return negative_cycle_exit(&g, e),
    };
    out.commit()?;
    if !reports {
        eprintln!("{where_}: done (the process of rank 0 reports)");
        return Ok(ExitCode::SUCCESS);
    }
    let secs = t.elapsed().as_secs_f64();
    let verified = args.run.verify.then_some(true);
    let name = match gpu {
        Some(_) => format!("{} ({})", summary.algorithm.name(), args.gpu_variant),
        None => summary.algorithm.name().to_string(),
    };
    if args.run.json {
        let j = serde_json::json!({
            "problem": "apsp", "algorithm": name, "device": where_,
            "graph": graph_name, "vertices": g.num_vertices(), "edges": g.num_edges(),
            "seconds": secs, "kernel_seconds": summary.kernel_seconds,
            "reachable_pairs": summary.reachable_pairs,
            "output": args.run.output.as_ref().map(|p| p.display().to_string()), "verified": verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!(
            "apsp ({name}) on {}: {} vertices, {} reachable pairs, {secs:.4} s{}{}",
            where_,
            commas(g.num_vertices() as u64),
            commas(summary.reachable_pairs),
            crate::cmd::common::in_kernels(summary.kernel_seconds),
            args.run
                .output
                .as_ref()
                .map_or(String::new(), |p| format!(", written to {}", p.display()))
        );
        if verified.is_some() {
            println!("verification: PASS");
        }
    }
    Ok(ExitCode::SUCCESS)
}
