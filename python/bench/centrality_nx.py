"""NetworkX's betweenness beside the warpgraph backend's, in one run.

    python centrality_nx.py EDGES.el K K_NX SEED

Reads an undirected edge list (two vertex ids a line) into a networkx.Graph, then times
``betweenness_centrality(G, k=K, seed=SEED)`` through the warpgraph backend (the engine
graph made from G included, as a NetworkX user pays it) and NetworkX's own call with
K_NX sources, scaled to K (its time grows linearly with the sources). K = 0 means exact
(every vertex a source). Prints one JSON line.
"""

import json
import re
import sys
import time

import networkx as nx
import numpy as np


def main():
    path, k, k_nx, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    t = time.perf_counter()
    with open(path) as f:
        text = re.sub(r"(?m)^[#%].*$", "", f.read())
    edges = np.fromstring(text, dtype=np.int64, sep=" ").reshape(-1, 2)
    G = nx.Graph()
    G.add_edges_from(edges.tolist())
    load = time.perf_counter() - t
    n = len(G)
    k = None if k == 0 else min(k, n)
    sources = n if k is None else k
    t = time.perf_counter()
    ours = nx.betweenness_centrality(G, k=k, seed=seed, backend="warpgraph")
    backend = time.perf_counter() - t
    t = time.perf_counter()
    nx.betweenness_centrality(G, k=min(k_nx, n), seed=seed)
    own = time.perf_counter() - t
    print(json.dumps({
        "vertices": n, "edges": G.number_of_edges(), "sources": sources,
        "networkx_load_seconds": round(load, 3),
        "warpgraph_backend_seconds": round(backend, 3),
        "networkx_sources_timed": min(k_nx, n),
        "networkx_seconds_timed": round(own, 3),
        "networkx_seconds_scaled": round(own * sources / min(k_nx, n), 1),
        "speedup": round(own * sources / min(k_nx, n) / backend, 1),
        "sum": sum(ours.values()),
    }))


if __name__ == "__main__":
    main()
