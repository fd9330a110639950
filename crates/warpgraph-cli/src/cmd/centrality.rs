//! `warpgraph centrality`: betweenness, edge betweenness, closeness and harmonic centrality.

use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use warpgraph::centrality::{
    self, BetweennessOptions, Centrality, ClosenessOptions, EdgeBetweennessOptions,
    HarmonicOptions, Scores, Sources, Weighting,
};
use warpgraph::device::Device;
use warpgraph::{Error, Graph};

use crate::args::commas;
use crate::cmd::common::{ext, write_atomic, RunArgs};
use crate::progress::Bar;
use crate::source::GraphArgs;

/// Sources (or vertices) `--verify` recomputes.
const VERIFY_SAMPLES: usize = 16;

/// The seed of `--verify`'s draw.
const VERIFY_SEED: u64 = 0x5eed;

/// The four measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Measure {
    /// Shortest paths through each vertex.
    Betweenness,
    /// Shortest paths along each edge.
    EdgeBetweenness,
    /// Reciprocal of the mean distance to each vertex.
    Closeness,
    /// Sum of the reciprocal distances to each vertex.
    Harmonic,
}

impl Measure {
    fn name(self) -> &'static str {
        match self {
            Measure::Betweenness => "betweenness",
            Measure::EdgeBetweenness => "edge-betweenness",
            Measure::Closeness => "closeness",
            Measure::Harmonic => "harmonic",
        }
    }
}

#[derive(Debug, Args)]
#[command(after_help = "\
Measures (NetworkX's definitions, options and defaults; the values match its functions):
  betweenness       for each vertex v, the sum over pairs s != v != t of the share of
                    shortest s-t paths through v (Brandes' algorithm)
  edge-betweenness  the same for each edge
  closeness         (r - 1) / (sum of the distances to v) over the r - 1 vertices that
                    reach v, times (r - 1) / (n - 1) (Wasserman and Faust; turn off with
                    --no-wf-improved)
  harmonic          the sum of 1 / d(u, v) over the vertices u that reach v

Distances follow the weights (non-negative; --unweighted counts arcs); on a directed
graph closeness and harmonic measure the paths into each vertex. Equal lengths are ties
exactly (integers, or float sums compared as NetworkX compares them); parallel arcs are
distinct paths; an arc of weight zero is a step of a shortest path only where it also
adds one to the fewest arcs. Betweenness is normalized by default (by the number of
pairs); --samples K estimates it from K sources drawn with --seed (Brandes and Pich) and
scales the sums up as NetworkX's k does (the draw is warpgraph's own: for NetworkX's
sources, use the Python package's backend). --verify recomputes 16 sources (or vertices)
another way and checks the sums against per-source fingerprints.

Output (-o): a header line, then `vertex<TAB>value` per vertex, or `u<TAB>v<TAB>value`
per edge (each undirected edge once), vertices as the file numbers them. Runs on every
CPU core, or on a GPU when there is one (--device auto or cuda) for betweenness counting
arcs (an unweighted graph, or --unweighted: Brandes' searches from thousands of sources
at once, a block each), closeness and harmonic (the distances to each vertex as the rows
of a distance table, as `warpgraph distances` makes them). Edge betweenness and weighted
betweenness run on the CPU.

Examples:
  warpgraph centrality road.gr --measure betweenness -o bc.tsv
  warpgraph centrality --generate kron:16 --measure betweenness --samples 256 --seed 7
  warpgraph centrality --generate kron:20 --unweighted --samples 1024 --device cuda
  warpgraph centrality g.wel --measure edge-betweenness --no-normalized --unweighted
  warpgraph centrality g.mtx --measure closeness --verify --json")]
pub struct CentralityArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// The measure (see below).
    #[arg(long, value_enum, default_value = "betweenness")]
    measure: Measure,
    /// Betweenness (vertex or edge) from K sources drawn at random instead of all (an
    /// estimate).
    #[arg(long, value_name = "K")]
    samples: Option<usize>,
    /// The seed of the --samples draw (the same seed draws the same sources).
    #[arg(long, value_name = "S", default_value_t = 0, requires = "samples")]
    seed: u64,
    /// Betweenness (vertex or edge): divide by the number of pairs [default].
    #[arg(long, overrides_with = "no_normalized")]
    normalized: bool,
    /// Betweenness (vertex or edge): raw sums (each unordered pair once on an undirected
    /// graph).
    #[arg(long)]
    no_normalized: bool,
    /// Betweenness: count the endpoints of each path as on it.
    #[arg(long)]
    endpoints: bool,
    /// Closeness: Wasserman and Faust's scaling for graphs that are not connected
    /// [default].
    #[arg(long, overrides_with = "no_wf_improved")]
    wf_improved: bool,
    /// Closeness: no scaling by the share of vertices that reach each one.
    #[arg(long)]
    no_wf_improved: bool,
    /// Count arcs, ignoring the graph's weights.
    #[arg(long)]
    unweighted: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// What was computed, for the summary and the output.
enum Outcome {
    Centrality(Centrality),
    Scores(Scores),
}

pub fn run(args: CentralityArgs, quiet: bool) -> Result<()> {
    check_options(&args)?;
    let (g, graph_name) = args.graph.load(quiet)?;
    let device = device(&args, &g, quiet)?;
    let gpu = device.gpu()?;
    let bar = Bar::new(quiet || args.run.json, false);
    let t = Instant::now();
    let outcome = compute(&args, &g, gpu.as_ref(), &bar).map_err(|e| explain(e, &g))?;
    let secs = t.elapsed().as_secs_f64();
    let verified = if args.run.verify {
        verify(&args, &g, &outcome)?;
        Some(true)
    } else {
        None
    };
    if let Some(path) = &args.run.output {
        write_atomic(path, None, |w| write_tsv(w, &g, args.measure, &outcome))?;
    }
    let (sources, kernels) = match &outcome {
        Outcome::Centrality(c) => (c.sources.len(), c.kernel_seconds),
        Outcome::Scores(s) => (s.vertices.len(), s.kernel_seconds),
    };
    let done = Done {
        device,
        sources,
        secs,
        kernels,
        verified,
    };
    report(&args, &g, &graph_name, &done)
}

/// Where the measure runs: betweenness counting arcs (an unweighted graph, or
/// `--unweighted`), closeness and harmonic on a GPU where `--device` allows one; the rest
/// on the CPU, and `--device cuda` for them is an error that says so.
fn device(args: &CentralityArgs, g: &Graph, quiet: bool) -> Result<Device> {
    let counts_arcs = args.unweighted || g.weight_type() == warpgraph::WeightType::None;
    let gpu_code = match args.measure {
        Measure::Betweenness => counts_arcs,
        Measure::EdgeBetweenness => false,
        Measure::Closeness | Measure::Harmonic => true,
    };
    if !gpu_code && matches!(args.run.device, Device::Cuda(_)) {
        bail!(
            "on a GPU, centrality has betweenness counting arcs (an unweighted graph, or \
             --unweighted), closeness and harmonic: run {} with --device cpu",
            if args.measure == Measure::Betweenness {
                "weighted betweenness"
            } else {
                args.measure.name()
            }
        );
    }
    let what = format!("{} centrality", args.measure.name());
    crate::cmd::common::resolve_device(args.run.device, &what, gpu_code, quiet || args.run.json)
}

/// How a run went, for the report.
struct Done {
    device: Device,
    sources: usize,
    secs: f64,
    kernels: Option<f64>,
    verified: Option<bool>,
}

/// Refuses options that do not belong to the measure.
fn check_options(args: &CentralityArgs) -> Result<()> {
    let m = args.measure;
    let between = matches!(m, Measure::Betweenness | Measure::EdgeBetweenness);
    if !between && (args.samples.is_some() || args.normalized || args.no_normalized) {
        bail!("--samples and --[no-]normalized are for betweenness and edge-betweenness");
    }
    if m != Measure::Betweenness && args.endpoints {
        bail!("--endpoints is for --measure betweenness");
    }
    if m != Measure::Closeness && (args.wf_improved || args.no_wf_improved) {
        bail!("--[no-]wf-improved is for --measure closeness");
    }
    Ok(())
}

fn sources(args: &CentralityArgs) -> Sources {
    match args.samples {
        Some(k) => Sources::Sample { k, seed: args.seed },
        None => Sources::All,
    }
}

fn weighting(args: &CentralityArgs) -> Weighting {
    if args.unweighted {
        Weighting::Unit
    } else {
        Weighting::Graph
    }
}

fn vertex_opts(args: &CentralityArgs) -> BetweennessOptions {
    BetweennessOptions {
        sources: sources(args),
        normalized: !args.no_normalized,
        endpoints: args.endpoints,
        weighting: weighting(args),
    }
}

fn edge_opts(args: &CentralityArgs) -> EdgeBetweennessOptions {
    EdgeBetweennessOptions {
        sources: sources(args),
        normalized: !args.no_normalized,
        weighting: weighting(args),
    }
}

fn closeness_opts(args: &CentralityArgs) -> ClosenessOptions {
    ClosenessOptions {
        wf_improved: !args.no_wf_improved,
        vertices: None,
        weighting: weighting(args),
    }
}

fn harmonic_opts(args: &CentralityArgs) -> HarmonicOptions {
    HarmonicOptions {
        weighting: weighting(args),
        ..Default::default()
    }
}

fn compute(
    args: &CentralityArgs,
    g: &Graph,
    gpu: Option<&std::sync::Arc<warpgraph::cuda::Gpu>>,
    bar: &Bar,
) -> warpgraph::Result<Outcome> {
    Ok(match args.measure {
        Measure::Betweenness => {
            Outcome::Centrality(centrality::betweenness_on(g, &vertex_opts(args), gpu, bar)?)
        }
        Measure::EdgeBetweenness => {
            Outcome::Centrality(centrality::edge_betweenness(g, &edge_opts(args), bar)?)
        }
        Measure::Closeness => Outcome::Scores(centrality::closeness_on(
            g,
            &closeness_opts(args),
            gpu,
            bar,
        )?),
        Measure::Harmonic => {
            Outcome::Scores(centrality::harmonic_on(g, &harmonic_opts(args), gpu, bar)?)
        }
    })
}

/// A negative weight named by the file's vertex ids, with what to do about it.
fn explain(e: Error, g: &Graph) -> anyhow::Error {
    match e {
        Error::NegativeWeight {
            from, to, weight, ..
        } => anyhow::anyhow!(
            "centrality needs non-negative weights, but the arc {} -> {} weighs {weight}; \
             --unweighted counts arcs instead",
            ext(g, from),
            ext(g, to)
        ),
        e => e.into(),
    }
}

fn verify(args: &CentralityArgs, g: &Graph, outcome: &Outcome) -> Result<()> {
    let (k, s) = (VERIFY_SAMPLES, VERIFY_SEED);
    match (args.measure, outcome) {
        (Measure::Betweenness, Outcome::Centrality(r)) => {
            centrality::verify_betweenness(g, &vertex_opts(args), r, k, s)?
        }
        (Measure::EdgeBetweenness, Outcome::Centrality(r)) => {
            centrality::verify_edge_betweenness(g, &edge_opts(args), r, k, s)?
        }
        (Measure::Closeness, Outcome::Scores(r)) => {
            centrality::verify_closeness(g, &closeness_opts(args), r, k, s)?
        }
        (Measure::Harmonic, Outcome::Scores(r)) => {
            centrality::verify_harmonic(g, &harmonic_opts(args), r, k, s)?
        }
        _ => unreachable!("each measure has its outcome"),
    }
    Ok(())
}

fn write_tsv(w: &mut dyn Write, g: &Graph, m: Measure, outcome: &Outcome) -> std::io::Result<()> {
    let name = m.name().replace('-', "_");
    match (m, outcome) {
        (Measure::EdgeBetweenness, Outcome::Centrality(r)) => {
            writeln!(w, "u\tv\t{name}")?;
            for (u, v, x) in centrality::edge_values(g, &r.values) {
                writeln!(w, "{}\t{}\t{x}", ext(g, u), ext(g, v))?;
            }
        }
        (_, Outcome::Centrality(r)) => {
            writeln!(w, "vertex\t{name}")?;
            for (v, x) in r.values.iter().enumerate() {
                writeln!(w, "{}\t{x}", ext(g, v as u32))?;
            }
        }
        (_, Outcome::Scores(r)) => {
            writeln!(w, "vertex\t{name}")?;
            for (&v, x) in r.vertices.iter().zip(&r.values) {
                writeln!(w, "{}\t{x}", ext(g, v))?;
            }
        }
    }
    Ok(())
}

fn report(args: &CentralityArgs, g: &Graph, graph_name: &str, done: &Done) -> Result<()> {
    let m = args.measure.name();
    if args.run.json {
        let j = serde_json::json!({
            "problem": "centrality", "measure": m, "device": done.device.describe(),
            "graph": graph_name, "vertices": g.num_vertices(), "edges": g.num_edges(),
            "weighted": !args.unweighted && g.weight_type() != warpgraph::WeightType::None,
            "searches": done.sources, "sampled": args.samples.is_some(), "seconds": done.secs,
            "kernel_seconds": done.kernels, "verified": done.verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
        return Ok(());
    }
    println!(
        "centrality ({m}) on {}: {} searches over {} vertices in {:.4} s{}",
        done.device.describe(),
        commas(done.sources as u64),
        commas(g.num_vertices() as u64),
        done.secs,
        crate::cmd::common::in_kernels(done.kernels)
    );
    if done.verified.is_some() {
        println!("verification: PASS");
    }
    Ok(())
}
