# SPDX-License-Identifier: Apache-2.0
"""spt.mpi: sparse tensors spread over the ranks of an MPI program, on mpi4py.

    # mpirun -np 4 python3 prog.py
    import spt, spt.mpi
    dt = spt.mpi.read("tensor.tns")                   # every rank reads its part of the file
    dt = spt.mpi.reorder(dt, [1, 0, 2])               # a distributed sort
    s = spt.mpi.reduce_sum(dt, axis=[2], output_is_sparse=True)
    whole = s.gather(root=0)                          # a SparseTensor on rank 0, None elsewhere

A DTensor is one global sparse tensor whose entries are spread over the ranks of a communicator: rank 0
holds the first entries of the global sequence, rank 1 the next ones, and so on, the sequence sorted by
the tensor's order (row-major unless reordered). `dt.local` is this rank's part as a SparseTensor (no
copy; read only: it stays valid while `dt` lives). Every function here is collective: each rank of the
communicator calls it in the same order with the same arguments (except the per-rank pieces given to
from_local). The functions carry the names and keywords of the serial ones (spt.reorder, spt.concat,
spt.reduce_sum, spt.add, spt.sparse_dense_matmul, spt.sparse_sparse_matmul, spt.mttkrp, spt.sparsify,
spt.read, spt.write) and give the serial results: gathered, a DTensor holds what the serial function
returns for the gathered inputs.

Errors are agreed: when a rank fails (a bad argument there, a bad line in its part of a file, memory),
every rank raises the same exception (the class and message of the lowest failing rank, with "rank r:"
naming it) instead of some ranks waiting for the others forever. `comm` is any mpi4py communicator
(default MPI.COMM_WORLD); spt works on a duplicate of it, so its messages never mix with the program's.

Needs mpi4py (Debian's python3-mpi4py) and libspt_mpi.so, the library built with the distributed
layer (`make build/libspt_mpi.so`): under mpirun the package loads it in place of libspt.so when it sits
next to it; elsewhere set SPT_LIB to its path.
"""
import ctypes
import signal
import threading

import numpy as np
from mpi4py import MPI

from . import _lib as L
from . import _registry as R
from ._export import exports, public
from ._registry import C
from ._registry import mpi as _entries
from ._tensor import SparseTensor, sparse_arg
from ._tot import ToT, sparse_map_arg, _ind2mode, _index
from ._reduce import _reduce_args
from ._args import _UNSET, _alias, _dense_like
from ._io import _opts

if not hasattr(L.lib, "spt_mpi_ctx_new"):
    raise ImportError("spt.mpi: the loaded library (%s) lacks the distributed layer; build build/libspt_mpi.so "
                      "(make build/libspt_mpi.so) and run under mpirun, or set SPT_LIB to that library"
                      % L.lib_path)

R.bind(_entries.ENTRIES)

# ---------------------------------------------------------------------------------------------------
# Agreed errors
# ---------------------------------------------------------------------------------------------------
# The generated binding of a collective entry converts and checks its arguments and then calls the C
# function through NS["_f_<name>"]. That slot is replaced by a gate: every rank that reaches it takes
# part in one small Allreduce before the C call, and a rank whose arguments were refused earlier (or
# whose Python-side checks failed) takes part in the same Allreduce with its error instead. So either
# every rank calls C, or every rank raises the lowest failing rank's exception.

_tls = threading.local()


def _exc_state(e):
    return (type(e), e.message if isinstance(e, L.SptError) else str(e), getattr(e, "status", None))


def _rebuild(state, r, P):
    cls, msg, status = state
    if P > 1:
        op, sep, rest = msg.partition(": ")
        msg = "%s: rank %d: %s" % (op, r, rest) if sep else "rank %d: %s" % (r, msg)
    try:
        e = cls(msg, status) if issubclass(cls, L.SptError) else cls(msg)
    except Exception:  # an exception class with another constructor
        e = L.InternalError(msg, -9)
    return e


def _agree(ctx, exc):
    """Every rank calls this with its error or None; raises the lowest failing rank's error everywhere."""
    comm, P = ctx.pycomm, ctx.size
    mine = np.array([ctx.rank if exc is not None else P], dtype=np.int32)
    low = np.empty(1, dtype=np.int32)
    comm.Allreduce(mine, low, op=MPI.MIN)
    r = int(low[0])
    if r == P:
        return
    state = comm.bcast(_exc_state(exc) if r == ctx.rank else None, root=r)
    raise _rebuild(state, r, P)


def _gate(real):
    def gate(*args):
        ctx = _tls.ctx
        _tls.entered = True
        _agree(ctx, None)
        return real(*args)

    return gate


for _name in _entries.COLLECTIVE:
    R.NS["_f_" + _name] = _gate(R.NS["_f_" + _name])


def _collective(ctx, body):
    """Run body() (argument checks, then one collective C call) with agreed errors."""
    _tls.ctx, _tls.entered = ctx, False
    try:
        return body()
    except Exception as e:
        if _tls.entered:
            raise  # C agreed on it (every rank raises the same)
        _agree(ctx, e)
        raise  # (not reached: _agree raised)
    finally:
        _tls.ctx = None


# ---------------------------------------------------------------------------------------------------
# Contexts: one per communicator
# ---------------------------------------------------------------------------------------------------


class _Context:
    __slots__ = ("h", "comm", "pycomm", "rank", "size", "__weakref__")


_CTX = {}  # id(comm) -> _Context (the communicator is kept, so its id is not reused)


def _context(comm, fn):
    if comm is None:
        comm = MPI.COMM_WORLD
    if not isinstance(comm, MPI.Comm):
        raise L.err(L.DtypeError, "mpi." + fn, "comm must be an mpi4py.MPI.Comm, got %s" % type(comm).__name__)
    if comm == MPI.COMM_NULL:
        raise L.err(L.InvalidArgumentError, "mpi." + fn, "comm is MPI.COMM_NULL")
    c = _CTX.get(id(comm))
    if c is not None and c.comm is comm:
        return c
    c = _Context()
    c.comm, c.rank, c.size = comm, comm.Get_rank(), comm.Get_size()
    c.pycomm = comm.Dup()  # the binding's own agreement traffic
    c.h = None
    _tls.ctx, _tls.entered = c, True
    try:
        owner = C.spt_mpi_ctx_new(MPI._handleof(comm))
    finally:
        _tls.ctx = None
    c.h = owner.h
    _CTX[id(comm)] = c
    return c


class _CtxHandle:
    """The registry's object for an spt_mpi_ctx output: not freed by Python (spt_mpi_ctx_free is
    collective, and the contexts live as long as the program): MPI_Finalize (mpi4py's, at exit) frees
    every context still live, communicator and memory."""

    __slots__ = ("h",)

    def __init__(self, h):
        self.h = h


R.provide("mpi_ctx", _Context, _CtxHandle)

# ---------------------------------------------------------------------------------------------------
# DTensor
# ---------------------------------------------------------------------------------------------------

_dt_free = R.raw("spt_dtensor_free")


@public
class DTensor:
    """A sparse tensor spread over the ranks of a communicator (see the module's documentation).

    shape, dtype, rank, order and nnz (the global number of entries) are the same on every rank; `local`
    is this rank's part (a SparseTensor over the same memory, read only), `counts` every rank's number of
    entries. gather(root=0) is collective: the whole tensor (a SparseTensor) on root, None elsewhere.
    Made by from_local, scatter, read and the ops of spt.mpi."""

    __slots__ = ("h", "_c", "ctx", "__weakref__")

    def __init__(self, *a, **k):
        raise TypeError("spt.mpi.DTensor is made by spt.mpi.from_local, scatter, read and the ops")

    @classmethod
    def _own(cls, h):
        d = cls.__new__(cls)
        d.h = h
        d._c = L.Owner(h, _dt_free)
        d.ctx = _tls.ctx  # made inside _collective, which names the context
        return d

    @property
    def comm(self):
        return self.ctx.comm

    @property
    def dtype(self):
        return L.NP_OF[C.spt_dtensor_dtype(self)]

    @property
    def rank(self):
        return C.spt_dtensor_rank(self)

    def _i64s(self, addr):
        n = self.rank
        return np.array(ctypes.cast(addr, L.c_int64_p)[:n], dtype=np.int64) if n else np.zeros(0, np.int64)

    @property
    def shape(self):
        return self._i64s(C.spt_dtensor_shape(self))

    dense_shape = shape

    @property
    def order(self):
        return self._i64s(C.spt_dtensor_order(self))

    @property
    def nnz(self):
        return C.spt_dtensor_nnz(self)

    @property
    def counts(self):
        return np.array([C.spt_dtensor_count(self, p) for p in range(self.ctx.size)], dtype=np.int64)

    @property
    def local(self):
        h = C.spt_dtensor_local(self)
        t = SparseTensor.__new__(SparseTensor)
        t.h = h
        t._c = L.Owner(h, None, self._c)  # borrowed: keeps this DTensor's C object alive
        t._svals = None
        return t

    def gather(self, root=0):
        return gather(self, root)

    def __repr__(self):
        return "spt.mpi.DTensor(shape=%s, dtype=%s, nnz=%d, ranks=%d)" % (
            list(self.shape), "string" if self.dtype.kind == "O" else self.dtype.name, self.nnz, self.ctx.size)


R.provide("dtensor", DTensor, DTensor._own)


def _dtensor(x, arg, fn):
    if not isinstance(x, DTensor):
        raise L.err(L.DtypeError, "mpi." + fn, "%s must be a spt.mpi.DTensor, got %s" % (arg, type(x).__name__))
    return x


def _same_ctx(ts, fn):
    ctx = ts[0].ctx
    for t in ts[1:]:
        if t.ctx is not ctx:
            raise L.err(L.InvalidArgumentError, "mpi." + fn, "the operands belong to different communicators")
    return ctx


def _root(root, fn, default=-1):
    return default if root is None else root


# ---------------------------------------------------------------------------------------------------
# Making and gathering
# ---------------------------------------------------------------------------------------------------


@public
def from_local(sp, comm=None, order=None):
    """A DTensor from the pieces every rank holds (same dtype, rank and shape everywhere; any number of
    entries, any order, duplicates allowed): the entries of every piece sorted by `order` (None =
    row-major), stably over the global sequence (rank 0's piece first), and balanced over the ranks."""
    ctx = _context(comm, "from_local")
    return _collective(ctx, lambda: C.spt_dtensor_from_local(ctx, sparse_arg(sp, "sp", "mpi.from_local"), order))


@public
def scatter(sp, root=0, comm=None, order=None):
    """A DTensor from the SparseTensor `sp` of rank `root` (`sp` is not read elsewhere), sorted by `order`
    (None = row-major) and balanced."""
    ctx = _context(comm, "scatter")

    def body():
        if type(root) is not int or not 0 <= root < ctx.size:
            raise L.err(L.InvalidArgumentError, "mpi.scatter", "root %r is not a rank in [0, %d)" % (root, ctx.size))
        t, err = None, None
        if ctx.rank == root:
            try:
                t = sparse_arg(sp, "sp", "mpi.scatter")
            except Exception as e:  # agreed at the C call's gate
                err = e
        rank = ctx.pycomm.bcast(None if t is None else t.rank, root=root)
        if err is not None:
            raise err
        o = None if order is None else L.i64_arg(order, "order", "mpi.scatter")
        if o is not None and rank is not None and o.size != rank:
            raise L.err(L.InvalidArgumentError, "mpi.scatter", "order has %d entries, the tensor has rank %d"
                        % (o.size, rank))
        return C.spt_dtensor_scatter(ctx, root, t, o)

    return _collective(ctx, body)


@public
def gather(dt, root=0):
    """The whole tensor of a DTensor on rank `root` (a SparseTensor in the global order), None elsewhere."""
    dt = _dtensor(dt, "dt", "gather")
    return _collective(dt.ctx, lambda: C.spt_dtensor_gather(dt, root))


@public
def read(path, comm=None, format=None, dtype=None, shape=None):
    """Read a FROSTT .tns file in parallel (each rank parses its own byte range of the file), as spt.read /
    spt.read_tns read it: the same dtype inference, shape and errors (a parse error names the file's
    line, on every rank). Sorted row-major and balanced."""
    ctx = _context(comm, "read")

    def body():
        if format not in (None, "auto", "tns", "frostt"):
            raise L.err(L.InvalidArgumentError, "mpi.read", "only .tns files are read in parallel, not %r" % (format,))
        o, keep = _opts(dtype, shape, "mpi.read")
        return C.spt_dtensor_read_tns(ctx, path, o)

    return _collective(ctx, body)


@public
def write(sp_input, path, format=None):
    """Write a DTensor as a .tns file, byte-identical to spt.write of the gathered tensor (each rank formats
    its own entries; the parts are joined in rank order)."""
    dt = _dtensor(sp_input, "sp_input", "write")

    def body():
        if format not in (None, "auto", "tns", "frostt"):
            raise L.err(L.InvalidArgumentError, "mpi.write", "only .tns files are written in parallel, not %r" % (format,))
        C.spt_dtensor_write_tns(dt, path)

    return _collective(dt.ctx, body)


# ---------------------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------------------


def _named(e, olds, op):
    """e (an SptError) with its message's leading function name, one of olds, replaced by spt.<op>."""
    msg = e.args[0] if e.args and isinstance(e.args[0], str) else str(e)
    for old in olds:
        if msg.startswith(old):
            x = type(e)("spt.%s: %s" % (op, msg[len(old):]), getattr(e, "status", None))
            x.__dict__.update({k: v for k, v in e.__dict__.items() if k not in ("message", "status")})
            return x
    return e


@public
def reorder(sp_input, order=None, name=None):
    """tf.sparse.reorder of a DTensor: a new DTensor sorted by `order` (None = row-major), stable, balanced;
    the input is not modified."""
    dt = _dtensor(sp_input, "sp_input", "reorder")
    try:
        return _collective(dt.ctx, lambda: C.spt_dtensor_from_local(dt.ctx, dt.local, order))
    except L.SptError as e:  # from_local does the work: its errors are reorder's
        raise _named(e, ("spt.mpi.from_local: ", "spt_dtensor_from_local: "), "mpi.reorder") from None


@public
def reorder_inplace(sp_input, order=None):
    """Sort a DTensor in place by `order` (no copy of a balanced tensor)."""
    dt = _dtensor(sp_input, "sp_input", "reorder_inplace")
    _collective(dt.ctx, lambda: C.spt_dtensor_reorder(dt, order))
    return dt


@public
def concat(axis=_UNSET, sp_inputs=None, expand_nonconcat_dims=_UNSET, name=None, expand_nonconcat_dim=_UNSET,
           concat_dim=_UNSET):
    """tf.sparse.concat of DTensors (row-major result, balanced); TF1 spellings accepted."""
    if isinstance(sp_inputs, DTensor):
        sp_inputs = [sp_inputs]
    ins = [_dtensor(x, "sp_inputs", "concat") for x in L.as_list(sp_inputs, "sp_inputs", "mpi.concat")]
    if not ins:
        raise L.err(L.InvalidArgumentError, "mpi.concat", "sp_inputs is empty")
    ctx = _same_ctx(ins, "concat")

    def body():
        ax = _alias("mpi.concat", axis, "axis", concat_dim, "concat_dim", None)
        expand = _alias("mpi.concat", expand_nonconcat_dims, "expand_nonconcat_dims", expand_nonconcat_dim,
                        "expand_nonconcat_dim", False)
        return C.spt_dtensor_concat(ins, ax, expand)

    return _collective(ctx, body)


@public
def add(a, b, threshold=_UNSET, name=None, thresh=_UNSET):
    """tf.sparse.add of two DTensors: a DTensor (row-major), as spt.add of the gathered tensors."""
    a, b = _dtensor(a, "a", "add"), _dtensor(b, "b", "add")
    ctx = _same_ctx([a, b], "add")
    return _collective(ctx, lambda: C.spt_dtensor_add(a, b, _alias("mpi.add", threshold, "threshold", thresh,
                                                                    "thresh", 0.0)))


@public
def reduce_sum(sp_input, axis=_UNSET, keepdims=_UNSET, output_is_sparse=False, name=None, reduction_axes=_UNSET,
               keep_dims=_UNSET, root=None):
    """tf.sparse.reduce_sum of a DTensor: with output_is_sparse a DTensor (one entry per non-empty cell,
    row-major); else the dense numpy array, on every rank (root=None) or on `root` only (None elsewhere)."""
    dt = _dtensor(sp_input, "sp_input", "reduce_sum")

    def body():
        ax, kd = _reduce_args("mpi.reduce_sum", axis, keepdims, reduction_axes, keep_dims)
        return C.spt_dtensor_reduce_sum(dt, ax, kd)

    s = _collective(dt.ctx, body)
    if output_is_sparse:
        return s
    r = _root(root, "reduce_sum", -1)
    g = gather(s, 0 if r == -1 else r)
    d = None if g is None else g.to_dense()
    if r == -1:
        d = dt.ctx.pycomm.bcast(d, root=0)
    return d


@public
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None, root=None):
    """tf.sparse.sparse_dense_matmul of a DTensor (rank 2) and a numpy matrix `b` given on every rank (the
    same everywhere): the dense product on every rank (root=None) or on `root` only (None elsewhere)."""
    a = _dtensor(sp_a, "sp_a", "sparse_dense_matmul")
    return _collective(a.ctx, lambda: C.spt_dtensor_sparse_dense_matmul(
        a, _dense_like(b, a.local, "b", "mpi.sparse_dense_matmul"), adjoint_a, adjoint_b, _root(root, "", -1)))


@public
def sparse_sparse_matmul(a, b, adjoint_a=False, adjoint_b=False, keep_zeros=False, name=None):
    """op(a) @ op(b) of two DTensors (rank 2, or rank 3 batched with the batch dim first) as a DTensor: the
    gathered result is spt.sparse_sparse_matmul of the gathered operands, byte for byte. Each rank fetches
    only the rows of op(b) its rows of op(a) read."""
    a, b = _dtensor(a, "a", "sparse_sparse_matmul"), _dtensor(b, "b", "sparse_sparse_matmul")
    ctx = _same_ctx([a, b], "sparse_sparse_matmul")
    return _collective(ctx, lambda: C.spt_dtensor_sparse_sparse_matmul(a, b, adjoint_a, adjoint_b, keep_zeros))


_FACTORS = {"auto": 0, "replicate": 1, "fetch": 2}


@public
def mttkrp(t, factors, mode, root=None, row_begin=None, how="auto"):
    """MTTKRP of a DTensor with factor matrices given on every rank (the same everywhere; factors[mode] is
    not read and may be None): the dense [shape[mode], R] result on every rank (root=None) or on `root`
    only. Integers give the serial result exactly; floats the same sums, rows spanning ranks summed in
    parts (within rounding of the serial result).

    With `row_begin` (one int per mode), factors[k] is this rank's block of rows [row_begin[k],
    row_begin[k] + len(factors[k])) of factor k instead (the ranks' blocks in order, covering each
    factor): each rank then gets only the factor rows its entries read, by fetching them from their
    owners or by replicating the blocks, `how` = "fetch", "replicate" or "auto" (the cheaper in bytes by
    the communication model); both ways give the same result."""
    dt = _dtensor(t, "t", "mttkrp")
    if row_begin is not None:
        def body_rows():
            if not isinstance(how, str) or how not in _FACTORS:
                raise L.err(L.InvalidArgumentError, "mpi.mttkrp", "how must be 'auto', 'replicate' or 'fetch', not %r"
                            % (how,))
            fs = L.as_list(factors, "factors", "mpi.mttkrp")
            loc = dt.local
            args = [np.zeros((0, 0), dtype=dt.dtype) if f is None and k == mode else
                    None if f is None else _dense_like(f, loc, "factors", "mpi.mttkrp") for k, f in enumerate(fs)]
            return C.spt_dtensor_mttkrp_rows(dt, args, row_begin, mode, _FACTORS[how], _root(root, "", -1))

        return _collective(dt.ctx, body_rows)

    def body():
        fs = L.as_list(factors, "factors", "mpi.mttkrp")
        bad_mode = type(mode) is int and not 0 <= mode < len(fs)
        loc = dt.local
        args = []
        for k, f in enumerate(fs):
            if f is None and type(mode) is int and (k == mode or bad_mode):
                args.append(np.zeros((0, 0), dtype=dt.dtype))
            else:
                args.append(None if f is None else _dense_like(f, loc, "factors", "mpi.mttkrp"))
        return C.spt_dtensor_mttkrp(dt, args, mode, _root(root, "", -1))

    return _collective(dt.ctx, body)


@public
def sparsify(tensor, sparse_map, ind2mode, outer_shape):
    """spt.sparsify of a DTensor: this rank's block of the tensor of tensors (a ToT holding the outer
    elements of one contiguous range of row-major outer indices, every other one EMPTY); the blocks of the
    ranks together are spt.sparsify of the gathered tensor (tot_gather joins them)."""
    dt = _dtensor(tensor, "tensor", "sparsify")

    def body():
        sm = sparse_map_arg(sparse_map, "sparse_map", "mpi.sparsify")
        n, flat = _ind2mode(ind2mode)
        osh = _index(outer_shape, "outer_shape", "mpi.sparsify")
        be = np.zeros(2, dtype=np.int64)
        tot = C.spt_dtensor_sparsify(dt, sm, n, flat, osh, be[:1], be[1:])
        return tot

    return _collective(dt.ctx, body)


@public
def tot_gather(tot, root=0, comm=None):
    """Join the blocks of spt.mpi.sparsify (every rank passes its own) into one ToT on `root` (identical to
    spt.sparsify of the gathered tensor); None elsewhere."""
    ctx = _context(comm, "tot_gather")

    def body():
        if not isinstance(tot, ToT):
            raise L.err(L.DtypeError, "mpi.tot_gather", "tot must be a spt.ToT, got %s" % type(tot).__name__)
        return C.spt_mpi_tot_gather(ctx, tot, root)

    return _collective(ctx, body)


# ---------------------------------------------------------------------------------------------------
# Ctrl-C under mpirun
# ---------------------------------------------------------------------------------------------------
# A rank inside a C collective cannot run Python's SIGINT handler until the call returns, which it never
# does when another rank stopped; so SIGINT ends the process at once (the default action) while it is in
# C, and mpirun then ends every rank. A program that installed its own handler keeps it.


def _install_sigint():
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread
        pass


_install_sigint()

__all__ = exports(__name__)
