//! `warpgraph info`: what is in a graph file.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use warpgraph::io::Format;
use warpgraph::{Graph, GraphStats};

use crate::args::{commas, file_size, ReadArgs};
use crate::cmd::convert::load;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  warpgraph info road.gr
  warpgraph info web.txt --undirected        # as the algorithms would see it
  warpgraph info g.wg --json | jq .degree_max")]
pub struct InfoArgs {
    /// Graph file.
    input: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    read: ReadArgs,
}

pub fn run(args: InfoArgs, quiet: bool) -> Result<()> {
    let (g, secs) = load(&args.input, &args.read, quiet)?;
    let stats = GraphStats::of(&g);
    let size = file_size(&args.input);
    let format = args
        .read
        .format
        .or_else(|| Format::from_extension(&args.input));
    if args.json {
        let mut v = serde_json::to_value(&stats)?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("file".into(), args.input.display().to_string().into());
            obj.insert("file_bytes".into(), size.into());
            obj.insert("format".into(), format.map(|f| f.name()).into());
            obj.insert("load_seconds".into(), secs.into());
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let rate = warpgraph::error::fmt_bytes((size as f64 / secs.max(1e-9)) as u64);
    println!(
        "file          {} ({}, {}, read in {secs:.3} s, {rate}/s)",
        args.input.display(),
        format.map_or("?", |f| f.name()),
        warpgraph::error::fmt_bytes(size)
    );
    print!("{}", table(&g, &stats));
    Ok(())
}

/// The human-readable summary (everything after the file line).
pub fn table(g: &Graph, s: &GraphStats) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "vertices      {}", commas(s.vertices));
    if s.directed {
        let _ = writeln!(o, "edges         {} (directed)", commas(s.edges));
    } else {
        let _ = writeln!(
            o,
            "edges         {} (undirected; {} arcs stored)",
            commas(s.edges),
            commas(s.arcs)
        );
    }
    match (&s.weight_min, &s.weight_max) {
        (Some(lo), Some(hi)) => {
            let _ = writeln!(
                o,
                "weights       {} in [{lo}, {hi}], {} negative",
                s.weight_type,
                commas(s.negative_weights)
            );
        }
        _ => {
            let _ = writeln!(o, "weights       {}", s.weight_type);
        }
    }
    let _ = write!(
        o,
        "degree        min {}, max {}, mean {:.2}",
        commas(s.degree_min),
        commas(s.degree_max),
        s.degree_mean
    );
    if s.directed {
        let _ = write!(o, " (out); max in-degree {}", commas(s.in_degree_max));
    }
    o.push('\n');
    let _ = writeln!(o, "histogram     degree range: vertices");
    for b in &s.degree_histogram {
        let range = if b.lo == b.hi {
            b.lo.to_string()
        } else {
            format!("{}-{}", b.lo, b.hi)
        };
        let _ = writeln!(o, "  {range:>21}: {}", commas(b.count));
    }
    let _ = writeln!(o, "self loops    {}", commas(s.self_loops));
    let _ = writeln!(o, "duplicates    {}", commas(s.duplicate_edges));
    let _ = writeln!(o, "isolated      {}", commas(s.isolated_vertices));
    let ids = match g.ids() {
        warpgraph::VertexIds::Map(m) => format!(
            "mapped: {} distinct file ids from {} to {}",
            commas(m.len() as u64),
            m.first().copied().unwrap_or(0),
            m.last().copied().unwrap_or(0)
        ),
        _ => s.ids.clone(),
    };
    let _ = writeln!(o, "vertex ids    {ids}");
    o
}
