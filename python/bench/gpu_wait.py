"""What a Python user waits for on a GPU, beside the CPU, in one run:

    python python/bench/gpu_wait.py GRAPH.wg

GRAPH.wg: a directed graph with non-negative weights (``scripts/gpu-check run wait``
makes one of 1M vertices and 8M arcs with ``warpgraph generate urand --scale 20 --degree
8 --weights int:1:255``). Prints, each a median of 3 calls unless it says otherwise:
the first ``device="cuda"`` call of a new process with empty kernel caches; 16 sources in
one ``dijkstra`` call; one source a call on a ``warpgraph.Graph`` (uploaded on its first
GPU use); and, where NetworkX is installed, the backend's first and later calls on a
100,000-node graph against NetworkX's own.
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import warpgraph
from warpgraph import csgraph as wcg


def median_seconds(f, reps=3):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2]


def first_call(path):
    """Seconds from a new process's start to its first GPU answer, caches empty."""
    code = (
        "import time; t = time.perf_counter()\n"
        "import warpgraph; from warpgraph import csgraph as wcg\n"
        f"g = warpgraph.read({path!r}); t1 = time.perf_counter()\n"
        "wcg.dijkstra(g, indices=[0], device='cuda')\n"
        "print(time.perf_counter() - t1)\n"
    )
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, WARPGRAPH_KERNEL_CACHE=d + "/k", CUDA_CACHE_PATH=d + "/nv")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
    return float(out.stdout.strip())


def main():
    path = sys.argv[1]
    g = warpgraph.read(path)
    print(f"graph {path}: {g.number_of_nodes()} vertices, {g.number_of_edges()} arcs")
    print(f"first dijkstra(device='cuda') of a new process (load excluded): {first_call(path):.3f} s")
    many = list(range(16))
    for dev in ("cuda", "cpu"):
        s = median_seconds(lambda: wcg.dijkstra(g, indices=many, device=dev), reps=1)
        print(f"dijkstra(indices=range(16), device={dev!r}): {s:.3f} s")
    rng = np.random.default_rng(1)
    sources = iter(rng.integers(0, g.number_of_nodes(), size=64).tolist())
    for dev in ("cuda", "cpu"):
        wcg.dijkstra(g, indices=0, device=dev)
        s = median_seconds(lambda: wcg.dijkstra(g, indices=next(sources), device=dev), reps=9)
        print(f"dijkstra(g, indices=s, device={dev!r}) per call: {s * 1e3:.1f} ms")
    # Where a GPU call's time goes: the engine graph's lookup, the engine's call alone
    # (search, copy back, float64 rows), and the rest (the csgraph wrapper).
    from warpgraph import _warpgraph
    s = median_seconds(lambda: g.engine("weight", 1), reps=9)
    print(f"  of which g.engine('weight', 1): {s * 1e3:.2f} ms")
    eng = g.engine("weight", 1)
    s = median_seconds(lambda: _warpgraph.sssp(eng, np.array([next(sources)]), "nonnegative",
                                               "cuda", False), reps=9)
    print(f"  of which the engine's sssp (search, copy back, float64 row): {s * 1e3:.1f} ms")
    try:
        import networkx as nx
    except ImportError:
        print("networkx not installed: backend rows skipped")
        return
    G = nx.gnm_random_graph(100_000, 500_000, seed=1)
    w = np.random.default_rng(2).random(G.number_of_edges())
    for (u, v, d), x in zip(G.edges(data=True), w):
        d["weight"] = float(x)
    t = time.perf_counter()
    nx.single_source_dijkstra_path_length(G, 0, backend="warpgraph")
    print(f"NetworkX backend first call (conversion and upload): {time.perf_counter() - t:.3f} s")
    s = median_seconds(lambda: nx.single_source_dijkstra_path_length(G, 0, backend="warpgraph"))
    print(f"NetworkX backend later calls: {s:.3f} s")
    s = median_seconds(lambda: nx.single_source_dijkstra_path_length(G, 0), reps=1)
    print(f"NetworkX itself: {s:.3f} s")


if __name__ == "__main__":
    main()
