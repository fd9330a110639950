"""The graph kept on a GPU between calls, and the method each shortest-path entry point
runs for one and for many sources.

The choice of method is the engine's (``_warpgraph.sssp_method``, the library's
``sssp::Request::algorithm``), so it is checked here without a GPU: every entry point's
calls to the engine are recorded (and run on the CPU), and the method each would run on
the CPU and on a GPU is asked of the engine. The GPU tests compare ``device="cuda"``
with ``device="cpu"``; they skip where no GPU can be used, and fail instead with
``WARPGRAPH_REQUIRE_GPU=1``.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import warpgraph
import warpgraph.csgraph as wcg
from warpgraph import _warpgraph
from warpgraph.nx import interface

nx = pytest.importorskip("networkx")
nx.config.warnings_to_ignore.add("cache")


def matrix(seed, n=40, m=200, negative=False):
    """A random sparse matrix with distinct float weights; with ``negative``, a DAG
    (u < v) with some negative arcs, so that there is no negative cycle."""
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m) + 0.01
    if negative:
        u, v = np.minimum(u, v), np.maximum(u, v)
        keep = u < v
        u, v, w = u[keep], v[keep], w[keep] - 0.3
    return sp.csr_array((w, (u, v)), shape=(n, n))


def nx_graph(seed, n=40, m=150):
    G = nx.gnm_random_graph(n, m, seed=seed)
    rng = np.random.default_rng(seed)
    for a, b in G.edges:
        G[a][b]["weight"] = float(rng.random() + 0.01)
    return G


class EngineSpy:
    """Records every call to the engine's shortest paths (method, number of sources,
    device) and runs it on the CPU."""

    def __init__(self, monkeypatch):
        self.calls = []
        real = _warpgraph.sssp

        def spy(eng, sources, method="auto", device="auto", predecessors=False):
            self.calls.append((method, len(sources), device))
            return real(eng, sources, method, "cpu", predecessors)

        monkeypatch.setattr(_warpgraph, "sssp", spy)

    def ran(self, device):
        """The engine methods the calls recorded since the last ``ran`` would run on
        ``device``, and the devices they were given."""
        methods = [_warpgraph.sssp_method(m, k, device) for m, k, _ in self.calls]
        devices = {d for _, _, d in self.calls}
        self.calls.clear()
        return methods, devices


@pytest.fixture
def engine(monkeypatch):
    return EngineSpy(monkeypatch)


def test_the_engine_decides():
    """The one decision: a named method runs as named, "nonnegative" by device and
    number of sources; the GPU's O(n^2) Dijkstra only by name."""
    ask = _warpgraph.sssp_method
    assert ask("nonnegative", 1, "cpu") == "delta-stepping"
    assert ask("nonnegative", 2, "cpu") == "dijkstra"
    for k in (1, 2, 1000):
        assert ask("nonnegative", k, "cuda") == "auto"
        assert ask("nonnegative", k, "cuda:1") == "auto"
        assert ask("nonnegative", k, "cuda", negative=True) == "delta-stepping"
        for name in ("dijkstra", "bellman-ford", "delta-stepping", "auto"):
            assert ask(name, k, "cuda") == name
            assert ask(name, k, "cpu") == name
    with pytest.raises(ValueError, match="nonnegative"):
        ask("fastest", 1, "cpu")
    with pytest.raises(ValueError):
        ask("nonnegative", 1, "tpu")


CSGRAPH = {
    # name: (call, methods on the CPU, methods on a GPU)
    "dijkstra, one source": (
        lambda A, d: wcg.dijkstra(A, indices=3, device=d), ["delta-stepping"], ["auto"]),
    "dijkstra, many sources": (
        lambda A, d: wcg.dijkstra(A, indices=[0, 5, 7], device=d), ["dijkstra"], ["auto"]),
    "dijkstra, every source": (
        lambda A, d: wcg.dijkstra(A, device=d), ["dijkstra"], ["auto"]),
    "dijkstra, min_only": (
        lambda A, d: wcg.dijkstra(A, indices=[1, 2], min_only=True, device=d),
        ["delta-stepping"], ["auto"]),
    "shortest_path D, many sources": (
        lambda A, d: wcg.shortest_path(A, method="D", indices=[0, 1], device=d),
        ["dijkstra"], ["auto"]),
    "shortest_path auto, one source": (
        lambda A, d: wcg.shortest_path(A, indices=0, device=d), ["delta-stepping"], ["auto"]),
    "shortest_path DS, many sources": (
        lambda A, d: wcg.shortest_path(A, method="DS", indices=[0, 1], device=d),
        ["delta-stepping"], ["delta-stepping"]),
    "bellman_ford, one source": (
        lambda A, d: wcg.bellman_ford(A, indices=0, device=d), ["bellman-ford"],
        ["bellman-ford"]),
    "bellman_ford, many sources": (
        lambda A, d: wcg.bellman_ford(A, indices=[0, 1], device=d), ["bellman-ford"],
        ["bellman-ford"]),
    "johnson, many sources": (
        lambda A, d: wcg.johnson(A, indices=[0, 1], device=d), ["dijkstra"], ["auto"]),
    "johnson, one source": (
        lambda A, d: wcg.johnson(A, indices=2, device=d), ["delta-stepping"], ["auto"]),
}


@pytest.mark.parametrize("name", sorted(CSGRAPH))
def test_csgraph_methods(name, engine):
    call, on_cpu, on_gpu = CSGRAPH[name]
    A = matrix(0)
    for device, want in (("cpu", on_cpu), ("cuda", on_gpu)):
        call(A, device)
        methods, devices = engine.ran(device)
        assert methods == want, (name, device)
        assert devices == {device}
    # A warpgraph.Graph goes the same way.
    call(warpgraph.Graph.from_scipy(A), "cuda")
    assert engine.ran("cuda")[0] == on_gpu


def test_csgraph_negative_weights(engine):
    """Negative weights: johnson's sources run Bellman-Ford on either device; dijkstra
    is scipy's own answer (the engine is not called), as before."""
    A = matrix(1, negative=True)
    wcg.johnson(A, indices=[0, 1], device="cuda")
    assert engine.ran("cuda")[0] == ["bellman-ford"]
    import scipy.sparse.csgraph as scg

    with pytest.warns(UserWarning):
        got = wcg.dijkstra(A, indices=[0, 1], device="cuda")
    assert engine.calls == []
    with pytest.warns(UserWarning):
        np.testing.assert_array_equal(got, scg.dijkstra(A, indices=[0, 1]))


NX = {
    # name: (call, methods on the CPU, methods on a GPU)
    "single_source_dijkstra_path_length": (
        lambda G: nx.single_source_dijkstra_path_length(G, 0, backend="warpgraph"),
        ["delta-stepping"], ["auto"]),
    "single_source_dijkstra": (
        lambda G: nx.single_source_dijkstra(G, 0, backend="warpgraph"),
        ["delta-stepping"], ["auto"]),
    "dijkstra_path_length": (
        lambda G: nx.dijkstra_path_length(G, 0, 5, backend="warpgraph"),
        ["delta-stepping"], ["auto"]),
    "multi_source_dijkstra_path_length": (
        lambda G: nx.multi_source_dijkstra_path_length(G, {0, 3}, backend="warpgraph"),
        ["delta-stepping"], ["auto"]),
    "all_pairs_dijkstra_path_length": (
        lambda G: dict(nx.all_pairs_dijkstra_path_length(G, backend="warpgraph")),
        ["dijkstra"], ["auto"]),
    "johnson": (
        lambda G: nx.johnson(G, backend="warpgraph"), ["dijkstra"], ["auto"]),
    "single_source_bellman_ford_path_length": (
        lambda G: nx.single_source_bellman_ford_path_length(G, 0, backend="warpgraph"),
        ["bellman-ford"], ["bellman-ford"]),
}


@pytest.mark.parametrize("name", sorted(NX))
def test_nx_methods(name, engine, monkeypatch):
    # No fallback to NetworkX (a tie would hide the engine's calls).
    def no_fallback(fn, *a, **k):
        raise AssertionError(f"{fn} fell back to NetworkX")

    monkeypatch.setattr(interface, "_networkx_answer", no_fallback)
    call, on_cpu, on_gpu = NX[name]
    call(nx_graph(2))
    calls = list(engine.calls)
    assert engine.ran("cpu")[0] == on_cpu
    engine.calls = calls
    assert engine.ran("cuda")[0] == on_gpu


def _kept(G):
    """The warpgraph.Graph NetworkX keeps for ``G`` (one conversion in its cache)."""
    kept = list(G.__networkx_cache__["backends"]["warpgraph"].values())
    assert len(kept) == 1
    return kept[0]


def test_nx_conversion_is_kept(monkeypatch):
    """Later calls on the unchanged graph convert nothing (NetworkX keeps the conversion);
    a change through NetworkX's methods clears it, and the next call sees the change."""
    made, walked = [], []
    real_from, real_adj = warpgraph.Graph.from_networkx.__func__, _warpgraph.nx_adjacency

    def from_networkx(cls, G):
        made.append(G)
        return real_from(cls, G)

    def nx_adjacency(*a, **k):
        walked.append(a[2])
        return real_adj(*a, **k)

    monkeypatch.setattr(warpgraph.Graph, "from_networkx", classmethod(from_networkx))
    monkeypatch.setattr(_warpgraph, "nx_adjacency", nx_adjacency)
    monkeypatch.setattr(nx.config, "cache_converted_graphs", True)
    G = nx_graph(3)
    first = nx.single_source_dijkstra_path_length(G, 0, backend="warpgraph")
    assert first == nx.single_source_dijkstra_path_length(G, 0)
    for s in (0, 1, 2):
        nx.single_source_dijkstra_path_length(G, s, backend="warpgraph")
    assert (len(made), walked) == (1, ["weight"])
    kept = _kept(G)
    assert kept.engine("weight") is kept.engine("weight")
    G.add_edge(0, 39, weight=1e-3)
    after = nx.single_source_dijkstra_path_length(G, 0, backend="warpgraph")
    assert after == nx.single_source_dijkstra_path_length(G, 0) != first
    assert (len(made), walked) == (2, ["weight", "weight"])
    # Where NetworkX keeps no conversions, every call converts.
    monkeypatch.setattr(nx.config, "cache_converted_graphs", False)
    H = nx_graph(4)
    nx.single_source_dijkstra_path_length(H, 0, backend="warpgraph")
    nx.single_source_dijkstra_path_length(H, 0, backend="warpgraph")
    assert len(made) == 4


def test_cpu_keeps_nothing_on_a_gpu():
    g = warpgraph.Graph.from_scipy(matrix(5))
    wcg.dijkstra(g, indices=[0, 1], device="cpu")
    eng = g.engine("weight", 1)
    assert eng.gpu_resident() is None and eng.gpu_uploads == 0
    eng.release_gpu()  # harmless with nothing there


# -- on a GPU -----------------------------------------------------------------------------


@pytest.fixture
def gpu():
    if _warpgraph.resolve_device("auto") == "cpu":
        if _warpgraph.gpu_required():
            pytest.fail("WARPGRAPH_REQUIRE_GPU=1 but no GPU can be used")
        pytest.skip("no GPU")


def test_gpu_csgraph_matches_cpu(gpu):
    for seed in range(3):
        A = matrix(seed, n=300, m=2000)
        for name in sorted(CSGRAPH):
            call = CSGRAPH[name][0]
            want, got = call(A, "cpu"), call(A, "cuda")
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
        d0, p0 = wcg.dijkstra(A, indices=range(16), return_predecessors=True, device="cpu")
        d1, p1 = wcg.dijkstra(A, indices=range(16), return_predecessors=True, device="cuda")
        np.testing.assert_allclose(d1, d0, rtol=1e-12)
        np.testing.assert_array_equal(p1, p0)  # distinct weights: one tree
        N = matrix(seed, n=300, m=2000, negative=True)
        for fn in (wcg.johnson, wcg.bellman_ford):
            np.testing.assert_allclose(fn(N, indices=[0, 1, 2], device="cuda"),
                                       fn(N, indices=[0, 1, 2], device="cpu"), rtol=1e-12)


def test_gpu_graph_uploads_once(gpu):
    """Many calls on one warpgraph.Graph: one upload, kept until released."""
    A = matrix(7, n=500, m=4000)
    g = warpgraph.Graph.from_scipy(A)
    eng = g.engine("weight", 1)
    assert eng.gpu_resident() is None
    for k in (1, 3, 16):
        for _ in range(3):
            np.testing.assert_allclose(wcg.dijkstra(g, indices=range(k), device="cuda"),
                                       wcg.dijkstra(A, indices=range(k), device="cpu"),
                                       rtol=1e-12)
    held = eng.gpu_resident()
    assert (held["uploads"], held["sssp"], held["bfs"]) == (1, True, False)
    assert held["bytes"] > 0 and eng.gpu_uploads == 1
    eng.release_gpu()
    assert eng.gpu_resident() is None
    wcg.bellman_ford(g, indices=[0], device="cuda")
    assert eng.gpu_uploads == 2


def test_gpu_nx_backend_uploads_once(gpu):
    G = nx_graph(8, n=300, m=1500)
    for s in (0, 1, 2):
        assert (nx.single_source_dijkstra_path_length(G, s, backend="warpgraph")
                == pytest.approx(nx.single_source_dijkstra_path_length(G, s)))
    eng = _kept(G).engine("weight", 1)
    assert eng.gpu_uploads == 1 and eng.gpu_resident()["sssp"]
    got = dict(nx.all_pairs_dijkstra_path_length(G, backend="warpgraph"))
    want = dict(nx.all_pairs_dijkstra_path_length(G))
    assert got.keys() == want.keys()
    for s in want:
        assert got[s] == pytest.approx(want[s])
