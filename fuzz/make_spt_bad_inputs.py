#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Generate tests/conformance/spt_bad_inputs.jsonl: spt's own bad-input cases (bad_inputs.md 7 format)
for reorder orders, argsort, order metadata, group dims, construction counts, ToT maps and file headers.
Run by the conformance runner through the handlers in the ops' C tests."""
import io, json, os
import numpy as np

out = []
def case(id, op, args, expect, why, result=None, **extra):
    d = {"id": "SPT-" + id, "op": op, "args": args, "expect": expect, "why": why, "source": "spt contract (include/spt.h)"}
    if result is not None: d["result"] = result
    d.update(extra)
    out.append(d)

def sp(ix, vals, shape, dtype="float64"):
    return {"indices": ix if ix else {"dims": [0, len(shape)]}, "values": vals, "dense_shape": shape, "dtype": dtype}

A = sp([[1, 2], [0, 1], [1, 0], [0, 1]], [1.0, 2.0, 3.0, 4.0], [2, 3])
E = "error:"
# ---- reorder orders
case("R01", "spt_reorder", {"sp": A, "order": [0, 0]}, E + "INVALID_ARGUMENT", "order repeats a dim")
case("R02", "spt_reorder", {"sp": A, "order": [0, 2]}, E + "INVALID_ARGUMENT", "order names dim 2 of a rank-2 tensor")
case("R03", "spt_reorder", {"sp": A, "order": [0, -1]}, E + "INVALID_ARGUMENT", "order mixes -1 with a dim")
case("R04", "spt_reorder", {"sp": A, "order": [-1, -1]}, E + "INVALID_ARGUMENT", "reorder needs a permutation, not the undefined order")
case("R05", "spt_reorder", {"sp": A, "order": [9223372036854775807, 0]}, E + "INVALID_ARGUMENT", "order entry INT64_MAX (no shift by it)")
case("R06", "spt_reorder", {"sp": A, "order": [1, 0]}, "ok", "column-major reorder, stable for the repeated [0,1]",
     {"indices": [[1, 0], [0, 1], [0, 1], [1, 2]], "values": [3.0, 2.0, 4.0, 1.0], "shape": [2, 3]})
case("R07", "spt_reorder", {"sp": sp([[0, 3]], [1.0], [2, 3]), "order": None}, E + "OUT_OF_RANGE", "index 3 >= dim 3 is checked before sorting")
case("R08", "spt_reorder", {"sp": sp([[0, -1]], [1.0], [2, 3]), "order": [1, 0]}, E + "OUT_OF_RANGE", "a negative index")
case("R09", "spt_reorder", {"sp": sp([[], []], [1.0, 2.0], []), "order": None}, "ok", "rank 0 with two entries (duplicates of the scalar)",
     {"indices": [[], []], "values": [1.0, 2.0], "shape": []})
case("R10", "spt_reorder", {"sp": sp([], [], [4, 0, 5]), "order": [2, 0, 1]}, "ok", "nnz 0 in a zero-volume shape")
case("R11", "spt_reorder", {"sp": sp([[2147483647, 0], [0, 2147483647]], [1.0, 2.0], [2147483648, 2147483648]), "order": [1, 0]}, "ok",
     "keys near 2^62 (radix digits up to bit 62)", {"indices": [[2147483647, 0], [0, 2147483647]], "values": [1.0, 2.0], "shape": [2147483648, 2147483648]})
case("R12", "spt_reorder", {"sp": sp([[9223372036854775806]], [1.0], [9223372036854775807]), "order": None}, "ok", "the largest 1-D index")
case("R13", "spt_reorder", {"sp": sp([[0, 0, 0]], [1.0], [1, 1, 1]), "order": [0, 1]}, E + "INVALID_ARGUMENT", "order shorter than the rank is not a permutation")
# ---- argsort
case("A01", "spt_argsort", {"sp": A, "order": [1, 0]}, "ok", "stable argsort by column", {"permutation": [2, 1, 3, 0]})
case("A02", "spt_argsort", {"sp": A, "order": [1, 1]}, E + "INVALID_ARGUMENT", "argsort order repeats a dim")
case("A03", "spt_argsort", {"sp": sp([[5, 0]], [1.0], [2, 3]), "order": None}, E + "OUT_OF_RANGE", "argsort checks bounds")
# ---- order metadata
case("O01", "spt_tensor_set_order", {"sp": A, "order": [1, 1]}, E + "INVALID_ARGUMENT", "set_order: repeated dim")
case("O02", "spt_tensor_set_order", {"sp": A, "order": [-1, -1]}, "ok", "set_order: all -1 is the undefined order")
case("O03", "spt_tensor_set_order", {"sp": A, "order": [-2, -1]}, E + "INVALID_ARGUMENT", "set_order: -2 is neither -1 nor a dim")
case("O04", "spt_tensor_set_order", {"sp": A, "order": [2, 0]}, E + "INVALID_ARGUMENT", "set_order: dim 2 of rank 2")
# ---- group dims
case("G01", "spt_group", {"sp": A, "reorder": [1, 0], "group_dims": [0]}, E + "FAILED_PRECONDITION", "group dims must be a prefix of the order")
case("G02", "spt_group", {"sp": A, "reorder": [0, 1], "group_dims": [2]}, E + "OUT_OF_RANGE", "group dim 2 of a rank-2 tensor")
case("G03", "spt_group", {"sp": A, "reorder": [0, 1], "group_dims": [0, 0]}, E + "INVALID_ARGUMENT", "group dim repeated")
case("G04", "spt_group", {"sp": A, "reorder": [0, 1], "group_dims": [0, 1, 1], "ndims": 3}, E + "INVALID_ARGUMENT", "more group dims than the rank")
case("G05", "spt_group", {"sp": A, "reorder": [0, 1], "group_dims": [0], "ndims": -1}, E + "INVALID_ARGUMENT", "negative number of group dims")
case("G06", "spt_group", {"sp": A, "reorder": [0, 1], "group_dims": [0]}, "ok", "two rows, two groups", {"groups": 2})
case("G07", "spt_group", {"sp": A, "group_dims": [0]}, E + "FAILED_PRECONDITION", "undefined order: no dims are a prefix of it")
case("G08", "spt_group", {"sp": A, "group_dims": []}, "ok", "no group dims: the whole tensor is one group", {"groups": 1})
case("G09", "spt_group", {"sp": A, "reorder": [0, 1], "group_dims": [-1]}, E + "OUT_OF_RANGE", "group dim -1")
# ---- construction from counts (claimed sizes, NULL buffers)
case("N01", "spt_tensor_new", {"rank": 65, "shape": [1] * 65, "nnz": 0}, E + "INVALID_ARGUMENT", "rank above SPT_MAX_RANK")
case("N02", "spt_tensor_new", {"shape": [3], "nnz": -1}, E + "INVALID_ARGUMENT", "negative nnz")
case("N03", "spt_tensor_new", {"shape": [1, 1, 1, 1], "nnz": 2305843009213693952}, E + "OVERFLOW", "nnz*rank*8 = 2^64 overflows size_t (before buffers are read)")
case("N04", "spt_tensor_new", {"shape": [3, 3], "nnz": 2}, E + "INVALID_ARGUMENT", "entries with NULL indices and values")
case("N05", "spt_tensor_new", {"shape": [3, 3], "nnz": 0, "order": [1, 1]}, E + "INVALID_ARGUMENT", "construction order repeats a dim")
case("N06", "spt_tensor_new", {"shape": [2, 2], "nnz": 4611686018427387904, "wrap": True}, E + "OVERFLOW", "wrap: claimed nnz 2^62 with rank 2")
case("N07", "spt_tensor_new", {"shape": [], "nnz": 1152921504606846976, "dtype": "string"}, E + "OVERFLOW", "2^60 string values of 16 bytes overflow size_t")
case("N08", "spt_tensor_new", {"shape": [3, 0], "nnz": 1, "wrap": True}, E + "OUT_OF_RANGE", "an entry in a zero-volume shape")
case("N09", "spt_tensor_new", {"shape": [3, -2], "nnz": 0}, E + "INVALID_ARGUMENT", "negative dim")
case("N10", "spt_tensor_new", {"rank": -1, "shape": [], "nnz": 0}, E + "INVALID_ARGUMENT", "negative rank")
# ---- ToT: domains, injection, maps, spt_tot_new, sparsify
case("D01", "spt_domain_new", {"indices": [[0, 1], [2, -1]]}, E + "INVALID_ARGUMENT", "negative component")
case("D02", "spt_domain_new", {"indices": [], "rank": 65, "n": 0}, E + "INVALID_ARGUMENT", "rank above SPT_MAX_RANK")
case("D03", "spt_domain_new", {"indices": [], "rank": 2, "n": -1}, E + "INVALID_ARGUMENT", "negative count")
case("D04", "spt_domain_new", {"indices": [], "rank": 2, "n": 2, "null_indices": True}, E + "INVALID_ARGUMENT", "NULL indices for 2 entries")
case("D05", "spt_domain_new", {"indices": [[3, 1], [0, 2], [3, 1]]}, "ok", "duplicates collapse", {"size": 2})
case("D06", "spt_domain_new", {"indices": [], "rank": 64, "n": 36028797018963968, "null_indices": True}, E + "INVALID_ARGUMENT",
     "claimed n*rank*8 = 2^64 bytes with a NULL array: refused before anything is read (the NULL check comes first)")
case("I01", "spt_inject_index", {"index": [1, 2], "modes": [3], "values": [7]}, E + "OUT_OF_RANGE", "mode 3 outside [0, 3)")
case("I02", "spt_inject_index", {"index": [1, 2], "modes": [0, 0], "values": [7, 8]}, E + "INVALID_ARGUMENT", "mode given twice")
case("I03", "spt_inject_index", {"index": [1, 2], "modes": [1], "values": [-3]}, E + "INVALID_ARGUMENT", "negative injected value")
case("I04", "spt_inject_index", {"index": [0] * 64, "modes": [0], "values": [1]}, E + "INVALID_ARGUMENT", "rank + ninj = 65 > SPT_MAX_RANK")
case("I05", "spt_inject_index", {"index": [1, 2], "modes": [1], "values": [9]}, "ok", "inject 9 at mode 1", {"index": [1, 9, 2]})
case("I06", "spt_inject_index", {"index": [1, 2, 3], "modes": [3], "uninject": True}, E + "OUT_OF_RANGE", "uninject mode 3 of rank 3")
case("I07", "spt_inject_index", {"index": [1, 2], "modes": [-1], "values": [0]}, E + "OUT_OF_RANGE", "negative mode")
case("M01", "spt_sparse_map_new", {"map": {"ind_rank": 1, "dep_rank": 1, "pairs": [[0, 1], [1, -1]]}}, E + "INVALID_ARGUMENT", "negative dependent component")
case("M02", "spt_sparse_map_new", {"map": {"ind_rank": 65, "dep_rank": 1, "pairs": []}}, E + "INVALID_ARGUMENT", "ind_rank above SPT_MAX_RANK")
case("M03", "spt_sparse_map_new", {"map": {"ind_rank": 1, "dep_rank": 1, "pairs": [], "npairs": -1}}, E + "INVALID_ARGUMENT", "negative pair count")
case("M04", "spt_sparse_map_new", {"map": {"ind_rank": 1, "dep_rank": 1, "pairs": [], "npairs": 2, "null_arrays": True}}, E + "INVALID_ARGUMENT", "NULL arrays for 2 pairs")
case("M05", "spt_sparse_map_new", {"map": {"ind_rank": 1, "dep_rank": 2, "pairs": [[2, 0, 1], [0, 1, 1], [2, 0, 1], [2, 3, 0]]}}, "ok",
     "duplicate pairs collapse", {"nkeys": 2, "size": 3})
case("M06", "spt_sparse_map_new", {"map": {"ind_rank": 1, "dep_rank": 1, "pairs": [[0, 1]], "keys": [[5], [0], [5]]}}, "ok",
     "extra keys (repeated) get empty domains", {"nkeys": 2, "size": 1})
case("M07", "spt_sparse_map_new", {"map": {"ind_rank": 1, "dep_rank": 1, "pairs": [], "keys": [[-1]]}}, E + "INVALID_ARGUMENT", "negative extra key")
case("T01", "spt_tot_new", {"dtype": "string", "outer_shape": [3], "outer": [], "inner_shapes": [], "outer_rank": 1, "inner_rank": 1}, E + "INVALID_ARGUMENT",
     "strings are not a ToT dtype (DTYPE, counted as invalid argument)")
case("T02", "spt_tot_new", {"outer_shape": [3], "outer": [[1], [1]], "inner_shapes": [[1], [1]], "values": [1.0, 2.0]}, E + "INVALID_ARGUMENT", "outer index given twice")
case("T03", "spt_tot_new", {"outer_shape": [3], "outer": [[3]], "inner_shapes": [[1]], "values": [1.0]}, E + "OUT_OF_RANGE", "outer index outside the outer shape")
case("T04", "spt_tot_new", {"outer_shape": [3], "outer": [[0]], "inner_shapes": [[-2]], "values": []}, E + "INVALID_ARGUMENT", "negative inner dim")
case("T05", "spt_tot_new", {"outer_shape": [3], "outer": [[2], [0]], "inner_shapes": [[2], [1]], "values": [1.0, 2.0, 3.0]}, "ok", "two inner tensors", {"count": 2})
case("T06", "spt_tot_new", {"outer_shape": [4611686018427387904, 4], "outer": [], "inner_shapes": [], "outer_rank": 2, "inner_rank": 1}, E + "OVERFLOW",
     "outer volume 2^64 overflows")
MAP = {"ind_rank": 1, "dep_rank": 1, "pairs": [[0, 0], [0, 2], [2, 1]]}
T = sp([[2, 0], [0, 2], [1, 2]], [1.0, 2.0, 3.0], [3, 4])
case("S01", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [], "nmap": 0, "outer_shape": [4]}, E + "INVALID_ARGUMENT", "dep_rank + nmap != rank(T)")
case("S02", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [1, 1], "outer_shape": [4]}, E + "OUT_OF_RANGE", "ind_mode 1 outside [0, ind_rank)")
case("S03", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [0, 2], "outer_shape": [4]}, E + "OUT_OF_RANGE", "T_mode 2 outside [0, rank(T))")
case("S04", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [0, 1], "outer_shape": [2]}, E + "OUT_OF_RANGE", "key 2 outside outer_shape [2]")
case("S05", "spt_sparsify", {"T": T, "map": {"ind_rank": 1, "dep_rank": 1, "pairs": [[0, 3]]}, "ind2mode": [0, 1], "outer_shape": [4]}, E + "OUT_OF_RANGE",
     "injected index [3,0] outside T's shape [3,4]")
case("S06", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [0, 1], "outer_shape": [4]}, "ok", "keys 0 and 2 give two inner tensors", {"count": 2})
case("S07", "spt_sparsify", {"T": sp([[0, 0]], [True], [3, 4], "bool"), "map": MAP, "ind2mode": [0, 1], "outer_shape": [4]}, E + "INVALID_ARGUMENT",
     "bool is not a ToT dtype")
case("S08", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [0, 1], "outer_shape": [-4]}, E + "INVALID_ARGUMENT", "negative outer dim")
case("S09", "spt_sparsify", {"T": T, "map": MAP, "ind2mode": [0, 1], "outer_shape": [4], "dense": True}, "ok", "the dense flavour agrees", {"count": 2})
case("S10", "spt_sparsify", {"T": sp([[3, 0]], [1.0], [3, 4]), "map": MAP, "ind2mode": [0, 1], "outer_shape": [4]}, E + "OUT_OF_RANGE", "T's own index out of bounds")
# ---- .tns text
case("F01", "spt_parse_tns", {"text": "1 1 1.5\n2 2\n"}, E + "PARSE", "second line has fewer fields than the first")
case("F02", "spt_parse_tns", {"text": "0 1 1.5\n"}, E + "PARSE", "1-based index 0")
case("F03", "spt_parse_tns", {"text": "99999999999999999999 1 1.5\n"}, E + "PARSE", "index overflows int64")
case("F04", "spt_parse_tns", {"text": "1 5 1.5\n", "shape": [2, 4]}, E + "PARSE", "index 5 beyond the given shape")
case("F05", "spt_parse_tns", {"text": "9223372036854775807 9223372036854775807 1\n"}, E + "OVERFLOW", "inferred shape volume overflows int64")
case("F06", "spt_parse_tns", {"text": "1 1 x\n", "dtype": "string"}, E + "DTYPE", ".tns has no string values")
case("F07", "spt_parse_tns", {"text": "# dtype: int32\n# shape: 2 3\n2 3 -4\n1 1 5\n"}, "ok", "spt's header comments give dtype and shape",
     {"indices": [[1, 2], [0, 0]], "values": [-4, 5], "shape": [2, 3]})
case("F08", "spt_parse_tns", {"text": "1 300\n", "dtype": "int8"}, E + "PARSE", "300 does not fit int8")
case("F09", "spt_parse_tns", {"text": "1 1 nan\n1 2 inf\n1 3 1e999\n"}, E + "PARSE", "1e999 overflows a double")
case("F10", "spt_parse_tns", {"text": "-1 1 1\n"}, E + "PARSE", "negative index")
case("F11", "spt_parse_tns", {"text": ""}, "ok", "empty text: an empty tensor")
case("F12", "spt_parse_tns", {"text": "# shape: 2 -3\n"}, E + "PARSE", "negative dim in spt's shape comment")
mm = "%%MatrixMarket matrix "
case("F20", "spt_read_file", {"format": "mtx", "text": "3 3 1\n1 1 1\n"}, E + "PARSE", "no banner")
case("F21", "spt_read_file", {"format": "mtx", "text": mm + "coordinate real general\n3 3 3\n1 1 1\n2 2 2\n"}, E + "PARSE", "header claims 3 entries, 2 present")
case("F22", "spt_read_file", {"format": "mtx", "text": mm + "coordinate real general\n3 3 1\n4 1 1\n"}, E + "PARSE", "row 4 beyond 3 rows")
case("F23", "spt_read_file", {"format": "mtx_dense", "text": mm + "array real general\n100000000 100000000\n1\n"}, E + "PARSE",
     "claims 10^16 values with one present (checked before allocating)")
case("F24", "spt_read_file", {"format": "mtx", "text": mm + "coordinate real general\n3 3 1000000000000\n1 1 1\n"}, E + "PARSE",
     "claims 10^12 entries with one present (checked before allocating)")
case("F25", "spt_read_file", {"format": "mtx", "text": mm + "coordinate real general\n-3 3 0\n"}, E + "PARSE", "negative dim")
case("F26", "spt_read_file", {"format": "mtx", "text": mm + "coordinate real symmetric\n3 4 0\n"}, E + "PARSE", "symmetric but not square")
case("F27", "spt_read_file", {"format": "mtx", "text": mm + "coordinate integer symmetric\n3 3 2\n1 1 5\n2 1 7\n"}, "ok", "symmetric expanded", {"nnz": 3})
case("F28", "spt_read_file", {"format": "mtx", "text": mm + "coordinate real general\n9223372036854775807 9223372036854775807 0\n"}, E + "PARSE",
     "rows x cols overflows int64 (a header error of the file)")
case("F29", "spt_read_file", {"format": "mtx", "text": mm + "coordinate quaternion general\n1 1 0\n"}, E + "PARSE", "unknown field")

def npy(a, version=None):
    b = io.BytesIO(); np.lib.format.write_array(b, a, version=version); return b.getvalue()
def raw_npy(header, data=b"", version=1):
    h = header.encode()
    pre = b"\x93NUMPY" + bytes([version, 0]) + (len(h).to_bytes(2, "little") if version == 1 else len(h).to_bytes(4, "little"))
    return pre + h + data
case("F40", "spt_read_file", {"format": "npy", "hex": b"\x93NUMPX\x01\x00\x10\x00".hex()}, E + "PARSE", "bad magic")
case("F41", "spt_read_file", {"format": "npy", "hex": (b"\x93NUMPY\x01\x00\xff\x7f" + b"{}").hex()}, E + "PARSE", "header length beyond the file")
case("F42", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }\n", b"\0" * 16).hex()}, E + "PARSE",
     "shape claims 8000 bytes, 16 present")
case("F43", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n", b"\0" * 8).hex()}, E + "DTYPE", "object arrays")
case("F44", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }\n", b"\0\0\x11\0" + b"\0" * 8).hex()}, E + "PARSE",
     "unicode array with a code point beyond U+10FFFF")
case("F45", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n").hex()}, E + "OVERFLOW",
     "volume 2^64 overflows")
case("F46", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }\n").hex()}, E + "PARSE", "negative dim")
case("F47", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }\n", version=9).hex()}, E + "PARSE", "version 9")
case("F48", "spt_read_file", {"format": "npy", "hex": npy(np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3))).hex()}, "ok", "Fortran order",
     {"dense": [[0, 1, 2], [3, 4, 5]]})
case("F49", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extra': 1}\n", b"\0" * 8).hex()}, E + "PARSE", "unknown header key")
case("F50", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': '|S9223372036854775807', 'fortran_order': False, 'shape': (2,), }\n").hex()}, E + "DTYPE",
     "S<huge> itemsize: refused as a dtype before any size is formed")
case("F51", "spt_read_file", {"format": "npy", "hex": raw_npy("{'descr': ").hex()}, E + "PARSE", "header ends after the descr key (no value)")
def m(a): return {"hex": npy(np.asarray(a)).hex()}
case("F60", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.array([[0], [1]])), "data.npy": m([1.0])}}, E + "PARSE", "no shape member")
case("F61", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.array([[0], [5]])), "data.npy": m([1.0]), "shape.npy": m([2, 3]),
     "fill_value.npy": m(0.0)}}, E + "PARSE", "coordinate 5 outside dim 3")
case("F62", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.array([[0], [1]])), "data.npy": m([1.0]), "shape.npy": m([2, 3]),
     "fill_value.npy": m(1.5)}}, E + "INVALID_ARGUMENT", "non-zero fill_value")
case("F63", "spt_read_file", {"format": "npz", "members": {"indices.npy": m(np.array([0, 1], dtype=np.int32)), "indptr.npy": m(np.array([0, 2, 1], dtype=np.int32)),
     "data.npy": m([1.0, 2.0]), "shape.npy": m([2, 3]), "format.npy": m(np.array(b"csr"))}}, E + "PARSE", "indptr decreases")
case("F64", "spt_read_file", {"format": "npz", "members": {"indices.npy": m(np.array([0, 1], dtype=np.int32)), "indptr.npy": m(np.array([0, 1, 3], dtype=np.int32)),
     "data.npy": m([1.0, 2.0]), "shape.npy": m([2, 3]), "format.npy": m(np.array(b"csr"))}}, E + "PARSE", "indptr[-1] = 3 != nnz 2")
case("F65", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.array([[0.5], [1]])), "data.npy": m([1.0]), "shape.npy": m([2, 3]),
     "fill_value.npy": m(0.0)}}, E + "PARSE", "float coordinates")
case("F66", "spt_read_file", {"format": "npz", "text": "this is not a zip archive"}, E + "PARSE", "not a zip archive")
case("F67", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.array([[0, 1], [2, 0]])), "data.npy": m([1.0, 2.0]), "shape.npy": m([2, 3]),
     "fill_value.npy": m(0.0)}}, "ok", "pydata/sparse", {"indices": [[0, 2], [1, 0]], "values": [1.0, 2.0], "shape": [2, 3]})
case("F68", "spt_read_file", {"format": "npz", "members": {"row.npy": m(np.array([0, 7], dtype=np.int32)), "col.npy": m(np.array([0, 1], dtype=np.int32)),
     "data.npy": m([1.0, 2.0]), "shape.npy": m([2, 3]), "format.npy": m(np.array(b"coo"))}}, E + "PARSE", "coo row 7 outside 2 rows")
case("F69", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.array([[0], [1]])), "data.npy": m([1.0, 2.0]), "shape.npy": m([2, 3]),
     "fill_value.npy": m(0.0)}}, E + "PARSE", "coords has 1 column, data 2 values")
case("F70", "spt_read_file", {"format": "npz", "members": {"coords.npy": m(np.zeros((2, 0), dtype=np.int64)), "data.npy": m(np.zeros(0)),
     "shape.npy": m([4611686018427387904, 4]), "fill_value.npy": m(0.0)}}, E + "OVERFLOW", "shape volume 2^64")

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "conformance", "spt_bad_inputs.jsonl")
with open(path, "w") as f:
    for d in out:
        f.write(json.dumps(d) + "\n")
print(len(out), "cases")
