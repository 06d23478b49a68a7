/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_serial.c -- the serial family: spt_pack_sparse of decoded tensors read back by spt_unpack_sparse
 * (a flipped byte must be refused, a round trip must give the tensor back), and spt_unpack_sparse on raw
 * bytes. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static void do_serialize(fz_in *in, spt_tensor *t) {
    void *buf = FZ_SENTINEL;
    size_t len = 0;
    fz_op_begin();
    spt_status st = spt_pack_sparse(t, &buf, &len);
    fz_op_end();
    fz_check_status("spt_pack_sparse", st, buf);
    if (st != SPT_OK) return;
    /* flip a byte sometimes: the reader must refuse it */
    bool flip = len > 0 && fz_u8(in) < 100;
    if (flip) ((unsigned char *)buf)[fz_u64(in) % len] ^= (unsigned char)(1u << (fz_u8(in) % 8));
    const void *const bufs[1] = {buf};
    spt_tensor *back = FZ_SENTINEL;
    fz_op_begin();
    st = spt_unpack_sparse(bufs, &len, 0, NULL, spt_tensor_dtype(t), &back);
    fz_op_end();
    fz_check_status("spt_unpack_sparse", st, back);
    if (flip && st == SPT_OK) fz_die("spt_unpack_sparse", "accepted a damaged buffer");
    if (st == SPT_OK) {
        fz_check_tensor("spt_unpack_sparse", back);
        int64_t n = spt_tensor_nnz(t), r = spt_tensor_rank(t);
        if (spt_tensor_nnz(back) != n || spt_tensor_rank(back) != r ||
            (n * r > 0 && memcmp(spt_tensor_indices(back), spt_tensor_indices(t), (size_t)(n * r) * 8)))
            fz_die("spt_unpack_sparse", "round trip changed the tensor");
        spt_tensor_free(back);
    }
    spt_bytes_free(buf);
}

/* The rest of the input as serialized bytes, as they are. */
static void do_raw_bytes(fz_in *in) {
    size_t len = in->n;
    const void *const bufs[1] = {in->p};
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    /* ask for the dtype the header names, so that well-formed inputs read through */
    spt_dtype dt = (spt_dtype)(len > 6 ? in->p[6] % SPT_NUM_DTYPES : 0);
    spt_status st = spt_unpack_sparse(bufs, &len, 0, NULL, dt, &out);
    fz_op_end();
    fz_finish_tensor("spt_unpack_sparse", st, out, false);
}

/* Every input's second byte picks the action (modulo the table's length): append, never reorder. */
static const fz_action actions[] = {
    {"serialize", FZ_OP(spt_pack_sparse), do_serialize, false},
    {"serialize_or_raw_bytes", FZ_OP(spt_unpack_sparse), do_serialize, false},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    uint8_t flags = fz_u8(&in);
    if (a->op == FZ_OP(spt_unpack_sparse) && (flags & 1)) return do_raw_bytes(&in), 0;
    fz_tspec spec = {.dtype = -1, .rank = -1, .no_huge_dims = true};
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
