"""Deterministic graph generators (the engine's, in parallel).

Each returns a :class:`warpgraph.Graph`, usable with ``warpgraph.csgraph`` and NetworkX.
``weights`` is None (unweighted), ``(lo, hi)`` (uniform integers) or ``"float"``
(uniform in [0, 1)); ``undirected`` (the default) stores each edge in both directions.
Self loops are dropped and of parallel edges the lightest is kept. Same seed, same graph.
"""

from . import _warpgraph
from .graph import Graph

__all__ = ["kron", "rmat", "urand", "grid", "ssca2"]

_SEED = 27491095


def _make(kind, seed, weights, undirected, **params):
    return Graph(
        _warpgraph.generate(
            kind, seed=seed, weights=weights, undirected=undirected, **params
        )
    )


def kron(scale, edge_factor=16, *, seed=_SEED, weights=None, undirected=True):
    """Graph500 Kronecker graph: ``2**scale`` vertices, ``edge_factor * 2**scale`` edges."""
    return _make("kron", seed, weights, undirected, scale=scale, edge_factor=edge_factor)


def rmat(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, *, seed=_SEED, weights=None,
         undirected=True):
    """R-MAT graph with quadrant probabilities ``a``, ``b``, ``c`` (and ``1-a-b-c``)."""
    return _make("rmat", seed, weights, undirected, scale=scale, edge_factor=edge_factor,
                 a=a, b=b, c=c)


def urand(vertices, edges, *, seed=_SEED, weights=None, undirected=True):
    """Uniform random graph G(n, m)."""
    return _make("urand", seed, weights, undirected, vertices=vertices, edges=edges)


def grid(rows, cols, remove=0.0, shortcuts=0, *, seed=_SEED, weights=None,
         undirected=True):
    """A rows x cols 4-neighbour grid, a fraction ``remove`` of its edges removed and
    ``shortcuts`` random edges added."""
    return _make("grid", seed, weights, undirected, rows=rows, cols=cols, remove=remove,
                 shortcuts=shortcuts)


def ssca2(scale, max_clique=8, inter_prob=0.5, *, seed=_SEED, weights=None,
          undirected=True):
    """SSCA#2: random cliques joined by inter-clique edges."""
    return _make("ssca2", seed, weights, undirected, scale=scale, max_clique=max_clique,
                 inter_prob=inter_prob)
