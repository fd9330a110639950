"""The NetworkX backend against NetworkX itself, on random graphs with string labels,
self loops, unreachable nodes, negative weights, ties and multigraphs."""

import math
import random

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

import warpgraph  # noqa: E402
from warpgraph.nx import interface  # noqa: E402

nx.config.warnings_to_ignore.add("cache")

SEEDS = range(5)


def random_graph(seed, directed, kind="float", n=40, m=120, multigraph=False,
                 labels=True):
    """Random graph: ``float`` weights (distinct, so shortest paths are unique),
    ``int`` (1..3: many ties), ``neg`` (some negative arcs; for a directed graph no
    negative cycle), ``cycle`` (negative cycles likely), ``missing`` (some edges without
    a weight: NetworkX's default 1 applies)."""
    rng = random.Random(seed)
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[directed, multigraph]
    G = cls()
    name = (lambda i: f"v{i}") if labels else (lambda i: i)
    G.add_nodes_from(name(i) for i in rng.sample(range(n), n))  # node order shuffled
    for _ in range(m):
        u, v = rng.randrange(n), rng.randrange(n)
        if kind == "float":
            w = rng.random() + 0.01
        elif kind == "int":
            w = rng.randint(1, 3)
        elif kind == "neg":
            if directed:
                u, v = min(u, v), max(u, v)  # a DAG: no negative cycle
            w = rng.randint(-2, 6)
        elif kind == "cycle":
            w = rng.randint(-1, 8)
        else:  # missing
            w = None
        if w is None and rng.random() < 0.5:
            G.add_edge(name(u), name(v))
        else:
            G.add_edge(name(u), name(v), weight=w if w is not None else rng.randint(1, 9))
    return G


def same(a, b):
    """Equal results (floats to 1e-12: a Floyd-Warshall sum may round differently)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        assert a == b or math.isclose(a, b, rel_tol=1e-12) or (math.isnan(a) and math.isnan(b))
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(b, a, rtol=1e-12)
    else:
        assert a == b


def both(fn, G, *args, auto=False, **kwargs):
    """NetworkX's answer, or the exception it raises; then the backend's the same.
    With ``auto``, the backend is chosen by priority (so that what it declines runs in
    NetworkX), else by ``backend="warpgraph"`` (so that it must run)."""
    def run(backend=None):
        try:
            if backend and auto:
                with nx.config.backend_priority(algos=["warpgraph"]):
                    out = getattr(nx, fn)(G, *args, **kwargs)
            elif backend:
                out = getattr(nx, fn)(G, *args, backend=backend, **kwargs)
            else:
                out = getattr(nx, fn)(G, *args, **kwargs)
            if fn in ("bfs_edges", "minimum_spanning_edges", "all_pairs_dijkstra_path_length",
                      "all_pairs_shortest_path_length", "bfs_predecessors", "bfs_successors",
                      "all_pairs_shortest_path", "bfs_layers", "all_pairs_dijkstra",
                      "all_pairs_dijkstra_path", "all_pairs_bellman_ford_path_length",
                      "all_pairs_bellman_ford_path"):
                out = list(out)
            return out, None
        except (nx.NetworkXException, ValueError) as e:
            return None, (type(e), str(e))

    expected, err = run()
    got, got_err = run(backend="warpgraph")
    assert got_err == err
    if err is None:
        same(expected, got)
    return expected


class Spy:
    """Counts the calls that the backend handed to NetworkX."""

    def __init__(self, monkeypatch):
        self.fallbacks = []
        real = interface._networkx_answer

        def spy(name, *a, **k):
            self.fallbacks.append(name)
            return real(name, *a, **k)

        monkeypatch.setattr(interface, "_networkx_answer", spy)


@pytest.fixture
def spy(monkeypatch):
    return Spy(monkeypatch)


def first(G):
    return next(iter(G))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
def test_dijkstra_family_unique_paths(seed, directed, spy):
    G = random_graph(seed, directed)
    s = first(G)
    nodes = list(G)
    both("single_source_dijkstra", G, s)
    both("single_source_dijkstra", G, s, cutoff=0.7)
    both("single_source_dijkstra", G, s, target=nodes[3])
    both("single_source_dijkstra_path_length", G, s)
    both("single_source_dijkstra_path_length", G, s, cutoff=0.5)
    for t in nodes[:8]:
        both("dijkstra_path_length", G, s, t)
    both("all_pairs_dijkstra_path_length", G)
    both("all_pairs_dijkstra_path_length", G, cutoff=0.9)
    both("single_source_dijkstra_path", G, s)
    both("single_source_dijkstra_path", G, s, cutoff=0.7)
    for t in nodes[:8]:
        both("dijkstra_path", G, s, t)
    for sources in ([s], nodes[:3], {nodes[4], nodes[9], nodes[4]}, [s, s]):
        both("multi_source_dijkstra_path_length", G, sources)
        both("multi_source_dijkstra_path_length", G, sources, cutoff=0.5)
    both("all_pairs_dijkstra", G)
    both("all_pairs_dijkstra_path", G, cutoff=0.7)
    assert spy.fallbacks == []  # all answered by the engine
    both("multi_source_dijkstra_path_length", G, [])
    both("multi_source_dijkstra_path_length", G, [s, "absent"])
    # Absent nodes and unreachable targets: NetworkX's errors.
    both("dijkstra_path", G, "absent", s)
    both("dijkstra_path", G, s, "absent")
    G.add_node("alone")
    both("dijkstra_path", G, s, "alone")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", ["int", "neg", "missing"])
def test_dijkstra_family_ties_and_negative(seed, directed, kind):
    G = random_graph(seed, directed, kind)
    s = first(G)
    both("single_source_dijkstra", G, s)
    both("single_source_dijkstra_path_length", G, s)
    both("dijkstra_path_length", G, s, list(G)[5])
    both("all_pairs_dijkstra_path_length", G)
    both("single_source_dijkstra_path", G, s)
    both("dijkstra_path", G, s, list(G)[5])
    both("multi_source_dijkstra_path_length", G, list(G)[:4])
    # Rows with ties (int weights) are NetworkX's own, the others the engine's.
    both("all_pairs_dijkstra", G)
    both("all_pairs_dijkstra_path", G)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", ["float", "int", "neg", "cycle"])
def test_bellman_ford_family(seed, directed, kind):
    G = random_graph(seed, directed, kind)
    s = first(G)
    both("single_source_bellman_ford", G, s)
    both("single_source_bellman_ford", G, s, target=list(G)[4])
    both("bellman_ford_predecessor_and_distance", G, s)
    both("negative_edge_cycle", G)
    both("find_negative_cycle", G, s)
    both("johnson", G)
    both("single_source_bellman_ford_path", G, s)
    both("single_source_bellman_ford_path_length", G, s)
    both("all_pairs_bellman_ford_path_length", G)
    both("all_pairs_bellman_ford_path", G)
    for t in list(G)[:6] + ["absent"]:
        both("bellman_ford_path", G, s, t)
        both("bellman_ford_path_length", G, s, t)
    both("bellman_ford_path_length", G, "absent", "absent")


def test_bellman_ford_engine_answers_unique_paths(spy):
    G = random_graph(1, True, "float")
    both("single_source_bellman_ford", G, first(G))
    both("bellman_ford_predecessor_and_distance", G, first(G))
    both("negative_edge_cycle", G)
    both("johnson", G)
    both("single_source_bellman_ford_path", G, first(G))
    both("single_source_bellman_ford_path_length", G, first(G))
    for t in list(G)[:6]:
        both("bellman_ford_path", G, first(G), t)
        both("bellman_ford_path_length", G, first(G), t)
    assert spy.fallbacks == []


def test_negative_self_loop_anywhere():
    G = random_graph(2, True, "float")
    a, b = list(G)[:2]
    G.add_edge(b, b, weight=-1)  # unreachable from a, still an error for NetworkX
    G.remove_edges_from(list(G.in_edges(b)))
    G.add_edge(b, b, weight=-1)
    both("bellman_ford_predecessor_and_distance", G, a)
    both("single_source_bellman_ford", G, a)
    both("negative_edge_cycle", G)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", ["float", "int", "missing", "cycle"])
def test_floyd_warshall(seed, directed, kind):
    G = random_graph(seed, directed, kind)
    G.add_edge(first(G), first(G), weight=3)  # a self loop
    both("floyd_warshall", G)
    both("floyd_warshall_numpy", G)
    nodelist = list(G)[::-1]
    both("floyd_warshall_numpy", G, nodelist=nodelist)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["float", "int", "neg", "missing"])
def test_minimum_spanning_tree_is_networkx_kruskal(seed, kind, spy):
    G = random_graph(seed, False, kind)
    G.add_edge(first(G), first(G), weight=-5)  # self loops never belong to a tree
    T0 = nx.minimum_spanning_tree(G)
    T1 = nx.minimum_spanning_tree(G, backend="warpgraph")
    assert type(T1) is type(T0) and T1.graph == T0.graph and T1._node == T0._node
    assert T1._adj == T0._adj
    assert list(T1.edges(data=True)) == list(T0.edges(data=True))  # same order
    assert all(list(T1._adj[u]) == list(T0._adj[u]) for u in T0)  # neighbour order
    for u, v in T1.edges():
        # One data dict per edge, shared by both directions, a copy of G's.
        assert T1._adj[u][v] is T1._adj[v][u] and T1._adj[u][v] is not G._adj[u][v]
    e0 = list(nx.minimum_spanning_edges(G, data=False))
    e1 = list(nx.minimum_spanning_edges(G, data=False, backend="warpgraph"))
    assert e0 == e1
    assert spy.fallbacks == []
    # Prim and directed graphs are NetworkX's own (declined or handed over).
    both("minimum_spanning_edges", G, algorithm="prim", data=False, auto=True)
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.minimum_spanning_edges(G.to_directed(), backend="warpgraph"))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
def test_bfs_in_networkx_order(seed, directed, spy):
    G = random_graph(seed, directed, "int")
    for s in list(G)[:4]:
        both("bfs_edges", G, s)
        both("bfs_edges", G, s, depth_limit=2)
        both("single_source_shortest_path_length", G, s)
        both("single_source_shortest_path_length", G, s, cutoff=2)
        assert list(nx.single_source_shortest_path_length(G, s, backend="warpgraph")) == \
            list(nx.single_source_shortest_path_length(G, s))  # same key order
        T0 = nx.bfs_tree(G, s)
        T1 = nx.bfs_tree(G, s, backend="warpgraph")
        assert list(T0.edges) == list(T1.edges) and T0._adj == T1._adj
        both("bfs_predecessors", G, s)
        both("bfs_predecessors", G, s, depth_limit=2)
        both("bfs_successors", G, s)
        both("bfs_successors", G, s, depth_limit=1)
        both("single_source_shortest_path", G, s)
        both("single_source_shortest_path", G, s, cutoff=2)
        assert list(nx.single_source_shortest_path(G, s, backend="warpgraph")) == \
            list(nx.single_source_shortest_path(G, s))  # same key order
        for d in (-1, 0, 1, 2, 3, 50):
            both("descendants_at_distance", G, s, d)
    both("all_pairs_shortest_path_length", G)
    both("all_pairs_shortest_path_length", G, cutoff=2)
    both("all_pairs_shortest_path", G)
    both("all_pairs_shortest_path", G, cutoff=1)
    G.add_node("alone")
    both("bfs_successors", G, "alone")
    both("bfs_predecessors", G, "alone")
    got = dict(nx.all_pairs_shortest_path_length(G, backend="warpgraph"))
    want = dict(nx.all_pairs_shortest_path_length(G))
    assert all(list(got[u]) == list(want[u]) for u in G)  # same key order (BFS order)
    assert spy.fallbacks == []
    nodes = list(G)
    for sources in (nodes[0], nodes[:3], nodes[2:9:2] + nodes[2:3], set(nodes[5:8]), []):
        both("bfs_layers", G, sources)
    assert spy.fallbacks == []
    # Absent nodes: NetworkX's errors.
    both("bfs_layers", G, [nodes[0], "absent"])
    # A one-shot iterator of sources goes to NetworkX whole (a fresh one for each).
    assert list(nx.bfs_layers(G, iter(nodes[:2]), backend="warpgraph")) == \
        list(nx.bfs_layers(G, iter(nodes[:2])))
    both("single_source_shortest_path", G, "absent")
    both("descendants_at_distance", G, "absent", 1)
    both("descendants_at_distance", G, "absent", -1)


@pytest.mark.parametrize("multi_directed", [False, True])
def test_multigraphs(multi_directed):
    for seed in SEEDS:
        G = random_graph(seed, multi_directed, "float", multigraph=True, m=200)
        s = first(G)
        both("single_source_dijkstra_path_length", G, s)
        both("single_source_dijkstra", G, s)
        both("single_source_bellman_ford", G, s)
        both("floyd_warshall_numpy", G)
        both("bfs_edges", G, s)
        both("single_source_shortest_path_length", G, s)
        if not multi_directed:  # declined (keys): NetworkX's own
            T0 = nx.minimum_spanning_tree(G)
            with nx.config.backend_priority(algos=["warpgraph"]):
                T1 = nx.minimum_spanning_tree(G)
            assert T0._adj == T1._adj


def test_declined_arguments_give_networkx_answers():
    G = random_graph(3, True, "float")
    s = first(G)
    wf = lambda u, v, d: d.get("weight", 1) * 2  # noqa: E731
    assert interface.BackendInterface.can_run("single_source_dijkstra", (G, s),
                                              {"weight": wf}) is not True
    both("single_source_dijkstra", G, s, weight=wf, auto=True)
    both("bfs_edges", G, s, reverse=True, auto=True)
    both("bfs_edges", G, s, sort_neighbors=sorted, auto=True)
    both("single_source_dijkstra", G, "no such node")
    both("dijkstra_path_length", G, s, "no such node")
    both("single_source_dijkstra_path_length", G, s, weight="other")
    H = G.subgraph(list(G)[:20])  # a view: converted by NetworkX
    assert interface.BackendInterface.can_run("single_source_dijkstra", (H, s), {}) is not True
    G.add_edge(s, "x", weight=float("nan"))
    both("single_source_dijkstra_path_length", G, s)
    G.add_edge(s, "y", weight="heavy")
    with pytest.raises(TypeError):
        nx.single_source_dijkstra_path_length(G, s)
    with pytest.raises(TypeError):
        nx.single_source_dijkstra_path_length(G, s, backend="warpgraph")


def test_conversion_is_cached_on_the_graph():
    G = random_graph(0, False)
    nx.single_source_dijkstra_path_length(G, first(G), backend="warpgraph")
    cache = G.__networkx_cache__["backends"]["warpgraph"]
    (wg,) = cache.values()
    assert isinstance(wg, warpgraph.Graph) and wg._cache  # arrays kept
    nx.single_source_dijkstra_path_length(G, first(G), backend="warpgraph")
    assert list(G.__networkx_cache__["backends"]["warpgraph"].values()) == [wg]
    G.add_edge("a", "b")  # a mutation clears NetworkX's cache
    assert not G.__networkx_cache__.get("backends", {}).get("warpgraph")


def test_int_weights_give_int_distances():
    G = random_graph(4, True, "int")
    d = nx.single_source_dijkstra_path_length(G, first(G), backend="warpgraph")
    assert all(type(x) is int for x in d.values())
    G = random_graph(4, True, "float")
    d = nx.single_source_dijkstra_path_length(G, first(G), backend="warpgraph")
    assert all(type(x) is float for k, x in d.items() if k != first(G))


def test_backend_is_registered():
    from importlib.metadata import entry_points

    assert "warpgraph" in {e.name for e in entry_points(group="networkx.backends")}
    info = interface.get_info()
    for name in ("bfs_edges", "bfs_tree", "single_source_shortest_path_length",
                 "single_source_dijkstra", "single_source_dijkstra_path_length",
                 "dijkstra_path_length", "all_pairs_dijkstra_path_length",
                 "single_source_bellman_ford", "bellman_ford_predecessor_and_distance",
                 "negative_edge_cycle", "find_negative_cycle", "floyd_warshall",
                 "floyd_warshall_numpy", "johnson", "minimum_spanning_tree",
                 "minimum_spanning_edges"):
        assert name in info["functions"]
        assert hasattr(interface.BackendInterface, name)


@pytest.mark.parametrize("directed", [False, True])
def test_integer_nodes_in_order(directed, spy):
    # Nodes 0..n-1 in order take the converter's path without a node-index lookup.
    G = nx.gnm_random_graph(80, 300, seed=4, directed=directed)
    rng = random.Random(4)
    for u, v in G.edges:
        G[u][v]["weight"] = rng.random()
    G.add_edge(0, 0, weight=0.5)
    both("single_source_dijkstra", G, 0)
    both("single_source_bellman_ford", G, 3)
    both("bfs_edges", G, 1)
    both("floyd_warshall_numpy", G)
    if not directed:
        T0, T1 = nx.minimum_spanning_tree(G), nx.minimum_spanning_tree(G, backend="warpgraph")
        assert T0._adj == T1._adj
    G.add_node(500)  # not 0..n-1 any more: the index is used
    both("single_source_dijkstra_path_length", G, 0)
    assert spy.fallbacks == []


@pytest.mark.parametrize("extra", [None, "a string", True, 10**12, -3])
def test_node_labels_map_to_their_rows(extra):
    """Int labels out of order and with gaps (an array from label to row), and with a
    label that is not a small non-negative int (the dictionary of labels): the rows
    NetworkX's order gives."""
    rng = random.Random(9)
    labels = rng.sample(range(400), 120)
    G = nx.Graph()
    G.add_nodes_from(labels)
    for _ in range(500):
        G.add_edge(rng.choice(labels), rng.choice(labels))
    if extra is not None:
        G.add_edge(extra, labels[0])
        G.add_edge(extra, labels[5])
    index = {u: i for i, u in enumerate(G)}
    indptr, indices = [0], []
    for nbrs in G._adj.values():
        indices.extend(index[v] for v in nbrs)
        indptr.append(len(indices))
    ip, ix, _ = warpgraph.Graph.from_networkx(G).adjacency(None)
    np.testing.assert_array_equal(ip, indptr)
    np.testing.assert_array_equal(ix, indices)


def test_unweighted_rows_reuse_a_weighted_conversion():
    G = random_graph(3, True, "float")
    g = warpgraph.Graph.from_networkx(G)
    ip, ix, w = g.adjacency("weight", 1)
    ip2, ix2, w2 = g.adjacency(None)
    assert ip2 is ip and ix2 is ix and w2 is None and w is not None
    # Unweighted first: a weighted call still reads the weights.
    h = warpgraph.Graph.from_networkx(G)
    assert h.adjacency(None)[2] is None
    np.testing.assert_array_equal(h.adjacency("weight", 1)[2], w)


# -- centrality ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", ["float", "int", "missing"])
def test_centrality_matches_networkx(seed, directed, kind, spy):
    # int weights 1..3 and unweighted searches: many equally short paths to count.
    G = random_graph(seed, directed, kind, n=30, m=70)
    G.add_node("alone")
    for weight in (None, "weight"):
        for normalized in (True, False):
            for endpoints in (False, True):
                both("betweenness_centrality", G, weight=weight, normalized=normalized,
                     endpoints=endpoints)
            both("edge_betweenness_centrality", G, weight=weight, normalized=normalized)
        for wf in (True, False):
            both("closeness_centrality", G, distance=weight, wf_improved=wf)
        both("closeness_centrality", G, first(G), distance=weight)
        both("harmonic_centrality", G, distance=weight)
        nodes = list(G)
        both("harmonic_centrality", G, nbunch=nodes[:5], sources=nodes[3:15], distance=weight)
        both("harmonic_centrality", G, nbunch=nodes[2:20], sources=nodes[:4], distance=weight)
    assert spy.fallbacks == []


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
def test_sampled_betweenness_draws_networkx_sources(seed, directed, spy):
    G = random_graph(seed, directed, "int", n=25, m=60)
    for k in (1, 4, len(G)):
        for endpoints in (False, True):
            both("betweenness_centrality", G, k=k, seed=seed, endpoints=endpoints)
            both("betweenness_centrality", G, k=k, seed=seed, normalized=False,
                 endpoints=endpoints, weight="weight")
        both("edge_betweenness_centrality", G, k=k, seed=seed)
    # A random state passed in is drawn from once, as by NetworkX.
    a, b = random.Random(seed), random.Random(seed)
    first_nx = nx.betweenness_centrality(G, k=3, seed=a)
    first_wg = nx.betweenness_centrality(G, k=3, seed=b, backend="warpgraph")
    same(first_nx, first_wg)
    same(nx.betweenness_centrality(G, k=3, seed=a),
         nx.betweenness_centrality(G, k=3, seed=b, backend="warpgraph"))
    assert spy.fallbacks == []


def test_centrality_multigraphs_and_declines(spy):
    G = random_graph(2, False, "int", n=20, m=60, multigraph=True)
    both("betweenness_centrality", G, weight="weight")
    both("closeness_centrality", G, distance="weight")
    assert spy.fallbacks == []
    # Parallel edges share their value in NetworkX: answered there.
    both("edge_betweenness_centrality", G)
    assert spy.fallbacks == ["edge_betweenness_centrality"]
    # Zero weights make NetworkX's counts depend on its heap order: answered there.
    H = random_graph(3, True, "int", n=20, m=50)
    u, v = list(H.edges)[0]
    H[u][v]["weight"] = 0
    both("betweenness_centrality", H, weight="weight")
    both("closeness_centrality", H, distance="weight")
    assert spy.fallbacks == ["edge_betweenness_centrality", "betweenness_centrality"]


def test_centrality_hand_values():
    P = nx.path_graph(5)
    assert nx.betweenness_centrality(P, normalized=False, backend="warpgraph") == {
        0: 0.0, 1: 3.0, 2: 4.0, 3: 3.0, 4: 0.0}
    S = nx.star_graph(4)
    assert nx.betweenness_centrality(S, backend="warpgraph")[0] == 1.0
    assert nx.closeness_centrality(nx.path_graph(3), backend="warpgraph") == pytest.approx(
        {0: 2 / 3, 1: 1.0, 2: 2 / 3})
