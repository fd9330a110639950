//! A graph kept on one GPU for any number of queries: [`GpuGraph`].
//!
//! **What stays on the GPU.** Each algorithm family has a GPU runner that holds the
//! arrays its kernels read and its working memory: [`GpuBfs`] (the out-arcs, and the
//! in-arcs of a directed graph; depths, parents, queues, bitmaps), [`GpuSssp`] (the
//! out-arcs with their weights; distances, parents, lists; the in-arcs and the ELL
//! layout once an SpMV method asks) and [`GpuMst`] (the symmetric arcs with their weight
//! keys; the forest's working lists). A [`GpuGraph`] creates each runner the first time
//! its family is asked for (the upload and the allocations happen then, once) and keeps
//! it until it is dropped (or [`GpuGraph::release`]), so that every later query pays its
//! kernels and the copy of its result back, not the upload. The runners do not share
//! arrays: BFS then SSSP on the same handle hold the CSR twice; [`GpuGraph::device_bytes`]
//! says what the runners created so far hold.
//!
//! **What comes back.** [`GpuGraph::bfs`] lends the tree the BFS runner keeps in
//! page-locked host memory (the copy from the GPU lands in it, nothing is allocated per
//! search); [`GpuGraph::bfs_into`] copies it into the caller's vectors, reused when
//! sized. SSSP results are read through the runner's page-locked buffers into a fresh
//! [`SsspResult`]; the MST's forest is assembled on the host as [`mst::mst_on`] does.
//!
//! Results are those of the one-shot functions ([`crate::bfs::cuda::bfs`],
//! [`GpuSssp::run`], [`crate::mst::cuda::boruvka`]): the same runners.
//!
//! ```no_run
//! use warpgraph::resident::GpuGraph;
//! use warpgraph::sssp::Algorithm;
//! use warpgraph::generate::{generate, GenerateOptions, Generator};
//! let g = generate(&Generator::Kronecker { scale: 16, edge_factor: 16 },
//!     &GenerateOptions::default()).unwrap();
//! let gpu = warpgraph::cuda::Gpu::open(0).unwrap();
//! let mut on_gpu = GpuGraph::new(&gpu, &g);
//! for s in 0..16 {
//!     let (tree, _) = on_gpu.bfs(s).unwrap(); // uploaded by the first search only
//!     println!("{s}: {} reached", tree.reached());
//!     let (paths, _) = on_gpu.sssp(s, &Algorithm::Auto).unwrap();
//!     println!("{s}: {} reached", paths.reached());
//! }
//! println!("{} bytes on the GPU", on_gpu.device_bytes());
//! ```

use std::sync::Arc;

use crate::bfs::cuda::{GpuBfs, GpuBfsOptions};
use crate::bfs::BfsTree;
use crate::cuda::{Gpu, GpuTimes};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId};
use crate::mst::cuda::{GpuMst, MstStats};
use crate::mst::{self, SpanningForest};
use crate::sssp::cuda::GpuSssp;
use crate::sssp::{Algorithm, Potentials, SsspResult};

/// Which GPU runners a [`GpuGraph`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Held {
    /// The BFS runner ([`GpuBfs`]).
    pub bfs: bool,
    /// The SSSP runner ([`GpuSssp`]).
    pub sssp: bool,
    /// The MST runner ([`GpuMst`]).
    pub mst: bool,
}

/// A graph kept on one GPU, its algorithms' runners created on first use and reused (see
/// the [module docs](self)). Borrows the graph: the runners read it on the host too
/// (SSSP's parent fix-ups, MST's edge names), so it must stay the one uploaded.
pub struct GpuGraph<'g> {
    g: &'g Graph,
    gpu: Arc<Gpu>,
    bfs_options: GpuBfsOptions,
    bfs: Option<Box<GpuBfs>>,
    sssp: Option<Box<GpuSssp>>,
    mst: Option<Box<GpuMst<'g>>>,
}

impl<'g> GpuGraph<'g> {
    /// A handle for `g` on `gpu`. Nothing is uploaded yet: each family's runner is created
    /// (uploaded, allocated, checked against free device memory) by its first query.
    pub fn new(gpu: &Arc<Gpu>, g: &'g Graph) -> GpuGraph<'g> {
        GpuGraph {
            g,
            gpu: gpu.clone(),
            bfs_options: GpuBfsOptions::default(),
            bfs: None,
            sssp: None,
            mst: None,
        }
    }

    /// A handle for `g` on `device`, which must be a GPU ([`Device::Cuda`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another device; [`Error::NoGpu`] when that GPU
    /// cannot be opened.
    pub fn on(device: Device, g: &'g Graph) -> Result<GpuGraph<'g>> {
        match device {
            Device::Cuda(i) => Ok(GpuGraph::new(&Gpu::open(i)?, g)),
            d => Err(Error::InvalidArgument(format!(
                "a graph kept on a GPU needs a GPU device (cuda or cuda:N), not {d}"
            ))),
        }
    }

    /// The graph.
    pub fn graph(&self) -> &'g Graph {
        self.g
    }

    /// The GPU.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The BFS techniques [`GpuGraph::bfs`] uses (default: `tuned`).
    pub fn set_bfs_options(&mut self, opts: GpuBfsOptions) {
        self.bfs_options = opts;
    }

    /// Which runners exist now.
    pub fn held(&self) -> Held {
        Held {
            bfs: self.bfs.is_some(),
            sssp: self.sssp.is_some(),
            mst: self.mst.is_some(),
        }
    }

    /// Device bytes the runners created so far hold, by their own reckoning
    /// ([`crate::bfs::cuda::bytes_needed`], [`crate::sssp::cuda::bytes_needed`],
    /// [`crate::mst::cuda::bytes_needed`]; SpMV's extra layouts not counted).
    pub fn device_bytes(&self) -> u64 {
        let g = self.g;
        let held = self.held();
        [
            (
                held.bfs,
                crate::bfs::cuda::bytes_needed as fn(&Graph) -> u64,
            ),
            (held.sssp, crate::sssp::cuda::bytes_needed),
            (held.mst, crate::mst::cuda::bytes_needed),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, bytes)| bytes(g))
        .sum()
    }

    /// Frees the runners (all their device memory); later queries create them again.
    pub fn release(&mut self) {
        self.bfs = None;
        self.sssp = None;
        self.mst = None;
    }

    /// The BFS runner, created (the graph uploaded) on first use.
    ///
    /// # Errors
    /// As [`GpuBfs::new`].
    pub fn bfs_runner(&mut self) -> Result<&mut GpuBfs> {
        if self.bfs.is_none() {
            self.bfs = Some(Box::new(GpuBfs::new(&self.gpu, self.g)?));
        }
        Ok(self.bfs.as_mut().expect("created above"))
    }

    /// The SSSP runner, created (the graph uploaded) on first use.
    ///
    /// # Errors
    /// As [`GpuSssp::new`].
    pub fn sssp_runner(&mut self) -> Result<&mut GpuSssp> {
        if self.sssp.is_none() {
            self.sssp = Some(Box::new(GpuSssp::new(&self.gpu, self.g)?));
        }
        Ok(self.sssp.as_mut().expect("created above"))
    }

    /// Breadth-first search from `source` (an internal id); lends the tree, which stays
    /// until the next search ([`GpuBfs::search`]: page-locked, no allocation per search).
    ///
    /// # Errors
    /// As [`GpuBfs::new`] (first search) and [`GpuBfs::search`].
    pub fn bfs(&mut self, source: VertexId) -> Result<(&BfsTree, GpuTimes)> {
        self.check_source(source)?;
        let opts = self.bfs_options;
        self.bfs_runner()?.search(source, &opts)
    }

    /// [`GpuGraph::bfs`] into `tree`, whose vectors are reused when they hold one entry
    /// per vertex ([`GpuBfs::run_into`]).
    ///
    /// # Errors
    /// As [`GpuGraph::bfs`].
    pub fn bfs_into(&mut self, source: VertexId, tree: &mut BfsTree) -> Result<GpuTimes> {
        self.check_source(source)?;
        let opts = self.bfs_options;
        self.bfs_runner()?.run_into(source, &opts, tree)
    }

    /// Shortest paths from `source` by `algorithm` ([`GpuSssp::run`]). For a request
    /// that names no method, [`crate::sssp::Request::algorithm`] says which to pass.
    ///
    /// # Errors
    /// As [`GpuSssp::new`] (first search) and [`GpuSssp::run`].
    pub fn sssp(
        &mut self,
        source: VertexId,
        algorithm: &Algorithm,
    ) -> Result<(SsspResult, GpuTimes)> {
        self.check_source(source)?;
        let g = self.g;
        self.sssp_runner()?.run(g, source, algorithm)
    }

    /// Johnson's potentials ([`GpuSssp::potentials`]) on the SSSP runner.
    ///
    /// # Errors
    /// As [`GpuSssp::potentials`].
    pub fn potentials(&mut self) -> Result<(Potentials, GpuTimes)> {
        let g = self.g;
        self.sssp_runner()?.potentials(g)
    }

    /// A source that is not a vertex is refused before any runner is created (an empty
    /// graph has none: nothing of it is uploaded).
    fn check_source(&self, source: VertexId) -> Result<()> {
        let n = self.g.num_vertices();
        match (source as usize) < n {
            true => Ok(()),
            false => Err(Error::InvalidArgument(format!(
                "source {source} is not a vertex: the graph has {n} vertices (internal ids 0..{n})"
            ))),
        }
    }

    /// The minimum spanning forest by Borůvka ([`GpuMst::run`]; an empty graph's on the
    /// CPU, as [`crate::mst::cuda::boruvka`] does).
    ///
    /// # Errors
    /// As [`GpuMst::new`] (first run) and [`GpuMst::run`].
    pub fn mst(&mut self) -> Result<(SpanningForest, MstStats)> {
        if self.g.num_vertices() == 0 {
            return mst::cpu::boruvka(self.g).map(|f| (f, MstStats::default()));
        }
        if self.mst.is_none() {
            self.mst = Some(Box::new(GpuMst::new(&self.gpu, self.g)?));
        }
        self.mst.as_mut().expect("created above").run()
    }
}
