"""Graphs from files and generators, used with both front ends."""

import numpy as np
import pytest
import scipy.sparse.csgraph as scg

import warpgraph
import warpgraph.csgraph as wcg

nx = pytest.importorskip("networkx")
nx.config.warnings_to_ignore.add("cache")


@pytest.fixture
def dimacs(tmp_path):
    p = tmp_path / "g.gr"
    p.write_text("c a small road\np sp 5 6\na 1 2 4\na 2 3 1\na 1 3 7\na 3 4 2\n"
                 "a 4 1 3\na 5 5 1\n")
    return p


def test_read_with_both_apis(dimacs):
    g = warpgraph.read(dimacs)
    assert isinstance(g, warpgraph.Graph)
    assert g.number_of_nodes() == 5 and g.is_directed()
    assert list(g.nodes) == [1, 2, 3, 4, 5]  # DIMACS ids are 1-based
    # csgraph: vertex i is row i.
    dist = wcg.dijkstra(g, indices=0)
    np.testing.assert_array_equal(dist, [0, 4, 5, 7, np.inf])
    np.testing.assert_array_equal(dist, scg.dijkstra(g.to_scipy(), indices=0))
    # NetworkX: nodes are the file's ids.
    d = nx.single_source_dijkstra_path_length(g, 1, backend="warpgraph")
    assert d == {1: 0, 2: 4, 3: 5, 4: 7}
    assert d == nx.single_source_dijkstra_path_length(g.to_networkx(), 1)
    assert list(nx.bfs_edges(g, 1, backend="warpgraph")) == [(1, 2), (1, 3), (3, 4)]
    # A function the backend does not have runs on the converted NetworkX graph.
    with nx.config(fallback_to_nx=True):
        assert nx.has_path(g, 1, 4)
    with pytest.raises(OSError):
        warpgraph.read(dimacs.parent / "missing.gr")
    bad = dimacs.parent / "bad.gr"
    bad.write_text("p sp 2 1\na 1 x 3\n")
    with pytest.raises(ValueError, match="bad.gr:2"):
        warpgraph.read(bad)


@pytest.mark.parametrize("make", [
    lambda: warpgraph.generate.kron(8, 8, weights=(1, 20)),
    lambda: warpgraph.generate.urand(300, 2000, weights="float", undirected=False),
    lambda: warpgraph.generate.grid(10, 12, weights=(1, 5)),
])
def test_generated_graphs_with_both_apis(make):
    g = make()
    A = g.to_scipy()
    G = g.to_networkx()
    assert G.number_of_nodes() == g.number_of_nodes() == A.shape[0]
    assert G.number_of_edges() == g.number_of_edges()
    np.testing.assert_allclose(wcg.dijkstra(g, indices=[0, 3]), scg.dijkstra(A, indices=[0, 3]))
    a = nx.single_source_dijkstra_path_length(G, 0)
    b = nx.single_source_dijkstra_path_length(g, 0, backend="warpgraph")
    assert a.keys() == b.keys() and all(np.isclose(a[k], b[k]) for k in a)
    if not g.is_directed():
        T0 = nx.minimum_spanning_tree(G)
        T1 = nx.minimum_spanning_tree(g, backend="warpgraph")
        assert sorted(T0.edges) == sorted(T1.edges)


def test_generators_are_deterministic():
    a = warpgraph.generate.kron(6, weights=(1, 9), seed=3).to_scipy()
    b = warpgraph.generate.kron(6, weights=(1, 9), seed=3).to_scipy()
    c = warpgraph.generate.kron(6, weights=(1, 9), seed=4).to_scipy()
    assert (a != b).nnz == 0 and (a != c).nnz > 0
    with pytest.raises(ValueError):
        warpgraph.generate.grid(0, 0)
