//! Vineet et al.'s GPU MST experiment (`--paper mst`): minimum spanning forests by the
//! GPU's Borůvka beside the CPU's Borůvka and Kruskal, on GTgraph's families (uniform,
//! R-MAT, SSCA#2) and a road-like grid.

use anyhow::Result;
use warpgraph::generate::{generate, Generator};
use warpgraph::mst;

use super::cell::Metric;
use super::{rmat, weighted, Method, Run};
use crate::cmd::trials::mst_trials;

impl Run<'_> {
    /// Vineet et al.'s GPU MST: minimum spanning forests on GTgraph's families and a grid.
    pub(super) fn mst(&mut self) -> Result<()> {
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
                "{}: minimum spanning forest per graph family",
                self.paper.heading()
            ),
            &format!("weights 1..255; bars: median of {trials} verified runs"),
            Metric::Millis,
        );
        Ok(())
    }
}
