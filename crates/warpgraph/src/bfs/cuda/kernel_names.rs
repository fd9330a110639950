//! Every kernel the host code loads by name is an `extern "C"` kernel of the source it is
//! loaded from: a guard for the kernel files' splits and renames (NVRTC would only say
//! so at run time, on a GPU).

use std::collections::BTreeSet;

use super::{multi, multi_source, KERNELS};
use crate::cuda::KernelSource;

/// The names of the `extern "C"` kernels `source` defines.
fn kernels_of(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for rest in source.split("extern \"C\"").skip(1) {
        let mut head = rest[..rest.find('{').unwrap_or(rest.len())].to_string();
        if let Some(at) = head.find("__launch_bounds__") {
            let close = at + head[at..].find(')').expect("__launch_bounds__ closed");
            head.replace_range(at..=close, "");
        }
        let open = head.find('(').expect("a kernel's parameters");
        let before = head[..open].trim_end();
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        names.insert(before[start..].to_string());
    }
    names
}

/// The names `host` loads with its `f("name")` (`gpu.function(&KERNELS, name)`).
fn loaded_by(host: &str) -> Vec<&str> {
    host.split(": f(\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').expect("a closed name")])
        .collect()
}

#[test]
fn every_kernel_loaded_by_name_is_in_its_source() {
    let hosts: [(&str, &KernelSource, usize); 2] = [
        (include_str!("mod.rs"), &KERNELS, 5),
        (include_str!("multi/kernels.rs"), &multi::KERNELS, 14),
    ];
    for (host, source, count) in hosts {
        let defined = kernels_of(source.source);
        let loaded = loaded_by(host);
        assert_eq!(loaded.len(), count, "{}: {loaded:?}", source.name);
        for name in loaded {
            assert!(
                defined.contains(name),
                "{}: `{name}` is loaded but not defined ({defined:?})",
                source.name
            );
        }
    }
}

#[test]
fn the_multi_source_kernels_are_in_their_source() {
    let defined = kernels_of(multi_source::KERNELS.source);
    for name in multi_source::NAMES {
        assert!(defined.contains(name), "`{name}` is loaded but not defined");
    }
    assert_eq!(defined.len(), multi_source::NAMES.len(), "{defined:?}");
}

#[test]
fn kernel_names_are_read_past_launch_bounds() {
    let src = "extern \"C\" __global__ void __launch_bounds__(256, 8)\nk_one(u32 a) {}\n\
               extern \"C\" __global__ void k_two(u32* b,\n u32 c) {}";
    let names: Vec<_> = kernels_of(src).into_iter().collect();
    assert_eq!(names, ["k_one", "k_two"]);
}

#[test]
fn the_family_lists_every_kernel_file() {
    let names: Vec<_> = super::KERNEL_SOURCES.iter().map(|k| k.name).collect();
    assert_eq!(names, ["bfs", "bfs_multi", "bfs_multi_source"]);
}
