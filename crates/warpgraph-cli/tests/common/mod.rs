//! Running the `warpgraph` binary from the integration tests.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `warpgraph ARGS` in `dir`.
pub fn warpgraph(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpgraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run warpgraph")
}

/// A failing command exits non-zero with a one-line `error:` message and no panic; its
/// stderr.
pub fn fails(args: &[&str], dir: &Path) -> String {
    let out = warpgraph(args, dir);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "warpgraph {args:?} should fail");
    assert!(err.contains("error:"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    err
}
