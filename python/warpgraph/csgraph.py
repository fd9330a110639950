"""``scipy.sparse.csgraph``'s shortest paths, BFS and minimum spanning tree, on the
warpgraph engine.

Change ``from scipy.sparse.csgraph import dijkstra`` to
``from warpgraph.csgraph import dijkstra`` and the rest of the code stays: same
signatures, same return conventions (float64 distances, ``inf`` for unreachable,
int32 predecessors with ``-9999`` for none, result shapes following ``indices``), same
input conventions (scipy sparse matrices and arrays in CSR, CSC or COO; dense arrays in
which 0, ``inf`` and NaN are non-edges; explicit zeros of sparse input are edges of
weight 0; COO duplicates are summed, as scipy's conversion does) and scipy's own
:class:`NegativeCycleError`. Every function takes one more keyword, ``device``:
``'auto'`` (a GPU when there is one and the algorithm has GPU code, else the CPU),
``'cpu'``, ``'cuda'`` or ``'cuda:N'`` (an error when no usable GPU is there). A
:class:`warpgraph.Graph` is accepted wherever a matrix is.

Differences from scipy, all where scipy itself says "if multiple valid solutions are
possible, output may vary with SciPy and Python version":

- **Predecessors under ties.** Where several shortest paths reach a vertex, the
  predecessor returned is that of a valid shortest-path tree, not necessarily the one
  scipy picks (its choice follows its heap and loop order). Where the shortest path is
  unique the predecessors are scipy's.
- **Float rounding.** Distances are sums along shortest paths; where two shortest paths
  have the same real length, their float sums may differ in the last bit, so a distance
  may differ from scipy's by that rounding.

What the engine does not reproduce is delegated to scipy itself, so that the answer is
always scipy's: ``dijkstra`` on a graph with negative weights (scipy warns and returns a
heap-order-dependent result), and ``dijkstra(..., return_sparse_dist=True)``.

Every other name of ``scipy.sparse.csgraph`` (``connected_components``,
``reconstruct_path``, ``depth_first_order``, ...) is scipy's own function, reached through
this module, so that ``import warpgraph.csgraph as csgraph`` serves code that uses them
too; they take scipy's inputs (matrices), not a :class:`warpgraph.Graph`.
"""

from __future__ import annotations

import numpy as np

from . import _warpgraph
from ._arrays import matrix_csr, with_virtual_source
from .graph import Graph

try:  # scipy's own exception class, so that `except NegativeCycleError` keeps working
    from scipy.sparse.csgraph import NegativeCycleError
except ImportError:  # pragma: no cover - scipy is a dependency

    class NegativeCycleError(Exception):
        """A negative cycle makes shortest paths undefined."""


__all__ = [
    "NegativeCycleError",
    "bellman_ford",
    "breadth_first_order",
    "dijkstra",
    "floyd_warshall",
    "johnson",
    "minimum_spanning_tree",
    "shortest_path",
]



def __getattr__(name):
    """scipy.sparse.csgraph's other names (see the module's docstring)."""
    import scipy.sparse.csgraph as scg

    if name.startswith("_") or not hasattr(scg, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(scg, name)


def __dir__():
    import scipy.sparse.csgraph as scg

    return sorted(set(globals()) | {n for n in dir(scg) if not n.startswith("_")})


NULL_IDX = -9999
#: The engine's request behind scipy's ``'D'`` (``dijkstra``): shortest paths with
#: non-negative weights, the method chosen by the engine (``sssp_method``) for the
#: device and the number of sources: on the CPU delta-stepping for one source and one
#: Dijkstra per core for several, on a GPU ``auto`` (never the GPU's O(n^2) Dijkstra).
_NONNEGATIVE = "nonnegative"


# -- input ------------------------------------------------------------------------------


def _csr_arrays(csgraph, directed=True, bfs=False, fw=False):
    """``(n, indptr int64, indices int32, data float64)`` of a matrix (see
    :func:`warpgraph._arrays.matrix_csr`) or of a :class:`Graph` (its ``"weight"``
    adjacency, 1 on every edge of an unweighted one)."""
    if isinstance(csgraph, Graph):
        n = csgraph.number_of_nodes()
        indptr, indices, w = csgraph.adjacency("weight", 1)
        data = np.ones(len(indices)) if w is None else np.asarray(w, dtype=np.float64)
        return n, np.asarray(indptr, np.int64), indices, data
    return matrix_csr(csgraph, directed, bfs, fw)


def _engine(csgraph, directed, unweighted=False, drop_self_loops=False):
    """``(n, engine graph, has_negative)`` for scipy's reading of ``csgraph``."""
    if (
        isinstance(csgraph, Graph)
        and (directed or not csgraph.is_directed())
        and not drop_self_loops
    ):
        eng = csgraph.engine(None if unweighted else "weight", 1)
        n = csgraph.number_of_nodes()
        if unweighted:
            return n, eng, False
        return n, eng, csgraph.has_negative("weight", 1)
    n, indptr, indices, data = _csr_arrays(csgraph, directed, fw=drop_self_loops)
    weights = None if unweighted else data
    eng = _warpgraph.Graph.from_csr(indptr, indices, weights, directed, drop_self_loops)
    return n, eng, bool(not unweighted and len(data) and data.min() < 0)


def _indices(indices, n):
    """``(sources int64, result shape prefix)`` as scipy reads ``indices``."""
    if indices is None:
        return np.arange(n, dtype=np.int64), (n,)
    idx = np.array(indices, dtype=np.int32, order="C")
    shape = idx.shape
    idx = np.atleast_1d(idx).reshape(-1).astype(np.int64)
    idx[idx < 0] += n
    if np.any(idx < 0) or np.any(idx >= n):
        raise ValueError("indices out of range 0...N")
    return idx, shape


def _run(fn, *args, **kwargs):
    """Calls the engine, turning its negative-cycle error into scipy's."""
    try:
        return fn(*args, **kwargs)
    except _warpgraph.NegativeCycle as e:
        cycle = e.args[1] if len(e.args) > 1 else []
        node = cycle[0] if cycle else -1
        raise NegativeCycleError(f"Negative cycle detected on node {node}") from e


def _shaped(dist, pred, shape, n, return_predecessors):
    dist = dist.reshape(shape + (n,))
    if return_predecessors:
        return dist, pred.reshape(shape + (n,))
    return dist


def _from_sources(eng, n, sources, shape, method, device, return_predecessors):
    if n == 0:
        dist = np.zeros((len(sources), 0))
        return _shaped(dist, dist.astype(np.int32), shape, n, return_predecessors)
    dist, pred = _run(
        _warpgraph.sssp, eng, sources, method, device, return_predecessors
    )
    return _shaped(dist, pred, shape, n, return_predecessors)


# -- shortest paths ---------------------------------------------------------------------


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None, *, device="auto"):
    """scipy's ``shortest_path``: ``method`` is ``'auto'``, ``'FW'``, ``'D'``, ``'BF'``,
    ``'J'`` (as in scipy, ``'auto'`` picks among them by the same rule), or ``'DS'``:
    the engine's parallel delta-stepping (non-negative weights)."""
    if method == "auto":
        n, indptr, _, data = (
            _csr_arrays(csgraph, directed)
            if not isinstance(csgraph, Graph)
            else (len(csgraph), None, None, None)
        )
        if data is None:
            _, _, w = csgraph.adjacency("weight", 1)
            data = np.ones(0) if w is None else np.asarray(w)
        nk = len(data)
        if indices is not None or nk < n * n / 4:
            method = "J" if np.any(data < 0) else "D"
        else:
            method = "FW"
    if method == "FW":
        if indices is not None:
            raise ValueError("Cannot specify indices with method == 'FW'.")
        return floyd_warshall(csgraph, directed, return_predecessors, unweighted,
                              overwrite, device=device)
    if method == "D":
        return dijkstra(csgraph, directed, indices, return_predecessors, unweighted,
                        device=device)
    if method == "BF":
        return bellman_ford(csgraph, directed, indices, return_predecessors, unweighted,
                            device=device)
    if method == "J":
        return johnson(csgraph, directed, indices, return_predecessors, unweighted,
                       device=device)
    if method == "DS":
        n, eng, negative = _engine(csgraph, directed, unweighted)
        if negative:
            raise ValueError("delta-stepping ('DS') needs non-negative weights")
        sources, shape = _indices(indices, n)
        return _from_sources(eng, n, sources, shape, "delta-stepping", device,
                             return_predecessors)
    raise ValueError("unrecognized method '%s'" % method)


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False,
             unweighted=False, limit=np.inf, min_only=False, *, device="auto", **kwargs):
    """scipy's ``dijkstra`` (``limit`` and ``min_only`` included). One source runs the
    engine's parallel delta-stepping on the CPU, its ``auto`` on a GPU (the graph kept
    there for the next call); several are the engine's batched searches of a distance
    table: one Dijkstra per core on the CPU, a block per source on a GPU (with
    predecessors on a GPU, one search after another on the graph kept there). A graph with
    negative weights is handed to scipy itself (which warns and returns a result that
    depends on its heap order), as is ``return_sparse_dist=True``."""
    if kwargs.get("return_sparse_dist") or not unweighted and _has_negative(csgraph):
        import scipy.sparse.csgraph as scg

        if isinstance(csgraph, Graph):
            csgraph = csgraph.to_scipy()
        return scg.dijkstra(csgraph, directed, indices, return_predecessors, unweighted,
                            limit, min_only, **kwargs)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
    limit = float(limit)
    if limit < 0:
        raise ValueError("limit must be >= 0")
    n, eng, _ = _engine(csgraph, directed, unweighted)
    sources, shape = _indices(indices, n)
    if min_only:
        return _min_only(csgraph, directed, unweighted, n, sources, limit, device,
                         return_predecessors)
    out = _from_sources(eng, n, sources, shape, _NONNEGATIVE, device,
                        return_predecessors)
    if limit != np.inf:
        dist = out[0] if return_predecessors else out
        far = dist > limit
        dist[far] = np.inf
        if return_predecessors:
            out[1][far] = NULL_IDX
    return out


def _has_negative(csgraph):
    if isinstance(csgraph, Graph):
        return csgraph.has_negative("weight", 1)
    import scipy.sparse as sp

    if sp.issparse(csgraph):
        return csgraph.nnz > 0 and csgraph.tocsr().data.min() < 0
    return bool(np.any(np.asarray(csgraph, dtype=np.float64) < 0))


def _min_only(csgraph, directed, unweighted, n, sources, limit, device,
              return_predecessors):
    """Distances from the nearest of ``sources``: one search from a virtual vertex ``n``
    joined to every source by an arc of weight 0."""
    _, eng0, _ = _engine(csgraph, directed, unweighted)
    indptr, indices, w = eng0.csr()
    data = np.ones(len(indices)) if w is None else np.asarray(w, dtype=np.float64)
    eng = with_virtual_source(indptr, indices, data, np.unique(sources))
    dist, pred = _run(_warpgraph.sssp, eng, np.array([n]), _NONNEGATIVE, device, True)
    dist, pred = dist[0, :n].copy(), pred[0, :n].copy()
    far = dist > limit
    dist[far] = np.inf
    pred[far] = NULL_IDX
    pred[pred == n] = NULL_IDX
    if not return_predecessors:
        return dist
    # The source of each reached vertex: follow predecessors up to a source.
    root = np.where(pred == NULL_IDX, np.arange(n), pred).astype(np.int64)
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    origin = np.where(np.isfinite(dist), root, NULL_IDX).astype(np.int32)
    return dist, pred, origin


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False, *, device="auto"):
    """scipy's ``bellman_ford``: raises :class:`NegativeCycleError` when a negative
    cycle is reachable from one of ``indices`` (for ``directed=False``, any negative
    edge reachable from one). Several sources run as one batched distance table
    (Johnson's reweighting, then the batched searches, on either device); where the
    graph holds a negative cycle, they run one by one, so that only a cycle one of them
    reaches is refused."""
    n, eng, _ = _engine(csgraph, directed, unweighted)
    sources, shape = _indices(indices, n)
    return _from_sources(eng, n, sources, shape, "bellman-ford", device,
                         return_predecessors)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False,
            unweighted=False, *, device="auto"):
    """scipy's ``johnson``: raises :class:`NegativeCycleError` when the graph has a
    negative cycle anywhere (for ``directed=False``, any negative edge)."""
    if unweighted:
        return dijkstra(csgraph, directed, indices, return_predecessors, unweighted,
                        device=device)
    n, eng, negative = _engine(csgraph, directed)
    if negative:
        _run(_warpgraph.potentials_check, eng)
    if indices is None and n > 0:
        dist, pred = _run(_warpgraph.apsp, eng, "johnson", device, return_predecessors)
        return _shaped(dist, pred, (n,), n, return_predecessors)
    sources, shape = _indices(indices, n)
    method = "bellman-ford" if negative else _NONNEGATIVE
    return _from_sources(eng, n, sources, shape, method, device, return_predecessors)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False, *, device="auto"):
    """scipy's ``floyd_warshall`` (the engine's blocked, parallel version). As in scipy,
    self loops are ignored (the diagonal starts at 0) and a negative cycle anywhere raises
    :class:`NegativeCycleError`. ``overwrite`` is accepted and ignored: the result is a
    new array."""
    n, eng, _ = _engine(csgraph, directed, unweighted, drop_self_loops=True)
    if n == 0:
        return _shaped(np.zeros((0, 0)), np.zeros((0, 0), np.int32), (0,), 0,
                       return_predecessors)
    dist, pred = _run(_warpgraph.apsp, eng, "floyd-warshall", device, return_predecessors)
    return _shaped(dist, pred, (n,), n, return_predecessors)


# -- traversal --------------------------------------------------------------------------


def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True, *,
                        device="auto"):
    """scipy's ``breadth_first_order``: the vertices in the order a breadth-first search
    from ``i_start`` discovers them (each row scanned in its stored order, as scipy does;
    for ``directed=False`` a row of the matrix, then the same row of its transpose), and
    the predecessors. The order is inherently serial; it runs on the CPU."""
    _warpgraph.resolve_device(device, "breadth_first_order", False)
    n, indptr, indices, _ = _csr_arrays(csgraph, directed, bfs=True)
    order, pred, _ = _warpgraph.bfs_order(indptr, indices, int(i_start),
                                          undirected=not directed)
    if return_predecessors:
        return order, pred
    return order


# -- spanning trees ---------------------------------------------------------------------


def minimum_spanning_tree(csgraph, overwrite=False, *, device="auto"):
    """scipy's ``minimum_spanning_tree``: the forest as a CSR matrix of the same kind
    scipy returns, each edge at the position (row, column) of the input entry chosen.

    The engine's Kruskal runs on the entries ranked as scipy's Kruskal sorts them (a
    stable sort by weight), so the forest is scipy's own even among equal weights. As in
    scipy, chosen entries of weight 0 do not appear in the result."""
    import scipy.sparse as sp

    n, indptr, indices, data = _csr_arrays(csgraph)
    order, rank = _warpgraph.stable_rank(data)
    eng = _warpgraph.Graph.from_csr(indptr, indices, rank, True)
    _, _, ranks = _warpgraph.mst(eng, device, "kruskal")
    chosen = np.sort(order[ranks]) if ranks is not None else np.zeros(0, np.int64)
    rows = np.searchsorted(indptr, chosen, side="right") - 1
    kind = sp.csr_matrix if sp.issparse(csgraph) and not isinstance(csgraph, sp.sparray) else sp.csr_array
    tree = kind((data[chosen], (rows, indices[chosen])), shape=(n, n))
    tree.eliminate_zeros()
    return tree
