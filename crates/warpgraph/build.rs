//! Embeds the prebuilt CUBINs of `cubin/` (see `cubin/README.md`): one table entry per
//! line of `cubin/keys.txt`, `ARCH NAME KEY`, pointing at `cubin/ARCH/NAME.cubin`.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("cubin");
    println!("cargo:rerun-if-changed={}", dir.display());
    let keys = std::fs::read_to_string(dir.join("keys.txt")).unwrap_or_default();
    let mut table = String::from("&[\n");
    for line in keys
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [arch, name, key] = f[..] else {
            panic!("cubin/keys.txt: a line is `ARCH NAME KEY`, not `{line}`")
        };
        let cc = arch.strip_prefix("sm_").expect("an architecture is sm_XY");
        let (major, minor) = cc.split_at(cc.len() - 1);
        let file = dir.join(arch).join(format!("{name}.cubin"));
        println!("cargo:rerun-if-changed={}", file.display());
        writeln!(
            table,
            "    Prebuilt {{ cc: ({major}, {minor}), name: {name:?}, key: 0x{key}, \
             cubin: include_bytes!({:?}) }},",
            file.display().to_string()
        )
        .unwrap();
    }
    table.push(']');
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("prebuilt.rs");
    std::fs::write(out, table).unwrap();
}
