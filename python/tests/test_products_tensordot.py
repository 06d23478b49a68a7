"""spt.tensordot and spt.einsum (one SparseTensor, one numpy array) against numpy.tensordot and
numpy.einsum on the dense form: every axes form, either operand order, random subscripts, every numeric
dtype kind, and bad inputs as spt's exceptions naming the op."""
import numpy as np
import pytest

import spt

DTYPES = [np.float64, np.float32, np.int64, np.int8, np.uint16, np.complex128, np.complex64]
TOL = {"f": {4: 1e-4, 8: 1e-12}, "c": {8: 1e-4, 16: 1e-12}}


def rdense(rng, shape, dt):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -3, 4, shape).astype(dt)
    v = rng.uniform(-2, 2, shape)
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-2, 2, shape)
    return v.astype(dt)


def rsparse(rng, shape, dt, density=0.4):
    """A random SparseTensor (random entry order, some repeated indices) and its dense value."""
    vol = int(np.prod(shape))
    n = int(round(density * vol)) if vol else 0
    flat = rng.integers(0, max(vol, 1), n)
    if vol and len(shape):
        idx = np.array(np.unravel_index(flat, shape), dtype=np.int64).T.reshape(n, len(shape))
    else:
        idx = np.zeros((n, len(shape)), np.int64)
    vals = rdense(rng, n, dt)
    d = np.zeros(shape, dtype=dt)
    if len(shape):
        np.add.at(d, tuple(idx.T), vals)
    else:
        d[()] = vals.sum(dtype=dt)
    return spt.SparseTensor(idx, vals, shape), d


def check(got, want):
    assert isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind in "iu":
        assert np.array_equal(got, want)
    else:
        tol = TOL[want.dtype.kind][want.dtype.itemsize]
        assert np.allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max(initial=0.0)))


@pytest.mark.parametrize("dt", DTYPES)
def test_tensordot_random(dt):
    rng = np.random.default_rng(11)
    for trial in range(40):
        ra, rb = int(rng.integers(0, 4)), int(rng.integers(0, 4))
        n = int(rng.integers(0, min(ra, rb) + 1))
        ashape = tuple(int(s) for s in rng.integers(1, 4, ra))
        pa = [int(x) for x in rng.permutation(ra)[:n]]
        pb = [int(x) for x in rng.permutation(rb)[:n]]
        bshape = [int(s) for s in rng.integers(0 if trial % 5 == 0 else 1, 4, rb)]
        for k in range(n):
            bshape[pb[k]] = ashape[pa[k]]
        sp, a = rsparse(rng, ashape, dt)
        b = rdense(rng, tuple(bshape), dt)
        xa = [x - ra if rng.integers(2) else x for x in pa]  # negative axes too
        check(spt.tensordot(sp, b, axes=(xa, pb)), np.tensordot(a, b, axes=(xa, pb)))
        check(spt.tensordot(b, sp, axes=(pb, xa)), np.tensordot(b, a, axes=(pb, xa)))  # dense first
        if n == 1:  # a pair of ints
            check(spt.tensordot(sp, b, axes=(xa[0], pb[0])), np.tensordot(a, b, axes=(xa[0], pb[0])))


@pytest.mark.parametrize("dt", [np.float64, np.int32])
def test_tensordot_int_axes(dt):
    rng = np.random.default_rng(12)
    sp, a = rsparse(rng, (3, 4, 5), dt)
    for n, bshape in [(0, (2, 3)), (1, (5, 2)), (2, (4, 5, 2))]:
        b = rdense(rng, bshape, dt)
        check(spt.tensordot(sp, b, axes=n), np.tensordot(a, b, axes=n))
        check(spt.tensordot(sp, b, axes=np.int64(n)), np.tensordot(a, b, axes=n))
    b = rdense(rng, (4, 5), dt)
    check(spt.tensordot(sp, b), np.tensordot(a, b))  # axes=2, numpy's default
    full = rdense(rng, (3, 4, 5), dt)
    check(spt.tensordot(sp, full, axes=3), np.tensordot(a, full, axes=3))  # a 0-d result


def test_tensordot_errors():
    rng = np.random.default_rng(13)
    sp, _ = rsparse(rng, (3, 4, 5), np.float64)
    b = np.ones((4, 2))
    with pytest.raises(spt.OutOfRangeError, match=r"spt_tensordot: axes_a\[0\] = 3"):
        spt.tensordot(sp, b, axes=([3], [0]))
    with pytest.raises(spt.OutOfRangeError, match=r"axes_b\[0\] = -3"):
        spt.tensordot(sp, b, axes=([1], [-3]))
    with pytest.raises(spt.InvalidArgumentError, match="repeats mode 1"):
        spt.tensordot(sp, np.ones((4, 4)), axes=([1, -2], [0, 1]))
    with pytest.raises(spt.InvalidArgumentError, match="shape mismatch"):
        spt.tensordot(sp, b, axes=([0], [0]))
    with pytest.raises(spt.InvalidArgumentError, match="pair up"):
        spt.tensordot(sp, b, axes=([0, 1], [0]))
    with pytest.raises(spt.InvalidArgumentError, match=r"axes=3 must be in \[0, 2\]"):
        spt.tensordot(sp, b, axes=3)
    with pytest.raises(spt.InvalidArgumentError, match="axes=-1"):
        spt.tensordot(sp, b, axes=-1)
    with pytest.raises(spt.DtypeError):
        spt.tensordot(sp, b, axes="ij")
    with pytest.raises(spt.InvalidArgumentError, match="pair"):
        spt.tensordot(sp, b, axes=(1, 2, 3))
    with pytest.raises(spt.DtypeError):
        spt.tensordot(sp, b, axes=([1.0], [0]))
    with pytest.raises(spt.OverflowError):
        spt.tensordot(sp, b, axes=([1 << 70], [0]))
    with pytest.raises(spt.DtypeError, match="dtype float32 differs"):
        spt.tensordot(sp, b.astype(np.float32), axes=([1], [0]))
    with pytest.raises(spt.DtypeError, match="both operands"):
        spt.tensordot(sp, sp)
    with pytest.raises(spt.DtypeError, match="one operand must be a SparseTensor"):
        spt.tensordot(b, b)
    huge = spt.SparseTensor([[1, 2, 0]], [1.0], [1 << 40, 1 << 40, 3])
    with pytest.raises(spt.OverflowError, match="spt_tensordot"):
        spt.tensordot(huge, np.ones((3, 2)), axes=([2], [0]))


def _rand_subscripts(rng):
    pool = "ijkpqR"
    ta = "".join(rng.permutation(list(pool))[:int(rng.integers(0, 4))])
    tb = "".join(rng.permutation(list(pool))[:int(rng.integers(0, 4))])
    letters = sorted(set(ta) | set(tb))
    if rng.integers(4) == 0:
        return ta + "," + tb, ta, tb
    out = [c for c in rng.permutation(letters) if rng.integers(3)] if letters else []
    return ta + "," + tb + "->" + "".join(out), ta, tb


@pytest.mark.parametrize("dt", DTYPES)
def test_einsum_random(dt):
    rng = np.random.default_rng(21)
    for _ in range(60):
        sub, ta, tb = _rand_subscripts(rng)
        size = {c: int(rng.integers(1, 4)) for c in "ijkpqR"}
        sp, a = rsparse(rng, tuple(size[c] for c in ta), dt)
        b = rdense(rng, tuple(size[c] for c in tb), dt)
        want = np.einsum(sub, a, b)
        check(spt.einsum(sub, sp, b), np.asarray(want))
        lhs, arrow, rhs = sub.partition("->")
        swapped = tb + "," + ta + arrow + rhs
        check(spt.einsum(swapped, b, sp), np.asarray(np.einsum(swapped, b, a)))  # dense first


def test_einsum_named_forms():
    rng = np.random.default_rng(22)
    sp, a = rsparse(rng, (4, 5, 6), np.float64, 0.3)
    u, v, w = rng.standard_normal((5, 3)), rng.standard_normal(6), rng.standard_normal((4, 7, 5))
    for sub, b in [("ijk,jr->ikr", u), ("ijk,k->ij", v), ("ijk,ilj->lk", w), ("ijk,ilj->ilk", w),
                   ("ijk,ilj", w), ("ijk,ijk->", a), ("ijk,ijk->ijk", a), (" i j k , j r -> r i k ", u)]:
        check(spt.einsum(sub, sp, b), np.asarray(np.einsum(sub, a, b)))
    # bytes subscripts, dense operand first: the terms are swapped as for str
    b2 = rng.standard_normal((6, 2))
    check(spt.einsum(b"kr,ijk->rij", b2, sp), np.einsum("kr,ijk->rij", b2, a))


@pytest.mark.parametrize("sub,exc,msg", [
    ("ijk", spt.InvalidArgumentError, "one operand"),
    ("iik,jr", spt.InvalidArgumentError, "diagonals are not supported"),
    ("ijk,jr->irr", spt.InvalidArgumentError, "output repeats index 'r'"),
    ("ijk,jr->z", spt.InvalidArgumentError, "'z' appears in no operand"),
    ("...k,jr", spt.InvalidArgumentError, "ellipsis"),
    ("ijk,jr,kr->ir", spt.InvalidArgumentError, "unexpected ','"),
    ("ijk,jr->i->r", spt.InvalidArgumentError, "second '->'"),
    ("ijk,j2", spt.InvalidArgumentError, "invalid character '2'"),
    ("ijk,jé", spt.InvalidArgumentError, "invalid byte 0xc3"),
    ("ij,jr", spt.InvalidArgumentError, "operand 0 has 2 subscripts"),
    ("ijk,kr", spt.InvalidArgumentError, "index 'k' has size 5"),
    ("ijk\0,jr", spt.InvalidArgumentError, "NUL"),
    (3, spt.DtypeError, "subscripts must be str"),
])
def test_einsum_errors(sub, exc, msg):
    rng = np.random.default_rng(23)
    sp, _ = rsparse(rng, (3, 4, 5), np.float64)
    with pytest.raises(exc, match=msg):
        spt.einsum(sub, sp, np.ones((4, 2)))


def test_einsum_any_volume():
    """A huge index summed away never meets a dense dim."""
    big = 1 << 62
    sp = spt.SparseTensor([[big - 1, 5, 2], [0, big - 1, 0]], [1.0, 2.0], [big, big, 3])
    b = np.arange(6.0).reshape(3, 2)
    assert np.array_equal(spt.einsum("ijk,kr->r", sp, b), 1.0 * b[2] + 2.0 * b[0])
    with pytest.raises(spt.OverflowError, match="spt_einsum"):
        spt.einsum("ijk,kr->ir", sp, b)
