/* SPDX-License-Identifier: Apache-2.0 */
/* varint.c -- packed lists of varints (tf_internal.h): counting their values and decoding them into
 * int64, the inner loop of tf.train.Example parsing (an int64_list is one packed field of varints).
 *
 * Both work on 64-byte blocks: the bytes below 0x80 (each ends one varint) of a block are found at once,
 * as one 64-bit mask (SSE2's byte sign mask where the host has it); a count is then a popcount, and a
 * decode reads each value as one 8-byte word at its start (known from the previous end) and joins its
 * 7-bit groups, so that the values do not wait on one another byte by byte. Joining uses BMI2's PEXT
 * where the processor has it and does it fast (chosen once at run time), else three mask-and-shift steps.
 * A block that ends the list is copied into a zeroed local block first: nothing past the list is read. */
#include "tf/tf_internal.h"

#include <stdatomic.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Bit k set when byte k of the 64 at p is below 0x80. */
static inline uint64_t ends64(const unsigned char *p) {
#ifdef __SSE2__
    uint64_t m = 0;
    for (int k = 0; k < 4; k++)
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k)))
             << (16 * k);
    return ~m;
#else
    uint64_t m = 0;
    for (int k = 0; k < 64; k++) m |= (uint64_t)(p[k] < 0x80) << k;
    return m;
#endif
}

/* The mask of block i (at most 64 bytes from p + i, fewer at the end of the list). */
static inline uint64_t block_ends(const unsigned char *p, size_t len, size_t i) {
    if (len - i >= 64) return ends64(p + i);
    unsigned char t[64] = {0};
    memcpy(t, p + i, len - i);
    return ends64(t) & ((UINT64_C(1) << (len - i)) - 1);
}

/* The number of bits set in m (without the popcount instruction, which x86-64's baseline lacks). */
static inline int64_t bits(uint64_t m) {
    m -= (m >> 1) & UINT64_C(0x5555555555555555);
    m = (m & UINT64_C(0x3333333333333333)) + ((m >> 2) & UINT64_C(0x3333333333333333));
    m = (m + (m >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int64_t)((m * UINT64_C(0x0101010101010101)) >> 56);
}

int64_t spt__pb_count_varints(const unsigned char *p, size_t len) {
    int64_t c = 0;
    for (size_t i = 0; i < len; i += 64) c += bits(block_ends(p, len, i));
    return c;
}

/* The varint of exactly n bytes at p (its last byte the only one below 0x80), or false when it holds more
 * than 64 bits (an eleventh byte, or a tenth above 1). */
static inline bool varint_n(const unsigned char *p, size_t n, uint64_t *v) {
    if (n > 10 || (n == 10 && p[9] > 1)) return false;
    uint64_t x = 0;
    for (size_t k = 0; k < n; k++) x |= (uint64_t)(p[k] & 0x7f) << (7 * k);
    *v = x;
    return true;
}

/* Whether an 8-byte word read from memory holds its bytes in little-endian order (the word-at-a-time
 * decode needs it; elsewhere every value is read byte by byte). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define UNPACK_LE 1
#else
#define UNPACK_LE 0
#endif

/* The value of a varint of at most 8 bytes held in the low bytes of w (little-endian), the bytes above it
 * and the continuation bits cleared: its 7-bit groups joined by three mask-and-shift steps. */
static inline uint64_t join7(uint64_t w) {
    w = (w & UINT64_C(0x007f007f007f007f)) | ((w & UINT64_C(0x7f007f007f007f00)) >> 1);
    w = (w & UINT64_C(0x00003fff00003fff)) | ((w & UINT64_C(0x3fff00003fff0000)) >> 2);
    return (w & UINT64_C(0x000000000fffffff)) | ((w & UINT64_C(0x0fffffff00000000)) >> 4);
}

#define UNPACK_ATTR
#define UNPACK_NAME unpack_shift
#define UNPACK_JOIN(w, n) join7((w) & (~UINT64_C(0) >> (64 - 8 * (n))) & UINT64_C(0x7f7f7f7f7f7f7f7f))
#include "tf/template/unpack_int64.c"
#undef UNPACK_ATTR
#undef UNPACK_NAME
#undef UNPACK_JOIN

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) &&                     \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SPT__HAVE_PEXT 1
#include <immintrin.h>
#define UNPACK_ATTR __attribute__((target("bmi2")))
#define UNPACK_NAME unpack_pext
#define UNPACK_JOIN(w, n) _pext_u64((w), _bzhi_u64(UINT64_C(0x7f7f7f7f7f7f7f7f), (unsigned)(8 * (n))))
#include "tf/template/unpack_int64.c"
#undef UNPACK_ATTR
#undef UNPACK_NAME
#undef UNPACK_JOIN
/* PEXT where it is one fast instruction: not on AMD's processors before Zen 3 (family 0x19), which run it
 * as a long microcoded sequence. */
static bool pext_fast(void) {
    static atomic_int known; /* 0 unknown, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h") && !__builtin_cpu_is("amdfam15h") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

bool spt__pb_unpack_int64(const unsigned char *p, size_t len, int64_t *o) {
#if defined(SPT__HAVE_PEXT) && !defined(SPT__NO_PEXT)
    if (pext_fast()) return unpack_pext(p, len, o);
#endif
    return unpack_shift(p, len, o);
}
