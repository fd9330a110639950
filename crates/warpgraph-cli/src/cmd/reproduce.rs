//! `warpgraph bench reproduce`: a seed paper's experiment, every method on the CPU and
//! (with a GPU) on the GPU in the same run, every result verified, as a Markdown table on
//! stdout and every trial as JSON.
//!
//! So far seed 001 (Floyd-Warshall, its Table 1 and Fig. 5): times against the number of
//! vertices for the CPU's blocked Floyd-Warshall and the GPU's naive, blocked and tuned
//! versions, on undirected grids of exactly n vertices (weights 1..255; Floyd-Warshall's
//! time depends on n alone).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{self, Backend};
use warpgraph::bench::{Summary, Trial};
use warpgraph::device::Device;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};

use crate::cmd::bench::apsp_trials;
use crate::cmd::common::resolve_device;

/// What `bench reproduce` was asked.
pub struct ReproduceArgs {
    pub paper: String,
    pub quick: bool,
    pub sizes: Option<Vec<usize>>,
    pub trials: usize,
    pub device: Device,
    pub json_out: Option<PathBuf>,
    pub graph_given: bool,
}

/// One method at one size.
#[derive(Serialize)]
struct Cell {
    vertices: usize,
    method: String,
    device: String,
    trials: Vec<Trial>,
    median_seconds: f64,
    median_kernel_seconds: Option<f64>,
}

pub fn run(args: &ReproduceArgs, quiet: bool) -> Result<()> {
    if args.graph_given {
        bail!("reproduce generates its own graphs: give no graph");
    }
    if args.paper != "001" {
        bail!(
            "reproduce knows seed paper 001 (Floyd-Warshall) so far, not '{}'",
            args.paper
        );
    }
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
    let device = resolve_device(args.device, "the Floyd-Warshall experiment", true, quiet)?;
    let gpu = match device {
        Device::Cuda(i) => Some(warpgraph::cuda::Gpu::open(i)?),
        _ => None,
    };
    let mut methods: Vec<(String, Backend<'_>)> = vec![("cpu".into(), Backend::Cpu)];
    if let Some(gpu) = &gpu {
        for v in [FwVariant::Tuned, FwVariant::Blocked, FwVariant::Naive] {
            methods.push((format!("gpu {v}"), Backend::Cuda(gpu, v)));
        }
    }
    println!(
        "Seed 001, Floyd-Warshall: milliseconds (median of {} verified runs; GPU: kernels / \
         end to end) on undirected grids of n vertices, weights 1..255",
        args.trials
    );
    match &gpu {
        Some(g) => println!("GPU: {}; CPU: {}", g.describe(), Device::Cpu.describe()),
        None => println!(
            "CPU: {} (no GPU columns: add --device cuda)",
            Device::Cpu.describe()
        ),
    }
    let mut header = "| n |".to_string();
    let mut rule = "|---|".to_string();
    for (m, _) in &methods {
        header += &format!(" {m} |");
        rule += "---|";
    }
    println!("{header}\n{rule}");
    let mut cells = Vec::new();
    for &n in &sizes {
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
        let g = generate(&gen, &opts)?;
        let mut line = format!("| {n} |");
        for (name, backend) in &methods {
            let trials = apsp_trials(&g, apsp::Algorithm::FloydWarshall, *backend, args.trials)
                .with_context(|| format!("{name} on {n} vertices"))?;
            let median = |f: &dyn Fn(&Trial) -> Option<f64>| {
                let t: Vec<f64> = trials.iter().filter_map(f).collect();
                Summary::of(&t).map(|s| s.median)
            };
            let secs = median(&|t| Some(t.seconds)).unwrap_or(0.0);
            let kernel = median(&|t| t.kernel_seconds);
            line += &match kernel {
                Some(k) => format!(" {:.3} / {:.3} |", k * 1e3, secs * 1e3),
                None => format!(" {:.3} |", secs * 1e3),
            };
            cells.push(Cell {
                vertices: n,
                method: name.clone(),
                device: match backend {
                    Backend::Cpu => Device::Cpu.describe(),
                    Backend::Cuda(g, _) => g.describe(),
                },
                trials,
                median_seconds: secs,
                median_kernel_seconds: kernel,
            });
        }
        println!("{line}");
    }
    if let Some(path) = &args.json_out {
        let j =
            serde_json::json!({ "paper": "001", "experiment": "floyd-warshall", "cells": cells });
        std::fs::write(path, serde_json::to_string_pretty(&j)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
