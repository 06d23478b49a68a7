# SPDX-License-Identifier: Apache-2.0
"""The benchmark inputs, bit for bit the ones bench_core.c generates (same counter-based generator).

mix(seed, i) is splitmix64's finalizer on seed*0xD1B54A32D192ED03 + (i+1)*0x9E3779B97F4A7C15; a stream
id per (input, field, nnz); coordinates are mix % dim, values (mix >> 11) * 2^-53.
"""
import numpy as np

M64 = (1 << 64) - 1


def _mix(seed, n, start=0):
    i = np.arange(start + 1, start + n + 1, dtype=np.uint64)
    base = np.uint64((seed * 0xD1B54A32D192ED03) & M64)
    z = base + i * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _stream(inp, field, n):
    return inp * 1000003 + field * 101 + n


def _unit(z):
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def _blocks(seed, n, fn, block=1 << 22):
    """Apply fn to mix(seed, i) block by block (bounded temporaries); returns the concatenation."""
    parts = [fn(_mix(seed, min(block, n - s), s)) for s in range(0, n, block)]
    return np.concatenate(parts) if parts else fn(_mix(seed, 0))


def shape_for(op, dims, n=None):
    """The dense shape of op's inputs. The cost curves' scaled forms (bench/curves.py): to_dense_n is a cube
    of about 8 n cells (the density 1/8 of to_dense's [200]^3 at 1e6); spgemm two [n/4, n/4] matrices of n
    entries each (4 a row on average, so the product has about 16 n / 4 = 4 n candidates)."""
    if op == "to_dense_n":
        side = int(round((8.0 * n) ** (1.0 / 3.0)))
        return (side, side, side)
    if op == "spgemm":
        return (max(n // 4, 1), max(n // 4, 1))
    if op == "transpose":
        return (1000, 1000, 1000)
    if op == "to_dense":
        return (200, 200, 200) if dims == 3 else (40000, 200)
    if op == "spmm":
        return (100000, 100000)
    return (1000, 1000, 1000) if dims == 3 else (1000000, 1000000)


def unsorted(inp, shape, n):
    """coords [ndim, n] int64 (independent uniform), values [n] float64."""
    coords = np.empty((len(shape), n), dtype=np.int64)
    for d, dim in enumerate(shape):
        coords[d] = _blocks(_stream(inp, d, n), n, lambda z, dim=dim: (z % np.uint64(dim)).astype(np.int64))
    vals = _blocks(_stream(inp, 63, n), n, _unit)
    return coords, vals


def canonical(inp, shape, n):
    """Distinct coordinates sorted row-major: key_i = i*s + mix % s with s = volume // n."""
    vol = 1
    for dim in shape:
        vol *= dim
    s = vol // n
    jit = _blocks(_stream(inp, 62, n), n, lambda z: (z % np.uint64(s)))
    key = np.arange(n, dtype=np.uint64) * np.uint64(s) + jit
    del jit
    coords = np.empty((len(shape), n), dtype=np.int64)
    for d in range(len(shape) - 1, -1, -1):
        coords[d] = (key % np.uint64(shape[d])).astype(np.int64)
        key //= np.uint64(shape[d])
    vals = _blocks(_stream(inp, 63, n), n, _unit)
    return coords, vals


def dense_b(rows, n):
    """The dense right operand of spmm: [rows, 32] float64."""
    return _blocks(_stream(2, 63, n), rows * 32, _unit).reshape(rows, 32)


def density_a(m, k, density):
    """The density workload's sparse A [m, k] (bench_gen.h bg_density_a): cell c (row-major) is kept when
    unit(mix(stream(0, 61, m*k), c)) < density, with value unit(mix(stream(0, 63, m*k), c)).
    Returns (indices [nnz, 2] int64 sorted row-major, values [nnz] float64)."""
    cells = m * k
    keep = _unit(_mix(_stream(0, 61, cells), cells)) < density
    vals = _unit(_mix(_stream(0, 63, cells), cells))[keep]
    c = np.nonzero(keep)[0].astype(np.int64)
    return np.stack([c // k, c % k], axis=1), vals


def density_b(k, n):
    """The density workload's dense B [k, n] (bg_density_b)."""
    return _unit(_mix(_stream(1, 63, k * n), k * n)).reshape(k, n)
