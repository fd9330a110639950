//! The memory check refuses oversized work before allocating.
//!
//! This is its own test binary because the limit ([`warpgraph::memory::set_limit`], as
//! `WARPGRAPH_MEMORY_LIMIT` sets it) is the whole process's, and would reach other tests
//! running in parallel.

use warpgraph::{BuildOptions, EdgeList, Error, Weights};

#[test]
fn builder_refuses_with_needed_and_available() {
    warpgraph::memory::set_limit(Some(1_000_000));
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
