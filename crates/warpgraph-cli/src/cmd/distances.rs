//! `warpgraph distances`: a table of shortest-path distances from chosen sources to chosen
//! targets, streamed to a file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use warpgraph::apsp::{self, ApspOptions, Axis, Backend, RowSink, Selection, VerifyingSink};
use warpgraph::device::Device;
use warpgraph::{Graph, VertexId};

use crate::args::commas;
use crate::cmd::apsp::{negative_cycle_exit, output_kind, Kind, Out};
use crate::cmd::common::{check_output, in_kernels, RunArgs};
use crate::progress::Bar;
use crate::source::GraphArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
SOURCES and TARGETS name vertices by their file ids, one of:
  all           every vertex, in order
  A..B          the ids A to B - 1
  3,17,42       a list
  random:K      K distinct vertices drawn with a fixed seed (random:K:SEED for another)
  FILE          a file of ids, whitespace-separated, # starts a comment
Repeats are kept: the table has a row per source and a column per target, in the order
given.

The table goes to --output as rows are produced: .npy (NumPy, K x T, row i for the i-th
source, column j for the j-th target; int64 with the largest int64 for unreachable pairs,
or float64 with inf) or .tsv (source, target, distance in file ids, reachable pairs only).
The file's size is checked against the free space first; it is written under a temporary
name and renamed when complete.

Method: Johnson's. With a negative weight, Bellman-Ford over the whole graph first gives
potentials that make every weight non-negative (a negative cycle anywhere is refused and
printed, exit code 3); then a search from every source, many at once: on the CPU one
Dijkstra per core, on a GPU a block per source, up to thousands at once; each search stops
once it has settled every target, and on a GPU only the targets' columns come back. An
unweighted graph of 8 or more arcs a vertex (a social or web graph) is searched by
multi-source BFS instead: 64 sources a pass over the graph on the CPU, up to 1,024 on a
GPU. With --targets all the table is that of `warpgraph apsp --algo johnson`.
--verify recomputes a sample of rows by single searches of another method, checked by the
shortest-path certificate, and compares them with the table.

Examples:
  warpgraph distances road.gr --sources depots.txt --targets customers.txt -o table.npy
  warpgraph distances g.wg --sources 1..101 -o rows.tsv
  warpgraph distances --generate grid:2048x2048 --sources random:1000 --targets random:1000:7 --device cuda --verify")]
pub struct DistancesArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// The sources, one row each (see below).
    #[arg(long, value_name = "SOURCES")]
    sources: String,
    /// The targets, one column each (see below).
    #[arg(long, value_name = "TARGETS", default_value = "all")]
    targets: String,
    /// Also compute predecessors (the vertex before each target on a shortest path from
    /// the source), written as a fourth column of a .tsv output. On the CPU only:
    /// `--device auto` then runs there.
    #[arg(long)]
    predecessors: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// The seed of `random:K`.
const SEED: u64 = 27491095;

/// The vertices `spec` names on `g` (see the command's help).
pub fn axis(g: &Graph, spec: &str) -> Result<Axis> {
    let n = g.num_vertices();
    if spec == "all" {
        return Ok(Axis::All(n));
    }
    let list: Vec<VertexId> = if let Some(rest) = spec.strip_prefix("random:") {
        random(n, rest)?
    } else if let Some((a, b)) = spec.split_once("..") {
        let (a, b) = (id(a)?, id(b)?);
        (a..b).map(|x| g.vertex(x)).collect::<Result<_, _>>()?
    } else if spec.contains(',') || (spec.parse::<u64>().is_ok() && !Path::new(spec).exists()) {
        spec.split(',')
            .map(|x| Ok(g.vertex(id(x)?)?))
            .collect::<Result<_>>()?
    } else {
        from_file(g, Path::new(spec))?
    };
    Ok(Axis::List(Arc::from(list)))
}

fn id(x: &str) -> Result<u64> {
    x.trim()
        .parse()
        .with_context(|| format!("'{x}' is not a vertex id"))
}

/// `K[:SEED]` distinct vertices of `n`, sorted.
fn random(n: usize, spec: &str) -> Result<Vec<VertexId>> {
    let (k, seed) = match spec.split_once(':') {
        Some((k, s)) => (
            k,
            s.parse().with_context(|| format!("'{s}' is not a seed"))?,
        ),
        None => (spec, SEED),
    };
    let k: usize = k.parse().with_context(|| format!("'{k}' is not a count"))?;
    if k > n {
        bail!("random:{k} asks for more vertices than the graph's {n}");
    }
    let mut rng = warpgraph::generate::rng::Rng::new(seed);
    let mut picked = std::collections::BTreeSet::new();
    while picked.len() < k {
        picked.insert(rng.below(n as u64) as VertexId);
    }
    Ok(picked.into_iter().collect())
}

/// The ids of a file, whitespace-separated, `#` to the end of a line a comment; an entry
/// that is not a vertex is an error naming the file and line.
fn from_file(g: &Graph, path: &Path) -> Result<Vec<VertexId>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the vertex list", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for word in line.split_whitespace() {
            let at = || format!("{}:{}", path.display(), i + 1);
            let x: u64 = word
                .parse()
                .with_context(|| format!("{}: '{word}' is not a vertex id", at()))?;
            out.push(g.vertex(x).with_context(at)?);
        }
    }
    Ok(out)
}

/// Refuses an output that cannot fit on its disk: a `.npy` by its exact size, a `.tsv`
/// by the bound of every pair reachable at the longest distance.
fn check_room(p: &Path, kind: Kind, g: &Graph, sel: &Selection, pred: bool) -> Result<()> {
    let (k, c) = (sel.sources.len(), sel.targets.len());
    let needed = match kind {
        Kind::Npy => apsp::npy_file_size(k, c),
        Kind::Tsv => apsp::tsv_table_bound(g, &sel.sources, &sel.targets, pred),
    };
    let what = format!(
        "the {} x {} distance table",
        commas(k as u64),
        commas(c as u64)
    );
    check_output(
        p,
        &what,
        needed,
        "give -o a path on a file system with more room, or fewer sources or targets",
    )
}

pub fn run(args: DistancesArgs, quiet: bool) -> Result<ExitCode> {
    let output: Option<PathBuf> = args.run.output.clone();
    let kind = match &output {
        Some(p) => Some((p.as_path(), output_kind(p, args.predecessors)?)),
        None => None,
    };
    // The GPU's tables have no predecessors: `auto` takes the CPU for them.
    let device = match (args.predecessors, args.run.device) {
        (true, Device::Auto) => Device::Cpu,
        _ => args.run.team_device("distance tables", quiet, false)?,
    };
    let gpu = device.gpu()?;
    let backend = match &gpu {
        Some(gpu) => Backend::Cuda(gpu, Default::default()),
        None => Backend::Cpu,
    };
    let (g, graph_name) = args.graph.load(quiet)?;
    let sel = Selection {
        sources: axis(&g, &args.sources).context("--sources")?,
        targets: axis(&g, &args.targets).context("--targets")?,
    };
    if let Some((p, k)) = kind {
        check_room(p, k, &g, &sel, args.predecessors)?;
    }
    let mut out = Out::create(kind, &g)?;
    let mut verifying;
    let sink: &mut dyn RowSink = if args.run.verify {
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
    let summary = match apsp::distances_on(&g, &sel, &opts, backend, sink, &bar) {
        Ok(s) => s,
        Err(e) => return negative_cycle_exit(&g, e),
    };
    out.commit()?;
    let secs = t.elapsed().as_secs_f64();
    let verified = args.run.verify.then_some(true);
    let (k, c) = (sel.sources.len() as u64, sel.targets.len() as u64);
    if args.run.json {
        let j = serde_json::json!({
            "problem": "distances", "device": device.describe(), "graph": graph_name,
            "vertices": g.num_vertices(), "edges": g.num_edges(), "sources": k, "targets": c,
            "seconds": secs, "kernel_seconds": summary.kernel_seconds,
            "reachable_pairs": summary.reachable_pairs,
            "output": output.as_ref().map(|p| p.display().to_string()), "verified": verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!(
            "distances on {}: {} x {} table, {} reachable pairs, {secs:.4} s{}{}",
            device.describe(),
            commas(k),
            commas(c),
            commas(summary.reachable_pairs),
            in_kernels(summary.kernel_seconds),
            output
                .as_ref()
                .map_or(String::new(), |p| format!(", written to {}", p.display()))
        );
        if verified.is_some() {
            println!("verification: PASS");
        }
    }
    Ok(ExitCode::SUCCESS)
}
