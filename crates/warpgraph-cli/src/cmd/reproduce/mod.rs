//! `warpgraph bench reproduce`: the experiments of the papers warpgraph implements
//! (`docs/PAPERS.md` cites each), every method on the CPU and (with a GPU) on the GPU in
//! the same run, every result verified; Markdown tables on stdout, and in the output
//! folder (`--plots`, default `reproduce-out/`) every trial as JSON, the tables as
//! Markdown and each experiment's figure as SVG and PNG.
//!
//! - `sssp`, the CUDA SSSP thesis: every SSSP variant on the GPU beside the CPU's
//!   delta-stepping and Dijkstra, on Kronecker, uniform and grid graphs of 2^22 vertices
//!   (2^12 with `--quick`), weights 1..255, from the same random roots.
//! - `floyd-warshall`, the GPU Floyd-Warshall article (its Table 1 and Fig. 5):
//!   Floyd-Warshall time against the number of vertices for the CPU's blocked version and
//!   the GPU's naive, blocked and tuned ones, on undirected grids of exactly n vertices
//!   (weights 1..255; the time depends on n alone).
//! - `johnson`, the GPU Johnson article (its figure: Johnson's time against n): CPU and
//!   GPU Johnson on sparse digraphs with negative weights and no negative cycle (uniform,
//!   16n arcs), 1,024 to 16,384 vertices; and the article's parallel Dijkstra
//!   (`dijkstra-parallel`, Crauser's threshold) against the CPU's Dijkstra on
//!   2^16..2^22-vertex digraphs.
//! - `enterprise`, Enterprise (Liu and Huang, SC'15; its Fig. 13): each GPU technique
//!   added in turn, in GTEPS on Kronecker and R-MAT graphs, beside the CPU's BFS, 16 roots.
//! - `mst`, Vineet et al.'s GPU MST: minimum spanning forests by the CPU's Kruskal and
//!   parallel Borůvka on uniform, R-MAT, SSCA#2 and grid graphs (GTgraph's families and a
//!   road-like grid), beside the GPU's Borůvka.
//!
//! A method that refuses a graph (ELL's padding on a skewed graph, a matrix too big for
//! the GPU) shows its reason in its cell instead of a figure. Beside every cell, the
//! peak host memory of its runs (`warpgraph::bench::MemoryPeak`); beside a GPU cell, the
//! device memory the method allocates by the library's own figure (`gpu_bytes_needed`:
//! the bytes it checks against free memory before allocating) and the sampled peak (a
//! lower bound).

mod cell;
mod enterprise;
mod floyd_warshall;
mod johnson;
mod measure;
mod mst;
mod report;
mod sssp;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use warpgraph::cuda::Gpu;
use warpgraph::device::Device;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::Graph;

use crate::cmd::common::resolve_device;
use crate::plot::Figure;
use cell::Cell;

/// A paper whose experiments `reproduce` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paper {
    /// The name `--paper` takes, which also names its output files (`sssp`).
    pub name: &'static str,
    /// The number `--paper` also takes (`000`).
    pub number: &'static str,
    /// What it is, as a sentence names it ("the CUDA SSSP thesis").
    pub title: &'static str,
}

impl Paper {
    /// The paper named `name` or numbered so.
    pub fn find(name: &str) -> Option<Paper> {
        PAPERS
            .iter()
            .copied()
            .find(|p| p.name == name || p.number == name)
    }

    /// The title as a heading starts it ("The CUDA SSSP thesis").
    fn heading(&self) -> String {
        let mut c = self.title.chars();
        c.next()
            .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
    }
}

/// The papers `reproduce` knows, in the order `all` runs them.
pub const PAPERS: [Paper; 5] = [
    Paper {
        name: "sssp",
        number: "000",
        title: "the CUDA SSSP thesis",
    },
    Paper {
        name: "floyd-warshall",
        number: "001",
        title: "the GPU Floyd-Warshall article",
    },
    Paper {
        name: "johnson",
        number: "002",
        title: "the GPU Johnson article",
    },
    Paper {
        name: "enterprise",
        number: "003",
        title: "Enterprise (Liu and Huang, SC'15)",
    },
    Paper {
        name: "mst",
        number: "004",
        title: "Vineet et al.'s GPU MST",
    },
];

/// What `bench reproduce` was asked.
pub struct ReproduceArgs {
    pub paper: String,
    pub quick: bool,
    pub sizes: Option<Vec<usize>>,
    pub trials: Option<usize>,
    pub root_seed: u64,
    pub device: Device,
    pub json_out: Option<PathBuf>,
    pub plots: Option<PathBuf>,
    pub graph_given: bool,
}

/// One run of the command: where it runs, what it has measured and printed so far.
struct Run<'a> {
    args: &'a ReproduceArgs,
    /// The resolved device, and its GPU when it is one.
    device: Device,
    gpu: Option<Arc<Gpu>>,
    /// The paper being reproduced.
    paper: Paper,
    /// Everything printed, as Markdown.
    markdown: String,
    cells: Vec<Cell>,
    figures: Vec<Figure>,
}

/// A method of an experiment: its column name and where it runs.
struct Method<T> {
    name: String,
    on_gpu: bool,
    what: T,
}

impl<T> Method<T> {
    fn cpu(name: impl Into<String>, what: T) -> Self {
        Method {
            name: name.into(),
            on_gpu: false,
            what,
        }
    }
    fn gpu(name: impl Into<String>, what: T) -> Self {
        Method {
            name: name.into(),
            on_gpu: true,
            what,
        }
    }
}

/// The graph of the cells being measured ([`Run::at`]).
struct At {
    experiment: &'static str,
    graph: String,
    vertices: u64,
    edges: u64,
    /// The GPU's free bytes before the graph went onto it.
    gpu_base: Option<u64>,
}

pub fn run(args: &ReproduceArgs, quiet: bool) -> Result<()> {
    if args.graph_given {
        bail!("reproduce generates its own graphs: give no graph");
    }
    let papers: Vec<Paper> = match (args.paper.as_str(), Paper::find(&args.paper)) {
        ("all", _) => PAPERS.to_vec(),
        (_, Some(p)) => vec![p],
        (p, None) => bail!(
            "reproduce knows the papers {} and all, not '{p}'",
            PAPERS.map(|p| p.name).join(", ")
        ),
    };
    if args.sizes.is_some()
        && !papers
            .iter()
            .any(|p| matches!(p.name, "floyd-warshall" | "johnson"))
    {
        bail!(
            "--sizes is for the papers floyd-warshall and johnson (the numbers of vertices); \
             the others take --quick"
        );
    }
    if let Some(&bad) = args.sizes.iter().flatten().find(|&&n| n < 2) {
        bail!("--sizes: {bad} vertices is too few for the experiment");
    }
    let dir = match (&args.plots, &args.json_out) {
        (Some(d), _) => d.clone(),
        (None, Some(j)) => j.parent().unwrap_or(Path::new("")).join("reproduce-out"),
        (None, None) => PathBuf::from("reproduce-out"),
    };
    let device = resolve_device(args.device, "the experiment", true, quiet)?;
    let gpu = device.gpu()?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut run = Run {
        args,
        device,
        gpu,
        paper: PAPERS[0],
        markdown: String::new(),
        cells: Vec::new(),
        figures: Vec::new(),
    };
    match &run.gpu {
        Some(g) => run.say(&format!(
            "GPU: {}; CPU: {}",
            g.describe(),
            Device::Cpu.describe()
        )),
        None => run.say(&format!(
            "CPU: {} (no GPU columns: add --device cuda on a machine with a GPU)",
            Device::Cpu.describe()
        )),
    }
    // A failure (not a refusal) ends the run, but what was measured is still written.
    let mut failure = None;
    for p in &papers {
        run.say("");
        run.paper = *p;
        let r = match p.name {
            "sssp" => run.sssp(),
            "floyd-warshall" => run.floyd_warshall(),
            "johnson" => run.johnson(),
            "enterprise" => run.enterprise(),
            _ => run.mst(),
        };
        if let Err(e) = r {
            failure = Some(e.context(format!("{} (--paper {})", p.title, p.name)));
            break;
        }
    }
    let stem = match papers.as_slice() {
        [one] => format!("results-{}", one.name),
        _ => "results-all".to_string(),
    };
    run.finish(&dir, &stem, &papers, failure.as_ref())?;
    failure.map_or(Ok(()), Err)
}

/// Generator options: integer weights 1..255 (GAPBS's), undirected or not.
fn weighted(undirected: bool) -> GenerateOptions {
    GenerateOptions {
        weights: WeightSpec::Int { lo: 1, hi: 255 },
        undirected,
        ..Default::default()
    }
}

/// Graph500's Kronecker graph.
fn kron(scale: u32, edge_factor: u32) -> Generator {
    Generator::Kronecker { scale, edge_factor }
}

/// R-MAT with Enterprise's (and GTgraph's) quadrants 0.45, 0.15, 0.15, 0.25.
fn rmat(scale: u32, edge_factor: u32) -> Generator {
    Generator::Rmat {
        scale,
        edge_factor,
        a: 0.45,
        b: 0.15,
        c: 0.15,
    }
}

/// An undirected grid of exactly `n` vertices (rows the largest divisor up to sqrt(n)),
/// weights 1..255.
fn grid_of(n: usize) -> Result<Graph> {
    let rows = (1..=(n as f64).sqrt() as usize)
        .rev()
        .find(|r| n % r == 0)
        .unwrap_or(1);
    let gen = Generator::Grid {
        rows: rows as u32,
        cols: (n / rows) as u32,
        remove: 0.0,
        shortcuts: 0,
    };
    Ok(generate(&gen, &weighted(true))?)
}
