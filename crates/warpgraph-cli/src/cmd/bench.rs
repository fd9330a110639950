//! `warpgraph bench`: time an algorithm over many verified trials.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use warpgraph::bench::{pick_sources, Report, Trial};
use warpgraph::device::Device;
use warpgraph::{apsp, mst, sssp, Graph};

use crate::args::parse_device;
use crate::cmd::bfs_common::{runner, SwitchArgs};
use crate::cmd::common::{resolve_device, resolve_team_device, ExtractMinArgs};
use crate::cmd::reproduce::{self, Paper, ReproduceArgs};
use crate::cmd::team::{self, TeamBenchArgs};
use crate::cmd::trials::{apsp_trials, bfs_trials, mst_trials, sssp_trials};
use crate::source::GraphArgs;

/// The problem to benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Problem {
    /// Breadth-first search from random roots.
    Bfs,
    /// Single-source shortest paths from random roots.
    Sssp,
    /// Minimum spanning forest.
    Mst,
    /// All-pairs shortest paths (kept in memory, discarded).
    Apsp,
    /// The CUDA SSSP thesis's ExtractMin study (its Table 1): the least of n random keys
    /// by the GPU reduction at each block size, a CPU loop, all CPU cores and a binary
    /// heap. No graph.
    ExtractMin,
    /// The experiments of the papers warpgraph implements, on generated graphs (--paper,
    /// below): every method on the CPU and, with a GPU, on the GPU, in one run, every
    /// result verified; tables, JSON and plots (SVG, PNG) in --plots. Memory beside every
    /// cell: the host peak; for a GPU method also the device bytes it allocates
    /// (gpu_bytes_needed, the library's own figure) and the sampled device peak (a lower
    /// bound).
    Reproduce,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Each trial is verified before its time counts; times are the algorithm alone (no loading),
after one warm-up run. BFS and SSSP use Graph500-style roots: random vertices with an arc,
from a fixed seed, so every run and device times the same sources.

Examples:
  warpgraph bench bfs --generate kron:20                  # 64 roots
  warpgraph bench bfs --generate kron:22 --device cuda    # GPU 0
  warpgraph bench bfs --generate urand:22 --device cuda --algo baseline
  warpgraph bench sssp --generate kron:20 --algo delta-stepping --trials 16
  warpgraph bench mst road.gr --algo kruskal --trials 5 --json-out mst.json
  warpgraph bench extract-min --device cuda               # 1 .. 10^7 keys
  warpgraph bench extract-min --sizes 1000,1000000 --trials 9
  warpgraph bench bfs --generate kron:25 --gpus 1,2,4     # strong scaling over NCCL
  warpgraph bench apsp --generate urand:15 --gpus 1,2,4   # Floyd-Warshall by row blocks
  warpgraph bench reproduce --quick                       # every paper, small, ~1 minute
  warpgraph bench reproduce --paper enterprise --device cuda --plots out/

The papers of `bench reproduce --paper` (docs/PAPERS.md cites each):
  sssp            the CUDA SSSP thesis: Dijkstra with a parallel ExtractMin,
                  Bellman-Ford, delta-stepping and SpMV on the GPU, every variant timed
                  on Kronecker, uniform and grid graphs beside the CPU's
  floyd-warshall  the GPU Floyd-Warshall article (the blocked method of Venkataraman et
                  al.): time against n, CPU beside the GPU's naive, blocked and tuned
  johnson         the GPU Johnson article: all-pairs time against n with negative
                  weights, and its parallel Dijkstra against the CPU's
  enterprise      Enterprise (Liu and Huang, SC'15): BFS in GTEPS with its GPU
                  techniques added in turn, beside the CPU's BFS
  mst             Vineet, Harish, Patidar and Narayanan's GPU MST: Boruvka on the GPU
                  beside the CPU's Boruvka and Kruskal, per graph family
  all             every one, in this order (the default)
Each writes results-NAME.md and results-NAME.json (results-all.* for all) and a figure
per experiment (NAME.svg and NAME.png; johnson also johnson-dijkstra.*) to --plots.
The numbers 000 to 004 are accepted for the papers, in the order above.")]
pub struct BenchArgs {
    /// What to run.
    #[arg(value_enum)]
    problem: Problem,
    #[command(flatten)]
    graph: GraphArgs,
    /// Algorithm variant (as in the problem's own command; default: its default). BFS:
    /// the direction on the CPU (optimizing, top-down, bottom-up), the technique step on
    /// the GPU (baseline, scheduling, balancing, direction, enterprise, tuned). SSSP: a
    /// method, or nonnegative (the method chosen for the device and the roots: auto on a
    /// GPU, dijkstra per root in parallel on the CPU).
    #[arg(long)]
    algo: Option<String>,
    /// SSSP: the bucket width of delta-stepping (with --algo delta-stepping): a number, or
    /// a rule: median, mean, max-over-degree (the CUDA SSSP thesis's) or auto.
    #[arg(long, value_name = "X|RULE", value_parser = |s: &str| s.parse::<sssp::Delta>())]
    delta: Option<sssp::Delta>,
    /// Trials: roots for bfs/sssp (default 64 and 16), repetitions for mst/apsp and
    /// extract-min (default 5).
    #[arg(long)]
    trials: Option<usize>,
    /// extract-min: the numbers of keys (default 1,10,100,...,10000000); reproduce: the
    /// numbers of vertices (papers floyd-warshall and johnson).
    #[arg(long, value_name = "N,N,..", value_delimiter = ',')]
    sizes: Option<Vec<usize>>,
    /// reproduce: the paper: sssp (the CUDA SSSP thesis), floyd-warshall (the GPU
    /// Floyd-Warshall article), johnson (the GPU Johnson article), enterprise (Enterprise,
    /// Liu and Huang, SC'15), mst (Vineet et al.'s GPU MST) or all (see below).
    #[arg(long, value_name = "NAME", default_value = "all")]
    paper: String,
    /// reproduce: small sizes only (under a minute on a laptop CPU).
    #[arg(long)]
    quick: bool,
    /// reproduce: the folder for the plots (SVG and PNG), results-NAME.md and
    /// results-NAME.json [default: reproduce-out, beside --json-out's file if given]
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// bfs, apsp: teams of this many GPUs, one after the other on the same graph (e.g.
    /// 1,2,4 or all), over NCCL, for strong scaling; then, for comparison, the single-GPU
    /// code on GPU 0 and (bfs) the CPU code on every core, from the same roots. bfs: 16
    /// roots by default.
    #[arg(long, value_name = "N,N,..|all", value_delimiter = ',', value_parser = crate::args::parse_gpus)]
    gpus: Option<Vec<crate::args::Gpus>>,
    /// bfs: before each timed search, the same search once more, untimed and right
    /// before it, on every GPU timed (the teams' and the single-GPU code's): each then
    /// starts at full clock and the GPUs of a team in step, not from the idle clock that
    /// verifying the last tree on the CPU left them in, as in a run of
    /// searches with nothing between them. Off by default: the times are then those of
    /// searches with other work between them.
    #[arg(long)]
    warm_each: bool,
    /// Seed for picking roots.
    #[arg(long, default_value_t = 27491095)]
    root_seed: u64,
    /// Device: auto (a GPU when there is one and the problem has GPU code), cpu, cuda or
    /// cuda:N.
    #[arg(long, default_value = "auto", value_name = "DEVICE", value_parser = parse_device)]
    device: Device,
    /// Also write the full report (every trial) as JSON here.
    #[arg(long, value_name = "FILE")]
    json_out: Option<PathBuf>,
    #[command(flatten)]
    extract_min: ExtractMinArgs,
    // Last: its help heading holds for the arguments after it.
    #[command(flatten)]
    switch: SwitchArgs,
}

pub fn run(args: BenchArgs, quiet: bool) -> Result<()> {
    // (Every problem here has GPU code.)
    let what = match args.problem {
        Problem::Bfs => "BFS",
        Problem::Sssp => "SSSP",
        Problem::Mst => "MST",
        Problem::Apsp => "APSP",
        Problem::ExtractMin => return bench_extract_min(&args, quiet),
        Problem::Reproduce => return reproduce::run(&args.reproduce(), quiet),
    };
    if args.sizes.is_some() {
        bail!("--sizes is for extract-min and reproduce");
    }
    if args.warm_each && args.problem != Problem::Bfs {
        bail!("--warm-each is for bench bfs");
    }
    let device = resolve_team_device(args.device, what, quiet, args.gpus.is_some())?;
    let (g, graph_name) = args.graph.load(quiet)?;
    if let Some(sizes) = &args.gpus {
        let team_args = args.team();
        return match args.problem {
            Problem::Bfs => team::bench_bfs(&g, &graph_name, sizes, &team_args),
            Problem::Apsp => team::bench_apsp(&g, &graph_name, sizes, &team_args),
            _ => bail!("--gpus is for bench bfs and bench apsp"),
        };
    }
    let kernel_load = load_kernels(device, args.problem)?;
    let (algorithm, setup_seconds, trials) = match args.problem {
        Problem::Bfs => bench_bfs(&g, device, &args)?,
        Problem::Sssp => bench_sssp(&g, device, &args)?,
        Problem::Mst => bench_mst(&g, device, &args)?,
        Problem::Apsp => bench_apsp(&g, device, &args)?,
        Problem::ExtractMin | Problem::Reproduce => unreachable!("returned above"),
    };
    let report = Report::new(
        &format!("{:?}", args.problem).to_lowercase(),
        &algorithm,
        device.describe(),
        (&g, &graph_name),
        trials,
        setup_seconds,
    );
    if let Some(path) = &args.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let Some(s) = &report.summary else {
        bail!("no trials ran (the graph has no arcs to start from)");
    };
    println!(
        "{} {} on {} | {} | {} vertices, {} edges",
        report.problem,
        report.algorithm,
        report.device,
        report.graph,
        report.vertices,
        report.edges
    );
    // MST's rate is the graph's edges per second; the searches' is Graph500's TEPS.
    let unit = if args.problem == Problem::Mst {
        "edges/s"
    } else {
        "TEPS"
    };
    println!(
        "{} trials, all verified: median {:.6} s (min {:.6}, max {:.6}, mean {:.6}){}",
        s.trials,
        s.median,
        s.min,
        s.max,
        s.mean,
        report
            .median_teps
            .map_or(String::new(), |t| format!(", median {t:.3e} {unit}"))
    );
    if let Some(k) = &report.kernel_summary {
        println!(
            "kernels alone (CUDA events): median {:.6} s (min {:.6}, max {:.6}); graph upload {:.3} s",
            k.median,
            k.min,
            k.max,
            report.setup_seconds.unwrap_or(0.0)
        );
        if let Some(secs) = kernel_load {
            println!("kernels loaded before the upload: {secs:.3} s (their first use here)");
        }
        if args.problem == Problem::Bfs {
            println!("{}", beyond_kernels(&report.trials, g.num_vertices()));
        }
        if args.warm_each {
            println!("(--warm-each: each root searched once more, untimed, just before)");
        }
    }
    if let Some(h) = report.harmonic_mean_teps {
        match report.kernel_harmonic_mean_teps {
            Some(k) => {
                println!("harmonic mean {h:.3e} {unit} end to end, {k:.3e} {unit} by kernel time")
            }
            None => println!("harmonic mean {h:.3e} {unit}"),
        }
    }
    Ok(())
}

/// A GPU search's time beyond its kernels, end to end on the graph kept on the GPU: the
/// median per search, and what the copy of the tree back (depth and parent, 8 bytes a
/// vertex, into page-locked host memory) would move per second if it were all of it.
/// The rest is launches, the host's waits, and a GPU or bus waking from the idle that
/// verifying the last tree on the CPU left it in (`--warm-each` takes that away).
fn beyond_kernels(trials: &[Trial], n: usize) -> String {
    let mut extra: Vec<f64> = trials
        .iter()
        .filter_map(|t| t.kernel_seconds.map(|k| (t.seconds - k).max(0.0)))
        .collect();
    extra.sort_by(f64::total_cmp);
    let Some(&median) = extra.get(extra.len() / 2) else {
        return String::new();
    };
    let bytes = 8.0 * n as f64;
    let rate = match median > 0.0 {
        true => format!(
            ", {:.1} GB/s if all of it were the copy",
            bytes / median / 1e9
        ),
        false => String::new(),
    };
    format!(
        "beyond the kernels: median {:.3} ms per search; the tree copied back: {:.1} MB{rate}",
        median * 1e3,
        bytes / 1e6
    )
}

/// What a benchmark of one problem returns: the algorithm's name, the one-time setup
/// seconds (if any) and the trials.
type Outcome = (String, Option<f64>, Vec<Trial>);

fn bench_bfs(g: &Graph, device: Device, args: &BenchArgs) -> Result<Outcome> {
    let (direction, variant) = match (device, args.algo.as_deref()) {
        (Device::Cuda(_), Some(a)) => (None, a.parse()?),
        (_, Some(a)) => (Some(a.parse()?), Default::default()),
        (_, None) => (None, Default::default()),
    };
    let start = Instant::now();
    let mut runner = runner(device, g, direction, variant, args.switch)?;
    let setup = matches!(device, Device::Cuda(_)).then(|| start.elapsed().as_secs_f64());
    let roots = pick_sources(g, args.trials.unwrap_or(64), args.root_seed);
    let warm = args.warm_each && matches!(device, Device::Cuda(_));
    let t = bfs_trials(g, &mut runner, &roots, warm)?;
    Ok((runner.algorithm(), setup, t))
}

fn bench_sssp(g: &Graph, device: Device, args: &BenchArgs) -> Result<Outcome> {
    let roots = pick_sources(g, args.trials.unwrap_or(16), args.root_seed);
    let algo = sssp_algorithm(args.algo.as_deref(), args.delta, device, roots.len(), g)?;
    let start = Instant::now();
    let mut runner = sssp::SsspRunner::new(device, g)?;
    args.extract_min.apply(&mut runner, &algo)?;
    let setup = matches!(device, Device::Cuda(_)).then(|| start.elapsed().as_secs_f64());
    let t = sssp_trials(g, &mut runner, &algo, &roots)?;
    let name = match device {
        Device::Cuda(_) => format!("{}-gpu", algo.name()),
        _ => algo.name().to_string(),
    };
    Ok((name, setup, t))
}

/// The method `bench sssp` runs from `sources` roots on `device`: `--algo` (default
/// `auto`) as the library's [`sssp::Request`] decides it (`nonnegative` by the device and
/// the number of sources), `--delta` the width of delta-stepping.
fn sssp_algorithm(
    algo: Option<&str>,
    delta: Option<sssp::Delta>,
    device: Device,
    sources: usize,
    g: &Graph,
) -> Result<sssp::Algorithm> {
    let request: sssp::Request = algo.unwrap_or("auto").parse()?;
    let negative = || g.out().weights().min_f64().is_some_and(|x| x < 0.0);
    let negative = request == sssp::Request::NonNegative && negative();
    Ok(
        match (request.algorithm(device, sources, negative), delta) {
            (sssp::Algorithm::DeltaStepping(_), Some(d)) => sssp::Algorithm::DeltaStepping(d),
            (a, _) => a,
        },
    )
}

fn bench_mst(g: &Graph, device: Device, args: &BenchArgs) -> Result<Outcome> {
    let algo: mst::Algorithm = args.algo.as_deref().unwrap_or("boruvka").parse()?;
    let gpu = device.gpu()?;
    let count = args.trials.unwrap_or(5);
    let (t, on_gpu) = mst_trials(g, algo, gpu.as_ref(), count)?;
    if let Some((_, stats)) = &on_gpu {
        print_mst_split(stats);
    }
    let name = match gpu {
        Some(_) => format!("{}-gpu", algo.name()),
        None => algo.name().to_string(),
    };
    Ok((name, on_gpu.map(|(upload, _)| upload), t))
}

/// Where a GPU MST run's time goes, medians over the trials: the Borůvka rounds' kernels,
/// the forest's sort and naming (kernels too), the copy back, the host's share after it.
fn print_mst_split(stats: &[mst::cuda::MstStats]) {
    let median = |f: &dyn Fn(&mst::cuda::MstStats) -> f64| {
        let mut x: Vec<f64> = stats.iter().map(f).collect();
        x.sort_by(f64::total_cmp);
        x.get(x.len() / 2).copied().unwrap_or(0.0) * 1e3
    };
    println!(
        "MST on the GPU, medians per run: Borůvka rounds {:.3} ms and sorting and naming the \
         forest {:.3} ms (kernels), copying it back {:.3} ms, host {:.3} ms",
        median(&|s| s.times.kernel_seconds - s.forest_seconds),
        median(&|s| s.forest_seconds),
        median(&|s| s.copy_seconds),
        median(&|s| s.host_seconds)
    );
}

/// APSP; on a GPU, `--algo` may name a Floyd-Warshall variant (fw-naive, fw-blocked).
/// Loads `problem`'s kernels on the GPU of `device` (none on the CPU) before anything is
/// timed, so that "graph upload" is the upload alone; the seconds it took.
fn load_kernels(device: Device, problem: Problem) -> Result<Option<f64>> {
    let Some(gpu) = device.gpu()? else {
        return Ok(None);
    };
    let sources = match problem {
        Problem::Bfs => warpgraph::bfs::cuda::KERNEL_SOURCES.to_vec(),
        Problem::Sssp => sssp::cuda::KERNEL_SOURCES.to_vec(),
        Problem::Mst => mst::cuda::KERNEL_SOURCES.to_vec(),
        // Johnson searches with SSSP's kernels.
        Problem::Apsp => [apsp::cuda::KERNEL_SOURCES, sssp::cuda::KERNEL_SOURCES].concat(),
        Problem::ExtractMin | Problem::Reproduce => return Ok(None),
    };
    let start = Instant::now();
    for k in sources {
        gpu.module(k)?;
    }
    Ok(Some(start.elapsed().as_secs_f64()))
}

fn bench_apsp(g: &Graph, device: Device, args: &BenchArgs) -> Result<Outcome> {
    use apsp::cuda::FwVariant;
    let name = args.algo.as_deref().unwrap_or("auto");
    let (algo, variant) = match name.parse::<FwVariant>() {
        Ok(v) => (apsp::Algorithm::FloydWarshall, v),
        Err(_) => (name.parse()?, FwVariant::default()),
    };
    let gpu = device.gpu()?;
    if gpu.is_none() && algo == apsp::Algorithm::FloydWarshall && name != "floyd-warshall" {
        bail!("{name} is a GPU variant: add --device cuda");
    }
    let backend = match &gpu {
        Some(gpu) => apsp::Backend::Cuda(gpu, variant),
        None => apsp::Backend::Cpu,
    };
    let resolved = algo.resolve(g, &apsp::ApspOptions::default());
    let t = apsp_trials(g, algo, backend, args.trials.unwrap_or(5))?;
    let name = match gpu {
        Some(_) if resolved == apsp::Algorithm::Johnson => format!("{}-gpu", resolved.name()),
        Some(_) => format!("{}-gpu-{variant}", resolved.name()),
        None => resolved.name().to_string(),
    };
    Ok((name, None, t))
}

/// The ExtractMin study: a table of microseconds per ExtractMin, a row per size as it is
/// measured (the GPU columns where a GPU is used).
fn bench_extract_min(args: &BenchArgs, quiet: bool) -> Result<()> {
    use warpgraph::sssp::extract_min::{study, StudyOptions};
    if args.graph.input.is_some() || args.graph.generate.is_some() {
        bail!("extract-min takes no graph: it times ExtractMin over random keys (see --sizes)");
    }
    let device = resolve_device(args.device, "the ExtractMin study", true, quiet)?;
    let gpu = device.gpu()?;
    let defaults = StudyOptions::default();
    let opts = StudyOptions {
        sizes: args.sizes.clone().unwrap_or(defaults.sizes),
        trials: args.trials.unwrap_or(defaults.trials),
        threads: defaults.threads,
        seed: args.root_seed,
    };
    let cpu = Device::Cpu.describe();
    println!(
        "ExtractMin (the CUDA SSSP thesis, Table 1): microseconds for the least of n random keys, \
         median of {} trials, every answer checked against the loop",
        opts.trials
    );
    match &gpu {
        Some(g) => println!("GPU: {} (the keys already on it); CPU: {cpu}", g.describe()),
        None => println!("CPU: {cpu} (no GPU columns: run with --device cuda)"),
    }
    let mut header = format!("{:>10}", "n");
    if gpu.is_some() {
        for t in &opts.threads {
            header += &format!(" {:>10}", format!("GPU {t}"));
        }
    }
    header += &format!(" {:>10} {:>10} {:>10}", "CPU loop", "CPU cores", "CPU heap");
    println!("{header}");
    let us = |s: f64| format!(" {:>10.3}", s * 1e6);
    let rows = study(&opts, gpu.as_ref(), |r| {
        let mut line = format!("{:>10}", r.size);
        for (_, t) in &r.gpu {
            line += &us(*t);
        }
        line += &(us(r.cpu_loop) + &us(r.cpu_parallel) + &us(r.cpu_heap));
        println!("{line}");
    })?;
    if let Some(path) = &args.json_out {
        let j = serde_json::json!({
            "problem": "extract-min",
            "gpu": gpu.as_ref().map(|g| g.describe()),
            "cpu": cpu,
            "trials": opts.trials,
            "seconds": rows,
        });
        std::fs::write(path, serde_json::to_string_pretty(&j)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

impl BenchArgs {
    /// What `bench reproduce` needs. A paper (`enterprise`, `all`) where the graph goes
    /// is the paper, as if given by --paper (`bench reproduce --quick all`).
    fn reproduce(&self) -> ReproduceArgs {
        let named = self
            .graph
            .input
            .as_ref()
            .and_then(|p| p.to_str())
            .filter(|p| {
                (*p == "all" || Paper::find(p).is_some())
                    && self.paper == "all"
                    && !Path::new(p).exists()
            });
        ReproduceArgs {
            paper: named.unwrap_or(&self.paper).to_string(),
            quick: self.quick,
            sizes: self.sizes.clone(),
            trials: self.trials,
            root_seed: self.root_seed,
            device: self.device,
            json_out: self.json_out.clone(),
            plots: self.plots.clone(),
            graph_given: (self.graph.input.is_some() && named.is_none())
                || self.graph.generate.is_some(),
        }
    }

    /// What `bench bfs|apsp --gpus` needs.
    fn team(&self) -> TeamBenchArgs<'_> {
        TeamBenchArgs {
            algo: self.algo.as_deref(),
            trials: self.trials,
            root_seed: self.root_seed,
            warm_each: self.warm_each,
            switch: self.switch,
            json_out: self.json_out.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpgraph::sssp::{Algorithm, Delta};

    /// `bench sssp`'s method for one and for many roots on the CPU and on a GPU (no GPU
    /// needed: nothing is opened): as named, `nonnegative` by the library's rule, the
    /// GPU's O(n^2) Dijkstra only by name.
    #[test]
    fn sssp_method_for_the_roots() {
        let g = warpgraph::Graph::empty(4, true);
        let pick = |algo, device, k| sssp_algorithm(algo, None, device, k, &g).unwrap();
        let gpu = Device::Cuda(0);
        for k in [1, 16] {
            assert_eq!(pick(None, gpu, k), Algorithm::Auto);
            assert_eq!(pick(None, Device::Cpu, k), Algorithm::Auto);
            assert_eq!(pick(Some("nonnegative"), gpu, k), Algorithm::Auto);
            assert_eq!(pick(Some("dijkstra"), gpu, k), Algorithm::Dijkstra);
        }
        let one = Algorithm::DeltaStepping(Delta::Auto);
        assert_eq!(pick(Some("nonnegative"), Device::Cpu, 1), one);
        assert_eq!(
            pick(Some("nonnegative"), Device::Cpu, 16),
            Algorithm::Dijkstra
        );
        let d = Some(Delta::Fixed(2.0));
        assert_eq!(
            sssp_algorithm(Some("delta-stepping"), d, gpu, 16, &g).unwrap(),
            Algorithm::DeltaStepping(Delta::Fixed(2.0))
        );
        assert!(sssp_algorithm(Some("fastest"), None, gpu, 1, &g).is_err());
    }
}
