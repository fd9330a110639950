//! The memory check refuses oversized work before allocating.
//!
//! This is its own test binary because the limit is set through the process environment
//! (`WARPGRAPH_MEMORY_LIMIT`), which would leak into other tests running in parallel.

use warpgraph::{BuildOptions, EdgeList, Error, Weights};

#[test]
fn builder_refuses_with_needed_and_available() {
    std::env::set_var("WARPGRAPH_MEMORY_LIMIT", "1000000");
    let el = EdgeList::new(4_000_000_000, vec![0], vec![1], Weights::None).unwrap();
    let err = el.build(&BuildOptions::default()).unwrap_err();
    match &err {
        Error::OutOfMemory {
            needed, available, ..
        } => {
            assert_eq!(*available, 1_000_000);
            // At least the offsets array: 8 bytes per vertex.
            assert!(*needed > 4_000_000_000 * 8, "needed {needed}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("needs") && msg.contains("but only 976.56 KiB is available"),
        "{msg}"
    );
}
