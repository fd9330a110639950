// Shared by every graph-format fuzz target: the first input byte picks read options, the
// rest is the file. A successful read must give a graph that passes validation and can be
// written back in the same format without error.

use std::path::Path;

use warpgraph::io::{self, Format, IdMode, ReadOptions};
use warpgraph::{Duplicates, Graph, NoProgress, SelfLoops};

pub fn options(b: u8) -> ReadOptions {
    ReadOptions {
        format: None,
        weight_type: None,
        undirected: b & 1 != 0,
        self_loops: if b & 2 != 0 { SelfLoops::Drop } else { SelfLoops::Keep },
        duplicates: match (b >> 2) & 3 {
            0 => Duplicates::Keep,
            1 => Duplicates::Drop,
            _ => Duplicates::KeepLightest,
        },
        ids: if b & 16 != 0 { IdMode::Dense } else { IdMode::Auto },
    }
}

pub fn check(data: &[u8], format: Format) {
    // Large headers must be refused by the memory check, not by the fuzzer's malloc limit.
    warpgraph::memory::set_limit(Some(32 << 20));
    let Some((&b, body)) = data.split_first() else { return };
    let opts = options(b);
    if let Ok(g) = io::read_bytes(body, format, Path::new("fuzz"), &opts, &NoProgress) {
        roundtrip(&g, format);
    }
}

fn roundtrip(g: &Graph, format: Format) {
    let (directed, out, ids) = g.clone().into_parts();
    Graph::from_parts(directed, out, ids).expect("reader produced an invalid graph");
    let mut buf = Vec::new();
    let cx = io::WriteContext { path: Path::new("fuzz-out"), progress: &NoProgress };
    // Some graphs cannot be written in some formats (an unweighted .wel): that is an
    // error value, never a panic.
    let _ = io::write_to(g, format, &mut buf, &cx);
}
