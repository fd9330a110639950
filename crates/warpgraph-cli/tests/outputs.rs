//! Result files end whole or not at all: refused up front when they cannot fit, written
//! under a temporary name, and removed when the run fails or is interrupted.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fails, warpgraph};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_output_too_big_for_its_disk_is_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // 2^24 vertices: a 2 PiB matrix, refused before the graph is even generated.
    let t = Instant::now();
    let err = fails(&["apsp", "--generate", "urand:24", "-o", "d.npy"], dir);
    assert!(t.elapsed() < Duration::from_secs(5), "not refused at once");
    assert!(
        err.contains("d.npy: the 16,777,216 x 16,777,216 distance matrix needs 2.00 PiB but the file system there has only"),
        "{err}"
    );
    assert!(
        err.contains(" free; ") && err.contains("sssp --source"),
        "{err}"
    );
    // A .tsv: bounded once the graph (4,000,000 vertices, one arc) is read.
    std::fs::write(dir.join("g.gr"), "p sp 4000000 1\na 1 2 5\n").unwrap();
    let err = fails(&["apsp", "g.gr", "-o", "d.tsv"], dir);
    assert!(
        err.contains("d.tsv: the .tsv of up to 4,000,000 x 4,000,000 reachable pairs needs "),
        "{err}"
    );
    assert!(
        err.contains("TiB but the file system there has only"),
        "{err}"
    );
    assert_eq!(names(dir), ["g.gr"], "nothing written");
}

#[test]
fn a_failed_rename_leaves_no_temporary_file() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("g.gr"), "p sp 3 2\na 1 2 5\na 2 3 1\n").unwrap();
    // The output's name is taken by a folder: the rows are written, the rename fails.
    std::fs::create_dir(dir.join("d.tsv")).unwrap();
    let err = fails(&["apsp", "g.gr", "-o", "d.tsv"], dir);
    assert!(err.contains("d.tsv"), "{err}");
    for cmd in ["bfs", "sssp"] {
        let err = fails(&[cmd, "g.gr", "--source", "1", "-o", "d.tsv"], dir);
        assert!(err.contains("d.tsv"), "{err}");
    }
    assert_eq!(names(dir), ["d.tsv", "g.gr"]);
    assert!(dir.join("d.tsv").is_dir());
}

/// Starts an APSP run that writes a 128 MiB matrix for seconds, waits until its temporary
/// file has data, sends `signal`, and returns the exit status.
fn interrupt_apsp(dir: &Path, signal: &str) -> std::process::ExitStatus {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpgraph"))
        .args(["apsp", "--generate", "urand:12", "--algo", "johnson"])
        .args(["--device", "cpu", "--threads", "1", "-q", "-o", "d.npy"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let temp = dir.join(format!(".d.npy.tmp-{}", child.id()));
    let t = Instant::now();
    while std::fs::metadata(&temp).map_or(true, |m| m.len() == 0) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("apsp ended ({status}) before writing {}", temp.display());
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no data written");
        std::thread::sleep(Duration::from_millis(10));
    }
    let kill = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("interrupted: the unfinished output was removed"),
        "{err}"
    );
    out.status
}

#[test]
fn ctrl_c_mid_write_leaves_neither_file() {
    let d = tempfile::tempdir().unwrap();
    let status = interrupt_apsp(d.path(), "-INT");
    assert_eq!(status.code(), Some(130));
    assert!(names(d.path()).is_empty(), "{:?}", names(d.path()));
}

#[test]
fn sigterm_mid_write_leaves_neither_file() {
    let d = tempfile::tempdir().unwrap();
    // An older result stays as it was.
    std::fs::write(d.path().join("d.npy"), "old").unwrap();
    let status = interrupt_apsp(d.path(), "-TERM");
    assert_eq!(status.code(), Some(143));
    assert_eq!(names(d.path()), ["d.npy"]);
    assert_eq!(std::fs::read(d.path().join("d.npy")).unwrap(), b"old");
}

#[test]
fn a_symmetric_gr_converts_to_metis() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(
        dir.join("sym.gr"),
        "p sp 3 4\na 1 2 4\na 2 1 4\na 2 3 7\na 3 2 7\n",
    )
    .unwrap();
    let out = warpgraph(&["convert", "sym.gr", "sym.graph"], dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("sym.graph")).unwrap();
    assert_eq!(text, "% written by warpgraph\n3 2 1\n2 4\n1 4 3 7\n2 7\n");
    std::fs::write(dir.join("asym.gr"), "p sp 3 3\na 1 2 4\na 2 1 4\na 3 2 7\n").unwrap();
    let err = fails(&["convert", "asym.gr", "asym.graph"], dir);
    assert!(
        err.contains("the arc 3 -> 2 has no reverse arc 2 -> 3"),
        "{err}"
    );
    assert_eq!(names(dir), ["asym.gr", "sym.gr", "sym.graph"]);
}
