//! Trials: timed, verified runs of one algorithm (BFS and SSSP searches from given roots,
//! repeated spanning forests and all-pairs runs), each after one warm-up run, as the
//! library's [`Trial`]s. `bench` and `bench reproduce` time with them; the GPU teams'
//! benchmark times its single-GPU and CPU rows with them.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use warpgraph::bench::{edges_reached, Trial};
use warpgraph::cuda::Gpu;
use warpgraph::{apsp, bfs, mst, sssp, Graph, NoProgress, VertexId};

/// Runs `f` once to warm up, then once per item, verifying each result.
pub fn trials<T>(items: &[T], mut f: impl FnMut(&T) -> Result<Trial>) -> Result<Vec<Trial>> {
    if let Some(first) = items.first() {
        f(first).context("warm-up run")?;
    }
    items.iter().map(&mut f).collect()
}

/// Verified searches on `runner` from each of `roots`, after a warm-up, each tree borrowed
/// from [`bfs::BfsRunner::search`] (on a GPU the runner's own, page-locked: the time end to
/// end is the kernels' and the one copy's back to the host).
pub fn bfs_trials(
    g: &Graph,
    runner: &mut bfs::BfsRunner,
    roots: &[VertexId],
    warm_each: bool,
) -> Result<Vec<Trial>> {
    let mut scratch = bfs::BfsTree::default();
    trials(roots, |&s| {
        if warm_each {
            // `--warm-each`: the same search just before, untimed.
            runner.search(g, s, &mut scratch)?;
        }
        let (tree, times) = runner.search(g, s, &mut scratch)?;
        bfs::verify(g, tree)?;
        Ok(Trial {
            source: Some(g.ids().external(s)),
            seconds: times.seconds,
            kernel_seconds: times.kernel_seconds,
            reached: tree.reached(),
            edges: edges_reached(g, |v| tree.depth[v as usize] != bfs::UNREACHED),
            verified: true,
        })
    })
}

/// Verified SSSP runs of `algo` on `runner` from each of `roots`, after a warm-up.
pub fn sssp_trials(
    g: &Graph,
    runner: &mut sssp::SsspRunner,
    algo: &sssp::Algorithm,
    roots: &[VertexId],
) -> Result<Vec<Trial>> {
    trials(roots, |&s| {
        let (r, times) = runner.run(g, s, algo)?;
        sssp::verify(g, &r)?;
        let parent = r.parent();
        Ok(Trial {
            source: Some(g.ids().external(s)),
            seconds: times.seconds,
            kernel_seconds: times.kernel_seconds,
            reached: r.reached(),
            edges: edges_reached(g, |v| parent[v as usize] != warpgraph::NO_VERTEX),
            verified: true,
        })
    })
}

/// What [`mst_trials`] returns beside the trials of a GPU: the upload's seconds and each
/// trial's statistics.
pub type MstOnGpu = (f64, Vec<mst::cuda::MstStats>);

/// `count` verified minimum-spanning-forest runs of `algo` (on `gpu` when given: uploaded
/// once, and the upload's seconds returned with each trial's GPU statistics), after a
/// warm-up. A trial's `edges` is the graph's edge count, so that its rate is edges per
/// second.
pub fn mst_trials(
    g: &Graph,
    algo: mst::Algorithm,
    gpu: Option<&Arc<Gpu>>,
    count: usize,
) -> Result<(Vec<Trial>, Option<MstOnGpu>)> {
    let reps: Vec<usize> = (0..count).collect();
    let trial =
        |f: &mst::SpanningForest, seconds: f64, kernel_seconds: Option<f64>| -> Result<Trial> {
            mst::verify(g, f)?;
            Ok(Trial {
                source: None,
                seconds,
                kernel_seconds,
                reached: f.edges.len() as u64,
                edges: g.num_edges(),
                verified: true,
            })
        };
    match gpu {
        Some(gpu) => {
            if algo != mst::Algorithm::Boruvka {
                bail!("on a GPU the MST algorithm is boruvka ({algo} runs on the CPU only)");
            }
            let mut prepared = mst::cuda::GpuMst::new(gpu, g)?;
            let upload = prepared.upload_seconds();
            let mut stats = Vec::with_capacity(count + 1);
            let t = trials(&reps, |_| {
                let (f, s) = prepared.run()?;
                stats.push(s);
                trial(&f, s.times.total_seconds, Some(s.times.kernel_seconds))
            })?;
            // The warm-up's first.
            stats.remove(0);
            Ok((t, Some((upload, stats))))
        }
        None => {
            let t = trials(&reps, |_| {
                let start = Instant::now();
                let f = mst::mst(g, algo)?;
                trial(&f, start.elapsed().as_secs_f64(), None)
            })?;
            Ok((t, None))
        }
    }
}

/// `count` verified APSP runs of `algo` on `backend`, after a warm-up.
pub fn apsp_trials(
    g: &Graph,
    algo: apsp::Algorithm,
    backend: apsp::Backend<'_>,
    count: usize,
) -> Result<Vec<Trial>> {
    let reps: Vec<usize> = (0..count).collect();
    trials(&reps, |_| {
        let mut sink = apsp::MatrixSink::new();
        let start = Instant::now();
        let s = apsp::apsp_on(
            g,
            algo,
            &apsp::ApspOptions::default(),
            backend,
            &mut sink,
            &NoProgress,
        )?;
        let seconds = start.elapsed().as_secs_f64();
        apsp::verify_matrix(g, &sink.into_matrix()?)?;
        Ok(Trial {
            source: None,
            seconds,
            kernel_seconds: s.kernel_seconds,
            reached: s.reachable_pairs,
            edges: 0,
            verified: true,
        })
    })
}
