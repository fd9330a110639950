//! The host's tree, shared by the ranks of one process, each writing its own range.

use crate::bfs::BfsTree;
use crate::cuda::{Gpu, Registered};
use crate::graph::VertexId;

/// The host's tree, shared by the ranks of one process: each writes its own range of
/// the depths and parents (rank 0 of a team spread over processes, all of them), and the
/// first rank hands the whole tree to `visit` once every rank has written.
#[derive(Debug, Clone, Copy)]
pub(super) struct Dest {
    tree: *mut BfsTree,
    depth: *mut u32,
    parent: *mut u32,
    n: usize,
    /// Whether the depths and the parents are page-locked in place ([`Dest::lock`]).
    pub(super) locked: [bool; 2],
}

// SAFETY: the pointers are into a tree borrowed exclusively for the whole of
// `team_searches`; its ranks write disjoint ranges, and `visit` reads only between
// searches (see `team_searches`).
unsafe impl Send for Dest {}
unsafe impl Sync for Dest {}

impl Dest {
    /// `tree`, whose vectors hold one entry per vertex (`tree.depth.len()` of them), and
    /// are neither moved nor resized while the ranks use the pointers.
    pub(super) fn of(tree: &mut BfsTree) -> Dest {
        Dest {
            n: tree.depth.len(),
            depth: tree.depth.as_mut_ptr(),
            parent: tree.parent.as_mut_ptr(),
            tree,
            locked: [false; 2],
        }
    }

    /// Page-locks the depths and the parents in place (each where the driver agrees:
    /// `locked`) until the result is dropped.
    ///
    /// # Safety
    /// The tree's vectors must stay allocated, where they are, until the result is
    /// dropped.
    pub(super) unsafe fn lock(&mut self, gpu: &Gpu) -> Vec<Registered> {
        let mut held = Vec::new();
        for (i, ptr) in [self.depth, self.parent].into_iter().enumerate() {
            // SAFETY: `n` entries from `ptr`, which stay put (the caller's promise).
            if let Some(r) = unsafe { gpu.register(ptr, self.n) } {
                held.push(r);
                self.locked[i] = true;
            }
        }
        held
    }

    /// The depths and parents of the vertices `r`.
    ///
    /// # Safety
    /// No other thread may read or write `r` of either until the slices are gone.
    pub(super) unsafe fn range<'t>(
        self,
        r: std::ops::Range<usize>,
    ) -> (&'t mut [u32], &'t mut [u32]) {
        assert!(r.start <= r.end && r.end <= self.n, "a range of the tree");
        // SAFETY: in bounds (above) of vectors that live and stay put (`Dest::of`); the
        // caller keeps others out of the range.
        unsafe {
            (
                std::slice::from_raw_parts_mut(self.depth.add(r.start), r.len()),
                std::slice::from_raw_parts_mut(self.parent.add(r.start), r.len()),
            )
        }
    }

    /// The whole tree, its source set to `source`.
    ///
    /// # Safety
    /// No other thread may touch the tree until the reference is gone.
    pub(super) unsafe fn tree_after<'t>(self, source: VertexId) -> &'t BfsTree {
        // SAFETY: the tree lives for the whole of `team_searches` and the caller keeps
        // every other thread off it.
        unsafe {
            (*self.tree).source = source;
            &*self.tree
        }
    }
}
