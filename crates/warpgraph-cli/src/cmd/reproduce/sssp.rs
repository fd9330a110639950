//! The CUDA SSSP thesis's experiment (`--paper sssp`): every SSSP variant on the GPU
//! beside the CPU's delta-stepping and Dijkstra, on Kronecker, uniform and grid graphs.

use anyhow::Result;
use warpgraph::generate::{generate, Generator};

use super::cell::Metric;
use super::{weighted, Method, Run};

impl Run<'_> {
    /// The CUDA SSSP thesis: every SSSP variant, GPU and CPU, on three graph families.
    pub(super) fn sssp(&mut self) -> Result<()> {
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
}
