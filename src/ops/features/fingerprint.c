/* SPDX-License-Identifier: Apache-2.0 */
/* fingerprint.c -- FarmHash's 64-bit fingerprint (the "na" variant that TensorFlow's Fingerprint64
 * uses) and TensorFlow's FingerprintCat64, written from their published definitions (Google's FarmHash,
 * MIT licence; tensorflow/core/platform/fingerprint.h). Bytes are read little-endian whatever the host,
 * so the values are the same everywhere. */
#include "core/internal.h"

static const uint64_t K0 = 0xc3a5c85c97cb3127ull;
static const uint64_t K1 = 0xb492b66fbe98f273ull;
static const uint64_t K2 = 0x9ae16a3b2f90404full;

static inline uint64_t load64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint64_t load32(const unsigned char *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}
static inline uint64_t rotr(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
static inline uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

static inline uint64_t mix16(uint64_t u, uint64_t v, uint64_t mul) {
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t len_0_to_16(const unsigned char *s, size_t len) {
    if (len >= 8) {
        uint64_t mul = K2 + len * 2, a = load64(s) + K2, b = load64(s + len - 8);
        uint64_t c = rotr(b, 37) * mul + a, d = (rotr(a, 25) + b) * mul;
        return mix16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = K2 + len * 2, a = load32(s);
        return mix16(len + (a << 3), load32(s + len - 4), mul);
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix((uint64_t)y * K2 ^ (uint64_t)z * K0) * K2;
    }
    return K2;
}

static uint64_t len_17_to_32(const unsigned char *s, size_t len) {
    uint64_t mul = K2 + len * 2, a = load64(s) * K1, b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * K2;
    return mix16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + K2, 18) + c, mul);
}

static uint64_t len_33_to_64(const unsigned char *s, size_t len) {
    uint64_t mul = K2 + len * 2, a = load64(s) * K2, b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * K2;
    uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
    uint64_t z = mix16(y, a + rotr(b + K2, 18) + c, mul);
    uint64_t e = load64(s + 16) * mul, f = load64(s + 24);
    uint64_t g = (y + load64(s + len - 32)) * mul, h = (z + load64(s + len - 24)) * mul;
    return mix16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

/* Two 64-bit lanes from 32 bytes and two seeds. */
static inline void weak32(const unsigned char *s, uint64_t a, uint64_t b, uint64_t *o1, uint64_t *o2) {
    uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
    a += w;
    b = rotr(b + a + z, 21);
    uint64_t c = a;
    a += x;
    a += y;
    b += rotr(a, 44);
    *o1 = a + z;
    *o2 = b + c;
}

uint64_t spt_fingerprint64(const void *data, size_t len) {
    const unsigned char *s = data;
    if (len <= 16) return len_0_to_16(s, len);
    if (len <= 32) return len_17_to_32(s, len);
    if (len <= 64) return len_33_to_64(s, len);
    const uint64_t seed = 81;
    uint64_t x = seed, y = seed * K1 + 113, z = shift_mix(y * K2 + 113) * K2;
    uint64_t v1 = 0, v2 = 0, w1 = 0, w2 = 0;
    x = x * K2 + load64(s);
    const unsigned char *end = s + ((len - 1) / 64) * 64;
    const unsigned char *last64 = end + ((len - 1) & 63) - 63;
    do {
        x = rotr(x + y + v1 + load64(s + 8), 37) * K1;
        y = rotr(y + v2 + load64(s + 48), 42) * K1;
        x ^= w2;
        y += v1 + load64(s + 40);
        z = rotr(z + w1, 33) * K1;
        weak32(s, v2 * K1, x + w1, &v1, &v2);
        weak32(s + 32, z + w2, y + load64(s + 16), &w1, &w2);
        uint64_t t = z;
        z = x;
        x = t;
        s += 64;
    } while (s != end);
    uint64_t mul = K1 + ((z & 0xff) << 1);
    s = last64;
    w1 += (len - 1) & 63;
    v1 += w1;
    w1 += v1;
    x = rotr(x + y + v1 + load64(s + 8), 37) * mul;
    y = rotr(y + v2 + load64(s + 48), 42) * mul;
    x ^= w2 * 9;
    y += v1 * 9 + load64(s + 40);
    z = rotr(z + w1, 33) * mul;
    weak32(s, v2 * mul, x + w1, &v1, &v2);
    weak32(s + 32, z + w2, y + load64(s + 16), &w1, &w2);
    uint64_t t = z;
    z = x;
    x = t;
    return mix16(mix16(v1, w1, mul) + shift_mix(y) * K0 + z, mix16(v2, w2, mul) + x, mul);
}

uint64_t spt_fingerprint_cat64(uint64_t fp1, uint64_t fp2) {
    const uint64_t mul = 0xc6a4a7935bd1e995ull;
    uint64_t r = fp1 ^ mul;
    r ^= shift_mix(fp2 * mul) * mul;
    r *= mul;
    r = shift_mix(r) * mul;
    return shift_mix(r);
}
