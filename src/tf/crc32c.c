/* SPDX-License-Identifier: Apache-2.0 */
/* crc32c.c -- CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the checksum of TFRecord framing:
 * the SSE4.2 crc32 instruction when the CPU has it (checked once at run time), else eight tables of 256
 * entries (slicing by 8) built on first use. */
#include "tf/tf_internal.h"

static uint32_t table[8][256];
static atomic_int table_ready;

static void build_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 8; s++) table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xff];
    atomic_store_explicit(&table_ready, 1, memory_order_release);
}

static uint32_t crc_sw(uint32_t c, const unsigned char *p, size_t n) {
    if (!atomic_load_explicit(&table_ready, memory_order_acquire)) build_table(); /* idempotent: same values */
    while (n >= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
            table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const unsigned char *p, size_t n) {
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c64 = __builtin_ia32_crc32di(c64, v);
        p += 8;
        n -= 8;
    }
    c = (uint32_t)c64;
    while (n--) c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}
static int have_hw(void) {
    static atomic_int known; /* 0 unknown, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("sse4.2") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

uint32_t spt__crc32c(uint32_t crc, const void *data, size_t n) {
    uint32_t c = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (have_hw()) return ~crc_hw(c, data, n);
#endif
    return ~crc_sw(c, data, n);
}
