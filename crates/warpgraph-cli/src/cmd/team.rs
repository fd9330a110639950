//! `warpgraph bench bfs|apsp --gpus 1,2,4`: strong scaling over teams of GPUs (NCCL), the
//! single-GPU code of the same run beside them, and for BFS the CPU's too.

use std::hash::{Hash, Hasher};
use std::path::Path;

use anyhow::{bail, Context, Result};
use warpgraph::bench::{edges_reached, pick_sources, Report, Trial};
use warpgraph::cuda::team::TeamSpec;
use warpgraph::device::Device;
use warpgraph::{bfs, Graph};

use crate::args::{commas, Gpus};
use crate::cmd::bfs_common::{cpu_options, runner, team_ways, SwitchArgs};
use crate::cmd::trials::bfs_trials;

/// What `bench bfs|apsp --gpus` was asked, beside the graph and the team sizes.
pub struct TeamBenchArgs<'a> {
    /// APSP: the Floyd-Warshall variant (`fw-tuned` by default).
    pub algo: Option<&'a str>,
    /// BFS: roots (default 16); APSP: repetitions (default 3).
    pub trials: Option<usize>,
    /// Seed for picking roots.
    pub root_seed: u64,
    /// BFS: each timed search preceded by the same search, untimed.
    pub warm_each: bool,
    /// BFS: the direction switch.
    pub switch: SwitchArgs,
    /// Where every report goes as JSON, if anywhere.
    pub json_out: Option<&'a Path>,
}

/// What ran a row of the scaling table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    /// A team of this many GPUs.
    Team(usize),
    /// The single-GPU code on GPU 0.
    OneGpu,
    /// The CPU code on every core.
    Cpu,
}

impl Ran {
    /// The GPUs it ran on.
    fn gpus(self) -> usize {
        match self {
            Ran::Team(n) => n,
            Ran::OneGpu => 1,
            Ran::Cpu => 0,
        }
    }
}

/// One row of the scaling table.
struct Row {
    ran: Ran,
    report: Report,
}

/// Benchmarks BFS on a team of each size in `sizes`, then the single-GPU Enterprise on
/// GPU 0, then the CPU's direction-optimising BFS on every core, all from the same roots;
/// prints the table and writes every report to `--json-out`.
pub fn bench_bfs(g: &Graph, graph_name: &str, sizes: &[Gpus], args: &TeamBenchArgs) -> Result<()> {
    let roots = pick_sources(g, args.trials.unwrap_or(16), args.root_seed);
    if roots.is_empty() {
        bail!("no trials ran (the graph has no arcs to start from)");
    }
    let opts = cpu_options(None, args.switch);
    let mut rows = Vec::new();
    // Every team's trees hash alike when they are identical.
    let mut first_hashes: Option<Vec<u64>> = None;
    let mut identical = true;
    for &size in sizes {
        let spec = TeamSpec::from_env(size.resolve()?)?;
        // The first root twice: a warm-up, dropped; with --warm-each every root twice,
        // the first of each pair untimed.
        let each = if args.warm_each { 2 } else { 1 };
        let timed = |index: usize| index > 0 && index % each == 0;
        let searches: Vec<_> = [roots[0]]
            .iter()
            .chain(roots.iter().flat_map(|r| std::iter::repeat_n(r, each)))
            .map(|&s| (s, opts))
            .collect();
        let mut trials = Vec::new();
        let mut hashes = Vec::new();
        let mut ways = String::new();
        // One tree for every search, each verified before the next one writes over it.
        let mut tree = bfs::BfsTree::default();
        let ran = unless_refused(&spec.describe(), || {
            bfs::cuda::multi::bfs_team_visit(
                &spec,
                g,
                &searches,
                &Default::default(),
                &mut tree,
                |s| {
                    let Some(tree) = s.tree.filter(|_| timed(s.index)) else {
                        return Ok(());
                    };
                    bfs::verify(g, tree)?;
                    ways = team_ways(s);
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    (&tree.depth, &tree.parent).hash(&mut h);
                    hashes.push(h.finish());
                    trials.push(Trial {
                        source: Some(g.ids().external(tree.source)),
                        seconds: s.times.seconds,
                        kernel_seconds: s.times.kernel_seconds,
                        reached: tree.reached(),
                        edges: edges_reached(g, |v| tree.depth[v as usize] != bfs::UNREACHED),
                        verified: true,
                    });
                    Ok(())
                },
            )
            .with_context(|| format!("BFS on {}", spec.describe()))
        })?;
        let Some(setup) = ran else { continue };
        if !spec.has_root() {
            eprintln!("{}: done (the process of rank 0 reports)", spec.describe());
            continue;
        }
        match &first_hashes {
            None => first_hashes = Some(hashes),
            Some(first) => identical &= *first == hashes,
        }
        rows.push(Row {
            ran: Ran::Team(spec.world),
            report: report(
                g,
                graph_name,
                "bfs-team",
                format!("{}{ways}", spec.describe()),
                trials,
                setup,
            ),
        });
    }
    if rows.is_empty() {
        return Ok(());
    }
    // The single-GPU code (Enterprise, tuned) on GPU 0, same roots.
    let one_gpu = unless_refused("the single-GPU code", || {
        let mut gpu = runner(Device::Cuda(0), g, None, Default::default(), args.switch)?;
        let trials = bfs_trials(g, &mut gpu, &roots, args.warm_each)?;
        Ok((gpu.algorithm(), trials))
    })?;
    if let Some((name, trials)) = one_gpu {
        rows.push(Row {
            ran: Ran::OneGpu,
            report: report(
                g,
                graph_name,
                &name,
                Device::Cuda(0).describe(),
                trials,
                0.0,
            ),
        });
    }
    // The CPU code, every core, same roots.
    let mut cpu = runner(Device::Cpu, g, None, Default::default(), args.switch)?;
    let trials = bfs_trials(g, &mut cpu, &roots, false)?;
    rows.push(Row {
        ran: Ran::Cpu,
        report: report(
            g,
            graph_name,
            &cpu.algorithm(),
            Device::Cpu.describe(),
            trials,
            0.0,
        ),
    });
    print_table(g, graph_name, &rows, "GTEPS", |r| {
        r.kernel_harmonic_mean_teps
            .or(r.harmonic_mean_teps)
            .unwrap_or(0.0)
            / 1e9
    });
    println!(
        "every tree verified; the teams' trees (depths and parents) {} for every root",
        if identical { "are identical" } else { "DIFFER" }
    );
    println!(
        "(the CPU has no kernel time: its row's speed-ups compare its searches, trees in \
         host memory, with the one-GPU kernels)"
    );
    if args.warm_each {
        println!(
            "(--warm-each: on the GPUs each root was searched once more, untimed, just \
             before its timed search)"
        );
    }
    write_json(args, &rows)
}

/// Benchmarks Floyd-Warshall (`--algo` a GPU variant, fw-tuned by default) on a team of
/// each size in `sizes`, then on GPU 0 alone; every run's matrix must be identical (a
/// checksum of every cell in order).
pub fn bench_apsp(g: &Graph, graph_name: &str, sizes: &[Gpus], args: &TeamBenchArgs) -> Result<()> {
    use warpgraph::apsp::{self, cuda::FwVariant, Backend};
    let variant: FwVariant = args.algo.unwrap_or("fw-tuned").parse()?;
    let reps = args.trials.unwrap_or(3);
    let mut rows = Vec::new();
    let mut sums = Vec::new();
    let gpu0 = warpgraph::cuda::Gpu::open(0)?;
    let run = |backend: Backend<'_>| -> Result<(Vec<Trial>, u64)> {
        let mut trials = Vec::new();
        let mut sum = 0;
        // A warm-up first, dropped.
        for i in 0..=reps {
            let mut sink = ChecksumSink::default();
            let start = std::time::Instant::now();
            let s = apsp::apsp_on(
                g,
                apsp::Algorithm::FloydWarshall,
                &apsp::ApspOptions::default(),
                backend,
                &mut sink,
                &warpgraph::NoProgress,
            )?;
            sum = sink.sum;
            if i > 0 {
                trials.push(Trial {
                    source: None,
                    seconds: start.elapsed().as_secs_f64(),
                    kernel_seconds: s.kernel_seconds,
                    reached: s.reachable_pairs,
                    edges: 0,
                    verified: false,
                });
            }
        }
        Ok((trials, sum))
    };
    for &size in sizes {
        let spec = TeamSpec::from_env(size.resolve()?)?;
        let (trials, sum) = run(Backend::Team(&spec, variant))
            .with_context(|| format!("Floyd-Warshall on {}", spec.describe()))?;
        if !spec.has_root() {
            eprintln!("{}: done (the process of rank 0 reports)", spec.describe());
            continue;
        }
        sums.push(sum);
        let name = format!("floyd-warshall-team ({variant})");
        rows.push(Row {
            ran: Ran::Team(spec.world),
            report: report(g, graph_name, &name, spec.describe(), trials, 0.0),
        });
    }
    let (trials, sum) = run(Backend::Cuda(&gpu0, variant))?;
    sums.push(sum);
    let name = format!("floyd-warshall ({variant})");
    rows.push(Row {
        ran: Ran::OneGpu,
        report: report(g, graph_name, &name, gpu0.describe(), trials, 0.0),
    });
    let n = g.num_vertices() as f64;
    print_table(g, graph_name, &rows, "10^12 relaxations/s", |r| {
        r.kernel_summary
            .as_ref()
            .map_or(0.0, |k| n * n * n / k.median / 1e12)
    });
    println!(
        "every matrix {} the single GPU's, cell for cell (checksum {:016x})",
        if sums.iter().all(|&s| s == sums[0]) {
            "is identical to"
        } else {
            "DIFFERS from"
        },
        sums[sums.len() - 1]
    );
    write_json(args, &rows)
}

/// A checksum of every distance in row order (their positions mixed in), in parallel.
#[derive(Default)]
struct ChecksumSink {
    sum: u64,
}

impl warpgraph::apsp::RowSink for ChecksumSink {
    fn begin(&mut self, _info: &warpgraph::apsp::RowsInfo) -> warpgraph::Result<()> {
        self.sum = 0;
        Ok(())
    }
    fn rows(&mut self, block: &warpgraph::apsp::RowBlock<'_>) -> warpgraph::Result<()> {
        use rayon::prelude::*;
        use warpgraph::apsp::Dists;
        let base = block.first as u64 * block.row_len as u64;
        let mix = |i: usize, bits: u64| {
            let x = (bits ^ (base + i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x ^ (x >> 31)
        };
        let s: u64 = match block.dist {
            Dists::I64(d) => d
                .par_iter()
                .enumerate()
                .map(|(i, &v)| mix(i, v as u64))
                .reduce(|| 0, u64::wrapping_add),
            Dists::F64(d) => d
                .par_iter()
                .enumerate()
                .map(|(i, &v)| mix(i, v.to_bits()))
                .reduce(|| 0, u64::wrapping_add),
        };
        self.sum = self.sum.wrapping_add(s);
        Ok(())
    }
    fn finish(&mut self) -> warpgraph::Result<()> {
        Ok(())
    }
}

/// `run()`, or `None` where it was refused for memory (the graph does not fit its GPUs):
/// the refusal, with the bytes needed and free, is printed and the bench goes on with the
/// GPUs that can hold the graph. Any other error stays one.
fn unless_refused<T>(who: &str, run: impl FnOnce() -> Result<T>) -> Result<Option<T>> {
    match run() {
        Ok(t) => Ok(Some(t)),
        Err(e) if is_refusal(&e) => {
            println!("{who}: refused, {}", e.root_cause());
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Whether `e` is, or was caused by, a refusal for memory.
fn is_refusal(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<warpgraph::Error>(),
            Some(warpgraph::Error::OutOfMemory { .. })
        )
    })
}

/// A finished report of `trials` (BFS or APSP by the algorithm's name).
fn report(
    g: &Graph,
    graph_name: &str,
    algorithm: &str,
    device: String,
    trials: Vec<Trial>,
    setup: f64,
) -> Report {
    let problem = if algorithm.starts_with("bfs") {
        "bfs"
    } else {
        "apsp"
    };
    Report::new(
        problem,
        algorithm,
        device,
        (g, graph_name),
        trials,
        Some(setup),
    )
}

/// The scaling table: per row the medians (kernels and end to end; the CPU has only the
/// latter), the rate, and the speed-ups over the team of one and over the faster of it
/// and the single-GPU code (by kernel time; the CPU's by its own time).
fn print_table(
    g: &Graph,
    graph_name: &str,
    rows: &[Row],
    unit: &str,
    rate: impl Fn(&Report) -> f64,
) {
    println!(
        "{graph_name}: {} vertices, {} edges",
        commas(g.num_vertices() as u64),
        commas(g.num_edges())
    );
    print!("{}", table(rows, unit, rate));
}

/// The table of [`print_table`], without its heading.
fn table(rows: &[Row], unit: &str, rate: impl Fn(&Report) -> f64) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "| GPUs | code | median (kernels) | median (end to end) | {unit} | a GPU | speed-up over the team of 1 | over the fastest 1-GPU code |\n\
         |---|---|---|---|---|---|---|---|\n"
    );
    let kernels = |r: &Row| r.report.kernel_summary.as_ref().map(|s| s.median);
    let one = rows
        .iter()
        .find(|r| r.ran == Ran::Team(1))
        .and_then(kernels);
    // The strong scaling's honest baseline: the faster of the team of one and the
    // single-GPU code, by kernel time.
    let best = rows
        .iter()
        .filter(|r| r.ran.gpus() == 1)
        .filter_map(kernels)
        .min_by(f64::total_cmp);
    let ratio = |base: Option<f64>, t: f64| base.map_or("-".into(), |b| format!("{:.2}x", b / t));
    for r in rows {
        let k = r.report.kernel_summary.as_ref().map(|s| s.median);
        let e = r.report.summary.as_ref().map_or(f64::NAN, |s| s.median);
        let code = match r.ran {
            Ran::Team(_) => r.report.algorithm.clone(),
            Ran::OneGpu => format!("{} (single-GPU code)", r.report.algorithm),
            Ran::Cpu => format!("{} on {}", r.report.algorithm, r.report.device),
        };
        let t = k.unwrap_or(e);
        let gpus = r.ran.gpus();
        // Weak scaling's measure: the rate each GPU of the row keeps.
        let each = match gpus {
            0 => "-".into(),
            g => format!("{:.1}", rate(&r.report) / g as f64),
        };
        let _ = writeln!(
            out,
            "| {gpus} | {code} | {} | {:.3} ms | {:.1} | {each} | {} | {} |",
            k.map_or("-".into(), |k| format!("{:.3} ms", k * 1e3)),
            e * 1e3,
            rate(&r.report),
            ratio(one, t),
            ratio(best, t)
        );
    }
    out
}

fn write_json(args: &TeamBenchArgs, rows: &[Row]) -> Result<()> {
    if let Some(path) = args.json_out {
        let all: Vec<_> = rows
            .iter()
            .map(|r| serde_json::json!({"gpus": r.ran.gpus(), "team": matches!(r.ran, Ran::Team(_)), "report": r.report}))
            .collect();
        std::fs::write(path, serde_json::to_string_pretty(&all)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `ran` whose trials took `seconds` end to end and, on a GPU, `kernel`.
    fn row(g: &Graph, ran: Ran, name: &str, seconds: &[f64], kernel: Option<&[f64]>) -> Row {
        let trials = seconds
            .iter()
            .enumerate()
            .map(|(i, &s)| Trial {
                source: Some(0),
                seconds: s,
                kernel_seconds: kernel.map(|k| k[i]),
                reached: 2,
                edges: 1,
                verified: true,
            })
            .collect();
        Row {
            ran,
            report: report(g, "g", name, "dev".into(), trials, 0.0),
        }
    }

    #[test]
    fn the_table_puts_the_cpu_beside_the_teams() {
        let g = Graph::empty(2, true);
        let rows = [
            row(
                &g,
                Ran::Team(1),
                "bfs-team",
                &[0.010, 0.012, 0.011],
                Some(&[0.004, 0.004, 0.005]),
            ),
            row(&g, Ran::Team(2), "bfs-team", &[0.010; 3], Some(&[0.002; 3])),
            row(
                &g,
                Ran::OneGpu,
                "bfs-gpu-tuned",
                &[0.010; 3],
                Some(&[0.008; 3]),
            ),
            row(&g, Ran::Cpu, "bfs-optimizing", &[0.040, 0.030, 0.050], None),
        ];
        let t = table(&rows, "GTEPS", |_| 1.0);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 6, "{t}");
        assert_eq!(
            lines[2],
            "| 1 | bfs-team | 4.000 ms | 11.000 ms | 1.0 | 1.0 | 1.00x | 1.00x |"
        );
        assert_eq!(
            lines[3],
            "| 2 | bfs-team | 2.000 ms | 10.000 ms | 1.0 | 0.5 | 2.00x | 2.00x |"
        );
        assert_eq!(
            lines[4],
            "| 1 | bfs-gpu-tuned (single-GPU code) | 8.000 ms | 10.000 ms | 1.0 | 1.0 | 0.50x | 0.50x |"
        );
        // The CPU has no kernel time: its own (the median, 40 ms) is compared.
        assert_eq!(
            lines[5],
            "| 0 | bfs-optimizing on dev | - | 40.000 ms | 1.0 | - | 0.10x | 0.10x |"
        );
    }

    #[test]
    fn a_refusal_for_memory_is_a_missing_row_not_an_error() {
        let refusal = || -> Result<()> {
            Err(warpgraph::Error::OutOfMemory {
                what: "BFS".into(),
                needed: 2 << 40,
                available: 1 << 40,
            })
            .context("BFS on cuda:0")
        };
        assert!(unless_refused("one GPU", refusal).unwrap().is_none());
        assert_eq!(unless_refused("one GPU", || Ok(7)).unwrap(), Some(7));
        let other = || -> Result<()> { Err(warpgraph::Error::Nccl("lost".into()).into()) };
        assert!(unless_refused("a team", other).is_err());
    }

    #[test]
    fn the_last_column_is_over_the_faster_one_gpu_code() {
        let g = Graph::empty(2, true);
        let rows = [
            row(&g, Ran::Team(1), "bfs-team", &[0.010; 3], Some(&[0.009; 3])),
            row(&g, Ran::Team(2), "bfs-team", &[0.010; 3], Some(&[0.006; 3])),
            row(
                &g,
                Ran::OneGpu,
                "bfs-gpu-tuned",
                &[0.010; 3],
                Some(&[0.0075; 3]),
            ),
        ];
        let t = table(&rows, "GTEPS", |_| 1.0);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[3],
            "| 2 | bfs-team | 6.000 ms | 10.000 ms | 1.0 | 0.5 | 1.50x | 1.25x |"
        );
        assert_eq!(
            lines[4],
            "| 1 | bfs-gpu-tuned (single-GPU code) | 7.500 ms | 10.000 ms | 1.0 | 1.0 | 1.20x | 1.00x |"
        );
    }
}
