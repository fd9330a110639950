"""The graph object shared by ``warpgraph.csgraph`` and the NetworkX backend.

A :class:`Graph` is an engine graph (CSR arrays owned by the Rust library) with, for
NetworkX, node labels. It is what :func:`read` and :mod:`warpgraph.generate` return, and
what the NetworkX backend converts a ``networkx`` graph into (lazily: the adjacency is
walked once per edge attribute the first time an algorithm needs it, and kept).

- ``warpgraph.csgraph`` functions accept it wherever scipy accepts a matrix: it stands for
  its (weighted) adjacency matrix, with vertex ``i`` as row and column ``i``.
- NetworkX functions accept it (``G.__networkx_backend__ == "warpgraph"``): nodes are the
  file's vertex ids (``0..n-1`` for generated graphs), edges carry ``"weight"``.

On a GPU, the engine graph is uploaded by its first GPU query and stays there until the
object is freed: every later query (any number of sources, any method) reuses it. The
engine graph (``g.engine("weight")``) reports what it holds (``gpu_resident()``) and can
free it (``release_gpu()``). A scipy matrix given to ``warpgraph.csgraph`` is converted
(and uploaded) once per call, for all the call's sources.
"""

from __future__ import annotations

import numpy as np

from . import _warpgraph
from ._arrays import matrix_csr

__all__ = ["Graph", "read"]


class Graph:
    """A graph in the warpgraph engine, usable with ``warpgraph.csgraph`` and NetworkX."""

    __networkx_backend__ = "warpgraph"

    def __init__(self, engine=None, nodes=None, *, nx_graph=None):
        self._engine = engine  # _warpgraph.Graph with the stored weights, or None
        self._nx = nx_graph  # the NetworkX graph this one stands for, if any
        if nx_graph is not None:
            self._directed = nx_graph.is_directed()
            self._multigraph = nx_graph.is_multigraph()
            self._nodes = list(nx_graph)
        else:
            self._directed = engine.directed
            self._multigraph = False
            self._nodes = nodes  # None: the nodes are 0..n-1
        self._index = None
        self._built = None  # the NetworkX graph made by to_networkx()
        self._cache = {}
        self.__networkx_cache__ = {}

    # -- construction ------------------------------------------------------------------

    @classmethod
    def from_networkx(cls, G):
        """Wraps a NetworkX graph; its adjacency is converted when an algorithm needs it."""
        return cls(nx_graph=G)

    @classmethod
    def from_scipy(cls, matrix, directed=True):
        """The graph of a square scipy sparse matrix or dense array (scipy's conventions:
        in a dense array 0, inf and NaN are non-edges)."""
        _, indptr, indices, data = matrix_csr(matrix)
        return cls(_warpgraph.Graph.from_csr(indptr, indices, data, directed))

    # -- what both front ends ask -------------------------------------------------------

    def is_directed(self):
        return self._directed

    def is_multigraph(self):
        return self._multigraph

    def __len__(self):
        return self.number_of_nodes()

    def number_of_nodes(self):
        if self._nodes is not None:
            return len(self._nodes)
        return self._engine.num_vertices

    def number_of_edges(self):
        if self._nx is not None:
            return self._nx.number_of_edges()
        e = self._engine
        if e.directed:
            return e.num_arcs
        indptr, indices, _ = self._stored_csr()
        rows = np.repeat(np.arange(e.num_vertices), np.diff(indptr))
        return int((indices >= rows).sum())

    @property
    def nodes(self):
        """The node labels, vertex ``i`` first."""
        if self._nodes is None:
            return range(self._engine.num_vertices)
        return self._nodes

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:
            return False

    @property
    def index(self):
        """Node label -> vertex number."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.nodes)}
        return self._index

    def __repr__(self):
        kind = "directed" if self._directed else "undirected"
        return f"<warpgraph.Graph: {self.number_of_nodes()} nodes, {kind}>"

    # -- arrays ---------------------------------------------------------------------------

    def _stored_csr(self):
        """The engine graph's CSR ``(indptr, indices, weights or None)``."""
        key = ("stored",)
        if key not in self._cache:
            self._cache[key] = self._engine.csr()
        return self._cache[key]

    def adjacency(self, weight=None, default=1):
        """``(indptr, indices, weights)`` in NetworkX's neighbour order: row ``i`` lists
        the neighbours of node ``i`` (both directions of an undirected edge are stored),
        ``weights`` the value of edge attribute ``weight`` (``default`` where missing; the
        least over parallel edges of a multigraph), int64 when all are ints, else float64;
        None when ``weight`` is None. Raises TypeError/ValueError for weights that are
        not finite numbers."""
        key = ("adj", weight, default)
        if key in self._cache:
            return self._cache[key]
        if weight is None:
            # The rows do not depend on the weights: any converted adjacency has them.
            for k, (indptr, indices, _) in list(self._cache.items()):
                if k[0] == "adj":
                    self._cache[key] = (indptr, indices, None)
                    return self._cache[key]
        if self._nx is not None:
            G = self._nx
            identity = self._nodes == list(range(len(self._nodes)))
            out = _warpgraph.nx_adjacency(
                G._adj, None if identity else self.index, weight, default,
                G.is_multigraph()
            )
        else:
            indptr, indices, w = self._stored_csr()
            if weight is None:
                w = None
            elif weight != "weight" or w is None:
                w = np.full(len(indices), default)
            out = (indptr, indices, w)
        self._cache[key] = out
        return out

    def has_negative(self, weight="weight", default=1):
        """Whether any weight of :meth:`adjacency` is negative (kept, as the adjacency is:
        a search per call would otherwise scan every weight each time)."""
        key = ("negative", weight, default)
        if key not in self._cache:
            _, _, w = self.adjacency(weight, default)
            self._cache[key] = bool(w is not None and len(w) > 0 and np.min(w) < 0)
        return self._cache[key]

    def engine(self, weight=None, default=1):
        """The engine graph (rows sorted) with the weights of :meth:`adjacency`."""
        key = ("engine", weight, default)
        if key not in self._cache:
            eng = self._engine
            if not (self._nx is None and weight == "weight" and eng.weight_type != "none"):
                ip, ix, w = self.adjacency(weight, default)
                eng = _warpgraph.Graph.from_csr(ip, ix, w, True)
            self._cache[key] = eng
        return self._cache[key]

    # -- conversions ----------------------------------------------------------------------

    def to_scipy(self):
        """The adjacency matrix as a ``scipy.sparse.csr_array`` (float64 weights; 1 for
        an unweighted graph; both directions of undirected edges)."""
        import scipy.sparse as sp

        indptr, indices, w = self._stored_csr()
        n = self._engine.num_vertices if self._nx is None else len(self._nodes)
        if self._nx is not None:
            indptr, indices, w = self.adjacency("weight", 1)
        data = np.ones(len(indices)) if w is None else np.asarray(w, dtype=np.float64)
        return sp.csr_array((data, indices, indptr), shape=(n, n))

    def to_networkx(self):
        """The NetworkX graph: the wrapped one, or a new ``Graph``/``DiGraph`` (kept)
        with the same neighbour order and, for a weighted graph, a ``"weight"`` on every
        edge (of parallel arcs the lightest)."""
        if self._nx is not None:
            return self._nx
        if self._built is None:
            import networkx as nx

            G = nx.DiGraph() if self._directed else nx.Graph()
            nodes = list(self.nodes)
            G.add_nodes_from(nodes)
            indptr, indices, w = self._stored_csr()
            rows = np.repeat(np.arange(len(nodes)), np.diff(indptr)).tolist()
            cols = indices.tolist()
            if w is None:
                G.add_edges_from((nodes[u], nodes[v]) for u, v in zip(rows, cols))
            else:
                adj = G._adj
                for u, v, x in zip(rows, cols, w.tolist()):
                    a, b = nodes[u], nodes[v]
                    d = adj[a].get(b)
                    if d is None:
                        G.add_edge(a, b, weight=x)
                    elif x < d["weight"]:
                        d["weight"] = x
            self._built = G
        return self._built


def read(path, *, format=None, undirected=False, weight_type=None, self_loops="keep",
         duplicates="keep"):
    """Reads a graph file (DIMACS ``.gr``, Matrix Market ``.mtx``, edge lists ``.el`` /
    ``.wel`` / ``.txt``, METIS ``.graph``, warpgraph ``.wg``; the format from the
    extension unless ``format`` names it).

    Returns a :class:`Graph`: pass it to ``warpgraph.csgraph`` functions (vertex ``i`` is
    row ``i``) or to NetworkX functions (nodes are the file's own vertex ids).
    """
    eng = _warpgraph.read(
        str(path),
        format=format,
        undirected=undirected,
        weight_type=weight_type,
        self_loops=self_loops,
        duplicates=duplicates,
    )
    ids = eng.ids()
    return Graph(eng, None if ids is None else ids.tolist())
