//! `warpgraph bench reproduce`: a seed paper's experiment, every method on the CPU and
//! (with a GPU) on the GPU in the same run, every result verified, as a Markdown table on
//! stdout and every trial as JSON.
//!
//! - Seed 000 (`--paper 000`): every SSSP variant on the GPU beside the CPU's
//!   delta-stepping and Dijkstra, on Kronecker, uniform and grid graphs of 2^22 vertices
//!   (2^12 with `--quick`), weights 1..255, from the same random roots.
//! - Seed 001 (`--paper 001`, its Table 1 and Fig. 5): Floyd-Warshall time against the
//!   number of vertices for the CPU's blocked version and the GPU's naive, blocked and
//!   tuned ones, on undirected grids of exactly n vertices (weights 1..255; the time
//!   depends on n alone).
//!
//! A method that refuses a graph (ELL's padding on a skewed graph) shows its reason in
//! its cell instead of a time.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{self, Backend};
use warpgraph::bench::{pick_sources, Summary, Trial};
use warpgraph::device::Device;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::sssp::{self, SsspRunner};
use warpgraph::Graph;

use crate::cmd::bench::{apsp_trials, sssp_trials};
use crate::cmd::common::resolve_device;

/// What `bench reproduce` was asked.
pub struct ReproduceArgs {
    pub paper: String,
    pub quick: bool,
    pub sizes: Option<Vec<usize>>,
    pub trials: Option<usize>,
    pub root_seed: u64,
    pub device: Device,
    pub json_out: Option<PathBuf>,
    pub graph_given: bool,
}

/// One method on one graph: its trials, or why it refused.
#[derive(Serialize)]
struct Cell {
    graph: String,
    method: String,
    device: String,
    trials: Vec<Trial>,
    median_seconds: Option<f64>,
    median_kernel_seconds: Option<f64>,
    refused: Option<String>,
}

impl Cell {
    /// The cell from trials (or a refusal, kept as its message).
    fn new(graph: &str, method: &str, device: String, r: Result<Vec<Trial>>) -> Result<Cell> {
        let (trials, refused) = match r {
            Ok(t) => (t, None),
            Err(e) => match e.downcast_ref::<warpgraph::Error>() {
                Some(warpgraph::Error::InvalidArgument(m)) => (Vec::new(), Some(m.clone())),
                _ => return Err(e.context(format!("{method} on {graph}"))),
            },
        };
        let median = |f: &dyn Fn(&Trial) -> Option<f64>| {
            let t: Vec<f64> = trials.iter().filter_map(f).collect();
            Summary::of(&t).map(|s| s.median)
        };
        Ok(Cell {
            graph: graph.into(),
            method: method.into(),
            device,
            median_seconds: median(&|t| Some(t.seconds)),
            median_kernel_seconds: median(&|t| t.kernel_seconds),
            trials,
            refused,
        })
    }

    /// Milliseconds as a table cell: kernels / end to end on a GPU.
    fn text(&self) -> String {
        match (
            self.median_kernel_seconds,
            self.median_seconds,
            &self.refused,
        ) {
            (_, _, Some(why)) => format!("refused ({})", why.split(':').next().unwrap_or(why)),
            (Some(k), Some(s), _) => format!("{:.3} / {:.3}", k * 1e3, s * 1e3),
            (None, Some(s), _) => format!("{:.3}", s * 1e3),
            _ => "-".into(),
        }
    }
}

pub fn run(args: &ReproduceArgs, quiet: bool) -> Result<()> {
    if args.graph_given {
        bail!("reproduce generates its own graphs: give no graph");
    }
    let device = resolve_device(args.device, "the experiment", true, quiet)?;
    let cells = match args.paper.as_str() {
        "000" => paper_000(args, device)?,
        "001" => paper_001(args, device)?,
        p => bail!(
            "reproduce knows seed papers 000 (SSSP) and 001 (Floyd-Warshall) so far, not '{p}'"
        ),
    };
    if let Some(path) = &args.json_out {
        let j = serde_json::json!({ "paper": args.paper, "cells": cells });
        std::fs::write(path, serde_json::to_string_pretty(&j)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Prints the table's header for `methods`, with `what` naming the first column.
fn header(what: &str, methods: &[String]) {
    println!("| {what} | {} |", methods.join(" | "));
    println!("|---|{}", "---|".repeat(methods.len()));
}

fn say_devices(gpu: Option<&std::sync::Arc<warpgraph::cuda::Gpu>>) {
    match gpu {
        Some(g) => println!("GPU: {}; CPU: {}", g.describe(), Device::Cpu.describe()),
        None => println!(
            "CPU: {} (no GPU columns: add --device cuda)",
            Device::Cpu.describe()
        ),
    }
}

fn paper_000(args: &ReproduceArgs, device: Device) -> Result<Vec<Cell>> {
    if args.sizes.is_some() {
        bail!("--sizes is for paper 001; paper 000 takes --quick");
    }
    let gpu = device.gpu()?;
    let scale = if args.quick { 12 } else { 22 };
    let trials = args.trials.unwrap_or(4);
    let gpu_algos = [
        "auto",
        "delta-stepping",
        "dijkstra-parallel",
        "bellman-ford-queue",
        "bellman-ford",
        "spmv-csr",
        "spmv-ell",
    ];
    let mut methods: Vec<(String, Device, &str)> = Vec::new();
    if gpu.is_some() {
        for a in gpu_algos {
            methods.push((format!("gpu {a}"), device, a));
        }
    }
    for a in ["delta-stepping", "dijkstra"] {
        methods.push((format!("cpu {a}"), Device::Cpu, a));
    }
    println!(
        "Seed 000, SSSP: milliseconds (median over {trials} verified roots; GPU: kernels / end \
         to end), 2^{scale} vertices, weights 1..255"
    );
    say_devices(gpu.as_ref());
    let names: Vec<String> = methods.iter().map(|m| m.0.clone()).collect();
    header("graph", &names);
    let opts = GenerateOptions {
        weights: WeightSpec::Int { lo: 1, hi: 255 },
        undirected: true,
        ..Default::default()
    };
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
    let mut cells = Vec::new();
    for (name, gen) in graphs {
        let g = generate(&gen, &opts)?;
        let roots = pick_sources(&g, trials, args.root_seed);
        let mut line = format!("| {name} |");
        // One upload per device, shared by its methods.
        let mut gpu_runner = match &gpu {
            Some(_) => Some(SsspRunner::new(device, &g)?),
            None => None,
        };
        let mut cpu_runner = SsspRunner::new(Device::Cpu, &g)?;
        for (method, dev, algo) in &methods {
            let algo: sssp::Algorithm = algo.parse()?;
            let runner = match dev {
                Device::Cuda(_) => gpu_runner.as_mut().expect("a GPU runner"),
                _ => &mut cpu_runner,
            };
            let r = sssp_trials(&g, runner, &algo, &roots);
            let cell = Cell::new(&name, method, dev.describe(), r)?;
            line += &format!(" {} |", cell.text());
            cells.push(cell);
        }
        println!("{line}");
    }
    Ok(cells)
}

fn paper_001(args: &ReproduceArgs, device: Device) -> Result<Vec<Cell>> {
    let sizes = match (&args.sizes, args.quick) {
        (Some(s), _) => s.clone(),
        (None, true) => vec![10, 50, 100, 200, 300, 400, 500],
        (None, false) => {
            let mut s = vec![10, 50];
            s.extend((1..=10).map(|k| 100 * k));
            s.extend([2000, 4000, 8000]);
            s
        }
    };
    if let Some(&bad) = sizes.iter().find(|&&n| n == 0) {
        bail!("--sizes: {bad} vertices is not a graph");
    }
    let gpu = device.gpu()?;
    let trials = args.trials.unwrap_or(3);
    let mut methods: Vec<(String, Backend<'_>)> = vec![("cpu".into(), Backend::Cpu)];
    if let Some(gpu) = &gpu {
        for v in [FwVariant::Tuned, FwVariant::Blocked, FwVariant::Naive] {
            methods.push((format!("gpu {v}"), Backend::Cuda(gpu, v)));
        }
    }
    println!(
        "Seed 001, Floyd-Warshall: milliseconds (median of {trials} verified runs; GPU: kernels \
         / end to end) on undirected grids of n vertices, weights 1..255"
    );
    say_devices(gpu.as_ref());
    let names: Vec<String> = methods.iter().map(|m| m.0.clone()).collect();
    header("n", &names);
    let mut cells = Vec::new();
    for &n in &sizes {
        let g = grid_of(n)?;
        let mut line = format!("| {n} |");
        for (name, backend) in &methods {
            let r = apsp_trials(&g, apsp::Algorithm::FloydWarshall, *backend, trials);
            let device = match backend {
                Backend::Cpu => Device::Cpu.describe(),
                Backend::Cuda(g, _) => g.describe(),
            };
            let cell = Cell::new(&format!("grid of {n}"), name, device, r)?;
            line += &format!(" {} |", cell.text());
            cells.push(cell);
        }
        println!("{line}");
    }
    Ok(cells)
}

/// An undirected grid of exactly `n` vertices (rows the largest divisor up to sqrt(n)),
/// weights 1..255.
fn grid_of(n: usize) -> Result<Graph> {
    let rows = (1..=(n as f64).sqrt() as usize)
        .rev()
        .find(|r| n % r == 0)
        .unwrap_or(1);
    let opts = GenerateOptions {
        weights: WeightSpec::Int { lo: 1, hi: 255 },
        undirected: true,
        ..Default::default()
    };
    let gen = Generator::Grid {
        rows: rows as u32,
        cols: (n / rows) as u32,
        remove: 0.0,
        shortcuts: 0,
    };
    Ok(generate(&gen, &opts)?)
}
