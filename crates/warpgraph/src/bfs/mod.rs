//! Breadth-first search: the BFS tree of a source vertex (hop counts and one parent each).
//!
//! [`bfs`] returns a [`BfsTree`]: for every vertex its depth (the number of arcs on a
//! shortest path from the source, or [`UNREACHED`]) and its parent in a BFS tree (the
//! source is its own parent; unreached vertices have [`NO_VERTEX`](crate::NO_VERTEX)).
//! Depths are unique; the parents are not (any neighbour one level up will do), which is
//! why [`verify`] checks the Graph500 properties of a tree instead of comparing with one
//! fixed answer.
//!
//! Directed graphs are searched along their arcs; undirected graphs along their edges.
//! Weights are ignored. Self loops and parallel arcs are harmless.
//!
//! Method: direction-optimising BFS (Beamer, Asanovic and Patterson, "Direction-optimizing
//! breadth-first search", SC 2012; structured as GAPBS `bfs.cc`), which mixes top-down
//! steps (the frontier claims its unvisited neighbours) with bottom-up steps (unvisited
//! vertices look for a parent in the frontier) by the frontier's size; see
//! [`cpu::direction_optimizing`] for the details. [`Direction`] forces either kind of
//! step, which is useful for testing and for comparing.
//!
//! On GPUs, [`cuda`] runs Enterprise (Liu and Huang, "Enterprise: breadth-first graph
//! traversal on GPUs", SC'15) on one GPU, and [`cuda::multi`] on several by 1-D
//! partition of the vertices, both with Beamer's switch.
//!
//! ```
//! use warpgraph::bfs::{bfs, verify, BfsOptions, UNREACHED};
//! use warpgraph::{EdgeList, BuildOptions, Weights, NO_VERTEX};
//! //  0 -- 1 -- 2      3 (isolated)
//! //   \       /
//! //    `--4--'
//! let edges = EdgeList::new(5, vec![0, 1, 0, 4], vec![1, 2, 4, 2], Weights::None).unwrap();
//! let g = edges.build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
//! let tree = bfs(&g, 0, &BfsOptions::default()).unwrap();
//! assert_eq!(tree.depth, vec![0, 1, 2, UNREACHED, 1]);
//! assert_eq!(tree.parent[3], NO_VERTEX);
//! assert_eq!((tree.reached(), tree.max_depth()), (4, 2));
//! verify(&g, &tree).unwrap();
//! ```

/// Arcs a second one CPU thread gets through in BFS (direction-optimizing: 18.5 ms for the
/// 128M arcs of Kronecker 22 on 16 threads): what `--device auto`
/// weighs against a GPU's start ([`crate::device::Work`]).
pub const CPU_ARCS_PER_THREAD_SECOND: f64 = 4.0e8;

pub mod cpu;
pub mod cuda;
mod verify;

pub use verify::verify;

use rayon::prelude::*;

use crate::device::Device;
pub use crate::device::RunTimes;
use crate::error::{Error, Result};
use crate::graph::{named_enum, Graph, VertexId};

/// The depth of a vertex that the search did not reach.
pub const UNREACHED: u32 = u32::MAX;

/// A breadth-first search tree, indexed by internal vertex id. The default has no
/// vertices: a place for the `_into` searches to fill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BfsTree {
    /// The vertex the search started from.
    pub source: VertexId,
    /// Hops from the source along a shortest path; [`UNREACHED`] when there is no path.
    pub depth: Vec<u32>,
    /// The parent in the tree: `parent[source] == source`, [`NO_VERTEX`](crate::NO_VERTEX)
    /// when unreached;
    /// otherwise `parent[v] -> v` is an arc and `depth[parent[v]] + 1 == depth[v]`.
    pub parent: Vec<VertexId>,
}

impl BfsTree {
    /// The number of vertices reached, the source included.
    ///
    /// Returns the count of depths other than [`UNREACHED`]. Complexity O(n), in parallel.
    ///
    /// # Example
    /// ```
    /// use warpgraph::bfs::{BfsTree, UNREACHED};
    /// use warpgraph::NO_VERTEX;
    /// // 0 -> 1 -> 2, and 3 unreached.
    /// let tree = BfsTree { source: 0, depth: vec![0, 1, 2, UNREACHED],
    ///                      parent: vec![0, 0, 1, NO_VERTEX] };
    /// assert_eq!(tree.reached(), 3);
    /// assert_eq!(tree.max_depth(), 2);
    /// ```
    pub fn reached(&self) -> u64 {
        self.depth.par_iter().filter(|&&d| d != UNREACHED).count() as u64
    }

    /// The largest depth of a reached vertex: the number of levels below the source.
    ///
    /// Returns 0 when only the source was reached (or the tree is empty). Complexity O(n),
    /// in parallel. See [`BfsTree::reached`] for an example.
    pub fn max_depth(&self) -> u32 {
        self.depth
            .par_iter()
            .copied()
            .filter(|&d| d != UNREACHED)
            .max()
            .unwrap_or(0)
    }
}

/// Which kind of steps the search takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// Top-down while the frontier is small, bottom-up while it is large (Beamer's
    /// heuristic, tuned by [`BfsOptions::alpha`] and [`BfsOptions::beta`]).
    #[default]
    Optimizing,
    /// Only top-down steps: the frontier's vertices claim their unvisited out-neighbours.
    TopDown,
    /// Only bottom-up steps: every unvisited vertex looks for an in-neighbour in the
    /// frontier.
    BottomUp,
}

named_enum!(
    Direction,
    "BFS direction",
    Direction::Optimizing => "optimizing",
    Direction::TopDown => "top-down",
    Direction::BottomUp => "bottom-up"
);

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Options for [`bfs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BfsOptions {
    /// The kind of steps (default: [`Direction::Optimizing`]).
    pub direction: Direction,
    /// Go bottom-up when the arcs leaving the frontier exceed the unexplored arcs divided
    /// by `alpha` (default 15, Beamer's value). At least 1.
    pub alpha: u32,
    /// Go back top-down when the frontier, shrinking, holds fewer than `n / beta` vertices
    /// (default 18, Beamer's value). At least 1.
    pub beta: u32,
}

impl Default for BfsOptions {
    fn default() -> Self {
        BfsOptions {
            direction: Direction::Optimizing,
            alpha: 15,
            beta: 18,
        }
    }
}

/// Breadth-first search from `source`, on every core.
///
/// # Arguments
/// - `g`: any graph; directed graphs are searched along their arcs, weights are ignored.
/// - `source`: the internal id of the start vertex (see [`Graph::vertex`] to map a file id).
/// - `opts`: the step directions; the default is right for almost every use.
///
/// # Returns
/// The [`BfsTree`]: depths (unique) and one valid parent per reached vertex.
///
/// # Errors
/// [`Error::InvalidArgument`] when `source` is not a vertex of `g` (every source, when the
/// graph is empty) or `alpha` or `beta` is 0; [`Error::OutOfMemory`] when the search state
/// (about 12 bytes per vertex) does not fit.
///
/// # Complexity
/// O(n + m) work for top-down steps; a bottom-up step costs O(n) plus the arcs it scans,
/// which in practice is far fewer than m. Memory O(n).
///
/// # Example
/// ```
/// use warpgraph::bfs::{bfs, BfsOptions, Direction, UNREACHED};
/// use warpgraph::{EdgeList, BuildOptions, Weights, NO_VERTEX};
/// // A directed path 0 -> 1 -> 2 and an arc 3 -> 0 that leads nowhere from 0.
/// let g = EdgeList::new(4, vec![0, 1, 3], vec![1, 2, 0], Weights::None).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// for direction in [Direction::Optimizing, Direction::TopDown, Direction::BottomUp] {
///     let tree = bfs(&g, 0, &BfsOptions { direction, ..Default::default() }).unwrap();
///     assert_eq!(tree.depth, vec![0, 1, 2, UNREACHED]);
///     assert_eq!(tree.parent, vec![0, 0, 1, NO_VERTEX]);
/// }
/// assert!(bfs(&g, 4, &BfsOptions::default()).is_err());
/// ```
pub fn bfs(g: &Graph, source: VertexId, opts: &BfsOptions) -> Result<BfsTree> {
    cpu::direction_optimizing(g, source, opts)
}

/// [`bfs`] into `tree`, reusing its vectors when they hold one entry per vertex (as after
/// an earlier search of `g`): for a series of searches, which then write over the same
/// memory instead of fresh pages.
///
/// # Errors
/// As [`bfs`]; `tree` is then unchanged.
///
/// # Example
/// ```
/// use warpgraph::bfs::{bfs, bfs_into, BfsOptions, BfsTree};
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::None).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// let mut tree = BfsTree::default();
/// for s in 0..3 {
///     bfs_into(&g, s, &BfsOptions::default(), &mut tree).unwrap();
///     assert_eq!(tree, bfs(&g, s, &BfsOptions::default()).unwrap());
/// }
/// ```
pub fn bfs_into(g: &Graph, source: VertexId, opts: &BfsOptions, tree: &mut BfsTree) -> Result<()> {
    cpu::direction_optimizing_into(g, source, opts, tree)
}

/// BFS on a chosen device, the graph prepared once for many sources (on a GPU: uploaded
/// once). What the CLI, the benchmark harness and the demo use.
///
/// # Example
/// ```
/// use warpgraph::bfs::{self, BfsRunner};
/// use warpgraph::device::Device;
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::None).unwrap()
///     .build(&BuildOptions::default()).unwrap();
/// let mut runner = BfsRunner::new(Device::Cpu, &g, Default::default(), Default::default()).unwrap();
/// let (tree, times) = runner.run(&g, 0).unwrap();
/// assert_eq!(tree.depth, vec![0, 1, 2]);
/// assert!(times.kernel_seconds.is_none() && times.seconds >= 0.0);
/// ```
pub enum BfsRunner {
    /// The CPU code, with its options.
    Cpu(BfsOptions),
    /// A GPU with the graph on it, and the techniques to use.
    Cuda(Box<cuda::GpuBfs>, cuda::GpuBfsOptions),
}

impl BfsRunner {
    /// Prepares BFS on `device` (resolved: [`Device::Cpu`] or [`Device::Cuda`]); on a GPU
    /// this uploads `g`.
    ///
    /// # Errors
    /// As [`cuda::GpuBfs::new`]; [`Error::InvalidArgument`] for [`Device::Auto`].
    pub fn new(
        device: Device,
        g: &Graph,
        cpu: BfsOptions,
        gpu: cuda::GpuBfsOptions,
    ) -> Result<BfsRunner> {
        match device {
            Device::Cpu => Ok(BfsRunner::Cpu(cpu)),
            Device::Cuda(i) => {
                let gpu_handle = crate::cuda::Gpu::open(i)?;
                Ok(BfsRunner::Cuda(
                    Box::new(cuda::GpuBfs::new(&gpu_handle, g)?),
                    gpu,
                ))
            }
            Device::Auto => Err(Error::InvalidArgument(
                "resolve the device (Device::resolve) before preparing a search".into(),
            )),
        }
    }

    /// The algorithm's name: `bfs-optimizing` (CPU, by direction) or `bfs-enterprise`
    /// (GPU, by the techniques' ablation step).
    pub fn algorithm(&self) -> String {
        match self {
            BfsRunner::Cpu(o) => format!("bfs-{}", o.direction),
            BfsRunner::Cuda(_, o) => {
                let variant = cuda::Variant::ALL
                    .iter()
                    .find(|v| v.options() == *o)
                    .map_or("custom", |v| v.name());
                match o.direction {
                    Direction::Optimizing => format!("bfs-gpu-{variant}"),
                    d => format!("bfs-gpu-{variant}-{d}"),
                }
            }
        }
    }

    /// Searches from `source` (an internal id) on `g`, the graph given to [`BfsRunner::new`].
    ///
    /// # Errors
    /// As [`bfs`] and [`cuda::GpuBfs::run`].
    pub fn run(&mut self, g: &Graph, source: VertexId) -> Result<(BfsTree, RunTimes)> {
        let mut tree = BfsTree::default();
        let times = self.run_into(g, source, &mut tree)?;
        Ok((tree, times))
    }

    /// Searches from `source` into `tree`: as [`BfsRunner::run`], but the tree's vectors
    /// are reused when they hold one entry per vertex ([`bfs_into`],
    /// [`cuda::GpuBfs::run_into`]), which saves the pages of a fresh result in a series
    /// of searches.
    ///
    /// # Errors
    /// As [`BfsRunner::run`].
    pub fn run_into(
        &mut self,
        g: &Graph,
        source: VertexId,
        tree: &mut BfsTree,
    ) -> Result<RunTimes> {
        match self {
            BfsRunner::Cpu(o) => {
                let start = std::time::Instant::now();
                bfs_into(g, source, o, tree)?;
                let seconds = start.elapsed().as_secs_f64();
                Ok(RunTimes {
                    seconds,
                    kernel_seconds: None,
                })
            }
            BfsRunner::Cuda(gpu, o) => Ok(gpu.run_into(source, o, tree)?.into()),
        }
    }

    /// Searches from `source` and lends the tree: on a GPU the runner's own
    /// ([`cuda::GpuBfs::search`]: the copy from the GPU lands in it straight, in
    /// page-locked memory, so the time end to end is the kernels' and one copy's), on
    /// the CPU `scratch`, reused as [`BfsRunner::run_into`] reuses its tree. For many
    /// searches whose trees are read and let go: a benchmark, a verifier.
    ///
    /// # Errors
    /// As [`BfsRunner::run`].
    pub fn search<'a>(
        &'a mut self,
        g: &Graph,
        source: VertexId,
        scratch: &'a mut BfsTree,
    ) -> Result<(&'a BfsTree, RunTimes)> {
        match self {
            BfsRunner::Cpu(_) => {
                let times = self.run_into(g, source, scratch)?;
                Ok((scratch, times))
            }
            BfsRunner::Cuda(gpu, o) => {
                let (tree, t) = gpu.search(source, o)?;
                Ok((tree, t.into()))
            }
        }
    }
}

/// Checks the arguments every BFS variant shares.
pub(crate) fn check_args(g: &Graph, source: VertexId, opts: &BfsOptions) -> Result<()> {
    let n = g.num_vertices();
    if source as usize >= n {
        return Err(Error::InvalidArgument(format!(
            "BFS source {source} is not a vertex: the graph has {n} vertices (internal ids 0..{n})"
        )));
    }
    if opts.alpha == 0 || opts.beta == 0 {
        return Err(Error::InvalidArgument(format!(
            "BFS alpha and beta must be at least 1 (got alpha {}, beta {})",
            opts.alpha, opts.beta
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::NO_VERTEX;

    #[test]
    fn direction_names_round_trip() {
        for &d in Direction::ALL {
            assert_eq!(d.name().parse::<Direction>().unwrap(), d);
        }
        assert_eq!("top-down".parse::<Direction>().unwrap(), Direction::TopDown);
        let e = "sideways".parse::<Direction>().unwrap_err().to_string();
        assert!(e.contains("sideways") && e.contains("bottom-up"), "{e}");
    }

    #[test]
    fn tree_summaries() {
        let t = BfsTree {
            source: 1,
            depth: vec![UNREACHED, 0, 1, 3, 2],
            parent: vec![NO_VERTEX, 1, 1, 4, 2],
        };
        assert_eq!(t.reached(), 4);
        assert_eq!(t.max_depth(), 3);
    }
}
