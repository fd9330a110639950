//! The GPU Johnson article's experiments (`--paper johnson`): Johnson's all-pairs time
//! against n on digraphs with negative weights and no negative cycle, and the article's
//! parallel Dijkstra (Crauser's threshold) against the CPU's Dijkstra.

use anyhow::Result;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{self, Backend};
use warpgraph::generate::{generate, Generator};

use super::{weighted, Method, Run};
use crate::cmd::generate::{potentials, with_potentials};

impl Run<'_> {
    /// The GPU Johnson article: Johnson's time against n (negative weights), and its
    /// parallel Dijkstra.
    pub(super) fn johnson(&mut self) -> Result<()> {
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
}

#[cfg(test)]
mod tests {
    use warpgraph::apsp;
    use warpgraph::generate::{generate, Generator};

    use crate::cmd::generate::{potentials, with_potentials};
    use crate::cmd::reproduce::weighted;

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
}
