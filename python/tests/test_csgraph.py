"""warpgraph.csgraph against scipy.sparse.csgraph itself, on random graphs."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scg

import warpgraph
import warpgraph.csgraph as wcg

SEEDS = range(6)


def random_matrix(seed, n=60, m=300, kind="float", fmt="csr", self_loops=True):
    """A random square matrix: float weights (distinct), small ints (many ties),
    or ints with some negative arcs; unreachable vertices are likely (m ~ 5n)."""
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    if not self_loops:
        keep = u != v
        u, v = u[keep], v[keep]
    if kind == "float":
        w = rng.random(len(u)) + 0.01
    elif kind == "int":
        w = rng.integers(1, 4, len(u)).astype(float)
    else:  # "neg": a DAG (u < v) so that negative arcs make no cycle
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        keep = lo < hi
        u, v = lo[keep], hi[keep]
        w = rng.integers(-3, 6, len(u)).astype(float)
        w[w == 0] = 1
    coo = sp.coo_array((w, (u, v)), shape=(n, n))
    return {"csr": coo.tocsr, "csc": coo.tocsc, "coo": lambda: coo,
            "dense": lambda: coo.toarray()}[fmt]()


def weight_of(A):
    """Dense matrix of the least weight from i to j (inf: no arc), as scipy reads A."""
    if not sp.issparse(A):
        A = np.where(np.isfinite(A) & (A != 0), A, 0)
        A = sp.csr_array(A)
    A = A.tocsr()
    W = np.full(A.shape, np.inf)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    np.minimum.at(W, (rows, A.indices), A.data)
    return W


def assert_valid_predecessors(A, dist, pred, sources, directed):
    """Each predecessor is a tight arc: dist[p] + w(p, j) == dist[j]."""
    W = weight_of(A)
    if not directed:
        W = np.minimum(W, W.T)
    dist = np.atleast_2d(dist)
    pred = np.atleast_2d(pred)
    for row, s in enumerate(np.atleast_1d(sources)):
        for j in range(dist.shape[1]):
            p = pred[row, j]
            if j == s or not np.isfinite(dist[row, j]):
                assert p == -9999
            else:
                assert p >= 0
                assert np.isclose(dist[row, p] + W[p, j], dist[row, j])


def scipy_call(fn, A, **kw):
    """scipy's answer; its Floyd-Warshall refuses COO input, which warpgraph takes as
    scipy's other functions do (duplicates summed)."""
    if fn == "floyd_warshall" and sp.issparse(A) and A.format == "coo":
        A = A.tocsr()
    return getattr(scg, fn)(A, **kw)


def compare(fn, A, *, exact_pred, **kw):
    a = scipy_call(fn, A, return_predecessors=True, **kw)
    b = getattr(wcg, fn)(A, return_predecessors=True, **kw)
    assert a[0].shape == b[0].shape and a[1].shape == b[1].shape
    assert a[0].dtype == b[0].dtype == np.float64
    assert b[1].dtype == np.int32
    np.testing.assert_allclose(b[0], a[0], rtol=1e-12)
    if exact_pred:
        np.testing.assert_array_equal(b[1], a[1])
    else:
        n = A.shape[0]
        sources = kw.get("indices", np.arange(n))
        sources = np.arange(n) if sources is None else np.asarray(sources) % n
        assert_valid_predecessors(A, b[0], b[1], sources, kw.get("directed", True))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("fn", ["dijkstra", "bellman_ford", "johnson", "floyd_warshall",
                                "shortest_path"])
def test_distances_and_predecessors(seed, directed, fn):
    A = random_matrix(seed)
    compare(fn, A, exact_pred=True, directed=directed)
    compare(fn, random_matrix(seed, kind="int"), exact_pred=False, directed=directed)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "dense"])
@pytest.mark.parametrize("fn", ["dijkstra", "johnson", "floyd_warshall", "bellman_ford"])
def test_input_formats(fmt, fn):
    for directed in (True, False):
        compare(fn, random_matrix(7, fmt=fmt), exact_pred=True, directed=directed)


def test_masked_and_explicit_zeros():
    A = random_matrix(3, n=30, m=120).toarray()
    M = np.ma.masked_array(A.copy(), mask=(A == 0))
    M.data[0, 1] = 0.0
    M.mask[0, 1] = False  # an unmasked zero is an edge of weight 0
    M.data[2, 3] = np.inf
    M.mask[2, 3] = False  # an unmasked inf: BFS follows it, searches by weight do not
    for fn in ("dijkstra", "floyd_warshall", "johnson"):
        np.testing.assert_allclose(getattr(wcg, fn)(M), getattr(scg, fn)(M))
    for a, b in zip(wcg.breadth_first_order(M, 2), scg.breadth_first_order(M, 2)):
        np.testing.assert_array_equal(a, b)
    S = sp.csr_array(A)
    S.data[:5] = 0.0  # explicit zeros of sparse input are edges
    np.testing.assert_allclose(wcg.dijkstra(S), scg.dijkstra(S))
    np.testing.assert_allclose(wcg.floyd_warshall(S), scg.floyd_warshall(S))


@pytest.mark.parametrize("indices", [None, 3, -1, [0, 5, 9], [[1, 2], [3, 4]], np.int64(2)])
@pytest.mark.parametrize("fn", ["dijkstra", "bellman_ford", "johnson", "shortest_path"])
def test_shapes_follow_indices(indices, fn):
    A = random_matrix(1, kind="int")
    a = getattr(scg, fn)(A, indices=indices)
    b = getattr(wcg, fn)(A, indices=indices)
    assert a.shape == b.shape
    np.testing.assert_allclose(b, a)
    with pytest.raises(ValueError):
        getattr(wcg, fn)(A, indices=[0, 1000])


def test_unweighted_limit_min_only():
    for seed in SEEDS:
        A = random_matrix(seed)
        for fn in ("dijkstra", "bellman_ford", "johnson", "floyd_warshall"):
            np.testing.assert_allclose(getattr(wcg, fn)(A, unweighted=True),
                                       getattr(scg, fn)(A, unweighted=True))
        a = scg.dijkstra(A, indices=[0, 1], limit=0.8, return_predecessors=True)
        b = wcg.dijkstra(A, indices=[0, 1], limit=0.8, return_predecessors=True)
        np.testing.assert_allclose(b[0], a[0])
        np.testing.assert_array_equal(b[1], a[1])
        for directed in (True, False):
            a = scg.dijkstra(A, directed, indices=[0, 7, 9], min_only=True,
                             return_predecessors=True)
            b = wcg.dijkstra(A, directed, indices=[0, 7, 9], min_only=True,
                             return_predecessors=True)
            np.testing.assert_allclose(b[0], a[0])
            np.testing.assert_array_equal(b[1], a[1])
            np.testing.assert_array_equal(b[2], a[2])
            np.testing.assert_allclose(wcg.dijkstra(A, directed, indices=[3], min_only=True),
                                       scg.dijkstra(A, directed, indices=[3], min_only=True))


def test_negative_weights():
    for seed in SEEDS:
        A = random_matrix(seed, kind="neg")
        for fn in ("bellman_ford", "johnson", "floyd_warshall", "shortest_path"):
            compare(fn, A, exact_pred=False)
        # Undirected, a negative edge is a negative cycle for all of them.
        for fn in ("bellman_ford", "johnson", "floyd_warshall"):
            with pytest.raises(scg.NegativeCycleError):
                getattr(scg, fn)(A, directed=False)
            with pytest.raises(scg.NegativeCycleError):
                getattr(wcg, fn)(A, directed=False)
        # Dijkstra on negative weights is scipy's own answer (with its warning).
        with pytest.warns(UserWarning):
            b = wcg.dijkstra(A)
        with pytest.warns(UserWarning):
            a = scg.dijkstra(A)
        np.testing.assert_array_equal(a, b)


def test_negative_cycles_match_scipy():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = 12
        A = sp.random_array((n, n), density=0.25, random_state=rng, format="csr")
        A.data = np.round(A.data * 10 - 3)
        A.data[A.data == 0] = 1
        for fn in ("bellman_ford", "johnson", "floyd_warshall"):
            for idx in (None, [0], [3, 4]):
                kw = {} if fn == "floyd_warshall" else {"indices": idx}
                try:
                    expected = getattr(scg, fn)(A, **kw)
                except scg.NegativeCycleError:
                    with pytest.raises(wcg.NegativeCycleError):
                        getattr(wcg, fn)(A, **kw)
                else:
                    np.testing.assert_allclose(getattr(wcg, fn)(A, **kw), expected)
    assert wcg.NegativeCycleError is scg.NegativeCycleError


@pytest.mark.parametrize("seed", SEEDS)
def test_many_sources_with_negative_weights(seed):
    """Several sources under Bellman-Ford or Johnson run as one batched table."""
    A = random_matrix(seed, kind="neg")
    for fn in ("bellman_ford", "johnson"):
        compare(fn, A, exact_pred=False, indices=[0, 3, 7, 3, 59])


def test_many_sources_and_a_negative_cycle():
    # A path 0 -> 1 -> 2 with a negative arc, and a negative cycle 3 <-> 4 that 0, 1
    # and 2 do not reach but 5 does: Bellman-Ford refuses only sources that reach it.
    u, v = [0, 1, 3, 4, 5], [1, 2, 4, 3, 3]
    A = sp.csr_array(([2.0, -1.0, 1.0, -2.0, 1.0], (u, v)), shape=(6, 6))
    for indices in ([0, 1, 2], [2, 0]):
        compare("bellman_ford", A, exact_pred=True, indices=indices)
    for indices in ([0, 5], [5, 1]):
        with pytest.raises(scg.NegativeCycleError):
            wcg.bellman_ford(A, indices=indices)
        with pytest.raises(scg.NegativeCycleError):
            scg.bellman_ford(A, indices=indices)


def test_self_loops_and_duplicates():
    # Duplicates in COO are summed (scipy's conversion); self loops ignored by FW.
    u = np.array([0, 0, 1, 2, 2, 1])
    v = np.array([1, 1, 2, 2, 0, 1])
    w = np.array([1.0, 2.0, 1.0, -1.0, 4.0, 0.5])
    A = sp.coo_array((w, (u, v)), shape=(4, 4))
    np.testing.assert_allclose(wcg.floyd_warshall(A), scg.floyd_warshall(A.tocsr()))
    with pytest.raises(scg.NegativeCycleError):
        wcg.bellman_ford(A, indices=0)
    with pytest.raises(scg.NegativeCycleError):
        scg.bellman_ford(A, indices=0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["float", "int", "neg"])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "dense"])
def test_minimum_spanning_tree_is_scipys(seed, kind, fmt):
    A = random_matrix(seed, kind=kind, fmt=fmt)
    a = scg.minimum_spanning_tree(A)
    b = wcg.minimum_spanning_tree(A)
    assert type(a) is type(b)
    assert a.shape == b.shape
    assert (a != b).nnz == 0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "dense"])
def test_breadth_first_order_is_scipys(seed, directed, fmt):
    A = random_matrix(seed, fmt=fmt)
    for start in (0, 5):
        a = scg.breadth_first_order(A, start, directed)
        b = wcg.breadth_first_order(A, start, directed)
        np.testing.assert_array_equal(b[0], a[0])
        np.testing.assert_array_equal(b[1], a[1])
        assert b[0].dtype == a[0].dtype and b[1].dtype == a[1].dtype
    np.testing.assert_array_equal(
        wcg.breadth_first_order(A, 2, directed, return_predecessors=False),
        scg.breadth_first_order(A, 2, directed, return_predecessors=False))


def test_delta_stepping_method():
    A = random_matrix(2)
    np.testing.assert_allclose(wcg.shortest_path(A, method="DS"), scg.shortest_path(A))
    np.testing.assert_allclose(wcg.shortest_path(A, method="DS", indices=[1, 2]),
                               scg.shortest_path(A, indices=[1, 2]))
    with pytest.raises(ValueError):
        wcg.shortest_path(A, method="XX")
    with pytest.raises(ValueError):
        wcg.shortest_path(A, method="FW", indices=0)


def test_devices():
    A = random_matrix(0)
    np.testing.assert_allclose(wcg.dijkstra(A, device="cpu"), scg.dijkstra(A))
    with pytest.raises(ValueError):
        wcg.dijkstra(A, device="tpu")
    if warpgraph._warpgraph.resolve_device("auto") == "cpu":
        # No GPU on this machine: asking for one is a clear error, auto runs on the CPU.
        for call in (lambda: wcg.dijkstra(A, device="cuda"),
                     lambda: wcg.floyd_warshall(A, device="cuda")):
            with pytest.raises(warpgraph.GpuError, match="no usable GPU"):
                call()
        np.testing.assert_allclose(wcg.johnson(A, device="auto"), scg.johnson(A))


def test_empty_and_tiny():
    for n in (0, 1):
        A = sp.csr_array((n, n))
        for fn in ("dijkstra", "bellman_ford", "johnson", "floyd_warshall"):
            np.testing.assert_array_equal(getattr(wcg, fn)(A), getattr(scg, fn)(A))
    with pytest.raises(ValueError):
        wcg.dijkstra(np.zeros((2, 3)))


def test_graph_objects_work_with_csgraph():
    g = warpgraph.generate.urand(200, 1000, weights=(1, 9), undirected=False)
    A = g.to_scipy()
    np.testing.assert_allclose(wcg.dijkstra(g, indices=[0, 1]), scg.dijkstra(A, indices=[0, 1]))
    np.testing.assert_allclose(wcg.floyd_warshall(g), scg.floyd_warshall(A))
    assert (wcg.minimum_spanning_tree(g) != scg.minimum_spanning_tree(A)).nnz == 0
    np.testing.assert_array_equal(wcg.breadth_first_order(g, 0)[0],
                                  scg.breadth_first_order(A, 0)[0])


def test_other_names_are_scipys():
    """Code that uses the rest of scipy.sparse.csgraph works after the import changes."""
    from warpgraph.csgraph import connected_components, reconstruct_path  # noqa: F401

    assert wcg.connected_components is scg.connected_components
    assert wcg.depth_first_order is scg.depth_first_order
    assert "connected_components" in dir(wcg) and "dijkstra" in dir(wcg)
    # The engine's own functions stay the engine's.
    assert wcg.dijkstra is not scg.dijkstra
    A = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=float))
    assert connected_components(A)[0] == 2
    with pytest.raises(AttributeError, match="no attribute 'no_such_function'"):
        wcg.no_such_function
    with pytest.raises(ImportError):
        from warpgraph.csgraph import no_such_function  # noqa: F401
