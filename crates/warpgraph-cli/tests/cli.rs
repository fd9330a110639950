//! End-to-end tests of the `warpgraph` binary: what a user types, what they get back.

mod common;

use std::path::Path;
use std::process::Command;

use common::{fails, warpgraph};

fn ok(args: &[&str], dir: &Path) -> String {
    let out = warpgraph(args, dir);
    assert!(
        out.status.success(),
        "warpgraph {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn generate_convert_info_agree_across_formats() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    ok(
        &[
            "generate",
            "kron",
            "--scale",
            "10",
            "--weights",
            "int:1:255",
            "-o",
            "g.wg",
        ],
        dir,
    );
    let base = json(&ok(&["info", "g.wg", "--json"], dir));
    assert_eq!(base["vertices"], 1024);
    assert_eq!(base["directed"], true);
    assert_eq!(base["weight_type"], "i32");
    assert_eq!(base["self_loops"], 0);
    assert_eq!(base["duplicate_edges"], 0);
    assert!(base["weight_min"].as_i64().unwrap() >= 1);
    assert!(base["weight_max"].as_i64().unwrap() <= 255);
    for out in ["g.gr", "g.mtx", "g.wel", "g.txt", "back.wg"] {
        ok(&["convert", "g.wg", out], dir);
        let info = json(&ok(&["info", out, "--json"], dir));
        for key in [
            "edges",
            "arcs",
            "weight_min",
            "weight_max",
            "degree_max",
            "in_degree_max",
        ] {
            assert_eq!(info[key], base[key], "{out}: {key}");
        }
    }
}

#[test]
fn undirected_graphs_survive_formats_that_hold_them() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    ok(
        &[
            "generate",
            "grid",
            "--rows",
            "20",
            "--cols",
            "30",
            "--undirected",
            "-o",
            "g.graph",
        ],
        dir,
    );
    let info = json(&ok(&["info", "g.graph", "--json"], dir));
    assert_eq!(info["vertices"], 600);
    assert_eq!(info["directed"], false);
    assert_eq!(info["edges"], 19 * 30 + 20 * 29);
    assert_eq!(info["degree_max"], 4);
    ok(&["convert", "g.graph", "g.mtx"], dir);
    let m = json(&ok(&["info", "g.mtx", "--json"], dir));
    assert_eq!(m["directed"], false);
    assert_eq!(m["edges"], info["edges"]);
}

#[test]
fn parse_errors_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("bad.gr"), "c hello\np sp 3 2\na 1 2 5\na 1 9 5\n").unwrap();
    let err = fails(&["info", "bad.gr"], dir);
    assert!(err.contains("bad.gr:4:"), "{err}");
    std::fs::write(dir.join("huge.gr"), "p sp 1000000000000000 1\na 1 1 1\n").unwrap();
    let err = fails(&["info", "huge.gr"], dir);
    assert!(err.contains("huge.gr"), "{err}");
    std::fs::write(dir.join("nan.wel"), "0 1 2.5\n1 2 nan\n").unwrap();
    let err = fails(&["info", "nan.wel"], dir);
    assert!(err.contains("nan.wel:2:"), "{err}");
    let err = fails(&["info", "missing.gr"], dir);
    assert!(err.contains("missing.gr"), "{err}");
    // The system's reason, said once (the file error's own text holds it already).
    let reason = std::fs::File::open(dir.join("missing.gr"))
        .unwrap_err()
        .to_string();
    assert_eq!(err.matches(&reason).count(), 1, "{err}");
    std::fs::write(
        dir.join("x.gr"),
        "%%MatrixMarket matrix coordinate real general\n1 1 0\n",
    )
    .unwrap();
    let err = fails(&["info", "x.gr"], dir);
    assert!(err.contains("looks like mtx"), "{err}");
    let out = ok(&["info", "x.gr", "--format", "mtx"], dir);
    assert!(out.contains("vertices      1"), "{out}");
}

#[test]
fn convert_never_leaves_partial_output_or_touches_input() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("g.gr"), "p sp 3 2\na 1 2 5\na 2 3 1\n").unwrap();
    let before = std::fs::read(dir.join("g.gr")).unwrap();
    // METIS needs an undirected graph: the write fails, and nothing is left behind.
    let err = fails(&["convert", "g.gr", "g.graph"], dir);
    assert!(err.contains("undirected"), "{err}");
    assert!(!dir.join("g.graph").exists());
    // An existing output survives a failed conversion unchanged.
    std::fs::write(dir.join("keep.graph"), "old").unwrap();
    fails(&["convert", "g.gr", "keep.graph"], dir);
    assert_eq!(std::fs::read(dir.join("keep.graph")).unwrap(), b"old");
    let err = fails(&["convert", "g.gr", "./g.gr"], dir);
    assert!(err.contains("never modifies its input"), "{err}");
    assert_eq!(std::fs::read(dir.join("g.gr")).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn edge_list_ids_survive_conversion() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(
        dir.join("web.txt"),
        "# Directed graph\n10\t20\n20\t1000000000000\n",
    )
    .unwrap();
    ok(&["convert", "web.txt", "web.wg"], dir);
    ok(&["convert", "web.wg", "back.el"], dir);
    let text = std::fs::read_to_string(dir.join("back.el")).unwrap();
    assert_eq!(text, "10 20\n20 1000000000000\n");
    let out = ok(&["info", "web.wg"], dir);
    assert!(
        out.contains("mapped: 3 distinct file ids from 10 to 1000000000000"),
        "{out}"
    );
}

#[test]
fn help_teaches_by_example() {
    let d = tempfile::tempdir().unwrap();
    let top = ok(&["--help"], d.path());
    assert!(
        top.contains("warpgraph generate kron --scale 20 -o g.wg"),
        "{top}"
    );
    let gen = ok(&["generate", "--help"], d.path());
    assert!(
        gen.contains("Examples:") && gen.contains("--weights"),
        "{gen}"
    );
    let conv = ok(&["convert", "--help"], d.path());
    assert!(conv.contains("temporary file"), "{conv}");
    // The environment is listed; each paper reproduced is named and said what it is.
    assert!(
        top.contains("WARPGRAPH_KERNEL_CACHE") && top.contains("WARPGRAPH_NCCL_TIMEOUT"),
        "{top}"
    );
    let bench = ok(&["bench", "--help"], d.path());
    for paper in [
        "sssp            the CUDA SSSP thesis",
        "floyd-warshall  the GPU Floyd-Warshall article",
        "johnson         the GPU Johnson article",
        "enterprise      Enterprise (Liu and Huang, SC'15)",
        "mst             Vineet, Harish, Patidar and Narayanan's GPU MST",
    ] {
        assert!(bench.contains(paper), "{paper}: {bench}");
    }
    assert!(!bench.to_lowercase().contains("seed 0"), "{bench}");
}

/// A `WARPGRAPH_*` variable that cannot be parsed stops every command, named.
#[test]
fn an_invalid_setting_is_an_error_naming_the_variable() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    ok(
        &[
            "generate", "grid", "--rows", "4", "--cols", "4", "-o", "g.gr", "--quiet",
        ],
        dir,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_warpgraph"))
        .args(["info", "g.gr"])
        .env("WARPGRAPH_MEMORY_LIMIT", "lots")
        .current_dir(dir)
        .output()
        .expect("run warpgraph");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error:") && err.contains("WARPGRAPH_MEMORY_LIMIT=\"lots\""),
        "{err}"
    );
    // The same command without it runs.
    ok(&["info", "g.gr"], dir);
}

#[test]
fn demo_runs_on_a_small_default() {
    let d = tempfile::tempdir().unwrap();
    let out = ok(&["demo", "--scale", "10", "--quiet"], d.path());
    assert!(out.contains("vertices      1,024"), "{out}");
    assert!(out.contains("identical"), "{out}");
}

#[test]
fn algorithms_run_verified_with_json_summaries() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    for (cmd, extra) in [
        ("bfs", vec![]),
        (
            "bfs",
            vec!["--alpha", "2", "--beta", "4", "--device", "cpu"],
        ),
        ("sssp", vec![]),
        ("sssp", vec!["--algo", "dijkstra"]),
        ("sssp", vec!["--algo", "bellman-ford"]),
        ("sssp", vec!["--algo", "bellman-ford-queue"]),
        (
            "sssp",
            vec!["--algo", "delta-stepping", "--delta-heuristic", "median"],
        ),
        ("mst", vec![]),
        ("mst", vec!["--algo", "kruskal"]),
    ] {
        let mut args = vec![
            cmd,
            "--generate",
            "kron:10",
            "--verify",
            "--json",
            "--quiet",
        ];
        args.extend(extra.iter().copied());
        let j = json(&ok(&args, dir));
        assert_eq!(j["verified"], true, "{args:?}");
        assert_eq!(j["vertices"], 1024);
    }
    let j = json(&ok(
        &[
            "apsp",
            "--generate",
            "grid:12x9",
            "--verify",
            "--json",
            "--quiet",
        ],
        dir,
    ));
    assert_eq!(j["reachable_pairs"], 108 * 108);
    // Every sssp variant agrees on the reached set and (through --output) the distances.
    let mut outputs = Vec::new();
    for algo in ["dijkstra", "bellman-ford", "delta-stepping"] {
        let out = format!("{algo}.tsv");
        ok(
            &[
                "sssp",
                "--generate",
                "kron:9",
                "--source",
                "3",
                "--algo",
                algo,
                "-o",
                &out,
                "--quiet",
            ],
            dir,
        );
        outputs.push(std::fs::read_to_string(dir.join(&out)).unwrap());
    }
    let dist = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| l.split('\t').take(2).collect::<Vec<_>>().join("\t"))
            .collect()
    };
    assert_eq!(outputs[0].lines().next(), Some("vertex\tdistance\tparent"));
    assert_eq!(dist(&outputs[0]), dist(&outputs[1]));
    assert_eq!(dist(&outputs[0]), dist(&outputs[2]));
}

#[test]
fn negative_cycles_exit_with_code_three_and_name_the_cycle() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(
        dir.join("neg.gr"),
        "p sp 4 4\na 1 2 1\na 2 3 -2\na 3 2 1\na 3 4 1\n",
    )
    .unwrap();
    let out = warpgraph(
        &["sssp", "neg.gr", "--source", "1", "--algo", "bellman-ford"],
        dir,
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("negative cycle") && err.contains("total weight -1"),
        "{err}"
    );
    assert!(
        err.contains("2 -> 3 -> 2") || err.contains("3 -> 2 -> 3"),
        "{err}"
    );
    let err = fails(
        &["sssp", "neg.gr", "--source", "1", "--algo", "dijkstra"],
        dir,
    );
    assert!(err.contains("non-negative"), "{err}");
    let out = warpgraph(&["apsp", "neg.gr", "-o", "d.tsv"], dir);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        !dir.join("d.tsv").exists(),
        "a failed apsp left its output behind"
    );
}

/// `bench bfs` and `bench mst`: every trial verified, the JSON report with each one.
#[test]
fn bench_reports_verified_trials() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // With --warm-each, the untimed search before each timed one is not a trial.
    for (trials, warm) in [("4", None), ("3", Some("--warm-each"))] {
        let mut args = vec!["bench", "bfs", "--generate", "kron:10", "--trials", trials];
        args.extend(warm);
        args.extend(["--json-out", "b.json", "--quiet"]);
        let out = ok(&args, dir);
        assert!(
            out.contains(&format!("{trials} trials, all verified")),
            "{out}"
        );
        let r = json(&std::fs::read_to_string(dir.join("b.json")).unwrap());
        assert_eq!(r["trials"].as_array().unwrap().len().to_string(), trials);
        assert!(r["median_teps"].as_f64().unwrap() > 0.0);
    }
    let out = ok(
        &[
            "bench",
            "mst",
            "--generate",
            "grid:20x20",
            "--trials",
            "2",
            "--quiet",
        ],
        dir,
    );
    assert!(out.contains("2 trials, all verified"), "{out}");
}

/// The ExtractMin study: a row per size; JSON with every column.
#[test]
fn bench_extract_min_times_every_size() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let out = ok(
        &[
            "bench",
            "extract-min",
            "--device",
            "cpu",
            "--sizes",
            "1,100,5000",
            "--trials",
            "1",
            "--json-out",
            "x.json",
        ],
        dir,
    );
    assert!(
        out.contains("CPU loop") && out.contains("CPU heap"),
        "{out}"
    );
    let rows: Vec<&str> = out.lines().skip(3).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(rows[2].trim_start().starts_with("5000"), "{out}");
    let r = json(&std::fs::read_to_string(dir.join("x.json")).unwrap());
    let rows = r["seconds"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows[1]["cpu_heap"].as_f64().unwrap() > 0.0);
}

/// `bench reproduce` of one paper, by its name or its number: its rows, its cells.
#[test]
fn bench_reproduce_runs_one_paper_by_name_or_number() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // The Floyd-Warshall article's experiment: a Markdown row per size, every trial in
    // the JSON.
    let out = ok(
        &[
            "bench",
            "reproduce",
            "--paper",
            "floyd-warshall",
            "--sizes",
            "10,70",
            "--trials",
            "1",
            "--device",
            "cpu",
            "--json-out",
            "r.json",
        ],
        dir,
    );
    assert!(out.contains("| 10 |") && out.contains("| 70 |"), "{out}");
    let r = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    let cells = r["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[1]["graph"], "grid of 70");
    assert_eq!(cells[1]["trials"][0]["verified"], true);
    // The SSSP thesis's, by its number: a row per graph, a cell per method (the CPU's two
    // here).
    let out = ok(
        &[
            "bench",
            "reproduce",
            "--paper",
            "000",
            "--quick",
            "--trials",
            "1",
            "--device",
            "cpu",
            "--json-out",
            "r0.json",
        ],
        dir,
    );
    assert!(
        out.contains("| kron 12 |") && out.contains("| grid 64x64 |"),
        "{out}"
    );
    let r = json(&std::fs::read_to_string(dir.join("r0.json")).unwrap());
    assert_eq!(r["cells"].as_array().unwrap().len(), 6);
    assert_eq!(r["papers"], serde_json::json!(["sssp"]));
    assert!(dir.join("reproduce-out/results-sssp.md").exists());
    assert!(dir.join("reproduce-out/sssp.svg").exists());
}

/// Options that do not belong are refused, naming the option.
#[test]
fn options_that_do_not_belong_are_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    for (args, says) in [
        (
            &["bench", "extract-min", "--generate", "kron:6"][..],
            "no graph",
        ),
        (&["bench", "extract-min", "--sizes", "0"][..], "sizes"),
        (
            &["bench", "bfs", "--generate", "kron:6", "--sizes", "9"][..],
            "--sizes",
        ),
        (
            &["bench", "mst", "--generate", "kron:6", "--warm-each"][..],
            "--warm-each is for bench bfs",
        ),
        (
            &["sssp", "--generate", "kron:6", "--threads-per-block", "256"][..],
            "dijkstra",
        ),
        (
            &[
                "sssp",
                "--generate",
                "kron:6",
                "--algo",
                "dijkstra",
                "--device",
                "cpu",
                "--threads-per-block",
                "256",
            ][..],
            "GPU setting",
        ),
        (
            &["sssp", "--generate", "kron:6", "--threads-per-block", "100"][..],
            "128",
        ),
        (&["bfs"][..], "give a graph file"),
        (
            &["bench", "reproduce", "--paper", "007"][..],
            "sssp, floyd-warshall, johnson, enterprise, mst and all",
        ),
        (
            &[
                "bench",
                "reproduce",
                "--paper",
                "enterprise",
                "--sizes",
                "10",
            ][..],
            "--sizes is for the papers floyd-warshall and johnson",
        ),
        (
            &["bench", "reproduce", "--generate", "kron:5"][..],
            "its own graphs",
        ),
        (
            &[
                "apsp",
                "--generate",
                "kron:5",
                "--predecessors",
                "-o",
                "d.npy",
            ][..],
            "distances only",
        ),
        (
            &[
                "bench",
                "apsp",
                "--generate",
                "kron:6",
                "--device",
                "cpu",
                "--algo",
                "fw-naive",
            ][..],
            "GPU variant",
        ),
    ] {
        let e = fails(args, dir);
        assert!(e.contains(says), "{args:?}: {e}");
    }
}

/// `bench reproduce --quick` on the CPU: every paper's table, every trial verified in the
/// JSON with its memory, and every figure as a real SVG and PNG.
#[test]
fn reproduce_all_quick_writes_tables_json_and_plots() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let out = ok(
        &[
            "bench",
            "reproduce",
            "--quick",
            "all",
            "--device",
            "cpu",
            "--plots",
            "figs",
        ],
        dir,
    );
    for table in [
        "## The CUDA SSSP thesis",
        "## The GPU Floyd-Warshall article",
        "## The GPU Johnson article",
        "parallel Dijkstra",
        "## Enterprise (Liu and Huang, SC'15)",
        "## Vineet et al.'s GPU MST",
        "| kron 14-16 |",
        "| ssca2 14 |",
        "Peak memory, MiB",
    ] {
        assert!(out.contains(table), "{table}: {out}");
    }
    let figs = dir.join("figs");
    let r = json(&std::fs::read_to_string(figs.join("results-all.json")).unwrap());
    assert_eq!(
        r["papers"],
        serde_json::json!(["sssp", "floyd-warshall", "johnson", "enterprise", "mst"])
    );
    assert_eq!(r["gpu"], serde_json::Value::Null);
    assert_eq!(r["failed"], serde_json::Value::Null);
    // The memory legend tells the GPU's two figures apart.
    for key in ["host", "gpu_bytes_needed", "gpu_sampled_peak_bytes"] {
        assert!(
            r["memory"][key].as_str().is_some(),
            "{key}: {}",
            r["memory"]
        );
    }
    assert!(r["memory"]["gpu_sampled_peak_bytes"]
        .as_str()
        .unwrap()
        .contains("lower bound"));
    let cells = r["cells"].as_array().unwrap();
    let kinds = |key: &str| -> std::collections::BTreeSet<String> {
        cells
            .iter()
            .map(|c| c[key].as_str().unwrap().into())
            .collect()
    };
    assert_eq!(kinds("paper").len(), 5);
    assert_eq!(kinds("experiment").len(), 6); // johnson has two
    for c in cells {
        assert_eq!(c["refused"], serde_json::Value::Null, "{c}");
        let trials = c["trials"].as_array().unwrap();
        assert!(!trials.is_empty(), "{c}");
        assert!(trials.iter().all(|t| t["verified"] == true));
        assert!(c["median_seconds"].as_f64().unwrap() > 0.0);
        assert!(c["vertices"].as_u64().unwrap() > 0);
        // On the CPU: host memory measured (Linux), no GPU figure, the GPU's estimate
        // there (every cell carries it) but null.
        assert_eq!(
            c["memory"]["gpu_sampled_peak_bytes"],
            serde_json::Value::Null
        );
        assert_eq!(
            c.get("gpu_bytes_needed"),
            Some(&serde_json::Value::Null),
            "{c}"
        );
        assert_eq!(c["device"], r["cpu"], "{c}");
        if cfg!(target_os = "linux") {
            assert!(
                c["memory"]["host_peak_bytes"].as_u64().unwrap() > 1 << 20,
                "{c}"
            );
        }
    }
    // The host peak is the cell's own: the high-water mark is reset at each cell, so
    // the small searches after Johnson's n = 1024 (an 8 MiB matrix kept, more while it is
    // verified) peak lower.
    let peak = |experiment: &str, graph: &str| {
        let c = cells
            .iter()
            .find(|c| c["experiment"] == experiment && c["graph"] == graph)
            .unwrap();
        let m = &c["memory"];
        (
            m["host_peak_bytes"].as_u64(),
            m["host_peak_since_start"] == true,
        )
    };
    if let ((Some(big), false), (Some(small), false)) = (
        peak("johnson", "urand n=1024"),
        peak("johnson-dijkstra", "urand 2^10"),
    ) {
        assert!(small + (4 << 20) < big, "{small} vs {big}");
    }
    // Traversals (BFS, SSSP) carry GTEPS, spanning forests the same rate over the graph's
    // edges (billions of edges per second, as GPU MST papers report); all-pairs none.
    let of = |paper: &str| cells.iter().find(|c| c["paper"] == paper).unwrap();
    assert!(of("enterprise")["gteps"].as_f64().unwrap() > 0.0);
    assert!(of("sssp")["gteps"].as_f64().unwrap() > 0.0);
    assert!(of("mst")["gteps"].as_f64().unwrap() > 0.0);
    assert_eq!(of("floyd-warshall")["gteps"], serde_json::Value::Null);
    let figures = r["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 12, "{figures:?}");
    for (name, title) in [
        ("sssp", "The CUDA SSSP thesis"),
        ("floyd-warshall", "The GPU Floyd-Warshall article"),
        ("johnson", "The GPU Johnson article"),
        ("johnson-dijkstra", "parallel Dijkstra"),
        ("enterprise", "Enterprise (Fig. 13)"),
        ("mst", "minimum spanning forest"),
    ] {
        let svg = std::fs::read_to_string(figs.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(title), "{name}: no title");
        let png = std::fs::read(figs.join(format!("{name}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}");
    }
    let md = std::fs::read_to_string(figs.join("results-all.md")).unwrap();
    assert!(
        md.contains("## Vineet et al.'s GPU MST")
            && md.contains("![The GPU Floyd-Warshall article (Fig. 5)")
    );
}

#[test]
fn devices_and_device_choice() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let listing = json(&ok(&["devices", "--json"], dir));
    assert!(listing["cpu_threads"].as_u64().unwrap() >= 1);
    let text = ok(&["devices"], dir);
    assert!(text.starts_with("cpu "), "{text}");
    // Unknown devices are plain errors; so is a GPU asked for where there is none (this
    // test runs without one: on a GPU machine the request would simply run).
    let e = fails(&["bfs", "--generate", "kron:8", "--device", "gpu"], dir);
    assert!(e.contains("cuda:N"), "{e}");
    if warpgraph::cuda::unavailable_reason().is_some() {
        let e = fails(&["mst", "--generate", "kron:8", "--device", "cuda"], dir);
        assert!(e.contains("no usable GPU"), "{e}");
    }
    let e = fails(
        &[
            "bfs",
            "--generate",
            "kron:8",
            "--device",
            "cpu",
            "--alpha",
            "0",
        ],
        dir,
    );
    assert!(e.contains("alpha"), "{e}");
    // No machine has this many GPUs.
    let e = fails(&["bfs", "--generate", "kron:8", "--device", "cuda:99"], dir);
    assert!(e.contains("no usable GPU"), "{e}");
    if warpgraph::cuda::available() {
        let gpu_bfs = [
            "bfs",
            "--generate",
            "kron:10",
            "--device",
            "cuda",
            "--verify",
        ];
        let out = json(&ok(&[&gpu_bfs[..], &["--json"]].concat(), dir));
        assert_eq!(out["verified"], true);
        assert!(out["kernel_seconds"].as_f64().unwrap() > 0.0);
        ok(
            &[&gpu_bfs[..], &["--gamma", "0.05", "--beta", "4"]].concat(),
            dir,
        );
        let e = fails(&[&gpu_bfs[..], &["--gamma", "-1"]].concat(), dir);
        assert!(e.contains("gamma"), "{e}");
    } else {
        // Where there is no GPU, asking for one is a clear error, and auto says it uses
        // the CPU and why.
        let e = fails(&["bfs", "--generate", "kron:8", "--device", "cuda"], dir);
        assert!(e.contains("no usable GPU"), "{e}");
        assert!(listing["no_gpu_reason"].is_string());
        let out = warpgraph(&["bfs", "--generate", "kron:8"], dir);
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("device auto: using the CPU"), "{err}");
        // `--gpus` fails before any graph is read (this file does not exist), and no note
        // says the run uses the CPU.
        let teams: [&[&str]; 3] = [
            &["bfs", "missing.wg", "--gpus", "2"],
            &["apsp", "missing.wg", "--gpus", "all"],
            &["bench", "bfs", "missing.wg", "--gpus", "1,2"],
        ];
        for args in teams {
            let e = fails(args, dir);
            assert!(e.contains("--gpus needs GPUs"), "{args:?}: {e}");
            assert!(!e.contains("using the CPU"), "{args:?}: {e}");
        }
    }
}

#[test]
fn apsp_writes_predecessors_to_tsv() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let out = ok(
        &[
            "apsp",
            "--generate",
            "kron:5",
            "--predecessors",
            "--verify",
            "-o",
            "p.tsv",
            "--quiet",
        ],
        dir,
    );
    assert!(out.contains("verification: PASS"), "{out}");
    let tsv = std::fs::read_to_string(dir.join("p.tsv")).unwrap();
    let mut lines = tsv.lines();
    assert_eq!(lines.next(), Some("source\ttarget\tdistance\tpredecessor"));
    // Every row has four fields; a source is its own predecessor.
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 4, "{l}");
        if f[0] == f[1] {
            assert_eq!(f[3], f[0], "{l}");
        }
    }
}

/// `generate --potentials` makes negative arcs but no negative cycle: Bellman-Ford
/// verifies, Dijkstra refuses, and it asks for integer weights on a directed graph.
#[test]
fn generate_with_potentials_makes_negative_arcs_without_negative_cycles() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let gen = [
        "generate",
        "urand",
        "--scale",
        "10",
        "--degree",
        "8",
        "--weights",
        "int:1:255",
    ];
    ok(
        &[&gen[..], &["--potentials", "128", "-o", "p.wg"]].concat(),
        dir,
    );
    let info = json(&ok(&["info", "p.wg", "--json"], dir));
    assert!(info["weight_min"].as_i64().unwrap() < 0, "{info}");
    assert!(info["weight_min"].as_i64().unwrap() >= 1 - 127, "{info}");
    let run = warpgraph(
        &[
            "sssp",
            "p.wg",
            "--algo",
            "bellman-ford-queue",
            "--verify",
            "--source",
            "3",
        ],
        dir,
    );
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && said.contains("verification: PASS"),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    fails(
        &["sssp", "p.wg", "--algo", "dijkstra", "--source", "3"],
        dir,
    );
    fails(
        &[
            &gen[..2],
            &["--scale", "8", "--potentials", "9", "-o", "x.wg"],
        ]
        .concat(),
        dir,
    );
    fails(
        &[
            &gen[..],
            &["--undirected", "--potentials", "9", "-o", "x.wg"],
        ]
        .concat(),
        dir,
    );
}

#[test]
fn auto_keeps_small_graphs_on_the_cpu() {
    // With or without a GPU: a graph too small for a GPU to win back its start runs on
    // the CPU under auto, and the note says why.
    let d = tempfile::tempdir().unwrap();
    for cmd in ["bfs", "sssp", "mst"] {
        let out = warpgraph(&[cmd, "--generate", "kron:8"], d.path());
        assert!(out.status.success(), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("device auto: using the CPU") && err.contains("before a GPU could start"),
            "{cmd}: {err}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("cpu ("), "{cmd}: {stdout}");
    }
}

/// `distances`: sources and targets as a list, a range, a file (with comments) and
/// `random:K`; the .tsv in file ids, the .npy of the table's shape; the whole table equal
/// to `apsp --algo johnson`'s matrix; bad entries named with the file and line.
#[test]
fn distances_writes_tables_of_chosen_pairs() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // 1 --2--> 2 --3--> 3 --4--> 4, ids from 1.
    std::fs::write(dir.join("p.gr"), "p sp 4 3\na 1 2 2\na 2 3 3\na 3 4 4\n").unwrap();
    std::fs::write(dir.join("src.txt"), "# depots\n1 2\n3 # last\n").unwrap();
    let out = ok(
        &[
            "distances",
            "p.gr",
            "--sources",
            "src.txt",
            "--targets",
            "4,1",
            "--verify",
            "-o",
            "t.tsv",
            "--quiet",
            "--device",
            "cpu",
        ],
        dir,
    );
    assert!(
        out.contains("3 x 2 table") && out.contains("verification: PASS"),
        "{out}"
    );
    let tsv = std::fs::read_to_string(dir.join("t.tsv")).unwrap();
    assert_eq!(
        tsv,
        "source\ttarget\tdistance\n1\t4\t9\n1\t1\t0\n2\t4\t7\n3\t4\t4\n"
    );
    ok(
        &[
            "distances",
            "p.gr",
            "--sources",
            "2..4",
            "-o",
            "t.npy",
            "--quiet",
        ],
        dir,
    );
    let npy = std::fs::read(dir.join("t.npy")).unwrap();
    let header = String::from_utf8_lossy(&npy[..128]);
    assert!(header.contains("'shape': (2, 4)"), "{header}");
    ok(
        &[
            "distances",
            "p.gr",
            "--sources",
            "all",
            "-o",
            "all.npy",
            "--quiet",
        ],
        dir,
    );
    ok(
        &[
            "apsp", "p.gr", "--algo", "johnson", "-o", "m.npy", "--quiet",
        ],
        dir,
    );
    assert_eq!(
        std::fs::read(dir.join("all.npy")).unwrap(),
        std::fs::read(dir.join("m.npy")).unwrap()
    );
    let out = ok(
        &[
            "distances",
            "p.gr",
            "--sources",
            "random:2",
            "--targets",
            "random:3:5",
            "--quiet",
        ],
        dir,
    );
    assert!(out.contains("2 x 3 table"), "{out}");
    std::fs::write(dir.join("bad.txt"), "1\n2 x\n").unwrap();
    let err = fails(&["distances", "p.gr", "--sources", "bad.txt"], dir);
    assert!(err.contains("bad.txt:2") && err.contains("'x'"), "{err}");
    std::fs::write(dir.join("far.txt"), "1\n\n9\n").unwrap();
    let err = fails(&["distances", "p.gr", "--sources", "far.txt"], dir);
    assert!(
        err.contains("far.txt:3") && err.contains("vertex 9"),
        "{err}"
    );
    let err = fails(&["distances", "p.gr", "--sources", "random:5"], dir);
    assert!(err.contains("more vertices"), "{err}");
    let err = fails(&["distances", "p.gr", "--sources", "1", "-o", "t.csv"], dir);
    assert!(err.contains(".npy or .tsv"), "{err}");
}

/// Centrality on the path 0 - 1 - 2 - 3 - 4: NetworkX's values, every measure, each
/// output with its header; sampled runs verify; a GPU for a measure without GPU code and stray options are
/// refused.
#[test]
fn centrality_writes_networkx_values() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("p5.el"), "0 1\n1 2\n2 3\n3 4\n").unwrap();
    let run = |measure: &str, extra: &[&str]| {
        let mut a = vec!["centrality", "p5.el", "--undirected", "--measure", measure];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--verify", "-o", "out.tsv", "-q"]);
        assert!(ok(&a, dir).contains("verification: PASS"));
        std::fs::read_to_string(dir.join("out.tsv")).unwrap()
    };
    assert_eq!(
        run("betweenness", &[]),
        "vertex\tbetweenness\n0\t0\n1\t0.5\n2\t0.6666666666666666\n3\t0.5\n4\t0\n"
    );
    assert_eq!(
        run("betweenness", &["--no-normalized", "--endpoints"]),
        "vertex\tbetweenness\n0\t4\n1\t7\n2\t8\n3\t7\n4\t4\n"
    );
    assert_eq!(
        run("edge-betweenness", &["--no-normalized"]),
        "u\tv\tedge_betweenness\n0\t1\t4\n1\t2\t6\n2\t3\t6\n3\t4\t4\n"
    );
    assert_eq!(
        run("closeness", &[]),
        "vertex\tcloseness\n0\t0.4\n1\t0.5714285714285714\n2\t0.6666666666666666\n\
         3\t0.5714285714285714\n4\t0.4\n"
    );
    let h = run("harmonic", &[]);
    assert!(
        h.starts_with("vertex\tharmonic\n0\t2.083333333333333"),
        "{h}"
    );
    // A sample of every source is the exact measure; a smaller one verifies too.
    let all = run("betweenness", &["--samples", "5", "--seed", "9"]);
    assert!(all.contains("2\t0.6666666666666666\n"), "{all}");
    run("betweenness", &["--samples", "2", "--seed", "9"]);
    let j = json(&ok(
        &["centrality", "--generate", "grid:6x6", "--json", "--verify"],
        dir,
    ));
    assert_eq!(j["problem"], "centrality");
    assert_eq!(j["verified"], true);
    assert_eq!(j["searches"], 36);
    let err = fails(
        &[
            "centrality",
            "p5.el",
            "--measure",
            "edge-betweenness",
            "--device",
            "cuda",
        ],
        dir,
    );
    assert!(
        err.contains("run edge-betweenness with --device cpu"),
        "{err}"
    );
    let err = fails(
        &[
            "centrality",
            "p5.el",
            "--measure",
            "closeness",
            "--endpoints",
        ],
        dir,
    );
    assert!(err.contains("--endpoints is for"), "{err}");
    let err = fails(&["centrality", "p5.el", "--samples", "9"], dir);
    assert!(
        err.contains("cannot sample 9 sources from 5 vertices"),
        "{err}"
    );
    std::fs::write(dir.join("neg.wel"), "1 2 4\n2 3 -1\n").unwrap();
    let err = fails(&["centrality", "neg.wel"], dir);
    assert!(
        err.contains("the arc 2 -> 3 weighs -1; --unweighted"),
        "{err}"
    );
    ok(&["centrality", "neg.wel", "--unweighted", "-q"], dir);
}
