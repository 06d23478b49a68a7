"""Tensors of tensors (NWChemEx from_sparse_map semantics): Domain, SparseMap, ToT, sparsify,
reduce_tot_sum, index injection. Each operation is a call into the C library."""
import ctypes

import numpy as np

from . import _lib as L
from ._lib import c_int64_p, cint, i64, vp, vpp, cbool
from ._tensor import SparseTensor
from ._registry import op

__all__ = ["Domain", "SparseMap", "ToT", "sparsify", "reduce_tot_sum", "inject_index", "uninject_index"]

_domain_new = L.fn("spt_domain_new", cint, i64, i64, c_int64_p, vpp)
_domain_free = L.fn("spt_domain_free", None, vp)
_domain_rank = L.fn("spt_domain_rank", i64, vp)
_domain_size = L.fn("spt_domain_size", i64, vp)
_domain_indices = L.fn("spt_domain_indices", vp, vp)
_domain_contains = L.fn("spt_domain_contains", cbool, vp, c_int64_p)
_domain_extents = L.fn("spt_domain_result_extents", None, vp, c_int64_p)
_domain_result_index = L.fn("spt_domain_result_index", cint, vp, i64, c_int64_p, c_int64_p)
_inject_index = L.fn("spt_inject_index", cint, i64, c_int64_p, i64, c_int64_p, c_int64_p, c_int64_p)
_uninject_index = L.fn("spt_uninject_index", cint, i64, c_int64_p, i64, c_int64_p, c_int64_p)
_domain_inject = L.fn("spt_domain_inject", cint, vp, i64, c_int64_p, c_int64_p, vpp)
_sm_new_with_keys = L.fn("spt_sparse_map_new_with_keys", cint, i64, i64, i64, c_int64_p, i64, c_int64_p, c_int64_p,
                         vpp)
_sm_free = L.fn("spt_sparse_map_free", None, vp)
_sm_ind_rank = L.fn("spt_sparse_map_ind_rank", i64, vp)
_sm_dep_rank = L.fn("spt_sparse_map_dep_rank", i64, vp)
_sm_nkeys = L.fn("spt_sparse_map_nkeys", i64, vp)
_sm_size = L.fn("spt_sparse_map_size", i64, vp)
_sm_key = L.fn("spt_sparse_map_key", vp, vp, i64)
_sm_find = L.fn("spt_sparse_map_find", cbool, vp, c_int64_p, ctypes.POINTER(ctypes.c_int64))
_sm_domain = L.fn("spt_sparse_map_domain", cint, vp, i64, vpp)


class _Inner(ctypes.Structure):
    _fields_ = [("present", ctypes.c_bool), ("outer", c_int64_p), ("rank", ctypes.c_int64), ("shape", c_int64_p),
                ("size", ctypes.c_int64), ("data", ctypes.c_void_p)]


_tot_new = L.fn("spt_tot_new", cint, cint, i64, c_int64_p, i64, i64, c_int64_p, c_int64_p, vp, vpp)
_tot_free = L.fn("spt_tot_free", None, vp)
_tot_dtype = L.fn("spt_tot_dtype", cint, vp)
_tot_outer_rank = L.fn("spt_tot_outer_rank", i64, vp)
_tot_outer_shape = L.fn("spt_tot_outer_shape", vp, vp)
_tot_inner_rank = L.fn("spt_tot_inner_rank", i64, vp)
_tot_count = L.fn("spt_tot_count", i64, vp)
_tot_entry = L.fn("spt_tot_entry", cint, vp, i64, ctypes.POINTER(_Inner))
_tot_get = L.fn("spt_tot_get", cint, vp, c_int64_p, ctypes.POINTER(_Inner))
_sparsify_dense = L.fn("spt_sparsify_dense", cint, vp, vp, i64, c_int64_p, c_int64_p, vpp)
_sparsify = L.fn("spt_sparsify", cint, vp, vp, i64, c_int64_p, c_int64_p, vpp)
_sparsify_dense_block = L.fn("spt_sparsify_dense_block", cint, vp, vp, i64, c_int64_p, c_int64_p, i64, i64, vpp)
_sparsify_block = L.fn("spt_sparsify_block", cint, vp, vp, i64, c_int64_p, c_int64_p, i64, i64, vpp)
_reduce_tot_sum = L.fn("spt_reduce_tot_sum", cint, vp, vp, i64, c_int64_p, vpp)


def _ptr(a):
    """An int64 pointer that is never NULL (the C API wants a valid pointer even for 0 components)."""
    if a.size:
        return L.i64_ptr(a)
    return ctypes.cast((ctypes.c_int64 * 1)(), c_int64_p)


def _index(x, name="index"):
    a = L.i64_array(list(x) if not isinstance(x, np.ndarray) else x, name).reshape(-1)
    return a


def _rows(rows, rank=None, name="indices"):
    """A list of index tuples as an n x rank int64 array."""
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        return L.i64_array(rows, name)
    rows = [tuple(r) for r in rows]
    if rank is None:
        rank = len(rows[0]) if rows else 0
    for r in rows:
        if len(r) != rank:
            raise L.InvalidArgumentError("spt: %s mix ranks %d and %d" % (name, rank, len(r)))
    return L.i64_array(np.array(rows, dtype=np.int64).reshape(len(rows), rank), name)


def _injections(inj):
    """{mode: value} (or [(mode, value), ...]) as two int64 arrays."""
    items = list(inj.items()) if isinstance(inj, dict) else [tuple(p) for p in inj]
    modes = L.i64_array(np.array([m for m, _ in items], dtype=np.int64), "modes")
    vals = L.i64_array(np.array([v for _, v in items], dtype=np.int64), "values")
    return modes, vals


@op("spt_inject_index")
def inject_index(index, injections):
    """inject(index, {mode: value}): the index with `value` placed at each `mode` and the components of
    `index` in order in the other positions. OutOfRangeError for a mode outside [0, len + ninj)."""
    x = _index(index)
    modes, vals = _injections(injections)
    out = np.zeros(x.size + modes.size + 1, dtype=np.int64)
    L.check(_inject_index(x.size, _ptr(x), modes.size, _ptr(modes), _ptr(vals), _ptr(out)))
    return tuple(int(v) for v in out[:x.size + modes.size])


@op("spt_uninject_index")
def uninject_index(index, injections):
    """The index without the components at the injected modes (`injections`: {mode: value} or modes)."""
    x = _index(index)
    modes = (_injections(injections)[0] if isinstance(injections, dict) or
             (len(injections) and not np.isscalar(list(injections)[0])) else _index(injections, "modes"))
    out = np.zeros(max(1, x.size), dtype=np.int64)
    L.check(_uninject_index(x.size, _ptr(x), modes.size, _ptr(modes), _ptr(out)))
    return tuple(int(v) for v in out[:max(0, x.size - modes.size)])


class Domain:
    """An immutable sorted set of distinct indices of one rank (upstream's Domain).

    Domain(indices)  indices: an iterable of index tuples (or an n x rank array); any order, duplicates
    collapsed. Iterating yields the indices in sorted order as tuples."""

    __slots__ = ("h",)

    def __init__(self, indices=(), rank=None):
        self.h = None
        x = _rows(indices, rank)
        out = vp()
        L.check(_domain_new(x.shape[1], x.shape[0], _ptr(x), ctypes.byref(out)))
        self.h = out.value

    @classmethod
    def _own(cls, h):
        d = cls.__new__(cls)
        d.h = h
        return d

    def __del__(self):
        h, self.h = getattr(self, "h", None), None
        if h and _domain_free is not None:
            _domain_free(h)

    @property
    def rank(self):
        return int(_domain_rank(self.h))

    def __len__(self):
        return int(_domain_size(self.h))

    @property
    def indices(self):
        """The sorted indices as a read-only n x rank int64 array (a view)."""
        return L.view(self, _domain_indices(self.h), (len(self), self.rank), np.int64)

    def __iter__(self):
        return iter([tuple(int(v) for v in r) for r in self.indices])

    def __contains__(self, index):
        x = _index(index)
        if x.size != self.rank:
            return False
        return bool(_domain_contains(self.h, _ptr(x)))

    def __eq__(self, other):
        return isinstance(other, Domain) and list(self) == list(other)

    def __repr__(self):
        return "Domain(%r)" % (list(self),)

    def result_extents(self):
        """Per mode, the number of distinct values (the compressed grid, not the bounding box)."""
        out = np.zeros(max(1, self.rank), dtype=np.int64)
        _domain_extents(self.h, _ptr(out))
        return tuple(int(v) for v in out[:self.rank])

    def result_index(self, index):
        """Per mode, the position of index[m] among the distinct values of mode m (OutOfRangeError when
        a value appears in no index of the domain in that mode, or for a wrong rank)."""
        x = _index(index)
        out = np.zeros(max(1, x.size), dtype=np.int64)
        L.check(_domain_result_index(self.h, x.size, _ptr(x), _ptr(out)))
        return tuple(int(v) for v in out[:x.size])

    def inject(self, injections):
        """A new Domain with every index injected with {mode: value}."""
        modes, vals = _injections(injections)
        out = vp()
        L.check(_domain_inject(self.h, modes.size, _ptr(modes), _ptr(vals), ctypes.byref(out)))
        return Domain._own(out.value)


class SparseMap:
    """Independent index -> Domain of dependent indices.

    SparseMap([(ind_tuple, [dep_tuple, ...]), ...]) or SparseMap({ind_tuple: [dep_tuple, ...]}); a key
    with an empty list exists with an empty domain. dep_rank is needed only when no dependent index is
    given."""

    __slots__ = ("h",)

    def __init__(self, pairs, ind_rank=None, dep_rank=None):
        self.h = None
        if isinstance(pairs, SparseMap):
            raise TypeError("already a SparseMap")
        items = list(pairs.items()) if isinstance(pairs, dict) else list(pairs)
        keys = [tuple(k) for k, _ in items]
        ind, dep = [], []
        for k, deps in items:
            for d in deps:
                ind.append(tuple(k))
                dep.append(tuple(d))
        if ind_rank is None:
            ind_rank = len(keys[0]) if keys else 0
        if dep_rank is None:
            dep_rank = len(dep[0]) if dep else 0
        K = _rows(keys, ind_rank, "keys")
        I = _rows(ind, ind_rank, "independent indices")
        D = _rows(dep, dep_rank, "dependent indices")
        out = vp()
        L.check(_sm_new_with_keys(ind_rank, dep_rank, K.shape[0], _ptr(K), I.shape[0], _ptr(I), _ptr(D),
                                  ctypes.byref(out)))
        self.h = out.value

    def __del__(self):
        h, self.h = getattr(self, "h", None), None
        if h and _sm_free is not None:
            _sm_free(h)

    @property
    def ind_rank(self):
        return int(_sm_ind_rank(self.h))

    @property
    def dep_rank(self):
        return int(_sm_dep_rank(self.h))

    @property
    def size(self):
        """The number of distinct (key, dependent index) pairs."""
        return int(_sm_size(self.h))

    def __len__(self):
        return int(_sm_nkeys(self.h))

    def keys(self):
        r = self.ind_rank
        out = []
        for i in range(len(self)):
            p = ctypes.cast(_sm_key(self.h, i), c_int64_p)
            out.append(tuple(p[j] for j in range(r)))
        return out

    def _find(self, key):
        k = _index(key, "key")
        if k.size != self.ind_rank:
            return -1
        i = ctypes.c_int64(-1)
        return i.value if _sm_find(self.h, _ptr(k), ctypes.byref(i)) else -1

    def __contains__(self, key):
        return self._find(key) >= 0

    def __getitem__(self, key):
        i = self._find(key)
        if i < 0:
            raise KeyError(tuple(key))
        out = vp()
        L.check(_sm_domain(self.h, i, ctypes.byref(out)))
        return Domain._own(out.value)

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def __repr__(self):
        return "SparseMap(%r)" % ([(k, list(d)) for k, d in self.items()],)


def sparse_map_arg(sm):
    return sm if isinstance(sm, SparseMap) else SparseMap(sm)


class ToT:
    """A tensor of tensors: an outer tensor whose elements are EMPTY (None) or dense numpy arrays.

    tot[outer_index] -> None or a read-only numpy array over the C storage (keeps the ToT alive).
    len(tot) = the number of non-empty elements; iteration / items() walk them in row-major outer order."""

    __slots__ = ("h", "__weakref__")

    def __init__(self, *a, **k):
        raise TypeError("build a ToT with spt.sparsify() or spt.ToT.from_dict()")

    @classmethod
    def _own(cls, h):
        t = cls.__new__(cls)
        t.h = h
        return t

    @classmethod
    def from_dict(cls, elements, outer_shape, dtype=None):
        """A ToT from {outer_index_tuple: numpy array}; every other element EMPTY. All arrays of one rank."""
        items = sorted((tuple(int(v) for v in k), np.asarray(v)) for k, v in elements.items()) \
            if isinstance(elements, dict) else [(tuple(k), np.asarray(v)) for k, v in elements]
        osh = _index(outer_shape, "outer_shape")
        if dtype is None:
            dtype = np.result_type(*[v.dtype for _, v in items]) if items else np.float64
        dt = L.spt_dtype_of(np.dtype(dtype))
        npdt = L.NP_OF[dt]
        inner_rank = items[0][1].ndim if items else 0
        outer = _rows([k for k, _ in items], osh.size, "outer indices")
        shapes = _rows([v.shape for _, v in items], inner_rank, "inner shapes")
        vals = np.concatenate([v.astype(npdt).reshape(-1) for _, v in items]) if items else np.zeros(1, npdt)
        vals = L.contig(vals, npdt)
        out = vp()
        L.check(_tot_new(dt, osh.size, _ptr(osh), inner_rank, len(items), _ptr(outer), _ptr(shapes),
                         vals.ctypes.data, ctypes.byref(out)))
        return cls._own(out.value)

    def __del__(self):
        h, self.h = getattr(self, "h", None), None
        if h and _tot_free is not None:
            _tot_free(h)

    @property
    def dtype(self):
        return L.NP_OF[_tot_dtype(self.h)]

    @property
    def outer_rank(self):
        return int(_tot_outer_rank(self.h))

    @property
    def outer_shape(self):
        r = self.outer_rank
        p = ctypes.cast(_tot_outer_shape(self.h), c_int64_p)
        return tuple(p[i] for i in range(r))

    @property
    def inner_rank(self):
        return int(_tot_inner_rank(self.h))

    def __len__(self):
        return int(_tot_count(self.h))

    def _array(self, inner):
        if not inner.present:
            return None
        shape = tuple(inner.shape[i] for i in range(inner.rank))
        return L.view(self, inner.data, shape, self.dtype)

    def __getitem__(self, outer_index):
        if isinstance(outer_index, (int, np.integer)):
            outer_index = (outer_index,)
        o = _index(outer_index, "outer index")
        if o.size != self.outer_rank:
            raise L.InvalidArgumentError("spt.ToT: an outer index needs %d components, got %d"
                                         % (self.outer_rank, o.size))
        inner = _Inner()
        L.check(_tot_get(self.h, _ptr(o), ctypes.byref(inner)))
        return self._array(inner)

    def items(self):
        """(outer index tuple, array) for every non-empty element, in row-major outer order."""
        r = self.outer_rank
        out = []
        for i in range(len(self)):
            inner = _Inner()
            L.check(_tot_entry(self.h, i, ctypes.byref(inner)))
            out.append((tuple(inner.outer[j] for j in range(r)), self._array(inner)))
        return out

    def __iter__(self):
        return iter(self.items())

    def to_dict(self):
        return {k: np.array(v) for k, v in self.items()}

    def __repr__(self):
        return "ToT(outer_shape=%s, %d non-empty, dtype=%s)" % (self.outer_shape, len(self), self.dtype)


def _ind2mode(ind2mode):
    items = list(ind2mode.items()) if isinstance(ind2mode, dict) else [tuple(p) for p in ind2mode]
    pairs = L.i64_array(np.array(items, dtype=np.int64).reshape(len(items), -1) if items
                        else np.zeros((0, 2), np.int64), "ind2mode")
    if pairs.ndim != 2 or pairs.shape[1] != 2:  # the C library reads 2 * n values
        raise L.InvalidArgumentError("spt.sparsify: ind2mode must be (ind_mode, tensor_mode) pairs")
    return len(items), pairs.reshape(-1)


@op("spt_sparsify", "spt_sparsify_dense")
def sparsify(tensor, sparse_map, ind2mode, outer_shape, block=None):
    """The ToT of `tensor` (a numpy array or a SparseTensor, never densified) through `sparse_map`
    ([(ind, [dep, ...]), ...], a dict, or a SparseMap). ind2mode {ind_mode: tensor_mode} pins outer
    mode ind_mode at tensor mode tensor_mode. Outer element o is EMPTY (None) when o has no dependent
    index, else the dense array of shape result_extents(sm[o]) with
    A[result_index(x)] = tensor[inject(x, {tensor_mode: o[ind_mode]})]. block=(begin, end) builds only
    the outer elements whose row-major linear index lies in [begin, end)."""
    sm = sparse_map_arg(sparse_map)
    n, flat = _ind2mode(ind2mode)
    osh = _index(outer_shape, "outer_shape")
    out = vp()
    if isinstance(tensor, SparseTensor):
        h, fn, fnb = tensor.h, _sparsify, _sparsify_block
        keep = tensor
    else:
        keep = L.Dense.from_numpy(np.asarray(tensor))
        h, fn, fnb = keep.h, _sparsify_dense, _sparsify_dense_block
    if block is None:
        L.check(fn(h, sm.h, n, _ptr(flat), _ptr(osh), ctypes.byref(out)))
    else:
        b, e = block
        L.check(fnb(h, sm.h, n, _ptr(flat), _ptr(osh), int(b), int(e), ctypes.byref(out)))
    return ToT._own(out.value)


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
    shp = _index(output_shape, "output_shape")
    out = vp()
    L.check(_reduce_tot_sum(tot.h, sm.h, shp.size, _ptr(shp), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)
