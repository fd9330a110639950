//! How `reproduce` measures a cell: a method's trials on a graph with their memory (a
//! refusal kept as the cell's text), and the rows of SSSP and all-pairs methods.

use anyhow::Result;
use warpgraph::apsp::{self, Backend};
use warpgraph::bench::{harmonic_mean_teps, measure_memory, pick_sources, Summary, Trial};
use warpgraph::device::Device;
use warpgraph::sssp::{self, SsspRunner};
use warpgraph::Graph;

use super::cell::{Cell, Metric};
use super::{At, Method, Run};
use crate::cmd::trials::{apsp_trials, sssp_trials};

impl Run<'_> {
    /// Where the next cells are measured: `experiment` on graph `g` (called `graph`),
    /// taking the GPU's free memory now as the baseline of their GPU memory (call it
    /// before putting the graph on the GPU).
    pub(super) fn at(&self, experiment: &'static str, graph: &str, g: &Graph) -> Result<At> {
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
    pub(super) fn measure<T>(
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

    /// One table row of SSSP methods (algorithm names) on `g` (called `name`, its row
    /// `label`), from `roots` random roots; one upload per device, shared by its methods.
    pub(super) fn sssp_row(
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
    pub(super) fn apsp_row(
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
}
