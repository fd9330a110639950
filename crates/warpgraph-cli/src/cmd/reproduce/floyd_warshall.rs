//! The GPU Floyd-Warshall article's experiment (`--paper floyd-warshall`, its Table 1
//! and Fig. 5): time against n, the CPU's blocked version beside the GPU's naive,
//! blocked and tuned ones, on undirected grids of exactly n vertices.

use anyhow::Result;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{self, Backend};

use super::{grid_of, Method, Run};

impl Run<'_> {
    /// The GPU Floyd-Warshall article: time against n, CPU and every GPU variant.
    pub(super) fn floyd_warshall(&mut self) -> Result<()> {
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
}
