"""CSR arrays from scipy's graph inputs, and engine graphs built from CSR arrays.

Shared by :mod:`warpgraph.graph`, :mod:`warpgraph.csgraph` and the NetworkX backend; it
depends on none of them.
"""

from __future__ import annotations

import numpy as np

from . import _warpgraph

__all__ = ["matrix_csr", "with_virtual_source"]


def matrix_csr(csgraph, directed=True, bfs=False, fw=False):
    """``(n, indptr int64, indices int32, data float64)`` as scipy's ``validate_graph``
    would see the matrix (a scipy sparse matrix or array, a dense or masked array). In a
    masked array every unmasked entry is an edge, as scipy reads it, except that searches
    by weight skip infinite ones and scipy's Floyd-Warshall (``fw``) zero ones."""
    import scipy.sparse as sp

    if sp.issparse(csgraph):
        if not directed and csgraph.format == "csc":
            csgraph = csgraph.T
        m = csgraph.tocsr().astype(np.float64, copy=False)
        if m.ndim != 2:
            raise ValueError("compressed-sparse graph must be 2-D")
        if m.shape[0] != m.shape[1]:
            raise ValueError("compressed-sparse graph must be shape (N, N)")
        indptr = np.asarray(m.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(m.indices, dtype=np.int32)
        data = np.ascontiguousarray(m.data)
        if not bfs and not np.all(np.isfinite(data)):
            # An infinite weight is no way through for a search by weight.
            keep = np.isfinite(data)
            rows = np.repeat(np.arange(m.shape[0]), np.diff(indptr))[keep]
            indptr = np.zeros(m.shape[0] + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=m.shape[0]), out=indptr[1:])
            indices, data = indices[keep], data[keep]
        return m.shape[0], indptr, indices, data
    if np.ma.isMaskedArray(csgraph):
        a = np.ma.getdata(csgraph).astype(np.float64)
        edge = ~np.ma.getmaskarray(csgraph)
        if not bfs:
            edge &= np.isfinite(a)
        if fw:
            edge &= a != 0
    else:
        a = np.asarray(csgraph, dtype=np.float64)
        edge = (a != 0) & np.isfinite(a)
    if a.ndim != 2:
        raise ValueError("compressed-sparse graph must be 2-D")
    if a.shape[0] != a.shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    rows, cols = np.nonzero(edge)
    indptr = np.zeros(a.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=a.shape[0]), out=indptr[1:])
    return a.shape[0], indptr, cols.astype(np.int32), a[rows, cols]


def with_virtual_source(indptr, indices, weights, sources):
    """The engine graph of the CSR arrays ``(indptr, indices, weights)`` (``weights`` None:
    1 on every arc) with one more vertex, ``n``, joined to each of ``sources`` by an arc of
    weight 0: a search from ``n`` finds each vertex's distance from its nearest source."""
    if weights is None:
        weights = np.ones(len(indices), dtype=np.int64)
    k = len(sources)
    return _warpgraph.Graph.from_csr(
        np.concatenate([indptr, [indptr[-1] + k]]).astype(np.int64),
        np.concatenate([indices, np.asarray(sources).astype(np.int32)]),
        np.concatenate([weights, np.zeros(k, dtype=weights.dtype)]),
        True,
    )
