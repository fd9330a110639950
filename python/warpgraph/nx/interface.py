"""NetworkX's functions on the warpgraph engine, with NetworkX's answers.

Every function here takes a :class:`warpgraph.Graph` (what ``convert_from_nx`` makes of a
NetworkX graph: the NetworkX graph itself, its adjacency converted to CSR arrays the
first time an algorithm needs it, once per edge attribute) and returns what NetworkX
returns: the same dicts, lists, generators and graphs, with Python numbers and the
original node labels.

Exactness rules (each tested against NetworkX):

- Node order. Vertex ``i`` is the ``i``-th node of ``G``; rows keep ``G``'s neighbour
  order, so breadth-first searches visit nodes in NetworkX's order.
- Paths and predecessors. Where NetworkX returns one particular path (or predecessor
  list) and several shortest paths exist, which one it returns depends on its heap or
  queue order. The backend checks its result for such ties (any vertex with two tight
  in-arcs); if there is one, the call is answered by NetworkX itself.
- Negative weights under Dijkstra, negative cycles under Floyd-Warshall (NetworkX does not
  detect them there), the cycle ``find_negative_cycle`` returns: answered by NetworkX.
- Distances are those of NetworkX (int for int weights, float otherwise); the order of
  keys of a distance dict among nodes at equal distance may differ.
- Centrality. Betweenness counts every shortest path as NetworkX does, ties exact; a
  sample for ``k`` is drawn here with NetworkX's own call on its ``seed``, so the same
  sources are used. Where an edge weighs zero or less, NetworkX's counts depend on its
  heap order (or are undefined): answered by NetworkX. Sums may differ from NetworkX's in
  the last bits (they are added in another order).
"""

from __future__ import annotations

import inspect
import math
from collections import defaultdict

import numpy as np

from .. import _warpgraph
from .._arrays import with_virtual_source
from ..graph import Graph

#: The engine's request behind NetworkX's Dijkstra functions: shortest paths with
#: non-negative weights, the method chosen by the engine (``sssp_method``) for the device
#: and the number of sources (never the GPU's O(n^2) Dijkstra).
_NONNEGATIVE = "nonnegative"
#: Sources per engine call in the all-pairs generators.
_BLOCK = 64

_FUNCTIONS = {}


def _nx():
    import networkx

    return networkx


def _register(fn):
    _FUNCTIONS[fn.__name__] = fn
    return fn


class _Decline(Exception):
    """Raised inside an implementation: NetworkX answers this call itself."""


def _nx_graph(G):
    return G.to_networkx() if isinstance(G, Graph) else G


def _networkx_answer(name, G, *args, **kwargs):
    return getattr(_nx(), name)(_nx_graph(G), *args, backend="networkx", **kwargs)


def _exact(fn):
    """Runs ``fn``; where it declines (or the graph cannot be converted), NetworkX
    answers with the same arguments."""
    def wrapper(G, *args, **kwargs):
        try:
            return fn(G, *args, **kwargs)
        except (_Decline, TypeError, ValueError, OverflowError) as e:
            if isinstance(e, (TypeError, ValueError)) and not _from_conversion(e):
                raise
            return _networkx_answer(fn.__name__, G, *args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return _register(wrapper)


class _ConversionError(ValueError):
    """A graph whose weights the engine cannot take as NetworkX would."""


def _from_conversion(e):
    return isinstance(e, _ConversionError)


# -- conversion helpers ---------------------------------------------------------------


def _adjacency(G, weight, default=1):
    try:
        return G.adjacency(weight, default)
    except (TypeError, ValueError) as e:
        raise _ConversionError(str(e)) from e


def _engine(G, weight, default=1):
    _adjacency(G, weight, default)
    return G.engine(weight, default)


def _is_int(w):
    return w is None or w.dtype.kind == "i"


def _has_negative(w):
    return w is not None and len(w) > 0 and np.min(w) < 0


def _vertex(G, node):
    """The vertex of ``node``; declines (NetworkX raises its own error) when absent."""
    try:
        return G.index[node]
    except (KeyError, TypeError):
        raise _Decline from None


def _values(dist, ints):
    """Python numbers from a float64 array (ints for int weights)."""
    if ints:
        return dist.astype(np.int64).tolist()
    return dist.tolist()


def _dist_dict(G, row, s, ints, cutoff=None):
    """``{node: distance}`` for the reached vertices of one row, nearest first."""
    reached = np.flatnonzero(np.isfinite(row) if cutoff is None else row <= cutoff)
    reached = reached[np.argsort(row[reached], kind="stable")]
    nodes = G.nodes
    out = {nodes[s]: 0}
    out.update(zip([nodes[i] for i in reached.tolist()], _values(row[reached], ints)))
    out[nodes[s]] = 0
    return out


def _paths(G, pred, s, targets):
    """``{node: path}`` for vertices ``targets`` (vertex numbers), from predecessors."""
    nodes = G.nodes
    P = pred.tolist()
    known = {s: [nodes[s]]}
    out = {}
    for v in targets:
        stack = []
        u = v
        while u not in known:
            stack.append(u)
            u = P[u]
        p = known[u]
        while stack:
            u = stack.pop()
            p = p + [nodes[u]]
            known[u] = p
        out[nodes[v]] = known[v]
    return out


def _search(G, s, method, weight, ties_matter):
    """One engine search from vertex ``s``: ``(dist row, pred row, ints)``; declines on
    ties when ``ties_matter``."""
    _, _, w = _adjacency(G, weight)
    eng = _engine(G, weight)
    src = np.array([s], dtype=np.int64)
    dist, pred = _warpgraph.sssp(eng, src, method, "auto", True)
    if ties_matter and _warpgraph.has_ties(eng, src, dist):
        raise _Decline
    return dist[0], pred[0], _is_int(w)


def _unbounded():
    return _nx().NetworkXUnbounded("Negative cycle detected.")


def _rows_by(fn, G, convert, **kwargs):
    """NetworkX's all-pairs generators: ``(node, fn(G, node, **kwargs))`` for each node in
    ``G``'s order, each row by the backend's ``fn`` or, where it declines that row (a tie
    between paths), by NetworkX's, which is what NetworkX's generator yields. The
    adjacency with the weights ``convert`` is converted first, so that a failure falls
    back whole."""
    _adjacency(G, convert)

    def rows():
        for s in G.nodes:
            try:
                yield s, fn.__wrapped__(G, s, **kwargs)
            except _Decline:
                yield s, _networkx_answer(fn.__name__, G, s, **kwargs)

    return rows()


# -- breadth-first search -------------------------------------------------------------


def _depth_limit(limit):
    if limit is None or limit == math.inf:
        return None
    return max(0, math.ceil(limit))


def _bfs(G, source, depth_limit):
    s = _vertex(G, source)
    indptr, indices, _ = _adjacency(G, None)
    return _warpgraph.bfs_order(indptr, indices, s, _depth_limit(depth_limit))


@_exact
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_edges``: the tree edges in NetworkX's discovery order."""
    if sort_neighbors is not None or (reverse and G.is_directed()):
        raise _Decline
    order, pred, _ = _bfs(G, source, depth_limit)
    nodes = G.nodes
    order = order.tolist()[1:]
    pred = pred.tolist()
    return iter([(nodes[pred[v]], nodes[v]) for v in order])


@_exact
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_tree``: a DiGraph of the tree edges, in discovery order."""
    nx = _nx()
    edges = bfs_edges.__wrapped__(G, source, reverse, depth_limit, sort_neighbors)
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(edges)
    return T


@_exact
def single_source_shortest_path_length(G, source, cutoff=None):
    """NetworkX's ``single_source_shortest_path_length``, in its BFS order."""
    order, _, depth = _bfs(G, source, cutoff)
    nodes = G.nodes
    return dict(zip([nodes[v] for v in order.tolist()], depth.tolist()))


@_exact
def single_source_shortest_path(G, source, cutoff=None):
    """NetworkX's ``single_source_shortest_path``: ``{node: path}`` in discovery order,
    each path through the node's breadth-first parent (the first to reach it, as in
    NetworkX: no ties to worry about)."""
    order, pred, _ = _bfs(G, source, cutoff)
    order = order.tolist()
    return _paths(G, pred, order[0], order)


@_exact
def all_pairs_shortest_path(G, cutoff=None):
    """NetworkX's ``all_pairs_shortest_path``: a generator of ``(node, {node: path})``,
    one breadth-first search per node in ``G``'s order."""
    return _rows_by(single_source_shortest_path, G, None, cutoff=cutoff)


@_exact
def descendants_at_distance(G, source, distance):
    """NetworkX's ``descendants_at_distance``: the set of nodes exactly ``distance``
    breadth-first levels from ``source``."""
    if not isinstance(distance, int):
        raise _Decline
    if distance < 0:
        _vertex(G, source)
        return set()
    order, _, depth = _bfs(G, source, distance)
    nodes = G.nodes
    return {nodes[v] for v in order[depth == distance].tolist()}


@_exact
def all_pairs_shortest_path_length(G, cutoff=None):
    """NetworkX's ``all_pairs_shortest_path_length``: a generator of
    ``(node, {node: depth})``, one breadth-first search per node in ``G``'s order."""
    return _rows_by(single_source_shortest_path_length, G, None, cutoff=cutoff)


@_exact
def bfs_layers(G, sources):
    """NetworkX's ``bfs_layers``: the breadth-first layers from ``sources`` (a node or
    nodes), the first one ``list(set(sources))`` as NetworkX makes it, the others in
    discovery order."""
    if sources in G:
        sources = [sources]
    elif iter(sources) is sources:
        raise _Decline  # a one-shot iterator: NetworkX must see it whole
    first = list(set(sources))
    src = np.array([_vertex(G, s) for s in first], dtype=np.int64)
    if len(src) == 0:
        return iter([])
    indptr, indices, _ = _adjacency(G, None)
    order, _, depth = _warpgraph.bfs_order(indptr, indices, src)
    nodes = G.nodes
    cuts = (np.flatnonzero(np.diff(depth)) + 1).tolist()
    order = order.tolist()
    return iter([[nodes[v] for v in order[a:b]]
                 for a, b in zip([0] + cuts, cuts + [len(order)])])


@_exact
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_predecessors``: ``(node, parent)`` in discovery order."""
    edges = bfs_edges.__wrapped__(G, source, False, depth_limit, sort_neighbors)
    return iter([(t, s) for s, t in edges])


@_exact
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_successors``: ``(node, [children])`` per parent, in discovery
    order (the source with ``[]`` when it has none)."""
    out, parent, children = [], source, []
    for p, c in bfs_edges.__wrapped__(G, source, False, depth_limit, sort_neighbors):
        if p != parent:
            out.append((parent, children))
            parent, children = p, []
        children.append(c)
    out.append((parent, children))
    return iter(out)


# -- Dijkstra ---------------------------------------------------------------------------


def _nonnegative(G, weight):
    _, _, w = _adjacency(G, weight)
    if _has_negative(w):
        raise _Decline


@_exact
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """NetworkX's ``single_source_dijkstra``: ``(distances, paths)``, or for a target
    ``(distance, path)``."""
    s = _vertex(G, source)
    if target == source:
        return (0, [source])
    _nonnegative(G, weight)
    dist, pred, ints = _search(G, s, _NONNEGATIVE, weight, ties_matter=True)
    if target is not None:
        t = G.index.get(target) if target in G else None
        if t is None or not (np.isfinite(dist[t]) and (cutoff is None or dist[t] <= cutoff)):
            raise _nx().NetworkXNoPath(f"No path to {target}.")
        return (_values(dist[[t]], ints)[0], _paths(G, pred, s, [t])[target])
    dists = _dist_dict(G, dist, s, ints, cutoff)
    index = G.index
    return dists, _paths(G, pred, s, [index[v] for v in dists])


@_exact
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """NetworkX's ``single_source_dijkstra_path_length``: ``{node: distance}``."""
    s = _vertex(G, source)
    _nonnegative(G, weight)
    dist, _, ints = _search(G, s, _NONNEGATIVE, weight, ties_matter=False)
    return _dist_dict(G, dist, s, ints, cutoff)


@_exact
def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    """NetworkX's ``multi_source_dijkstra_path_length``: ``{node: distance from the
    nearest source}``, by one search from an added vertex joined to every source by an
    arc of weight 0."""
    if iter(sources) is sources or not sources:
        raise _Decline  # one-shot iterators and NetworkX's own error for none
    src = np.array([_vertex(G, s) for s in sources], dtype=np.int64)
    _nonnegative(G, weight)
    indptr, indices, w = _adjacency(G, weight)
    n = len(indptr) - 1
    eng = with_virtual_source(indptr, indices, w, src)
    dist, _ = _warpgraph.sssp(eng, np.array([n], dtype=np.int64), _NONNEGATIVE, "auto", False)
    row = dist[0, :n]
    reached = np.flatnonzero(np.isfinite(row) if cutoff is None else row <= cutoff)
    reached = reached[np.argsort(row[reached], kind="stable")]
    nodes = G.nodes
    return dict(zip([nodes[i] for i in reached.tolist()], _values(row[reached], _is_int(w))))


@_exact
def dijkstra_path_length(G, source, target, weight="weight"):
    """NetworkX's ``dijkstra_path_length``."""
    s = _vertex(G, source)
    if source == target:
        return 0
    _nonnegative(G, weight)
    dist, _, ints = _search(G, s, _NONNEGATIVE, weight, ties_matter=False)
    t = G.index.get(target) if target in G else None
    if t is None or not np.isfinite(dist[t]):
        raise _nx().NetworkXNoPath(f"Node {target} not reachable from {source}")
    return _values(dist[[t]], ints)[0]


@_exact
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    """NetworkX's ``single_source_dijkstra_path``: ``{node: path}``."""
    return single_source_dijkstra.__wrapped__(G, source, cutoff=cutoff, weight=weight)[1]


@_exact
def dijkstra_path(G, source, target, weight="weight"):
    """NetworkX's ``dijkstra_path``: the path ``single_source_dijkstra`` gives."""
    return single_source_dijkstra.__wrapped__(G, source, target=target, weight=weight)[1]


@_exact
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """NetworkX's ``all_pairs_dijkstra_path_length``: a generator of
    ``(node, {node: distance})``, computed a block of sources at a time."""
    _nonnegative(G, weight)
    _, _, w = _adjacency(G, weight)
    eng = _engine(G, weight)
    ints = _is_int(w)
    nodes = G.nodes
    n = len(nodes)

    def rows():
        for first in range(0, n, _BLOCK):
            src = np.arange(first, min(n, first + _BLOCK), dtype=np.int64)
            dist, _ = _warpgraph.sssp(eng, src, _NONNEGATIVE, "auto", False)
            for i, s in enumerate(src.tolist()):
                yield nodes[s], _dist_dict(G, dist[i], s, ints, cutoff)

    return rows()


@_exact
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    """NetworkX's ``all_pairs_dijkstra``: a generator of ``(node, (distances, paths))``."""
    _nonnegative(G, weight)
    return _rows_by(single_source_dijkstra, G, weight, cutoff=cutoff, weight=weight)


@_exact
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """NetworkX's ``all_pairs_dijkstra_path``: a generator of ``(node, paths)``."""
    _nonnegative(G, weight)
    return _rows_by(single_source_dijkstra_path, G, weight, cutoff=cutoff, weight=weight)


# -- Bellman-Ford -----------------------------------------------------------------------


def _bellman_ford(G, s, weight, ties_matter=True):
    """The engine's Bellman-Ford from vertex ``s`` (as :func:`_search`);
    ``NetworkXUnbounded`` for a negative cycle it reaches."""
    try:
        return _search(G, s, "bellman-ford", weight, ties_matter)
    except _warpgraph.NegativeCycle:
        raise _unbounded() from None


@_exact
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    """NetworkX's ``single_source_bellman_ford``: ``(distances, paths)`` or for a target
    ``(distance, path)``; ``NetworkXUnbounded`` for a negative cycle reachable from the
    source."""
    s = _vertex(G, source)
    if source == target:
        return (0, [source])
    dist, pred, ints = _bellman_ford(G, s, weight)
    if target is not None:
        t = G.index.get(target) if target in G else None
        if t is None or not np.isfinite(dist[t]):
            raise _nx().NetworkXNoPath(
                f"Target {target} cannot be reached from given sources"
            )
        return (_values(dist[[t]], ints)[0], _paths(G, pred, s, [t])[target])
    dists = _dist_dict(G, dist, s, ints)
    index = G.index
    return dists, _paths(G, pred, s, [index[v] for v in dists])


@_exact
def single_source_bellman_ford_path(G, source, weight="weight"):
    """NetworkX's ``single_source_bellman_ford_path``: ``{node: path}``."""
    return single_source_bellman_ford.__wrapped__(G, source, weight=weight)[1]


@_exact
def bellman_ford_path(G, source, target, weight="weight"):
    """NetworkX's ``bellman_ford_path``: the path ``single_source_bellman_ford`` gives."""
    return single_source_bellman_ford.__wrapped__(G, source, target=target, weight=weight)[1]


@_exact
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """NetworkX's ``single_source_bellman_ford_path_length``: ``{node: distance}``;
    ``NetworkXUnbounded`` for a negative cycle reachable from the source."""
    s = _vertex(G, source)
    dist, _, ints = _bellman_ford(G, s, weight, ties_matter=False)
    return _dist_dict(G, dist, s, ints)


@_exact
def bellman_ford_path_length(G, source, target, weight="weight"):
    """NetworkX's ``bellman_ford_path_length``."""
    s = _vertex(G, source)
    if source == target:
        return 0
    dist, _, ints = _bellman_ford(G, s, weight, ties_matter=False)
    t = G.index.get(target) if target in G else None
    if t is None or not np.isfinite(dist[t]):
        raise _nx().NetworkXNoPath(f"node {target} not reachable from {source}")
    return _values(dist[[t]], ints)[0]


@_exact
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    """NetworkX's ``all_pairs_bellman_ford_path_length``: a generator of
    ``(node, {node: distance})``; ``NetworkXUnbounded`` at the first source that reaches
    a negative cycle."""
    return _rows_by(single_source_bellman_ford_path_length, G, weight, weight=weight)


@_exact
def all_pairs_bellman_ford_path(G, weight="weight"):
    """NetworkX's ``all_pairs_bellman_ford_path``: a generator of ``(node, paths)``."""
    return _rows_by(single_source_bellman_ford_path, G, weight, weight=weight)


@_exact
def bellman_ford_predecessor_and_distance(G, source, target=None, weight="weight",
                                          heuristic=False):
    """NetworkX's ``bellman_ford_predecessor_and_distance``: ``(pred, dist)``, each
    reached node's predecessors a one-element list (the source's empty)."""
    s = _vertex(G, source)
    indptr, indices, w = _adjacency(G, weight)
    if w is not None and len(w):
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        if np.any((rows == indices) & (w < 0)):
            raise _unbounded()
    if len(G) == 1:
        return ({source: []}, {source: 0})
    dist, pred, ints = _bellman_ford(G, s, weight)
    dists = _dist_dict(G, dist, s, ints)
    nodes, index = G.nodes, G.index
    P = pred.tolist()
    preds = {v: ([] if v == source else [nodes[P[index[v]]]]) for v in dists}
    return preds, dists


@_exact
def negative_edge_cycle(G, weight="weight", heuristic=True):
    """NetworkX's ``negative_edge_cycle``: whether a negative cycle exists anywhere (in
    an undirected graph, any negative edge)."""
    if G.number_of_edges() == 0:
        return False
    eng = _engine(G, weight)
    try:
        _warpgraph.potentials_check(eng)
    except _warpgraph.NegativeCycle:
        return True
    return False


@_exact
def find_negative_cycle(G, source, weight="weight"):
    """NetworkX's ``find_negative_cycle``: raises ``NetworkXError`` when no negative
    cycle is reachable from ``source``; when one is, NetworkX finds the cycle it
    returns (which of several cycles is its own choice)."""
    s = _vertex(G, source)
    eng = _engine(G, weight)
    try:
        _warpgraph.sssp(eng, np.array([s], dtype=np.int64), "bellman-ford", "auto", False)
    except _warpgraph.NegativeCycle:
        raise _Decline from None
    raise _nx().NetworkXError("No negative cycles detected.")


# -- all pairs ----------------------------------------------------------------------------


def _apsp(G, weight, default=1, drop_self_loops=False):
    indptr, indices, w = _adjacency(G, weight, default)
    eng = _warpgraph.Graph.from_csr(indptr, indices, w, True, drop_self_loops)
    try:
        dist, _ = _warpgraph.apsp(eng, "floyd-warshall", "auto", False)
    except _warpgraph.NegativeCycle:
        raise _Decline from None  # NetworkX returns its own (undefined) numbers
    return dist, _is_int(w)


@_exact
def floyd_warshall(G, weight="weight"):
    """NetworkX's ``floyd_warshall``: ``{u: defaultdict({v: distance})}`` over all
    pairs (``inf`` where unreachable)."""
    dist, ints = _apsp(G, weight, 1.0)
    nodes = list(G.nodes)
    inf = float("inf")
    out = {}
    for i, u in enumerate(nodes):
        row = dist[i]
        vals = row.tolist()
        if ints:
            finite = np.isfinite(row)
            ivals = np.where(finite, row, 0).astype(np.int64).tolist()
            vals = [iv if f else inf for iv, f in zip(ivals, finite.tolist())]
        d = defaultdict(lambda: inf)
        d.update(zip(nodes, vals))
        out[u] = d
    return out


@_exact
def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    """NetworkX's ``floyd_warshall_numpy``: the distance matrix in ``nodelist`` order
    (self loops ignored, as NetworkX's adjacency matrix with a zero diagonal does)."""
    if nodelist is not None:
        if not (len(nodelist) == len(G) == len(set(nodelist))):
            raise _Decline
        try:
            perm = [G.index[v] for v in nodelist]
        except KeyError:
            raise _Decline from None
    dist, _ = _apsp(G, weight, 1, drop_self_loops=True)
    if nodelist is not None:
        dist = dist[np.ix_(perm, perm)]
    return dist


@_exact
def johnson(G, weight="weight"):
    """NetworkX's ``johnson``: ``{source: {target: path}}`` for every reachable pair;
    ``NetworkXUnbounded`` for a negative cycle anywhere."""
    _, _, w = _adjacency(G, weight)
    eng = _engine(G, weight)
    if _has_negative(w):
        try:
            _warpgraph.potentials_check(eng)
        except _warpgraph.NegativeCycle:
            raise _unbounded() from None
    method = "bellman-ford" if _has_negative(w) else _NONNEGATIVE
    nodes = G.nodes
    n = len(nodes)
    out = {}
    for first in range(0, n, _BLOCK):
        src = np.arange(first, min(n, first + _BLOCK), dtype=np.int64)
        dist, pred = _warpgraph.sssp(eng, src, method, "auto", True)
        if _warpgraph.has_ties(eng, src, dist):
            raise _Decline
        for i, s in enumerate(src.tolist()):
            reached = np.flatnonzero(np.isfinite(dist[i])).tolist()
            out[nodes[s]] = _paths(G, pred[i], s, reached)
    return out


# -- minimum spanning trees ---------------------------------------------------------------


def _kruskal_edges(G, weight, data):
    """NetworkX's Kruskal, exactly: the engine's Kruskal on the edges ranked by a stable
    sort of their weights in ``G.edges`` order, which is the order NetworkX's Kruskal
    takes them in; so even among equal weights the forest and its order are NetworkX's."""
    if G.is_directed() or G.is_multigraph():
        raise _Decline
    indptr, indices, w = _adjacency(G, weight)
    if w is None:
        w = np.ones(len(indices), dtype=np.int64)
    n = len(indptr) - 1
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    # G.edges yields {u, v} once, from the endpoint that comes first in node order.
    keep = indices >= rows
    u, v, wt = rows[keep], indices[keep], w[keep]
    order, rank = _warpgraph.stable_rank(np.ascontiguousarray(wt))
    indptr2 = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(u, minlength=n), out=indptr2[1:])
    eng = _warpgraph.Graph.from_csr(indptr2, v, rank, True)
    _, _, ranks = _warpgraph.mst(eng, "auto", "kruskal")
    if ranks is None:
        return []
    chosen = order[ranks]
    nodes = G.nodes
    us = [nodes[x] for x in u[chosen].tolist()]
    vs = [nodes[x] for x in v[chosen].tolist()]
    if not data:
        return list(zip(us, vs))
    adj = _nx_graph(G)._adj
    return [(a, b, adj[a][b]) for a, b in zip(us, vs)]


@_exact
def minimum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True,
                           ignore_nan=False):
    """NetworkX's ``minimum_spanning_edges`` with ``algorithm="kruskal"``: the edges of
    the minimum spanning forest in Kruskal's order, with their data dicts."""
    if algorithm != "kruskal":
        raise _Decline
    return iter(_kruskal_edges(G, weight, data))


@_exact
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """NetworkX's ``minimum_spanning_tree`` with ``algorithm="kruskal"``: a graph of
    ``G``'s class with every node (and its data) and the forest's edges (and theirs)."""
    if algorithm != "kruskal":
        raise _Decline
    H = _nx_graph(G)
    T = H.__class__()
    T.graph.update(H.graph)
    T.add_nodes_from(H.nodes.items())
    if type(T) is _nx().Graph:
        # What add_edges_from does for a plain Graph (a copy of each edge's data dict, set
        # on both endpoints, in this order), without its per-edge lookups and updates:
        # building the tree is most of this call's time.
        src, adj = H._adj, T._adj
        for a, b in _kruskal_edges(G, weight, False):
            dd = dict(src[a][b])
            adj[a][b] = dd
            adj[b][a] = dd
        # (T is new: its cache holds nothing yet; cleared as add_edges_from would.)
        clear = getattr(_nx(), "_clear_cache", None)
        if clear is not None:
            clear(T)
    else:
        T.add_edges_from(_kruskal_edges(G, weight, True))
    return T


# -- centrality --------------------------------------------------------------------------


def _counting_engine(G, weight):
    """The engine graph for counting shortest paths: NetworkX's Dijkstra counts ties in
    the order of its heap where an edge weighs zero (and misreads negative weights), so
    those graphs are NetworkX's own."""
    _, _, w = _adjacency(G, weight)
    if w is not None and len(w) > 0 and np.min(w) <= 0:
        raise _Decline
    return _engine(G, weight)


def _distance_engine(G, distance):
    """The engine graph for distances (non-negative weights; NetworkX answers otherwise)."""
    if distance is not None:
        _nonnegative(G, distance)
    return _engine(G, distance)


def _sample(G, k, seed):
    """NetworkX's draw of ``k`` sources: ``seed.sample(list(G), k)`` (``seed`` already a
    random state, as NetworkX's decorator makes it), as vertex numbers."""
    if k is None:
        return None
    state = _nx().utils.create_py_random_state(seed)
    index = G.index
    return np.array([index[v] for v in state.sample(list(G.nodes), k)], dtype=np.int64)


@_exact
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """NetworkX's ``betweenness_centrality`` (Brandes), with its sample for ``k`` and
    ``seed``."""
    if k == len(G):
        k = None
    if k is not None and k < 1:
        raise _Decline
    eng = _counting_engine(G, weight)
    src = _sample(G, k, seed)
    values = _warpgraph.centrality(eng, "betweenness", G.is_directed(), src, None,
                                   normalized, endpoints)
    return dict(zip(G.nodes, values.tolist()))


@_exact
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """NetworkX's ``edge_betweenness_centrality``: ``{edge: value}`` over ``G.edges``."""
    if G.is_multigraph() or (k is not None and k < 1):
        raise _Decline  # multigraphs share each value among parallel edges
    eng = _counting_engine(G, weight)
    src = _sample(G, k, seed)
    values = _warpgraph.centrality(eng, "edge_betweenness", G.is_directed(), src, None,
                                   normalized)
    indptr, indices, _ = eng.csr()
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    nodes = G.nodes
    out = dict.fromkeys(_nx_graph(G).edges(), 0.0)
    for u, v, x in zip(rows.tolist(), indices.tolist(), values.tolist()):
        a, b = nodes[u], nodes[v]
        if (a, b) in out:
            out[(a, b)] += x
        else:
            out[(b, a)] += x
    return out


@_exact
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """NetworkX's ``closeness_centrality`` (distances into each node when directed)."""
    eng = _distance_engine(G, distance)
    only = None if u is None else np.array([_vertex(G, u)], dtype=np.int64)
    values = _warpgraph.centrality(eng, "closeness", G.is_directed(), None, only,
                                   wf_improved=wf_improved)
    if u is not None:
        return values.tolist()[0]
    return dict(zip(G.nodes, values.tolist()))


@_exact
def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    """NetworkX's ``harmonic_centrality``: for each node of ``nbunch``, the sum of
    ``1 / d(s, node)`` over the ``sources`` that reach it."""
    H = _nx_graph(G)
    nbunch = set(H.nbunch_iter(nbunch) if nbunch is not None else H.nodes)
    sources = set(H.nbunch_iter(sources) if sources is not None else H.nodes)
    eng = _distance_engine(G, distance)
    index = G.index
    targets = list(nbunch)
    values = _warpgraph.centrality(
        eng, "harmonic", G.is_directed(),
        np.array([index[v] for v in sources], dtype=np.int64),
        np.array([index[v] for v in targets], dtype=np.int64))
    return dict(zip(targets, values.tolist()))


# -- the backend's interface ---------------------------------------------------------------


def _weight_ok(a):
    w = a.get("weight", "weight")
    return w is None or isinstance(w, str)


def _weight_name(w):
    return w is None or isinstance(w, str)


def _plain_graph(G):
    """A NetworkX graph whose adjacency the converter can walk (views cannot)."""
    if isinstance(G, Graph):
        return True
    adj = getattr(G, "_adj", None)
    return type(adj) is dict and all(type(d) is dict for d in list(adj.values())[:1])


_CHECKS = {
    "bfs_edges": lambda a: a.get("sort_neighbors") is None,
    "bfs_tree": lambda a: a.get("sort_neighbors") is None,
    "bfs_predecessors": lambda a: a.get("sort_neighbors") is None,
    "bfs_successors": lambda a: a.get("sort_neighbors") is None,
    "closeness_centrality": lambda a: _weight_name(a.get("distance")),
    "harmonic_centrality": lambda a: _weight_name(a.get("distance")),
    "minimum_spanning_edges": lambda a: a.get("algorithm", "kruskal") == "kruskal"
    and not a["G"].is_multigraph(),
    "minimum_spanning_tree": lambda a: a.get("algorithm", "kruskal") == "kruskal"
    and not a["G"].is_multigraph()
    and not a["G"].is_directed(),
}


class BackendInterface:
    """What NetworkX's dispatcher asks of a backend."""

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None):
        """A :class:`warpgraph.Graph` standing for ``G`` (converted lazily, per weight).
        NetworkX keeps it in ``G.__networkx_cache__`` (``nx.config.cache_converted_graphs``,
        on by default) and clears it when ``G`` changes through its methods, so later calls
        on the unchanged graph reuse its converted arrays and the engine graphs built from
        them, kept on a GPU once used there."""
        return Graph.from_networkx(G)

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """Results are NetworkX's types already; a :class:`warpgraph.Graph` becomes its
        NetworkX graph."""
        if isinstance(obj, Graph):
            return obj.to_networkx()
        return obj

    @staticmethod
    def can_run(name, args, kwargs):
        """False (with the reason) for what the backend does not do as NetworkX does."""
        if name not in _FUNCTIONS:
            return False
        try:
            a = inspect.signature(getattr(_nx(), name)).bind(*args, **kwargs).arguments
        except TypeError:
            return "arguments do not match the signature"
        G = a.get("G")
        if not _plain_graph(G):
            return "graph views are converted by NetworkX"
        if not _weight_ok(a):
            return "weight functions are run by NetworkX"
        check = _CHECKS.get(name)
        if check is not None and not check(a):
            return "an option the backend does not implement"
        return True

    @staticmethod
    def should_run(name, args, kwargs):
        return True


for _name, _fn in _FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_fn))


def get_info():
    """The ``networkx.backend_info`` entry point."""
    return {
        "backend_name": "warpgraph",
        "project": "warpgraph",
        "package": "warpgraph",
        "url": "https://example.invalid/warpgraph",
        "short_summary": "Shortest paths, BFS, spanning trees and centrality on every CPU core "
        "(and GPUs) with NetworkX's answers.",
        "default_config": {},
        "functions": {
            name: {"additional_docs": (fn.__doc__ or "").strip().split("\n")[0]}
            for name, fn in _FUNCTIONS.items()
        },
    }
