//! An engine graph kept on a GPU for as long as its Python object lives.
//!
//! A [`PyGraph`](crate::graph::PyGraph) holds a [`Slot`]: empty until the graph's first
//! GPU query, which creates a [`GpuGraph`] (the library's device-resident handle, its
//! runners made on their first use) and keeps it, so that every later query on that GPU
//! reuses the upload. A query on another GPU replaces it. The handle is freed with the
//! object (or by `release_gpu()`).
//!
//! The handle borrows the graph, which the Python object holds in an `Arc`: the slot
//! keeps its own clone of that `Arc` beside the handle, dropped after it, so the borrow
//! outlives neither (the one `unsafe` below).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use warpgraph::cuda::Gpu;
use warpgraph::resident::{GpuGraph, Held};
use warpgraph::Graph;

/// The handle of one graph on one GPU.
struct Resident {
    /// Declared before `_graph`, so dropped before it: it borrows that graph.
    handle: GpuGraph<'static>,
    device: usize,
    /// Whether some arc weighs less than 0 (worked out once, when first asked).
    negative: Option<bool>,
    _graph: Arc<Graph>,
}

/// What a graph holds on a GPU, as Python sees it.
#[derive(Debug, Clone, Copy)]
pub struct Status {
    /// The GPU's ordinal.
    pub device: usize,
    /// The runners created so far.
    pub held: Held,
    /// Their device bytes.
    pub bytes: u64,
}

/// A graph's place for its GPU handle (see the module docs).
#[derive(Default)]
pub struct Slot {
    inner: Mutex<Option<Resident>>,
    /// Handles created so far (1 after any number of queries on one GPU).
    created: AtomicU64,
}

impl Slot {
    /// Runs `f` on `g`'s handle on GPU `device` (created first where there is none, or
    /// one on another GPU), with whether `g` has a negative arc. `g` must be the graph of
    /// the object that owns this slot.
    pub fn with<T>(
        &self,
        g: &Arc<Graph>,
        device: usize,
        f: impl FnOnce(&mut GpuGraph<'static>, bool) -> warpgraph::Result<T>,
    ) -> warpgraph::Result<T> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.as_ref().is_none_or(|r| r.device != device) {
            *inner = None;
            let gpu = Gpu::open(device)?;
            let graph = g.clone();
            // SAFETY: the graph lives in the `Arc`'s allocation, which `graph` keeps
            // alive in the same `Resident` as the handle and drops after it (field
            // order); an `Arc<Graph>` gives shared access only, so the graph neither
            // moves nor changes while the handle borrows it.
            let borrowed: &'static Graph = unsafe { &*Arc::as_ptr(&graph) };
            *inner = Some(Resident {
                handle: GpuGraph::new(&gpu, borrowed),
                device,
                negative: None,
                _graph: graph,
            });
            self.created.fetch_add(1, Ordering::Relaxed);
        }
        let r = inner.as_mut().expect("created above");
        let negative = *r
            .negative
            .get_or_insert_with(|| g.out().weights().min_f64().is_some_and(|x| x < 0.0));
        f(&mut r.handle, negative)
    }

    /// What the handle holds now; `None` where there is none.
    pub fn status(&self) -> Option<Status> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.as_ref().map(|r| Status {
            device: r.device,
            held: r.handle.held(),
            bytes: r.handle.device_bytes(),
        })
    }

    /// The number of handles created so far.
    pub fn created(&self) -> u64 {
        self.created.load(Ordering::Relaxed)
    }

    /// Frees the handle (its device memory).
    pub fn release(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
