"""warpgraph: graph analytics on every CPU core and on NVIDIA GPUs, from Python.

- :mod:`warpgraph.csgraph`: ``scipy.sparse.csgraph``'s shortest paths, BFS and minimum
  spanning tree with scipy's signatures and answers (change the import);
- a NetworkX backend named ``"warpgraph"``
  (``nx.single_source_dijkstra(G, s, backend="warpgraph")``);
- :func:`read` and :mod:`warpgraph.generate`: graphs made by the engine, usable with both.

The engine releases the GIL while it computes.
"""

from . import _warpgraph
from ._warpgraph import GpuError, NegativeCycle, WarpgraphError
from .graph import Graph, read
from . import csgraph, generate

__version__ = _warpgraph.__version__

__all__ = [
    "Graph",
    "GpuError",
    "NegativeCycle",
    "WarpgraphError",
    "csgraph",
    "generate",
    "read",
]
