//! Enterprise's experiment (`--paper enterprise`, Liu and Huang, SC'15, its Fig. 13):
//! the GPU BFS with each of its techniques added in turn, in GTEPS, beside the CPU's BFS,
//! on Kronecker and R-MAT graphs.

use anyhow::Result;
use warpgraph::bench::pick_sources;
use warpgraph::bfs::{cuda::Variant, BfsRunner};
use warpgraph::device::Device;
use warpgraph::generate::{generate, GenerateOptions, Generator};

use super::cell::Metric;
use super::{kron, rmat, Method, Run};
use crate::cmd::trials::bfs_trials;

impl Run<'_> {
    /// Enterprise: its techniques added in turn, in GTEPS, beside the CPU's BFS.
    pub(super) fn enterprise(&mut self) -> Result<()> {
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
}
