"""The NetworkX backend ``"warpgraph"``.

Installed with the package (entry points ``networkx.backends`` and
``networkx.backend_info``), it runs NetworkX's shortest paths, BFS, minimum spanning
tree and centrality (betweenness, edge betweenness, closeness, harmonic) functions on
the engine::

    nx.single_source_dijkstra_path_length(G, source, backend="warpgraph")
    nx.config.backend_priority = ["warpgraph"]   # or for every call that it can run

A call the backend cannot answer exactly as NetworkX would (a weight function, an
option it does not implement, a graph view) is declined by ``can_run``, so NetworkX
runs it; a case found only after conversion (negative weights for Dijkstra, ties between
shortest paths where NetworkX would return one particular path, a weight that is not a
finite number) is handed to NetworkX itself by the backend. Either way the answer is
NetworkX's. See :mod:`warpgraph.nx.interface` for what each function does.
"""

from .interface import BackendInterface, get_info

__all__ = ["BackendInterface", "get_info"]
