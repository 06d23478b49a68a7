/* SPDX-License-Identifier: Apache-2.0 */
/* tf_internal.h -- TensorFlow's byte formats without TensorFlow: a reader and writer of the protocol
 * buffer wire format (pb.c), TensorProto (tensor_proto.c), CRC-32C (crc32c.c), TFRecord framing
 * (tfrecord.c) and tf.train.Example (example.c). Not installed.
 *
 * The wire format is decoded by hand rather than with protobuf-c: spt needs four small messages, the
 * decoder must refuse every length that runs past its message before anything is allocated, and the
 * hot path (Example parsing) reads packed lists straight into the output without building message
 * objects first. Unknown fields are skipped as protobuf does; nesting is bounded by construction
 * (each message type is read by its own function, at most four levels deep). */
#ifndef SPT_TF_INTERNAL_H
#define SPT_TF_INTERNAL_H

#include "core/internal.h"

/* ---- wire format reading (pb.c) ---------------------------------------------------------------- */

enum { SPT__PB_VARINT = 0, SPT__PB_I64 = 1, SPT__PB_LEN = 2, SPT__PB_I32 = 5 };

/* A cursor over the bytes [p, end) of one message. */
typedef struct spt__pb {
    const unsigned char *p, *end;
} spt__pb;

/* One field of a message: its number, wire type, and its payload (varint/fixed value, or the bytes of
 * a length-delimited field, already checked to lie inside the message). */
typedef struct spt__pb_field {
    uint32_t num;
    int wire;
    uint64_t v;                /* VARINT, I64, I32 */
    const unsigned char *data; /* LEN */
    size_t len;                /* LEN */
} spt__pb_field;

/* Read a varint (at most 10 bytes); false when truncated or too long. */
static inline bool spt__pb_varint(spt__pb *r, uint64_t *v) {
    const unsigned char *p = r->p;
    if (p < r->end && *p < 0x80) { /* the common one-byte case */
        *v = *p;
        r->p = p + 1;
        return true;
    }
    uint64_t x = 0;
    for (int s = 0; s < 70 && p < r->end; s += 7) {
        unsigned char b = *p++;
        if (s == 63 && b > 1) return false; /* the tenth byte holds one bit */
        x |= (uint64_t)(b & 0x7f) << s;
        if (b < 0x80) {
            *v = x;
            r->p = p;
            return true;
        }
    }
    return false;
}
/* The next field; 0 at the end of the message, 1 for a field, -1 for malformed bytes (*why names the
 * fault: "truncated varint", "length runs past the end", "bad wire type", "field number 0"). Every length
 * is checked against what is left of the message. */
int spt__pb_next_general(spt__pb *r, spt__pb_field *f, const char **why);
static inline int spt__pb_next(spt__pb *r, spt__pb_field *f, const char **why) {
    if (r->p >= r->end) return 0;
    { /* the common case first: a length-delimited field of a one-byte key and a length of 1 or 2 bytes that
       * fits in what is left (anything else, valid or not, takes the general path below) */
        const unsigned char *p = r->p;
        const size_t left = (size_t)(r->end - p);
        if (left >= 3 && p[0] < 0x80 && (p[0] & 7) == SPT__PB_LEN && p[0] >= 8) {
            size_t n = p[1], h = 2;
            if (n >= 0x80) n = (n & 0x7f) | (size_t)p[2] << 7, h = 3;
            if (p[h - 1] < 0x80 && n <= left - h) {
                f->num = (uint32_t)(p[0] >> 3);
                f->wire = SPT__PB_LEN;
                f->data = p + h;
                f->len = n;
                r->p = p + h + n;
                return 1;
            }
        }
    }
    return spt__pb_next_general(r, f, why);
}

/* ---- packed varint lists (varint.c) ---------------------------------------------------------- */

/* The number of varints in the len bytes at p (the bytes below 0x80: each ends one). */
int64_t spt__pb_count_varints(const unsigned char *p, size_t len);
/* Decode the varints of a packed list (len bytes at p, nothing past them read) into o, which has room for
 * spt__pb_count_varints of them; false when one is longer than 64 bits or the last is cut off. */
bool spt__pb_unpack_int64(const unsigned char *p, size_t len, int64_t *o);

/* ---- wire format writing (pb.c) ---------------------------------------------------------------- */

/* A growing byte buffer; every append reports allocation failure through `ok`. */
typedef struct spt__buf {
    unsigned char *b;
    size_t len, cap;
    bool ok;
} spt__buf;

bool spt__buf_reserve(spt__buf *w, size_t more);
void spt__buf_bytes(spt__buf *w, const void *p, size_t n);
void spt__buf_varint(spt__buf *w, uint64_t v);
void spt__buf_tag(spt__buf *w, uint32_t num, int wire);
size_t spt__varint_size(uint64_t v);

/* ---- TensorProto (tensor_proto.c) -------------------------------------------------------------- */

/* TensorFlow's DataType number of an spt dtype (DT_BOOL 10, DT_INT64 9, ...). */
int spt__tf_dtype_code(spt_dtype d);
/* TensorFlow's name of a DataType number ("int64", "float", "half", ...; "DT_<n>" when unknown; buf holds
 * at least 24 bytes). */
const char *spt__tf_dtype_name(int code, char *buf);

/* Append the TensorProto TensorFlow writes for an array (Tensor::AsProtoTensorContent): the dtype, the
 * shape (every dim as a message, a zero dim as an empty one) and the elements as tensor_content (strings:
 * the varint lengths then the bytes). `pick` (NULL: 0..n) selects the n elements of `values` (strings:
 * spt_str; bool one byte each). */
void spt__tensor_proto_put(spt__buf *w, spt_dtype dt, int64_t rank, const int64_t *shape, const void *values,
                           const int64_t *pick, int64_t n);
/* Append the TensorProto of an int64 [n, r] matrix whose rows are rows[k] + skip .. + r (k picked by pick
 * or 0..n), elements from the index rows of a tensor of rank `stride`. */
void spt__tensor_proto_put_index(spt__buf *w, const int64_t *indices, int64_t stride, int64_t skip, int64_t r,
                                 const int64_t *pick, int64_t n);

/* A decoded TensorProto. data holds n elements in spt's layout (strings: spt_str pointing into the input
 * bytes, which must outlive it); owned, free with spt__tproto_free. */
typedef struct spt__tproto {
    int code; /* TensorFlow's DataType */
    spt_dtype dtype;
    int64_t rank;
    int64_t shape[SPT_MAX_RANK];
    int64_t n;
    void *data;
} spt__tproto;

/* Decode TensorProto bytes as TensorFlow's Tensor::FromProto does (tensor_content of exactly n elements,
 * or the typed fields, fewer values than n repeating the last and none meaning zeros, an expansion
 * bounded by SPT__TPROTO_FILL_MAX elements). Errors name fn and `what` (e.g. "serialized[2][0]"):
 * SPT_EPARSE for malformed bytes, SPT_EDTYPE for a DataType spt has not (half, bfloat16, ...). */
#define SPT__TPROTO_FILL_MAX (INT64_C(1) << 24)
spt_status spt__tproto_decode(const char *fn, const char *what, const void *bytes, size_t len, spt__tproto *out);
void spt__tproto_free(spt__tproto *t);

/* ---- CRC-32C (crc32c.c) ------------------------------------------------------------------------ */

uint32_t spt__crc32c(uint32_t crc, const void *data, size_t n);
/* TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8 of the CRC-32C of the bytes. */
static inline uint32_t spt__crc32c_masked(const void *data, size_t n) {
    uint32_t c = spt__crc32c(0, data, n);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

#endif
