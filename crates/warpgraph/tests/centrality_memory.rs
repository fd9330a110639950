//! Centrality refuses, before allocating, work whose per-worker state would not fit.
//!
//! Its own test binary: the limit ([`warpgraph::memory::set_limit`]) is the whole
//! process's and would reach other tests running in parallel.

use warpgraph::centrality::{betweenness, closeness, BetweennessOptions, ClosenessOptions};
use warpgraph::{Error, Graph, NoProgress};

#[test]
fn workers_that_do_not_fit_are_refused_with_sizes() {
    let g = Graph::empty(100_000, true);
    warpgraph::memory::set_limit(Some(100_000));
    let err = betweenness(&g, &BetweennessOptions::default(), &NoProgress).unwrap_err();
    match &err {
        Error::OutOfMemory {
            needed, available, ..
        } => {
            assert_eq!(*available, 100_000);
            // At least one worker's distances, counts and dependencies.
            assert!(*needed >= 100_000 * 24, "needed {needed}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("betweenness on 100000 vertices"),
        "{err}"
    );
    let err = closeness(&g, &ClosenessOptions::default(), &NoProgress).unwrap_err();
    assert!(matches!(err, Error::OutOfMemory { .. }), "{err:?}");
    warpgraph::memory::set_limit(None);
    assert!(closeness(&g, &ClosenessOptions::default(), &NoProgress).is_ok());
}
