# SPDX-License-Identifier: Apache-2.0
"""Tensors of tensors (NWChemEx from_sparse_map semantics): Domain, SparseMap, ToT, sparsify,
reduce_tot_sum, index injection. Each operation is a call into the C library."""
import ctypes

import numpy as np

from . import _lib as L
from ._export import exports, public
from ._registry import C, FREE, op, provide, raw, register
from ._tensor import SparseTensor
from ._registry.kinds import (D, Entry, NDT, R_BOOL, R_DTYPE, R_I64, R_PTR_I64, STATUS, T, VOID, buffer, enum,
                              handle, i64, i64in, i64out, out, struct)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_domain_new", STATUS, i64("rank", 0), i64("n", 0), i64in("indices", n="rank * n"), out("out", "domain")),
    Entry("spt_domain_free", VOID, buffer("d", "spt_domain *")),
    Entry("spt_domain_rank", R_I64, handle("d", "domain")),
    Entry("spt_domain_size", R_I64, handle("d", "domain")),
    Entry("spt_domain_indices", R_PTR_I64, handle("d", "domain")),
    Entry("spt_domain_contains", R_BOOL, handle("d", "domain"), i64in("index", n="d.rank")),
    Entry("spt_domain_result_extents", VOID, handle("d", "domain"), i64out("extents", n="d.rank")),
    Entry("spt_domain_result_index", STATUS, handle("d", "domain"), i64("rank", len_of="index"), i64in("index"),
          i64out("out", n="rank")),
    Entry("spt_inject_index", STATUS, i64("rank", len_of="index"), i64in("index"), i64("ninj", len_of="modes"),
          i64in("modes"), i64in("values", n="ninj"), i64out("out", n="rank + ninj")),
    Entry("spt_uninject_index", STATUS, i64("rank", len_of="index"), i64in("index"), i64("ninj", len_of="modes"),
          i64in("modes"), i64out("out", n="rank - ninj")),
    Entry("spt_domain_inject", STATUS, handle("d", "domain"), i64("ninj", len_of="modes"), i64in("modes"),
          i64in("values", n="ninj"), out("out", "domain")),
    Entry("spt_sparse_map_new_with_keys", STATUS, i64("ind_rank", 0), i64("dep_rank", 0), i64("nkeys", 0),
          i64in("keys", n="nkeys * ind_rank"), i64("npairs", 0), i64in("ind", n="npairs * ind_rank"),
          i64in("dep", n="npairs * dep_rank"), out("out", "smap")),
    Entry("spt_sparse_map_free", VOID, buffer("m", "spt_sparse_map *")),
    Entry("spt_sparse_map_ind_rank", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_dep_rank", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_nkeys", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_size", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_key", R_PTR_I64, handle("m", "smap"), i64("i", 0)),
    Entry("spt_sparse_map_find", R_BOOL, handle("m", "smap"), i64in("key", n="m.ind_rank"), i64out("i", n=1)),
    Entry("spt_sparse_map_domain", STATUS, handle("m", "smap"), i64("i", 0), out("out", "domain")),
    Entry("spt_tot_new", STATUS, enum("dtype", "spt_dtype", NDT), i64("outer_rank", 0, len_of="outer_shape"),
          i64in("outer_shape"), i64("inner_rank", 0), i64("n", 0), i64in("outer", n="n * outer_rank"),
          i64in("inner_shapes", n="n * inner_rank"),
          buffer("values", "const void *"), out("out", "tot")),
    Entry("spt_tot_free", VOID, buffer("t", "spt_tot *")),
    Entry("spt_tot_dtype", R_DTYPE, handle("t", "tot")),
    Entry("spt_tot_outer_rank", R_I64, handle("t", "tot")),
    Entry("spt_tot_outer_shape", R_PTR_I64, handle("t", "tot")),
    Entry("spt_tot_inner_rank", R_I64, handle("t", "tot")),
    Entry("spt_tot_count", R_I64, handle("t", "tot")),
    Entry("spt_tot_entry", STATUS, handle("t", "tot"), i64("i", 0), struct("inner", "spt_tot_inner *", L.spt_tot_inner,
                                                                            False)),
    Entry("spt_tot_get", STATUS, handle("t", "tot"), i64in("outer_index", n="t.outer_rank"),
          struct("inner", "spt_tot_inner *", L.spt_tot_inner, False)),
    Entry("spt_sparsify_dense", STATUS, handle("T", D), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), out("out", "tot")),
    Entry("spt_sparsify", STATUS, handle("T", T), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), out("out", "tot")),
    Entry("spt_sparsify_dense_block", STATUS, handle("T", D), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), i64("begin"), i64("end"),
          out("out", "tot")),
    Entry("spt_sparsify_block", STATUS, handle("T", T), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), i64("begin"), i64("end"),
          out("out", "tot")),
    Entry("spt_reduce_tot_sum", STATUS, handle("tot", "tot"), handle("sm", "smap"), i64("rank", len_of="shape"),
          i64in("shape"), out("out", D)),
]
register("tot", ENTRIES)

_domain_free = raw(FREE["domain"])
_sm_free = raw(FREE["smap"])
_tot_free = raw(FREE["tot"])


def _index(x, name="index", fn="ToT"):
    return L.i64_arg(L.as_list(x, name, fn) if not isinstance(x, np.ndarray) else x, name, fn).reshape(-1)


def _rows(rows, rank=None, name="indices", fn="ToT"):
    """A list of index tuples as an n x rank int64 array (integers only: 1.5 or 2.0 are refused)."""
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        return L.i64_arg(rows, name, fn)
    rows = [tuple(L.as_list(r, name, fn)) for r in L.as_list(rows, name, fn)]
    if rank is None:
        rank = len(rows[0]) if rows else 0
    for r in rows:
        if len(r) != rank:
            raise L.err(L.InvalidArgumentError, fn, "%s mix ranks %d and %d" % (name, rank, len(r)))
    if not rows:
        return np.zeros((0, rank), np.int64)
    return L.i64_arg(np.array(rows, dtype=object).reshape(len(rows), rank), name, fn)


def _injections(inj, fn):
    """{mode: value} (or [(mode, value), ...]) as two int64 arrays."""
    items = L.pairs_arg(inj, "injections", fn)
    modes = L.i64_arg(np.array([m for m, _ in items], dtype=object), "modes", fn)
    vals = L.i64_arg(np.array([v for _, v in items], dtype=object), "values", fn)
    return modes, vals


@op("spt_inject_index")
def inject_index(index, injections):
    """inject(index, {mode: value}): the index with `value` placed at each `mode` and the components of
    `index` in order in the other positions. OutOfRangeError for a mode outside [0, len + ninj)."""
    x = _index(index, "index", "inject_index")
    modes, vals = _injections(injections, "inject_index")
    out = np.zeros(x.size + modes.size + 1, dtype=np.int64)
    C.spt_inject_index(x, modes, vals, out)
    return tuple(int(v) for v in out[:x.size + modes.size])


@op("spt_uninject_index")
def uninject_index(index, injections):
    """The index without the components at the injected modes (`injections`: {mode: value} or modes)."""
    x = _index(index, "index", "uninject_index")
    inj = injections if isinstance(injections, dict) else L.as_list(injections, "injections", "uninject_index")
    modes = (_injections(inj, "uninject_index")[0] if isinstance(inj, dict) or (inj and not np.isscalar(inj[0]))
             else _index(inj, "modes", "uninject_index"))
    out = np.zeros(max(1, x.size), dtype=np.int64)
    C.spt_uninject_index(x, modes, out)
    return tuple(int(v) for v in out[:max(0, x.size - modes.size)])


def _init_once(obj, cls):
    if getattr(obj, "_c", None) is not None:
        raise L.err(L.FailedPreconditionError, cls, "__init__ was already called on this object")


@public
class Domain:
    """An immutable sorted set of distinct indices of one rank (upstream's Domain).

    Domain(indices)  indices: an iterable of index tuples (or an n x rank array) of integers (floats are
    refused); any order, duplicates collapsed. Iterating yields the indices in sorted order as tuples.
    Copies and pickles by value."""

    __slots__ = ("h", "_c", "__weakref__")

    def __init__(self, indices=(), rank=None):
        _init_once(self, "Domain")
        x = _rows(indices, rank, "indices", "Domain")
        d = C.spt_domain_new(x.shape[1], x.shape[0], x)
        self.h, self._c = d.h, d._c

    @classmethod
    def _own(cls, h):
        d = cls.__new__(cls)
        d.h = h
        d._c = L.Owner(h, _domain_free)
        return d

    def __reduce__(self):
        return (Domain, (np.array(self.indices), self.rank))

    def __copy__(self):
        return Domain(np.array(self.indices), self.rank)

    def __deepcopy__(self, memo):
        return self.__copy__()

    @property
    def rank(self):
        return C.spt_domain_rank(self)

    def __len__(self):
        return C.spt_domain_size(self)

    @property
    def indices(self):
        """The sorted indices as a read-only n x rank int64 array (a view)."""
        return L.view(self._c, C.spt_domain_indices(self), (len(self), self.rank), np.int64)

    def __iter__(self):
        return iter([tuple(r) for r in self.indices.tolist()])

    def __contains__(self, index):
        x = _index(index, "index", "Domain")
        if x.size != self.rank:
            return False
        return bool(C.spt_domain_contains(self, x))

    def __eq__(self, other):
        return isinstance(other, Domain) and list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return "Domain(%r)" % (list(self),)

    def result_extents(self):
        """Per mode, the number of distinct values (the compressed grid, not the bounding box)."""
        out = np.zeros(max(1, self.rank), dtype=np.int64)
        C.spt_domain_result_extents(self, out)
        return tuple(int(v) for v in out[:self.rank])

    def result_index(self, index):
        """Per mode, the position of index[m] among the distinct values of mode m (OutOfRangeError when a
        value appears in no index of the domain in that mode, or for a wrong rank)."""
        x = _index(index, "index", "Domain.result_index")
        out = np.zeros(max(1, x.size), dtype=np.int64)
        C.spt_domain_result_index(self, x, out)
        return tuple(int(v) for v in out[:x.size])

    def inject(self, injections):
        """A new Domain with every index injected with {mode: value}."""
        modes, vals = _injections(injections, "Domain.inject")
        return C.spt_domain_inject(self, modes, vals)


@public
class SparseMap:
    """Independent index -> Domain of dependent indices.

    SparseMap([(ind_tuple, [dep_tuple, ...]), ...]) or SparseMap({ind_tuple: [dep_tuple, ...]}); a key
    with an empty list exists with an empty domain. dep_rank is needed only when no dependent index is
    given. Copies and pickles by value."""

    __slots__ = ("h", "_c", "__weakref__")

    def __init__(self, pairs, ind_rank=None, dep_rank=None):
        _init_once(self, "SparseMap")
        if isinstance(pairs, SparseMap):
            raise L.err(L.DtypeError, "SparseMap", "pairs is already a SparseMap (use copy.copy)")
        try:
            items = list(pairs.items()) if isinstance(pairs, dict) else list(pairs)
            keys = [tuple(k) for k, _ in items]
            ind, dep = [], []
            for k, deps in items:
                for d in deps:
                    ind.append(tuple(k))
                    dep.append(tuple(d))
        except (TypeError, ValueError):
            raise L.err(L.DtypeError, "SparseMap", "pairs must be [(key tuple, [dependent tuples])] or a dict of "
                        "them, got %s" % type(pairs).__name__) from None
        if ind_rank is None:
            ind_rank = len(keys[0]) if keys else 0
        if dep_rank is None:
            dep_rank = len(dep[0]) if dep else 0
        K = _rows(keys, ind_rank, "keys", "SparseMap")
        I = _rows(ind, ind_rank, "independent indices", "SparseMap")  # noqa: E741
        D = _rows(dep, dep_rank, "dependent indices", "SparseMap")
        m = C.spt_sparse_map_new_with_keys(ind_rank, dep_rank, K.shape[0], K, I.shape[0], I, D)
        self.h, self._c = m.h, m._c

    @classmethod
    def _own(cls, h):
        m = cls.__new__(cls)
        m.h = h
        m._c = L.Owner(h, _sm_free)
        return m

    def __reduce__(self):
        return (SparseMap, ([(k, list(d)) for k, d in self.items()], self.ind_rank, self.dep_rank))

    def __copy__(self):
        f, args = self.__reduce__()
        return f(*args)

    def __deepcopy__(self, memo):
        return self.__copy__()

    @property
    def ind_rank(self):
        return C.spt_sparse_map_ind_rank(self)

    @property
    def dep_rank(self):
        return C.spt_sparse_map_dep_rank(self)

    @property
    def size(self):
        """The number of distinct (key, dependent index) pairs."""
        return C.spt_sparse_map_size(self)

    def __len__(self):
        return C.spt_sparse_map_nkeys(self)

    def keys(self):
        r = self.ind_rank
        return [tuple(L.view(None, C.spt_sparse_map_key(self, i), (r,), np.int64).tolist()) if r else ()
                for i in range(len(self))]

    def _find(self, key):
        k = _index(key, "key", "SparseMap")
        if k.size != self.ind_rank:
            return -1
        i = np.full(1, -1, np.int64)
        return int(i[0]) if C.spt_sparse_map_find(self, k, i) else -1

    def __contains__(self, key):
        return self._find(key) >= 0

    def __getitem__(self, key):
        i = self._find(key)
        if i < 0:
            raise KeyError(tuple(key))
        return C.spt_sparse_map_domain(self, i)

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def __repr__(self):
        return "SparseMap(%r)" % ([(k, list(d)) for k, d in self.items()],)


def sparse_map_arg(sm, arg="sparse_map", fn="sparsify"):
    return sm if isinstance(sm, SparseMap) else SparseMap(sm)


@public
class ToT:
    """A tensor of tensors: an outer tensor whose elements are EMPTY (None) or dense numpy arrays.

    tot[outer_index] -> None or a read-only numpy array over the C storage (keeps the storage alive).
    len(tot) = the number of non-empty elements; iteration / items() walk them in row-major outer order.
    Copies and pickles by value (the non-empty elements, outer shape, inner rank and dtype travel)."""

    __slots__ = ("h", "_c", "__weakref__")

    def __init__(self, *a, **k):
        raise L.err(L.DtypeError, "ToT", "build a ToT with spt.sparsify() or spt.ToT.from_dict()")

    @classmethod
    def _own(cls, h):
        t = cls.__new__(cls)
        t.h = h
        t._c = L.Owner(h, _tot_free)
        return t

    @classmethod
    def from_dict(cls, elements, outer_shape, dtype=None, inner_rank=None):
        """A ToT from {outer_index_tuple: numpy array}; every other element EMPTY. All arrays of one rank;
        values converted exactly to `dtype` (default: the arrays' common dtype)."""
        fn = "ToT.from_dict"
        items = [(tuple(_index(k, "outer index", fn).tolist()), np.asarray(v)) for k, v in
                 (elements.items() if isinstance(elements, dict) else elements)]
        items.sort(key=lambda kv: kv[0])
        osh = _index(outer_shape, "outer_shape", fn)
        if dtype is None:
            dtype = np.result_type(*[v.dtype for _, v in items]) if items else np.float64
        dt = L.spt_dtype_of(np.dtype(dtype))
        npdt = L.NP_OF[dt]
        if inner_rank is None:
            inner_rank = items[0][1].ndim if items else 0
        outer = _rows([k for k, _ in items], osh.size, "outer indices", fn)
        shapes = _rows([v.shape for _, v in items], inner_rank, "inner shapes", fn)
        vals = (np.concatenate([L.exact_cast(v, npdt, "values", fn).reshape(-1) for _, v in items]) if items
                else np.zeros(1, npdt))
        vals = L.contig(vals, npdt)
        return C.spt_tot_new(dt, osh, inner_rank, len(items), outer, shapes, vals)

    def __reduce__(self):
        return (_tot_rebuild, ([(k, np.array(v)) for k, v in self.items()], self.outer_shape,
                               self.dtype.str, self.inner_rank))

    def __copy__(self):
        f, args = self.__reduce__()
        return f(*args)

    def __deepcopy__(self, memo):
        return self.__copy__()

    @property
    def dtype(self):
        return L.NP_OF[C.spt_tot_dtype(self)]

    @property
    def outer_rank(self):
        return C.spt_tot_outer_rank(self)

    @property
    def outer_shape(self):
        r = self.outer_rank
        return tuple(L.view(None, C.spt_tot_outer_shape(self), (r,), np.int64).tolist()) if r else ()

    @property
    def inner_rank(self):
        return C.spt_tot_inner_rank(self)

    def __len__(self):
        return C.spt_tot_count(self)

    def _array(self, inner):
        if not inner.present:
            return None
        shape = tuple(inner.shape[i] for i in range(inner.rank))
        return L.view(self._c, inner.data, shape, self.dtype)

    def __getitem__(self, outer_index):
        if isinstance(outer_index, (int, np.integer)):
            outer_index = (outer_index,)
        o = _index(outer_index, "outer index", "ToT")
        if o.size != self.outer_rank:
            raise L.err(L.InvalidArgumentError, "ToT", "an outer index needs %d components, got %d"
                        % (self.outer_rank, o.size))
        inner = L.spt_tot_inner()
        C.spt_tot_get(self, o, inner)
        return self._array(inner)

    def items(self):
        """(outer index tuple, array) for every non-empty element, in row-major outer order."""
        r = self.outer_rank
        out = []
        for i in range(len(self)):
            inner = L.spt_tot_inner()
            C.spt_tot_entry(self, i, inner)
            out.append((tuple(inner.outer[j] for j in range(r)), self._array(inner)))
        return out

    def __iter__(self):
        return iter(self.items())

    def to_dict(self):
        return {k: np.array(v) for k, v in self.items()}

    def __repr__(self):
        return "ToT(outer_shape=%s, %d non-empty, dtype=%s)" % (self.outer_shape, len(self), self.dtype)


def _tot_rebuild(items, outer_shape, dtype, inner_rank):
    return ToT.from_dict(items, outer_shape, np.dtype(dtype), inner_rank)


provide("domain", Domain, Domain._own)
provide("smap", SparseMap, SparseMap._own, lambda x, arg, fn: sparse_map_arg(x, arg, fn))
provide("tot", ToT, ToT._own)


def _ind2mode(ind2mode):
    items = L.pairs_arg(ind2mode, "ind2mode", "sparsify")
    pairs = (L.i64_arg(np.array(items, dtype=object).reshape(len(items), -1), "ind2mode", "sparsify") if items
             else np.zeros((0, 2), np.int64))
    if pairs.ndim != 2 or pairs.shape[1] != 2:  # the C library reads 2 * n values
        raise L.err(L.InvalidArgumentError, "sparsify", "ind2mode must be (ind_mode, tensor_mode) pairs")
    return len(items), pairs.reshape(-1)


@op("spt_sparsify", "spt_sparsify_dense")
def sparsify(tensor, sparse_map, ind2mode, outer_shape, block=None):
    """The ToT of `tensor` (a numpy array or a SparseTensor, never densified) through `sparse_map`
    ([(ind, [dep, ...]), ...], a dict, or a SparseMap). ind2mode {ind_mode: tensor_mode} pins outer mode
    ind_mode at tensor mode tensor_mode. Outer element o is EMPTY (None) when o has no dependent index,
    else the dense array of shape result_extents(sm[o]) with
    A[result_index(x)] = tensor[inject(x, {tensor_mode: o[ind_mode]})]. block=(begin, end) builds only
    the outer elements whose row-major linear index lies in [begin, end)."""
    sm = sparse_map_arg(sparse_map)
    n, flat = _ind2mode(ind2mode)
    osh = _index(outer_shape, "outer_shape", "sparsify")
    sparse = isinstance(tensor, SparseTensor)
    t = tensor if sparse else np.asarray(tensor)
    if block is None:
        return (C.spt_sparsify if sparse else C.spt_sparsify_dense)(t, sm, n, flat, osh)
    b, e = block
    return (C.spt_sparsify_block if sparse else C.spt_sparsify_dense_block)(t, sm, n, flat, osh, b, e)


@op("spt_reduce_tot_sum", "spt_tot_new")
def reduce_tot_sum(tot, sparse_map, output_shape):
    """The inverse of sparsify without injection: a numpy array of `output_shape` with
    A[x] = sum over keys o whose domain holds x of tot[o][result_index_o(x)]. `tot` is a ToT or a dict
    {outer tuple: array} (its outer shape is then the bounding box of the keys)."""
    sm = sparse_map_arg(sparse_map)
    if not isinstance(tot, ToT):
        keys = [tuple(k) for k in tot] + sm.keys()
        r = sm.ind_rank
        osh = [max([k[i] for k in keys] + [-1]) + 1 for i in range(r)]
        tot = ToT.from_dict(tot, osh)
    return C.spt_reduce_tot_sum(tot, sm, _index(output_shape, "output_shape", "reduce_tot_sum"))


__all__ = exports(__name__)
