"""The Python package's GPU paths against its CPU paths, on a machine with an NVIDIA GPU.

    python python/bench/gpu_check.py

needs only numpy and the installed package (scipy optional): dense numpy matrices in,
``device="cuda"`` against ``device="cpu"`` for every call that has GPU code, on random
graphs with unreachable vertices (and negative weights where the method allows them);
then a negative cycle on the GPU. (``breadth_first_order`` and ``minimum_spanning_tree``
follow scipy's exact order on the CPU alone.) Distances must agree exactly (integer weights),
predecessors must be valid shortest-path trees. Exits 1 on any difference, and also when
no GPU is found (this check exists to run the GPU paths). ``scripts/gpu-check run
python`` runs it with the wheel built here.
"""

import sys
import time

import numpy as np

import warpgraph
from warpgraph import csgraph as wcg

failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}")
    if not ok:
        failures.append(name)


def random_dense(rng, n, density, lo, hi):
    """A dense matrix with integer weights in [lo, hi] (0 = no arc, so 0 is skipped)."""
    m = rng.integers(lo, hi + 1, size=(n, n)).astype(np.float64)
    m[m == 0] = 1
    m[rng.random((n, n)) > density] = 0
    # A few isolated vertices: unreachable pairs.
    for v in rng.choice(n, size=max(1, n // 20), replace=False):
        m[v, :] = 0
        m[:, v] = 0
    return m


def tree_ok(m, dist, pred):
    """Every predecessor arc is tight and every reached non-source vertex has one."""
    rows = np.atleast_2d(dist)
    preds = np.atleast_2d(pred)
    for d, p in zip(rows, preds):
        for v in range(len(d)):
            u = p[v]
            if u == -9999:
                if np.isfinite(d[v]) and d[v] != 0:
                    return False
                continue
            if m[u, v] == 0 or d[u] + m[u, v] != d[v]:
                return False
    return True


def main():
    devices = warpgraph._warpgraph.resolve_device("cuda", "shortest paths", True)
    print("device:", devices)
    rng = np.random.default_rng(7)
    for n, density in ((1, 1.0), (37, 0.2), (300, 0.05), (1500, 0.01)):
        pos = random_dense(rng, n, density, 1, 255)
        neg = random_dense(rng, n, density, 0, 40)
        # Negative arcs without negative cycles: weights shifted by potentials.
        h = rng.integers(0, 30, size=n).astype(np.float64)
        mask = neg != 0
        neg = np.where(mask, neg + h[:, None] - h[None, :], 0)
        neg[mask & (neg == 0)] = 1  # keep every arc (0 means none); still no cycle
        sources = list(range(min(n, 5)))
        for method in ("D", "BF", "J", "FW", "auto"):
            m = neg if method in ("BF", "J", "FW") else pos
            t0 = time.perf_counter()
            idx = None if method == "FW" else sources  # scipy's rule
            dc, pc = wcg.shortest_path(m, method=method, indices=idx,
                                       return_predecessors=True, device="cpu")
            t1 = time.perf_counter()
            dg, pg = wcg.shortest_path(m, method=method, indices=idx,
                                       return_predecessors=True, device="cuda")
            t2 = time.perf_counter()
            check(f"shortest_path {method} n={n}",
                  np.array_equal(dc, dg) and tree_ok(m, dg, pg),
                  f"(cpu {t1 - t0:.4f} s, cuda {t2 - t1:.4f} s)")
        for fn, m in ((wcg.dijkstra, pos), (wcg.bellman_ford, neg), (wcg.johnson, neg)):
            dc = fn(m, indices=sources, device="cpu")
            dg = fn(m, indices=sources, device="cuda")
            check(f"{fn.__name__} n={n}", np.array_equal(dc, dg))
        dc = wcg.floyd_warshall(neg, device="cpu")
        dg, pg = wcg.floyd_warshall(neg, return_predecessors=True, device="cuda")
        check(f"floyd_warshall n={n}", np.array_equal(dc, dg) and tree_ok(neg, dg, pg))
    # A negative cycle, found on the GPU.
    cyc = np.zeros((4, 4))
    cyc[0, 1], cyc[1, 2], cyc[2, 0], cyc[2, 3] = 1, -3, 1, 1
    for method in ("BF", "J", "FW"):
        try:
            wcg.shortest_path(cyc, method=method, device="cuda")
            check(f"negative cycle {method}", False, "(no error)")
        except wcg.NegativeCycleError as e:
            check(f"negative cycle {method}", True, f"({e})")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
