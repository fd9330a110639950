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
//! peak host memory of its runs ([`MemoryPeak`]); beside a GPU cell, the device memory the
//! method allocates by the library's own figure (`gpu_bytes_needed`: the bytes it checks
//! against free memory before allocating) and the sampled peak (a lower bound).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{self, Backend};
use warpgraph::bench::{harmonic_mean_teps, measure_memory, pick_sources, MemoryPeak, Summary};
use warpgraph::bench::{Trial, GPU_SAMPLE_INTERVAL};
use warpgraph::bfs::{cuda::Variant, BfsRunner};
use warpgraph::cuda::Gpu;
use warpgraph::device::Device;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::sssp::{self, SsspRunner};
use warpgraph::{mst, Graph};

use crate::cmd::common::resolve_device;
use crate::cmd::generate::{potentials, with_potentials};
use crate::cmd::trials::{apsp_trials, bfs_trials, mst_trials, sssp_trials};
use crate::plot::{Bars, Chart, Figure, Line};

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

/// One method on one graph: its trials, or why it refused, and its memory.
#[derive(Serialize)]
struct Cell {
    /// The paper (`johnson`).
    paper: &'static str,
    /// Which of its experiments (`johnson`, `johnson-dijkstra`): a table and a figure
    /// each.
    experiment: &'static str,
    graph: String,
    vertices: u64,
    edges: u64,
    method: String,
    device: String,
    trials: Vec<Trial>,
    median_seconds: Option<f64>,
    median_kernel_seconds: Option<f64>,
    /// Traversals: Graph500's harmonic mean, billions of edges a second, end to end.
    gteps: Option<f64>,
    /// The same by kernel time (GPU).
    kernel_gteps: Option<f64>,
    memory: MemoryPeak,
    /// GPU methods: the device bytes the method allocates (graph, working memory, result
    /// buffers), by the library's estimator for it, the figure it checks against free
    /// memory before allocating; `None` on the CPU or where the method refuses the graph.
    gpu_bytes_needed: Option<u64>,
    refused: Option<String>,
}

/// What a table shows of a cell.
#[derive(Clone, Copy)]
enum Metric {
    /// Median milliseconds (GPU: kernels / end to end).
    Millis,
    /// Harmonic-mean GTEPS (GPU: kernels / end to end).
    Gteps,
}

impl Cell {
    /// Milliseconds or GTEPS as a table cell: kernels / end to end on a GPU.
    fn text(&self, metric: Metric) -> String {
        if let Some(why) = &self.refused {
            // The first clause (the rest, often long, is in the JSON).
            return format!("refused ({})", why.split(": ").next().unwrap_or(why));
        }
        let (kernels, all) = match metric {
            Metric::Millis => (
                self.median_kernel_seconds.map(|s| s * 1e3),
                self.median_seconds.map(|s| s * 1e3),
            ),
            Metric::Gteps => (self.kernel_gteps, self.gteps),
        };
        match (kernels, all) {
            (Some(k), Some(s)) => format!("{} / {}", sig(k), sig(s)),
            (None, Some(s)) => sig(s),
            _ => "-".into(),
        }
    }

    /// Memory as a table cell, MiB: the host peak; on a GPU, then the method's device
    /// allocation and, in brackets, the sampled device peak.
    fn memory_text(&self) -> String {
        let mib = |b: Option<u64>| b.map_or("-".to_string(), |b| sig(b as f64 / 1048576.0));
        let host = mib(self.memory.host_peak_bytes);
        match (self.gpu_bytes_needed, self.memory.gpu_sampled_peak_bytes) {
            (None, None) => host,
            (needed, sampled) => format!("{host} / {} ({})", mib(needed), mib(sampled)),
        }
    }

    /// The figure a chart draws for this cell: (paper's metric, end to end) where the
    /// paper's metric is the kernel time on a GPU; `None` when refused.
    fn plotted(&self, metric: Metric) -> Option<(f64, Option<f64>)> {
        let (kernels, all) = match metric {
            Metric::Millis => (
                self.median_kernel_seconds.map(|s| s * 1e3),
                self.median_seconds.map(|s| s * 1e3),
            ),
            Metric::Gteps => (self.kernel_gteps, self.gteps),
        };
        match kernels {
            Some(k) => Some((k, all)),
            None => all.map(|a| (a, None)),
        }
    }
}

/// A number with three significant digits (thousands grouped): 0.0123, 4.56, 789, 12,345.
fn sig(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() >= 1000.0 {
        let s = format!("{:.0}", v);
        let (sign, digits) = s.split_at(usize::from(s.starts_with('-')));
        let mut out = sign.to_string();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        return out;
    }
    let decimals = if v == 0.0 {
        0
    } else {
        (2 - v.abs().log10().floor() as i32).max(0) as usize
    };
    format!("{v:.decimals$}")
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

impl Run<'_> {
    /// Prints a line and keeps it for the Markdown file. A closed stdout (`| head`) is no
    /// error: the run goes on and its files are still written.
    fn say(&mut self, line: &str) {
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "{line}");
        self.markdown.push_str(line);
        self.markdown.push('\n');
    }

    /// Prints a table's header: `what` names the first column.
    fn header<T>(&mut self, what: &str, methods: &[Method<T>]) {
        let names: Vec<&str> = methods.iter().map(|m| m.name.as_str()).collect();
        self.say(&format!("| {what} | {} |", names.join(" | ")));
        self.say(&format!("|---|{}", "---|".repeat(names.len())));
    }

    /// Prints the row of the last `count` cells.
    fn print_row(&mut self, label: &str, count: usize, metric: Metric) {
        let mut line = format!("| {label} |");
        for c in &self.cells[self.cells.len() - count..] {
            let _ = write!(line, " {} |", c.text(metric));
        }
        self.say(&line);
    }

    /// Prints the peak memory of `experiment`'s cells, laid out as its time table.
    fn memory_table(&mut self, experiment: &str, what: &str) {
        let cells: Vec<&Cell> = self
            .cells
            .iter()
            .filter(|c| c.experiment == experiment)
            .collect();
        let methods = first_seen(cells.iter().map(|c| c.method.as_str()));
        let graphs = first_seen(cells.iter().map(|c| c.graph.as_str()));
        let mut lines = vec![
            String::new(),
            format!(
                "Peak memory, MiB: the host's (the process's resident set); GPU cells read \
                 \"host / allocated (sampled)\": allocated, the device memory the method \
                 allocates by the library's own figure (the one it checks against free \
                 memory before allocating); sampled, the device memory in use beyond the \
                 baseline, sampled every {} ms (a lower bound: short runs read 0)",
                GPU_SAMPLE_INTERVAL.as_secs_f64() * 1e3
            ),
            String::new(),
            format!("| {what} | {} |", methods.join(" | ")),
            format!("|---|{}", "---|".repeat(methods.len())),
        ];
        for g in &graphs {
            let mut line = format!("| {g} |");
            for m in &methods {
                let text = cells
                    .iter()
                    .find(|c| c.graph == *g && c.method == *m)
                    .map_or("-".to_string(), |c| c.memory_text());
                let _ = write!(line, " {text} |");
            }
            lines.push(line);
        }
        for l in lines {
            self.say(&l);
        }
    }

    /// Where the next cells are measured: `experiment` on graph `g` (called `graph`),
    /// taking the GPU's free memory now as the baseline of their GPU memory (call it
    /// before putting the graph on the GPU).
    fn at(&self, experiment: &'static str, graph: &str, g: &Graph) -> Result<At> {
        Ok(At {
            experiment,
            graph: graph.into(),
            vertices: g.num_vertices() as u64,
            edges: g.num_edges(),
            gpu_base: match &self.gpu {
                Some(gpu) => Some(gpu.free_bytes()?),
                None => None,
            },
        })
    }

    /// Runs `work` (method `m`'s trials where `at` says) measuring its memory, and keeps
    /// the cell with the device bytes `needed` by a GPU method (its library estimator, not
    /// called for a CPU method; an estimate that fails, as a refusal does, is left out); a
    /// refusal (an invalid or unsupported combination, too little memory) becomes the
    /// cell's text, any other error ends the run.
    fn measure<T>(
        &mut self,
        at: &At,
        m: &Method<T>,
        needed: impl FnOnce() -> warpgraph::Result<u64>,
        work: impl FnOnce() -> Result<Vec<Trial>>,
    ) -> Result<()> {
        let gpu_bytes_needed = if m.on_gpu { needed().ok() } else { None };
        let sampled = match (&self.gpu, at.gpu_base) {
            (Some(gpu), Some(base)) if m.on_gpu => Some((&**gpu, base)),
            _ => None,
        };
        let (r, memory) = measure_memory(sampled, work);
        let (trials, refused) = match r {
            Ok(t) => (t, None),
            Err(e) => match e.downcast_ref::<warpgraph::Error>() {
                Some(
                    warpgraph::Error::InvalidArgument(why) | warpgraph::Error::Unsupported(why),
                ) => (Vec::new(), Some(why.clone())),
                Some(oom @ warpgraph::Error::OutOfMemory { .. }) => {
                    (Vec::new(), Some(oom.to_string()))
                }
                _ => return Err(e.context(format!("{} on {}", m.name, at.graph))),
            },
        };
        let median = |f: &dyn Fn(&Trial) -> Option<f64>| {
            let t: Vec<f64> = trials.iter().filter_map(f).collect();
            Summary::of(&t).map(|s| s.median)
        };
        let device = match (&self.gpu, m.on_gpu) {
            (Some(gpu), true) => gpu.describe(),
            _ => Device::Cpu.describe(),
        };
        self.cells.push(Cell {
            paper: self.paper.name,
            experiment: at.experiment,
            graph: at.graph.clone(),
            vertices: at.vertices,
            edges: at.edges,
            method: m.name.clone(),
            device,
            median_seconds: median(&|t| Some(t.seconds)),
            median_kernel_seconds: median(&|t| t.kernel_seconds),
            gteps: harmonic_mean_teps(&trials, false).map(|t| t / 1e9),
            kernel_gteps: harmonic_mean_teps(&trials, true).map(|t| t / 1e9),
            trials,
            memory,
            gpu_bytes_needed,
            refused,
        });
        Ok(())
    }

    /// A line chart of `experiment`'s cells against their vertex counts, a line per
    /// method (GPU methods: kernels solid, end to end dashed); the figure is named after
    /// the experiment.
    fn lines(&mut self, experiment: &str, title: &str, note: &str) {
        let cells: Vec<&Cell> = self
            .cells
            .iter()
            .filter(|c| c.experiment == experiment)
            .collect();
        let mut lines = Vec::new();
        for (color, m) in first_seen(cells.iter().map(|c| c.method.as_str()))
            .into_iter()
            .enumerate()
        {
            let of_m: Vec<&&Cell> = cells.iter().filter(|c| c.method == m).collect();
            let gpu = of_m.iter().any(|c| c.median_kernel_seconds.is_some());
            let points = |f: &dyn Fn(&Cell) -> Option<f64>| -> Vec<(f64, f64)> {
                of_m.iter()
                    .filter_map(|c| Some((c.vertices as f64, f(c)? * 1e3)))
                    .collect()
            };
            if gpu {
                lines.push(Line {
                    name: format!("{m}, kernels"),
                    color,
                    dashed: false,
                    points: points(&|c| c.median_kernel_seconds),
                });
                lines.push(Line {
                    name: format!("{m}, end to end"),
                    color,
                    dashed: true,
                    points: points(&|c| c.median_seconds),
                });
            } else {
                lines.push(Line {
                    name: m.to_string(),
                    color,
                    dashed: false,
                    points: points(&|c| c.median_seconds),
                });
            }
        }
        self.figures.push(Figure {
            name: experiment.to_string(),
            title: title.into(),
            note: note.into(),
            y_label: "time (ms, median)".into(),
            chart: Chart::Lines {
                x_label: "vertices (n)".into(),
                lines,
            },
        });
    }

    /// A bar chart of `experiment`'s cells: a group per graph, a bar per method (GPU:
    /// the kernels, a tick at end to end); the figure is named after the experiment.
    fn bars(&mut self, experiment: &str, title: &str, note: &str, metric: Metric) {
        let cells: Vec<&Cell> = self
            .cells
            .iter()
            .filter(|c| c.experiment == experiment)
            .collect();
        let groups = first_seen(cells.iter().map(|c| c.graph.as_str()));
        let bars = first_seen(cells.iter().map(|c| c.method.as_str()))
            .into_iter()
            .enumerate()
            .map(|(color, m)| Bars {
                name: m.to_string(),
                color,
                values: groups
                    .iter()
                    .map(|g| {
                        cells
                            .iter()
                            .find(|c| c.graph == *g && c.method == m)
                            .and_then(|c| c.plotted(metric))
                    })
                    .collect(),
            })
            .collect();
        let y_label = match metric {
            Metric::Millis => "time (ms, median)",
            Metric::Gteps => "GTEPS (10⁹ edges/s, harmonic mean)",
        };
        self.figures.push(Figure {
            name: experiment.to_string(),
            title: title.into(),
            note: note.into(),
            y_label: y_label.into(),
            chart: Chart::Bars {
                groups: groups.iter().map(|s| s.to_string()).collect(),
                bars,
                tick: "GPU end to end".into(),
            },
        });
    }

    /// Writes the figures, the Markdown and the JSON (with the `failure` that ended the
    /// run early, if one did).
    fn finish(
        mut self,
        dir: &Path,
        stem: &str,
        papers: &[Paper],
        failure: Option<&anyhow::Error>,
    ) -> Result<()> {
        let mut written = Vec::new();
        let mut links = String::from("\n## Figures\n\n");
        for f in &self.figures {
            let files = f.write(dir)?;
            if files.is_empty() {
                let _ = writeln!(
                    links,
                    "- {}: nothing to draw (every method refused)",
                    f.title
                );
            } else {
                let _ = writeln!(links, "![{}]({}.svg)\n", f.title, f.name);
            }
            written.extend(files);
        }
        self.markdown.push_str(&links);
        let md = dir.join(format!("{stem}.md"));
        std::fs::write(&md, &self.markdown).with_context(|| format!("writing {}", md.display()))?;
        let j = serde_json::json!({
            "papers": papers.iter().map(|p| p.name).collect::<Vec<_>>(),
            "failed": failure.map(crate::report),
            "quick": self.args.quick,
            "device": self.device.describe(),
            "gpu": self.gpu.as_ref().map(|g| g.describe()),
            "cpu": Device::Cpu.describe(),
            "memory": {
                "host": "the process's peak resident set (VmHWM) during the cell's runs, the \
                         warm-up included; the mark is reset at the cell's start \
                         (/proc/self/clear_refs) unless host_peak_since_start",
                "gpu_bytes_needed": "GPU cells: the device bytes the method allocates (the \
                         graph, its working memory and result buffers), computed by the \
                         library's estimator for it from the same plan and figures the \
                         method checks against free memory before allocating; null on the \
                         CPU and where the method refuses the graph",
                "gpu_sampled_peak_bytes": format!(
                    "GPU cells: the most device memory in use beyond the free memory before \
                     the graph went onto the GPU, sampled every {} ms while the cell ran (a \
                     lower bound, often 0 for short runs; the whole device)",
                    GPU_SAMPLE_INTERVAL.as_secs_f64() * 1e3
                ),
            },
            "figures": written,
            "cells": self.cells,
        });
        let text = serde_json::to_string_pretty(&j)?;
        let mut jsons = vec![dir.join(format!("{stem}.json"))];
        jsons.extend(self.args.json_out.clone());
        for path in &jsons {
            std::fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
        }
        self.say(&format!(
            "\nwrote {} figures (SVG and PNG), {stem}.md and {stem}.json to {}",
            written.len() / 2,
            dir.display()
        ));
        Ok(())
    }

    /// One table row of SSSP methods (algorithm names) on `g` (called `name`, its row
    /// `label`), from `roots` random roots; one upload per device, shared by its methods.
    fn sssp_row(
        &mut self,
        experiment: &'static str,
        name: &str,
        label: &str,
        g: &Graph,
        methods: &[Method<&str>],
        roots: usize,
    ) -> Result<()> {
        let roots = pick_sources(g, roots, self.args.root_seed);
        let at = self.at(experiment, name, g)?;
        let mut gpu_runner = match &self.gpu {
            Some(_) => Some(SsspRunner::new(self.device, g)?),
            None => None,
        };
        let mut cpu_runner = SsspRunner::new(Device::Cpu, g)?;
        for m in methods {
            let algo: sssp::Algorithm = m.what.parse()?;
            let runner = match (m.on_gpu, gpu_runner.as_mut()) {
                (true, Some(r)) => r,
                _ => &mut cpu_runner,
            };
            let needed = || sssp::cuda::bytes_needed_for(g, &algo);
            self.measure(&at, m, needed, || sssp_trials(g, runner, &algo, &roots))?;
        }
        self.print_row(label, methods.len(), Metric::Millis);
        Ok(())
    }

    /// One table row (labelled with the vertex count) of all-pairs `algo` on `g` (called
    /// `name`) on each backend of `methods`, `trials` runs each.
    fn apsp_row(
        &mut self,
        experiment: &'static str,
        name: &str,
        g: &Graph,
        algo: apsp::Algorithm,
        methods: &[Method<Backend<'_>>],
        trials: usize,
    ) -> Result<()> {
        let at = self.at(experiment, name, g)?;
        let opts = apsp::ApspOptions::default();
        for m in methods {
            let needed = || match (algo, m.what) {
                (apsp::Algorithm::Johnson, Backend::Cuda(gpu, _)) => {
                    apsp::cuda::johnson_bytes(gpu, g, &opts)
                }
                _ => apsp::cuda::floyd_warshall_bytes(g, &opts),
            };
            self.measure(&at, m, needed, || apsp_trials(g, algo, m.what, trials))?;
        }
        self.print_row(&g.num_vertices().to_string(), methods.len(), Metric::Millis);
        Ok(())
    }

    /// The CUDA SSSP thesis: every SSSP variant, GPU and CPU, on three graph families.
    fn sssp(&mut self) -> Result<()> {
        let scale = if self.args.quick { 12 } else { 22 };
        let trials = self.args.trials.unwrap_or(4);
        let mut methods: Vec<Method<&str>> = Vec::new();
        if self.gpu.is_some() {
            for a in [
                "auto",
                "delta-stepping",
                "dijkstra-parallel",
                "bellman-ford-queue",
                "bellman-ford",
                "spmv-csr",
                "spmv-ell",
            ] {
                methods.push(Method::gpu(format!("gpu {a}"), a));
            }
        }
        for a in ["delta-stepping", "dijkstra"] {
            methods.push(Method::cpu(format!("cpu {a}"), a));
        }
        self.say(&format!(
            "## {}, every SSSP variant: milliseconds (median over {trials} verified roots; \
             GPU: kernels / end to end), 2^{scale} vertices, weights 1..255",
            self.paper.heading()
        ));
        self.say("");
        self.header("graph", &methods);
        let side = 1u32 << (scale / 2);
        let graphs = [
            (
                format!("kron {scale}"),
                Generator::Kronecker {
                    scale,
                    edge_factor: 16,
                },
            ),
            (
                format!("urand {scale}"),
                Generator::Uniform {
                    vertices: 1 << scale,
                    edges: 16 << scale,
                },
            ),
            (
                format!("grid {side}x{side}"),
                Generator::Grid {
                    rows: side,
                    cols: side,
                    remove: 0.0,
                    shortcuts: 0,
                },
            ),
        ];
        for (name, gen) in graphs {
            let g = generate(&gen, &weighted(true))?;
            self.sssp_row("sssp", &name, &name, &g, &methods, trials)?;
        }
        self.memory_table("sssp", "graph");
        self.bars(
            "sssp",
            &format!("{}: SSSP variants, GPU and CPU", self.paper.heading()),
            &format!(
                "2^{scale} vertices, weights 1..255; bars: GPU kernels or CPU time, median of \
                 {trials} verified roots"
            ),
            Metric::Millis,
        );
        Ok(())
    }

    /// The GPU Floyd-Warshall article: time against n, CPU and every GPU variant.
    fn floyd_warshall(&mut self) -> Result<()> {
        let sizes = match (&self.args.sizes, self.args.quick) {
            (Some(s), _) => s.clone(),
            (None, true) => vec![10, 50, 100, 200, 300, 400, 500],
            (None, false) => {
                let mut s = vec![10, 50];
                s.extend((1..=10).map(|k| 100 * k));
                s.extend([2000, 4000, 8000]);
                s
            }
        };
        let trials = self.args.trials.unwrap_or(3);
        let gpu = self.gpu.clone();
        let mut methods: Vec<Method<Backend<'_>>> = vec![Method::cpu("cpu", Backend::Cpu)];
        if let Some(gpu) = &gpu {
            for v in [FwVariant::Tuned, FwVariant::Blocked, FwVariant::Naive] {
                methods.push(Method::gpu(format!("gpu {v}"), Backend::Cuda(gpu, v)));
            }
        }
        self.say(&format!(
            "## {}: milliseconds (median of {trials} verified runs; GPU: kernels / end to \
             end) on undirected grids of n vertices, weights 1..255",
            self.paper.heading()
        ));
        self.say("");
        self.header("n", &methods);
        for &n in &sizes {
            let g = grid_of(n)?;
            let name = format!("grid of {n}");
            let algo = apsp::Algorithm::FloydWarshall;
            self.apsp_row("floyd-warshall", &name, &g, algo, &methods, trials)?;
        }
        self.memory_table("floyd-warshall", "graph");
        self.lines(
            "floyd-warshall",
            &format!("{} (Fig. 5): time against vertices", self.paper.heading()),
            &format!("undirected grids, weights 1..255; median of {trials} verified runs"),
        );
        Ok(())
    }

    /// The GPU Johnson article: Johnson's time against n (negative weights), and its
    /// parallel Dijkstra.
    fn johnson(&mut self) -> Result<()> {
        let sizes = match (&self.args.sizes, self.args.quick) {
            (Some(s), _) => s.clone(),
            (None, true) => vec![128, 256, 512, 1024],
            (None, false) => vec![1024, 2048, 4096, 8192, 16384],
        };
        let trials = self.args.trials.unwrap_or(3);
        let gpu = self.gpu.clone();
        let mut methods: Vec<Method<Backend<'_>>> = vec![Method::cpu("cpu johnson", Backend::Cpu)];
        if let Some(gpu) = &gpu {
            methods.push(Method::gpu(
                "gpu johnson",
                Backend::Cuda(gpu, FwVariant::default()),
            ));
        }
        self.say(&format!(
            "## {}, Johnson: milliseconds (median of {trials} verified runs; GPU: \
             kernels / end to end) on uniform random digraphs of n vertices and 16n arcs, \
             weights 1..255 shifted by random potentials (8% of arcs negative, no \
             negative cycle)",
            self.paper.heading()
        ));
        self.say("");
        self.header("n", &methods);
        for &n in &sizes {
            let g = generate(
                &Generator::Uniform {
                    vertices: n as u64,
                    edges: 16 * n as u64,
                },
                &weighted(false),
            )?;
            let g = with_potentials(g, &potentials(n, 128, self.args.root_seed))?;
            let name = format!("urand n={n}");
            let algo = apsp::Algorithm::Johnson;
            self.apsp_row("johnson", &name, &g, algo, &methods, trials)?;
        }
        self.memory_table("johnson", "graph");
        self.lines(
            "johnson",
            &format!("{}: all-pairs time against vertices", self.paper.heading()),
            &format!(
                "uniform digraphs, 16n arcs, negative weights, no negative cycle; median of \
                 {trials} verified runs"
            ),
        );
        // The paper's parallel Dijkstra (Crauser's threshold) as single-source searches.
        let scales: &[u32] = if self.args.quick {
            &[10, 12]
        } else {
            &[16, 18, 20, 22]
        };
        let roots_n = self.args.trials.unwrap_or(4);
        let mut methods: Vec<Method<&str>> = Vec::new();
        if self.gpu.is_some() {
            methods.push(Method::gpu("gpu dijkstra-parallel", "dijkstra-parallel"));
        }
        methods.push(Method::cpu("cpu dijkstra", "dijkstra"));
        methods.push(Method::cpu("cpu delta-stepping", "delta-stepping"));
        self.say("");
        self.say(&format!(
            "{}'s parallel Dijkstra (every vertex within the least arc weight of the \
             minimum settled at once): milliseconds per source (median over {roots_n} \
             verified roots) on uniform random digraphs of 2^k vertices and 16n arcs, \
             weights 1..255",
            self.paper.heading()
        ));
        self.say("");
        self.header("n", &methods);
        for &s in scales {
            let g = generate(
                &Generator::Uniform {
                    vertices: 1 << s,
                    edges: 16 << s,
                },
                &weighted(false),
            )?;
            let name = format!("urand 2^{s}");
            self.sssp_row(
                "johnson-dijkstra",
                &name,
                &format!("2^{s}"),
                &g,
                &methods,
                roots_n,
            )?;
        }
        self.memory_table("johnson-dijkstra", "graph");
        self.lines(
            "johnson-dijkstra",
            &format!(
                "{}: parallel Dijkstra against the CPU's, time per source",
                self.paper.heading()
            ),
            &format!("uniform digraphs, 16n arcs, weights 1..255; median of {roots_n} roots"),
        );
        Ok(())
    }

    /// Enterprise: its techniques added in turn, in GTEPS, beside the CPU's BFS.
    fn enterprise(&mut self) -> Result<()> {
        let trials = self
            .args
            .trials
            .unwrap_or(if self.args.quick { 4 } else { 16 });
        let graphs: Vec<(String, Generator)> = if self.args.quick {
            vec![
                ("kron 14-16".into(), kron(14, 16)),
                ("rmat 14-16".into(), rmat(14, 16)),
            ]
        } else {
            vec![
                ("kron 21-128".into(), kron(21, 128)),
                ("kron 22-16".into(), kron(22, 16)),
                ("rmat 22-16".into(), rmat(22, 16)),
            ]
        };
        let mut methods: Vec<Method<Option<Variant>>> = Vec::new();
        if self.gpu.is_some() {
            for (v, label) in [
                (Variant::Baseline, "gpu baseline"),
                (Variant::Scheduling, "+ scheduling"),
                (Variant::Balancing, "+ balancing"),
                (Variant::Direction, "+ direction"),
                (Variant::Enterprise, "+ hub cache (Enterprise)"),
                (Variant::Tuned, "gpu tuned (beyond)"),
            ] {
                methods.push(Method::gpu(label, Some(v)));
            }
        }
        methods.push(Method::cpu("cpu bfs", None));
        self.say(&format!(
            "## {}, BFS (Fig. 13, its techniques added in turn): GTEPS (harmonic mean \
             over {trials} verified roots; GPU: kernels / end to end), undirected Kronecker \
             (A, B, C = 0.57, 0.19, 0.19) and R-MAT (0.45, 0.15, 0.15) graphs, named \
             scale-edge factor",
            self.paper.heading()
        ));
        self.say("");
        self.header("graph", &methods);
        let opts = GenerateOptions {
            undirected: true,
            ..Default::default()
        };
        for (name, gen) in graphs {
            let g = generate(&gen, &opts)?;
            let roots = pick_sources(&g, trials, self.args.root_seed);
            let at = self.at("enterprise", &name, &g)?;
            let mut gpu_runner = match &self.gpu {
                Some(_) => Some(BfsRunner::new(
                    self.device,
                    &g,
                    Default::default(),
                    Default::default(),
                )?),
                None => None,
            };
            let mut cpu_runner =
                BfsRunner::new(Device::Cpu, &g, Default::default(), Default::default())?;
            for m in &methods {
                let runner = match (m.what, gpu_runner.as_mut()) {
                    (Some(v), Some(r)) => {
                        if let BfsRunner::Cuda(_, o) = r {
                            *o = v.options();
                        }
                        r
                    }
                    _ => &mut cpu_runner,
                };
                let needed = || Ok(warpgraph::bfs::cuda::bytes_needed(&g));
                self.measure(&at, m, needed, || bfs_trials(&g, runner, &roots, false))?;
            }
            self.print_row(&name, methods.len(), Metric::Gteps);
        }
        self.memory_table("enterprise", "graph");
        self.bars(
            "enterprise",
            "Enterprise (Fig. 13): its techniques added in turn",
            &format!(
                "undirected Kronecker and R-MAT graphs; bars: GPU kernels or CPU, harmonic \
                 mean of {trials} verified roots"
            ),
            Metric::Gteps,
        );
        Ok(())
    }

    /// Vineet et al.'s GPU MST: minimum spanning forests on GTgraph's families and a grid.
    fn mst(&mut self) -> Result<()> {
        let trials = self.args.trials.unwrap_or(3);
        let (scale, ssca, side) = if self.args.quick {
            (14, 14, 128)
        } else {
            (22, 20, 2048)
        };
        let graphs = [
            (
                format!("urand {scale}"),
                Generator::Uniform {
                    vertices: 1 << scale,
                    edges: 6 << scale,
                },
            ),
            (format!("rmat {scale}-6"), rmat(scale, 6)),
            (
                format!("ssca2 {ssca}"),
                Generator::Ssca2 {
                    scale: ssca,
                    max_clique: warpgraph::generate::default_max_clique(ssca),
                    inter_prob: 0.5,
                },
            ),
            (
                format!("grid {side}x{side}"),
                Generator::Grid {
                    rows: side,
                    cols: side,
                    remove: 0.0,
                    shortcuts: 0,
                },
            ),
        ];
        let mut methods: Vec<Method<Option<mst::Algorithm>>> = Vec::new();
        if self.gpu.is_some() {
            methods.push(Method::gpu("gpu boruvka", None));
        }
        methods.push(Method::cpu("cpu boruvka", Some(mst::Algorithm::Boruvka)));
        methods.push(Method::cpu("cpu kruskal", Some(mst::Algorithm::Kruskal)));
        self.say(&format!(
            "## {}, minimum spanning forest: milliseconds (median of {trials} verified \
             runs) on undirected graphs, weights 1..255",
            self.paper.heading()
        ));
        self.say("");
        self.header("graph", &methods);
        for (name, gen) in graphs {
            let g = generate(&gen, &weighted(true))?;
            let at = self.at("mst", &name, &g)?;
            for m in &methods {
                let gpu = if m.what.is_none() {
                    self.gpu.clone()
                } else {
                    None
                };
                let algo = m.what.unwrap_or(mst::Algorithm::Boruvka);
                let needed = || Ok(mst::cuda::bytes_needed(&g));
                self.measure(&at, m, needed, || {
                    mst_trials(&g, algo, gpu.as_ref(), trials).map(|(t, _)| t)
                })?;
            }
            self.print_row(&name, methods.len(), Metric::Millis);
        }
        self.memory_table("mst", "graph");
        self.bars(
            "mst",
            &format!(
                "{}: minimum spanning forest, GPU and CPU, per graph family",
                self.paper.heading()
            ),
            &format!("weights 1..255; bars: median of {trials} verified runs"),
            Metric::Millis,
        );
        Ok(())
    }
}

/// The distinct values of `items`, in order of first appearance.
fn first_seen<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn potentials_shift_distances_by_their_difference_and_make_negative_arcs() {
        let n = 60;
        let g = generate(
            &Generator::Uniform {
                vertices: n as u64,
                edges: 600,
            },
            &weighted(false),
        )
        .unwrap();
        let before = apsp::apsp_matrix(&g, apsp::Algorithm::Johnson, &Default::default()).unwrap();
        let p = potentials(n, 128, 5);
        let h = with_potentials(g, &p).unwrap();
        let warpgraph::Weights::I32(w) = h.out().weights() else {
            panic!("i32 weights")
        };
        assert!(w.iter().any(|&x| x < 0), "some arcs negative");
        let after = apsp::apsp_matrix(&h, apsp::Algorithm::Johnson, &Default::default()).unwrap();
        let (a, b) = (before.as_i64().unwrap(), after.as_i64().unwrap());
        for u in 0..n {
            for v in 0..n {
                let want = match a[u * n + v] {
                    i64::MAX => i64::MAX,
                    d => d + i64::from(p[u] - p[v]),
                };
                assert_eq!(b[u * n + v], want, "{u} -> {v}");
            }
        }
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(sig(0.012345), "0.0123");
        assert_eq!(sig(4.567), "4.57");
        assert_eq!(sig(789.4), "789");
        assert_eq!(sig(12345.6), "12,346");
        assert_eq!(sig(0.0), "0");
    }
}
