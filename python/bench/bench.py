"""The Python package against NetworkX and scipy, on this machine, in one run.

1. NetworkX with ``backend="warpgraph"`` against plain NetworkX on a random graph of
   100,000 nodes and 1,000,000 undirected edges (uniform float weights): Dijkstra from one
   source and the minimum spanning tree, the backend timed including the conversion of
   the NetworkX graph (its cache cleared before every run) and with the conversion cached.
2. ``warpgraph.csgraph`` against ``scipy.sparse.csgraph`` on the CPU, call by call, on
   the same graph as a CSR matrix (smaller graphs for the O(n^3) and O(n m) methods).

Each figure is the median of ``--runs`` warm runs (after one untimed run). Prints a
Markdown table.  Usage: ``python bench/bench.py [--runs 5] [--quick]``.

``--scipy-johnson SOURCES`` instead times scipy's johnson on the all-pairs benchmark graph
(n = 16,384 with 16n arcs, weights 1..255) from that many sources and extrapolates to all
of them.
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as scg

import warpgraph.csgraph as wcg


def median_time(fn, runs, setup=None):
    if setup:
        setup()
    fn()  # warm
    times = []
    for _ in range(runs):
        if setup:
            setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def random_edges(n, m, seed):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    keep = u != v
    w = rng.random(m) + 1e-3
    return u[keep], v[keep], w[keep]


def nx_figures(n, m, runs, rows):
    import networkx as nx

    nx.config.warnings_to_ignore.add("cache")
    u, v, w = random_edges(n, m, 1)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
    src = 0
    label = f"NetworkX, n={n:,}, m={G.number_of_edges():,}"

    def clear():
        G.__networkx_cache__.clear()

    calls = [
        ("single_source_dijkstra_path_length",
         lambda **k: nx.single_source_dijkstra_path_length(G, src, **k)),
        ("single_source_dijkstra (paths)", lambda **k: nx.single_source_dijkstra(G, src, **k)),
        ("minimum_spanning_tree", lambda **k: nx.minimum_spanning_tree(G, **k)),
    ]
    # The least any conversion must do: reach every arc's data dict and its weight.
    floor = median_time(
        lambda: [d.get("weight") for nbrs in G._adj.values() for d in nbrs.values()], runs)
    print(f"reading every arc's weight out of G._adj (a floor for any conversion): "
          f"{floor:.3f} s", flush=True)
    for name, call in calls:
        plain = median_time(lambda: call(), runs)
        conv = median_time(lambda: call(backend="warpgraph"), runs, setup=clear)
        call(backend="warpgraph")
        cached = median_time(lambda: call(backend="warpgraph"), runs)
        rows.append((label, name, plain, conv, cached))
        print(f"{name}: networkx {plain:.3f} s, warpgraph {conv:.3f} s with conversion"
              f" ({plain / conv:.1f}x), {cached:.3f} s cached ({plain / cached:.1f}x)",
              flush=True)


def scipy_figures(n, m, runs, rows, quick):
    u, v, w = random_edges(n, m, 2)
    A = sp.csr_matrix((w, (u, v)), shape=(n, n))
    small_n = 300 if quick else 1000
    us, vs, ws = random_edges(small_n, small_n * 8, 3)
    S = sp.csr_matrix((ws, (us, vs)), shape=(small_n, small_n))
    Sneg = sp.csr_matrix((ws - 0.05, (np.minimum(us, vs), np.maximum(us, vs))),
                         shape=(small_n, small_n))  # negative arcs, no negative cycle
    bf_n = 200 if quick else 500
    ub, vb, wb = random_edges(bf_n, bf_n * 8, 4)
    ub, vb = np.minimum(ub, vb), np.maximum(ub, vb)  # a DAG: negative arcs, no cycle
    B = sp.csr_matrix((wb - 0.05, (ub, vb)), shape=(bf_n, bf_n))
    big = f"n={n:,}, nnz={A.nnz:,}"
    sm = f"n={small_n:,}, nnz={S.nnz:,}"
    bfl = f"n={bf_n:,}, nnz={B.nnz:,}"
    calls = [
        (big, "dijkstra(indices=0)", lambda m: m.dijkstra(A, indices=0)),
        (big, "dijkstra(indices=0, return_predecessors)",
         lambda m: m.dijkstra(A, indices=0, return_predecessors=True)),
        (big, "dijkstra(directed=False, indices=0)",
         lambda m: m.dijkstra(A, directed=False, indices=0)),
        (big, "dijkstra(indices=range(16))", lambda m: m.dijkstra(A, indices=np.arange(16))),
        (big, "shortest_path(indices=0)", lambda m: m.shortest_path(A, indices=0)),
        (big, "breadth_first_order(0)", lambda m: m.breadth_first_order(A, 0)),
        (big, "breadth_first_order(0, directed=False)",
         lambda m: m.breadth_first_order(A, 0, directed=False)),
        (big, "minimum_spanning_tree", lambda m: m.minimum_spanning_tree(A)),
        (sm, "floyd_warshall", lambda m: m.floyd_warshall(S)),
        (sm, "floyd_warshall(return_predecessors)",
         lambda m: m.floyd_warshall(S, return_predecessors=True)),
        (sm, "shortest_path (auto)", lambda m: m.shortest_path(S)),
        (sm, "dijkstra (all pairs)", lambda m: m.dijkstra(S)),
        (sm, "johnson (negative arcs)", lambda m: m.johnson(Sneg)),
        (bfl, "bellman_ford (negative arcs, all sources)", lambda m: m.bellman_ford(B)),
    ]
    for label, name, call in calls:
        a = call(scg)
        b = call(wcg)
        a0 = a[0] if isinstance(a, tuple) else a
        b0 = b[0] if isinstance(b, tuple) else b
        if sp.issparse(a0):
            assert abs(a0 - b0).sum() < 1e-6, name
        else:
            assert np.allclose(a0, b0), name
        ts = median_time(lambda: call(scg), runs)
        tw = median_time(lambda: call(wcg), runs)
        rows.append((f"csgraph, {label}", name, ts, tw, None))
        print(f"{name} [{label}]: scipy {ts:.4f} s, warpgraph {tw:.4f} s ({ts / tw:.1f}x)",
              flush=True)


def scipy_johnson(sources, runs):
    """scipy's johnson on the all-pairs benchmark graph (n = 16,384 with 16n arcs, weights 1..255,
    the engine's uniform generator) from ``sources`` sources, extrapolated to all n: a
    source's Dijkstra costs the same whichever it is, and the Bellman-Ford pass (once,
    O(m) here: no negative weight) is timed apart and added once."""
    import warpgraph

    n = 16_384
    A = warpgraph.generate.urand(n, 16 * n, weights=(1, 255), undirected=False).to_scipy()
    idx = np.arange(sources)
    one = median_time(lambda: scg.johnson(A, indices=[0]), runs)
    part = median_time(lambda: scg.johnson(A, indices=idx), runs)
    per_source = (part - one) / (sources - 1)
    total = one + per_source * (n - 1)
    print(f"scipy johnson, n={n:,}, nnz={A.nnz:,}: 1 source {one:.3f} s, {sources} sources "
          f"{part:.3f} s; {per_source * 1e3:.2f} ms a source; all {n:,} sources "
          f"extrapolated: {total:.1f} s", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="small graphs, for a smoke test")
    p.add_argument("--skip-nx", action="store_true")
    p.add_argument("--skip-scipy", action="store_true")
    p.add_argument("--scipy-johnson", type=int, metavar="SOURCES",
                   help="only scipy's johnson on the all-pairs benchmark graph (n = "
                        "16,384, 16n arcs) from SOURCES sources, extrapolated to all n")
    args = p.parse_args()
    if args.scipy_johnson:
        scipy_johnson(args.scipy_johnson, args.runs)
        return
    n, m = (10_000, 100_000) if args.quick else (100_000, 1_000_000)
    rows = []
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}", flush=True)
    if not args.skip_nx:
        nx_figures(n, m, args.runs, rows)
    if not args.skip_scipy:
        scipy_figures(n, m, args.runs, rows, args.quick)
    print()
    print("| graph | call | reference (s) | warpgraph (s) | speed-up | warpgraph, "
          "conversion cached (s) | speed-up |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, name, ref, ours, cached in rows:
        c = "" if cached is None else f"{cached:.4f} | {ref / cached:.0f}x"
        if cached is None:
            c = "| "
        print(f"| {label} | `{name}` | {ref:.4f} | {ours:.4f} | {ref / ours:.1f}x | {c} |")


if __name__ == "__main__":
    main()
