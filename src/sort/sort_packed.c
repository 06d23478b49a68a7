/* SPDX-License-Identifier: Apache-2.0 */
/* sort_packed.c -- the fast reorder: when the dims' bit widths fit in 64, each index gets its own
 * bit field of one 64-bit key, so the sorted keys decode back into the indices. Two-word keys of up to
 * 64 + 11 bits (large inputs) the same way: the top digit is the bucket, the word below it is sorted. */
#include "sort/sort_internal.h"
#include "sort/msd.h"

#include "core/stream.h"

/* ---- the fast path: bit-packed keys, 8-byte payloads carried through the sort ------------------ */

/* The top digit of the hybrid sort (MSD scatter into about 4k entries per bucket) for n entries. */
static int hybrid_digit(int64_t n, int bits) {
    int lg = 63 - __builtin_clzll((uint64_t)n); /* floor(log2 n), n >= 2 */
    int msd = lg - 12;
    if (msd > FAST_MAX_DIGIT) msd = FAST_MAX_DIGIT;
    if (msd < 4) msd = 4;
    if (msd > bits - 1) msd = bits - 1;
    return msd;
}

bool spt__make_packing(const spt_tensor *t, const int64_t *order, packing *pk) {
    const int64_t r = t->rank;
    int w[SPT_MAX_RANK], total = 0;
    pk->r = r;
    for (int64_t k = 0; k < r; k++) {
        pk->ord[k] = order ? order[k] : k;
        int64_t dim = t->shape[pk->ord[k]];
        w[k] = dim > 1 ? 64 - __builtin_clzll((uint64_t)(dim - 1)) : 0;
        total += w[k];
        if (total > 128) return false;
    }
    pk->msd = 0;
    if (total > 64) {
        /* two-word keys: only the hybrid sort, with a top digit wide enough that the bits below it
         * fit in one word (the digit is the bucket, so the word and the bucket hold the whole key) */
        if (t->nnz < PACKED128_MIN_N) return false;
        int msd = hybrid_digit(t->nnz, total);
        if (total - msd > 64) msd = total - 64;
        if (msd > FAST_MAX_DIGIT) return false;
        pk->msd = msd;
    }
    int sh = 0;
    for (int64_t k = r - 1; k >= 0; k--) {
        /* a dim of size <= 1 has no bits (its index is 0): shift 0, never 64 when the others fill the key */
        pk->shift[k] = w[k] ? sh : 0;
        pk->mask[k] = w[k] == 64 ? ~0ull : (1ull << w[k]) - 1;
        sh += w[k];
    }
    pk->bits = total;
    return true;
}

#define BUCKET_TOP_MIN 256 /* two-word buckets up to this size: spt__bucket_sort directly */
#define WC_N 8             /* entries per write-combining buffer: one 64-byte line of keys, one of payloads */

static int64_t chunk_lo(const radix_plan *rp, int64_t c) { return c * rp->chunk; }
static int64_t chunk_hi(const radix_plan *rp, int64_t c) {
    int64_t hi = (c + 1) * rp->chunk;
    return hi < rp->n ? hi : rp->n;
}

/* The packed key of one index row (known to lie inside the shape). */
static inline uint64_t pack_row(const packing *pk, const int64_t *row) {
    uint64_t key = 0;
    for (int64_t k = 0; k < pk->r; k++) key |= (uint64_t)row[pk->ord[k]] << pk->shift[k];
    return key;
}

/* The packed key of row (rank R, dims in ord, shifts sft) with its bounds check ORed into *bad. */
static inline __attribute__((always_inline)) uint64_t key_checked(const int64_t *row, const int64_t *ord,
                                                                  const int *sft, const int64_t *dim, const int64_t R,
                                                                  uint64_t *bad) {
    uint64_t key = 0, b = 0;
#pragma GCC unroll 4
    for (int64_t k = 0; k < R; k++) {
        const uint64_t x = (uint64_t)row[ord[k]];
        b |= (uint64_t)(x >= (uint64_t)dim[k]);
        key |= x << sft[k];
    }
    *bad |= b;
    return key;
}

/* One chunk [lo, hi) of packed_keys with one digit pass (the hybrid sort's top digit, or a single LSD
 * digit) and rank R: the key's fields from locals, the bounds check as an OR of flags (no branch per index),
 * the digit counted in h. The sortedness facts are counted until the chunk's first descent: after it the
 * input is unsorted and they are not used (*repeated matters only for a sorted input). Returns false
 * when an index is out of bounds (the caller finds which). */
static inline __attribute__((always_inline)) bool keys_chunk1(const packing *pk, const int64_t *ix, const int64_t *sh,
                                                              int64_t lo, int64_t hi, const int64_t R, bool check,
                                                              uint64_t *keys, bool nt, int64_t *h, int shift0,
                                                              uint64_t dmask, int64_t *unsorted, int64_t *repeated) {
    int64_t ord[SPT_MAX_RANK], dim[SPT_MAX_RANK];
    int sft[SPT_MAX_RANK];
    for (int64_t k = 0; k < R; k++) ord[k] = pk->ord[k], sft[k] = pk->shift[k], dim[k] = sh[pk->ord[k]];
    uint64_t prev = 0, bad = 0;
    int64_t uns = 0, rep = 0, i = lo;
    for (; i < hi && uns == 0; i++) {
        const uint64_t key = key_checked(ix + i * R, ord, sft, dim, R, &bad);
        if (keys && !nt) keys[i] = key;
        uns += prev > key; /* prev starts at 0: never counted for the first entry */
        rep += prev == key;
        prev = key;
        h[(key >> shift0) & dmask]++;
    }
    /* nt (keys for the scatter): none are stored while the chunk may be sorted (a sorted input needs
     * none); after its first descent, those of the entries before it, then every one */
    for (int64_t j = lo; keys && nt && uns && j < i; j++) spt__stream_put64(keys + j, pack_row(pk, ix + j * R));
    for (; i < hi; i++) {
        const uint64_t key = key_checked(ix + i * R, ord, sft, dim, R, &bad);
        if (keys && nt) spt__stream_put64(keys + i, key);
        else if (keys) keys[i] = key;
        h[(key >> shift0) & dmask]++;
    }
    if (nt) spt__stream_fence();
    if (hi > lo) { /* the first entry was compared with 0: take back that repeat */
        uint64_t k0 = 0;
        for (int64_t k = 0; k < R; k++) k0 |= (uint64_t)ix[lo * R + ord[k]] << sft[k];
        rep -= k0 == 0;
    }
    *unsorted += uns;
    *repeated += rep;
    return !(check && bad);
}

/* keys_chunk1 with the rank a constant for ranks 2 and 3. */
static bool keys_chunk1_r(const packing *pk, const int64_t *ix, const int64_t *sh, int64_t lo, int64_t hi, bool check,
                          uint64_t *keys, bool nt, int64_t *h, int shift0, uint64_t dmask, int64_t *unsorted,
                          int64_t *repeated) {
    if (pk->r == 3 && nt)
        return keys_chunk1(pk, ix, sh, lo, hi, 3, check, keys, true, h, shift0, dmask, unsorted, repeated);
    if (pk->r == 3) return keys_chunk1(pk, ix, sh, lo, hi, 3, check, keys, false, h, shift0, dmask, unsorted, repeated);
    if (pk->r == 2 && nt)
        return keys_chunk1(pk, ix, sh, lo, hi, 2, check, keys, true, h, shift0, dmask, unsorted, repeated);
    if (pk->r == 2) return keys_chunk1(pk, ix, sh, lo, hi, 2, check, keys, false, h, shift0, dmask, unsorted, repeated);
    return keys_chunk1(pk, ix, sh, lo, hi, pk->r, check, keys, nt, h, shift0, dmask, unsorted, repeated);
}

/* Packed keys of every entry (stored when keys != NULL) with the bounds check (unless known valid), the sortedness facts and the
 * per-chunk digit histograms hist[pass][chunk][bucket], in one read of the indices. */
static spt_status packed_keys(const char *fn, const spt_tensor *t, const packing *pk, const radix_plan *rp,
                              uint64_t *keys, bool nt, uint64_t *kmask, int64_t *hist, bool *sorted, bool *unique) {
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices, *sh = t->shape;
    const bool check = !(t->flags & SPT__F_VALID);
    const int64_t nb = (int64_t)1 << rp->digit;
    const uint64_t dmask = (uint64_t)nb - 1;
    int64_t first_bad = INT64_MAX, unsorted = 0, repeated = 0;
    uint64_t km = 0;
    int nth SPT__OMP_VAR = spt__threads_for(n * (r + nt));
#pragma omp parallel for schedule(static, 1) num_threads(nth) reduction(min : first_bad) reduction(+ : unsorted, repeated) reduction(| : km)
    for (int64_t c = 0; c < rp->chunks; c++) {
        int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
        if (rp->passes == 1 && lo < hi) { /* the common case; a chunk with a bad index is read again below */
            int64_t u1 = 0, r1 = 0;
            if (keys_chunk1_r(pk, ix, sh, lo, hi, check, keys, nt, hist + c * nb, rp->shift0, dmask, &u1, &r1)) {
                unsorted += u1;
                repeated += r1;
                if (nt && u1) km |= 1ull << c; /* the chunk's keys stored */
                continue;
            }
            memset(hist + c * nb, 0, (size_t)nb * sizeof *hist); /* the loop below counts it again */
        }
        uint64_t prev = 0;
        for (int64_t i = lo; i < hi; i++) {
            const int64_t *row = ix + i * r;
            uint64_t key = 0;
            for (int64_t k = 0; k < r; k++) {
                int64_t d = pk->ord[k];
                if (check && (uint64_t)row[d] >= (uint64_t)sh[d]) {
                    if (i < first_bad) first_bad = i;
                    key = 0;
                    break;
                }
                key |= (uint64_t)row[d] << pk->shift[k];
            }
            if (keys) keys[i] = key;
            if (i > lo) {
                unsorted += prev > key;
                repeated += prev == key;
            }
            prev = key;
            for (int p = 0; p < rp->passes; p++)
                hist[((int64_t)p * rp->chunks + c) * nb + (int64_t)((key >> (rp->shift0 + p * rp->digit)) & dmask)]++;
        }
    }
    if (first_bad != INT64_MAX) return spt__oob_error(fn, t, first_bad, sh);
    for (int64_t c = 1; c < rp->chunks; c++) {
        int64_t lo = chunk_lo(rp, c);
        if (lo >= n || lo == 0) continue;
        uint64_t a = pack_row(pk, ix + (lo - 1) * r), b = pack_row(pk, ix + lo * r);
        unsorted += a > b;
        repeated += a == b;
    }
    if (check) spt__note_valid(t);
    *sorted = unsorted == 0;
    *unique = unsorted == 0 && repeated == 0;
    if (kmask) *kmask = km;
    return SPT_OK;
}

/* Write 8 keys and 8 payloads to 64-byte aligned lines of tk and tp (streaming stores on x86-64). */
static inline void stream_line(uint64_t *k, uint64_t *p, const uint64_t *bb) {
    spt__stream_copy8(k, bb, WC_N);
    spt__stream_copy8(p, bb + WC_N, WC_N);
}

/* Bucket wb's buffer bb after a pair was appended (f pairs now): when the bucket reaches a 64-byte line
 * of the destination, the buffer is flushed (full lines with streaming stores: no read for ownership of
 * lines about to be overwritten) and 0 is returned; otherwise f. */
static inline __attribute__((always_inline)) unsigned wc_flush(uint64_t *tk, uint64_t *tp, const uint64_t *bb,
                                                               int64_t *off, int64_t wb, unsigned f) {
    int64_t pos = off[wb];
    if (f != WC_N && (((uintptr_t)(tk + pos + f)) & 63) != 0) return f;
    if (f == WC_N && (((uintptr_t)(tk + pos)) & 63) == 0) stream_line(tk + pos, tp + pos, bb);
    else {
        memcpy(tk + pos, bb, f * sizeof *bb);
        memcpy(tp + pos, bb + WC_N, f * sizeof *bb);
    }
    off[wb] = pos + f;
    return 0;
}

/* Append (k_, p_) to bucket b_ through its write-combining buffer (the scatter loops' buf, fill, off,
 * tk, tp). A macro over the scatter loops' locals, so that the 64-bit scatter compiles as it did when
 * this was written inline there. */
#define WC_PUT(b_, k_, p_)                                                                                             \
    do {                                                                                                               \
        const int64_t wb_ = (b_);                                                                                      \
        uint64_t *bb_ = buf + wb_ * 2 * WC_N;                                                                          \
        unsigned f_ = fill[wb_];                                                                                       \
        bb_[f_] = (k_);                                                                                                \
        bb_[WC_N + f_] = (p_);                                                                                         \
        fill[wb_] = (unsigned char)wc_flush(tk, tp, bb_, off, wb_, f_ + 1);                                            \
    } while (0)

/* The pairs left in the write-combining buffers of nb buckets, then a fence so that the streaming
 * stores are visible before the buckets are read. */
static inline void wc_drain(uint64_t *tk, uint64_t *tp, const uint64_t *buf, const unsigned char *fill, int64_t *off,
                            int64_t nb) {
    for (int64_t b = 0; b < nb; b++) {
        unsigned f = fill[b];
        const uint64_t *bb = buf + b * 2 * WC_N;
        memcpy(tk + off[b], bb, f * sizeof *bb);
        memcpy(tp + off[b], bb + WC_N, f * sizeof *bb);
        off[b] += f;
    }
    spt__stream_fence();
}

/* The MSD scatter of the hybrid sort: each entry's key is read from keys (for the chunks c whose bit is
 * set in kmask: packed_keys stored them) or packed again from the index rows (checked by packed_keys),
 * and (key, payload) goes to its top-digit bucket in (tk, tp),
 * through software write-combining buffers (8 keys and 8 payloads per bucket, written 64 bytes at a
 * time). hist[chunk][bucket] holds the chunk's counts and becomes its write offsets. Stable. */
static void msd_from_indices(const radix_plan *rp, const packing *pk, const int64_t *ix, const uint64_t *keys,
                             uint64_t kmask, const uint64_t *pay, int64_t *hist, uint64_t *tk, uint64_t *tp,
                             uint64_t *wc) {
    const int64_t nb = (int64_t)1 << rp->digit, C = rp->chunks, r = pk->r;
    const int shift = rp->shift0;
    spt__scan_histograms(hist, C, nb, NULL);
    int nth = spt__threads_for(rp->n * (keys ? 4 : r + 3)); /* words read and written */
    if (nth > C) nth = (int)C;
    const int64_t o0 = pk->ord[0], o1 = r > 1 ? pk->ord[1] : 0, o2 = r > 2 ? pk->ord[2] : 0;
    const int s0 = pk->shift[0], s1 = r > 1 ? pk->shift[1] : 0, s2 = r > 2 ? pk->shift[2] : 0;
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int64_t c = 0; c < C; c++) {
        int64_t *off = hist + c * nb;
        const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
        uint64_t *buf = wc + c * nb * 2 * WC_N;
        unsigned char fill[1 << FAST_MAX_DIGIT];
        memset(fill, 0, (size_t)nb);
        if (keys && (kmask >> c & 1)) {
            for (int64_t i = lo; i < hi; i++) {
                const uint64_t k = keys[i];
                WC_PUT((int64_t)(k >> shift), k, pay[i]);
            }
        } else {
            for (int64_t i = lo; i < hi; i++) {
                const int64_t *row = ix + i * r;
                uint64_t k;
                if (r == 3) k = (uint64_t)row[o0] << s0 | (uint64_t)row[o1] << s1 | (uint64_t)row[o2] << s2;
                else if (r == 2) k = (uint64_t)row[o0] << s0 | (uint64_t)row[o1] << s1;
                else k = pack_row(pk, row);
                WC_PUT((int64_t)(k >> shift), k, pay[i]);
            }
        }
        wc_drain(tk, tp, buf, fill, off, nb);
    }
}

/* Stable LSD passes over (keys, pay) with the scratch (tk, tp); returns 1 when the result ended in the
 * scratch buffers, 0 when in (keys, pay). */
static int lsd_passes(const radix_plan *rp, int64_t *hist, uint64_t *keys, uint64_t *pay, uint64_t *tk, uint64_t *tp) {
    const int64_t n = rp->n, nb = (int64_t)1 << rp->digit, C = rp->chunks;
    const uint64_t dmask = (uint64_t)nb - 1;
    uint64_t *sk = keys, *sp = pay, *dk = tk, *dp = tp;
    int in_scratch = 0;
    int nth = spt__threads_for(n);
    if (nth > C) nth = (int)C;
    bool moved = false;
    for (int p = 0; p < rp->passes; p++) {
        int64_t *h = hist + (int64_t)p * C * nb;
        const int shift = rp->shift0 + p * rp->digit;
        if (moved && C > 1) { /* the chunks now hold other entries: count this digit again per chunk */
            memset(h, 0, sizeof(int64_t) * (size_t)(C * nb));
#pragma omp parallel for schedule(static, 1) num_threads(nth)
            for (int64_t c = 0; c < C; c++) {
                int64_t *hc = h + c * nb;
                const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
                for (int64_t i = lo; i < hi; i++) hc[(sk[i] >> shift) & dmask]++;
            }
        }
        bool constant = false;
        for (int64_t b = 0; b < nb && !constant; b++) {
            int64_t tot = 0;
            for (int64_t c = 0; c < C; c++) tot += h[c * nb + b];
            if (tot == n) constant = true;
            else if (tot) break;
        }
        if (constant) continue;
        spt__scan_histograms(h, C, nb, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int64_t c = 0; c < C; c++) {
            int64_t *off = h + c * nb;
            const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
            for (int64_t i = lo; i < hi; i++) {
                uint64_t k = sk[i];
                int64_t pos = off[(k >> shift) & dmask]++;
                dk[pos] = k;
                dp[pos] = sp[i];
            }
        }
        uint64_t *x = sk;
        sk = dk;
        dk = x;
        x = sp;
        sp = dp;
        dp = x;
        in_scratch ^= 1;
        moved = true;
    }
    return in_scratch;
}
/* One decoded index: an ordinary store, or with `nt` a streaming one (core/stream.h; the caller
 * fences). */
static inline void put_index(int64_t *p, uint64_t v, bool nt) {
    if (nt) spt__stream_put64(p, v);
    else *p = (int64_t)v;
}

/* The m sorted keys back into index rows (`nt`: streaming stores, see put_index); with pin, the payload
 * pin[0, m) is stored to pout in the same loop (streaming when nt). Returns how many keys equal the one
 * before them. */
static inline int64_t decode_span(const packing *pk, const uint64_t *keys, int64_t *ix, int64_t m, bool nt,
                                  const uint64_t *pin, uint64_t *pout) {
    const int64_t r = pk->r;
    int64_t rep = 0;
    uint64_t prev = m > 0 ? ~keys[0] : 0; /* differs from the first key */
    if (r == 3) {
        const int64_t d0 = pk->ord[0], d1 = pk->ord[1], d2 = pk->ord[2];
        const int s0 = pk->shift[0], s1 = pk->shift[1], s2 = pk->shift[2];
        const uint64_t m0 = pk->mask[0], m1 = pk->mask[1], m2 = pk->mask[2];
        for (int64_t i = 0; i < m; i++) {
            uint64_t k = keys[i];
            int64_t *row = ix + i * 3;
            put_index(row + d0, (k >> s0) & m0, nt);
            put_index(row + d1, (k >> s1) & m1, nt);
            put_index(row + d2, (k >> s2) & m2, nt);
            if (pin) put_index((int64_t *)pout + i, pin[i], nt);
            rep += k == prev;
            prev = k;
        }
    } else if (r == 2) {
        const int64_t d0 = pk->ord[0], d1 = pk->ord[1];
        const int s0 = pk->shift[0], s1 = pk->shift[1];
        const uint64_t m0 = pk->mask[0], m1 = pk->mask[1];
        for (int64_t i = 0; i < m; i++) {
            uint64_t k = keys[i];
            int64_t *row = ix + i * 2;
            put_index(row + d0, (k >> s0) & m0, nt);
            put_index(row + d1, (k >> s1) & m1, nt);
            if (pin) put_index((int64_t *)pout + i, pin[i], nt);
            rep += k == prev;
            prev = k;
        }
    } else {
        for (int64_t i = 0; i < m; i++) {
            uint64_t k = keys[i];
            int64_t *row = ix + i * r;
            for (int64_t j = 0; j < r; j++) put_index(row + pk->ord[j], (k >> pk->shift[j]) & pk->mask[j], nt);
            if (pin) put_index((int64_t *)pout + i, pin[i], nt);
            rep += k == prev;
            prev = k;
        }
    }
    return rep;
}

/* decode_span over all n keys, in parallel blocks. */
static void decode_keys(const packing *pk, const uint64_t *keys, int64_t *ix, int64_t n) {
    const int64_t B = 65536, nblk = (n + B - 1) / B;
    int nth SPT__OMP_VAR = spt__threads_for(n * pk->r);
#pragma omp parallel for schedule(static) num_threads(nth)
    for (int64_t b = 0; b < nblk; b++) {
        int64_t lo = b * B, m = lo + B < n ? B : n - lo;
        (void)decode_span(pk, keys + lo, ix + lo * pk->r, m, false, NULL, NULL);
    }
}

/* ---- two-word keys (64 < bits <= 64 + msd): the top digit is the bucket, the word below it is sorted -- */

/* A two-word key is handled as its top digit (bucket = key >> rem, rem = bits - msd) and its low word
 * (key mod 2^rem, rem <= 64), each an OR of 64-bit shifts of the indices: index x of component k puts
 * (x << sl) & sm into the word and (x >> br) << bl into the bucket (x < 2^63, so x >> 63 is 0 for a
 * component wholly in the word). Decoding: x = ((word >> sl) & dm | (bucket << dl) >> dr) & mask. */
typedef struct split2 {
    int64_t r, ord[SPT_MAX_RANK];
    int rem, sl[SPT_MAX_RANK], br[SPT_MAX_RANK], bl[SPT_MAX_RANK], dl[SPT_MAX_RANK], dr[SPT_MAX_RANK];
    uint64_t sm[SPT_MAX_RANK], dm[SPT_MAX_RANK], mask[SPT_MAX_RANK];
} split2;

static void split_init(const packing *pk, split2 *sp) {
    const int rem = pk->bits - pk->msd;
    const uint64_t low = rem == 64 ? ~0ull : (1ull << rem) - 1;
    sp->r = pk->r;
    sp->rem = rem;
    for (int64_t k = 0; k < pk->r; k++) {
        const int s = pk->shift[k], w = pk->mask[k] ? 64 - __builtin_clzll(pk->mask[k]) : 0;
        sp->ord[k] = pk->ord[k];
        sp->mask[k] = pk->mask[k];
        if (s >= rem) { /* wholly in the bucket */
            sp->sl[k] = 0, sp->sm[k] = 0, sp->br[k] = 0, sp->bl[k] = s - rem;
            sp->dm[k] = 0, sp->dl[k] = 0, sp->dr[k] = s - rem;
        } else if (s + w <= rem) { /* wholly in the word */
            sp->sl[k] = s, sp->sm[k] = low, sp->br[k] = 63, sp->bl[k] = 0;
            sp->dm[k] = ~0ull, sp->dl[k] = 0, sp->dr[k] = 63;
        } else { /* across: the low rem - s bits in the word, the rest in the bucket */
            sp->sl[k] = s, sp->sm[k] = low, sp->br[k] = rem - s, sp->bl[k] = 0;
            sp->dm[k] = ~0ull, sp->dl[k] = rem - s, sp->dr[k] = 0;
        }
    }
}

static inline uint64_t split_word(const split2 *sp, int64_t k, uint64_t x) { return (x << sp->sl[k]) & sp->sm[k]; }
static inline uint64_t split_bucket(const split2 *sp, int64_t k, uint64_t x) { return (x >> sp->br[k]) << sp->bl[k]; }

/* The (bucket, word) of one index row (known to lie inside the shape). */
static inline uint64_t split_row(const split2 *sp, const int64_t *row, uint64_t *bucket) {
    uint64_t w = 0, b = 0;
    for (int64_t k = 0; k < sp->r; k++) {
        uint64_t x = (uint64_t)row[sp->ord[k]];
        w |= split_word(sp, k, x);
        b |= split_bucket(sp, k, x);
    }
    *bucket = b;
    return w;
}

/* packed_keys for two-word keys (hybrid only: the keys are not stored, the one digit counted is the
 * top one, rp->shift0 = rem). */
static spt_status packed_keys128(const char *fn, const spt_tensor *t, const packing *pk, const radix_plan *rp,
                                 int64_t *hist, bool *sorted, bool *unique) {
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices, *sh = t->shape;
    const bool check = !(t->flags & SPT__F_VALID);
    const int64_t nb = (int64_t)1 << rp->digit;
    split2 sp;
    split_init(pk, &sp);
    int64_t first_bad = INT64_MAX, unsorted = 0, repeated = 0;
    int nth SPT__OMP_VAR = spt__threads_for(n * r);
#pragma omp parallel for schedule(static, 1) num_threads(nth) reduction(min : first_bad) reduction(+ : unsorted, repeated)
    for (int64_t c = 0; c < rp->chunks; c++) {
        int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c), *hc = hist + c * nb;
        uint64_t pb = 0, pw = 0;
        if (r == 3) { /* rank 3 unrolled: the check of the three indices, the word and the bucket */
            const int64_t o0 = sp.ord[0], o1 = sp.ord[1], o2 = sp.ord[2];
            const uint64_t z0 = check ? (uint64_t)sh[o0] : UINT64_MAX, z1 = check ? (uint64_t)sh[o1] : UINT64_MAX,
                           z2 = check ? (uint64_t)sh[o2] : UINT64_MAX;
            const int l0 = sp.sl[0], l1 = sp.sl[1], l2 = sp.sl[2], r0 = sp.br[0], r1 = sp.br[1], r2 = sp.br[2];
            const int b0 = sp.bl[0], b1 = sp.bl[1], b2 = sp.bl[2];
            const uint64_t m0 = sp.sm[0], m1 = sp.sm[1], m2 = sp.sm[2];
            for (int64_t i = lo; i < hi; i++) {
                const int64_t *row = ix + i * 3;
                const uint64_t x0 = (uint64_t)row[o0], x1 = (uint64_t)row[o1], x2 = (uint64_t)row[o2];
                if (x0 >= z0 || x1 >= z1 || x2 >= z2) { /* outside the shape (indices are < 2^63 then) */
                    if (i < first_bad) first_bad = i;
                    break;
                }
                const uint64_t w = ((x0 << l0) & m0) | ((x1 << l1) & m1) | ((x2 << l2) & m2);
                const uint64_t b = (x0 >> r0) << b0 | (x1 >> r1) << b1 | (x2 >> r2) << b2;
                if (i > lo) {
                    unsorted += pb > b || (pb == b && pw > w);
                    repeated += pb == b && pw == w;
                }
                pb = b;
                pw = w;
                hc[b]++;
            }
            continue;
        }
        for (int64_t i = lo; i < hi; i++) {
            const int64_t *row = ix + i * r;
            uint64_t w = 0, b = 0;
            for (int64_t k = 0; k < r; k++) {
                int64_t d = sp.ord[k];
                uint64_t x = (uint64_t)row[d];
                if (check && x >= (uint64_t)sh[d]) {
                    if (i < first_bad) first_bad = i;
                    w = b = 0;
                    break;
                }
                w |= split_word(&sp, k, x);
                b |= split_bucket(&sp, k, x);
            }
            if (i > lo) {
                unsorted += pb > b || (pb == b && pw > w);
                repeated += pb == b && pw == w;
            }
            pb = b;
            pw = w;
            hc[b]++;
        }
    }
    if (first_bad != INT64_MAX) return spt__oob_error(fn, t, first_bad, sh);
    for (int64_t c = 1; c < rp->chunks; c++) {
        int64_t lo = chunk_lo(rp, c);
        if (lo >= n || lo == 0) continue;
        uint64_t ab, bb, aw = split_row(&sp, ix + (lo - 1) * r, &ab), bw = split_row(&sp, ix + lo * r, &bb);
        unsorted += ab > bb || (ab == bb && aw > bw);
        repeated += ab == bb && aw == bw;
    }
    if (check) spt__note_valid(t);
    *sorted = unsorted == 0;
    *unique = unsorted == 0 && repeated == 0;
    return SPT_OK;
}

/* msd_from_indices for two-word keys: the bucket is the top digit, the word carried is the key's low
 * rem bits. */
static void msd128_from_indices(const radix_plan *rp, const packing *pk, const int64_t *ix, const uint64_t *pay,
                                int64_t *hist, uint64_t *tk, uint64_t *tp, uint64_t *wc) {
    const int64_t nb = (int64_t)1 << rp->digit, C = rp->chunks, r = pk->r;
    split2 sp;
    split_init(pk, &sp);
    spt__scan_histograms(hist, C, nb, NULL);
    int nth = spt__threads_for(rp->n * r);
    if (nth > C) nth = (int)C;
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int64_t c = 0; c < C; c++) {
        int64_t *off = hist + c * nb;
        const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
        uint64_t *buf = wc + c * nb * 2 * WC_N;
        unsigned char fill[1 << FAST_MAX_DIGIT];
        memset(fill, 0, (size_t)nb);
        if (r == 3) {
            const int64_t o0 = sp.ord[0], o1 = sp.ord[1], o2 = sp.ord[2];
            const int l0 = sp.sl[0], l1 = sp.sl[1], l2 = sp.sl[2], r0 = sp.br[0], r1 = sp.br[1], r2 = sp.br[2];
            const int b0 = sp.bl[0], b1 = sp.bl[1], b2 = sp.bl[2];
            const uint64_t m0 = sp.sm[0], m1 = sp.sm[1], m2 = sp.sm[2];
            for (int64_t i = lo; i < hi; i++) {
                const int64_t *row = ix + i * 3;
                const uint64_t x0 = (uint64_t)row[o0], x1 = (uint64_t)row[o1], x2 = (uint64_t)row[o2];
                const uint64_t w = ((x0 << l0) & m0) | ((x1 << l1) & m1) | ((x2 << l2) & m2);
                const uint64_t b = (x0 >> r0) << b0 | (x1 >> r1) << b1 | (x2 >> r2) << b2;
                WC_PUT((int64_t)b, w, pay[i]);
            }
        } else {
            for (int64_t i = lo; i < hi; i++) {
                uint64_t b, w = split_row(&sp, ix + i * r, &b);
                WC_PUT((int64_t)b, w, pay[i]);
            }
        }
        wc_drain(tk, tp, buf, fill, off, nb);
    }
}

/* Stable sort of one bucket of two-word keys (m pairs in k/p, the words below 2^rem, rem <= 64 -- up
 * to 58 bits for random entries of nell-1's shape, where LSD passes over every bit would be six): two
 * in-cache LSD passes over the top 2d bits of the word (about lg m + 8 bits, so that random words tie
 * there rarely), then one insertion pass by the whole word, which only moves the few tied entries.
 * Keys that crowd into equal top bits (more than 4m moves) finish with spt__bucket_sort over all rem
 * bits instead; every step is stable, so the result is the same either way.
 * h: BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT counters. Returns 0 when the result is in k/p, 1 when in sk/sp. */
static int bucket_sort_top(uint64_t *k, uint64_t *p, uint64_t *sk, uint64_t *sp, int64_t m, int rem, int64_t *h) {
    if (m <= BUCKET_TOP_MIN || rem <= 2 * BUCKET_MAX_DIGIT) return spt__bucket_sort(k, p, sk, sp, m, rem, h);
    const int lg = 64 - __builtin_clzll((uint64_t)(m - 1)); /* ceil(log2 m) */
    int d = (lg + 8 + 1) / 2;
    if (d > BUCKET_MAX_DIGIT) d = BUCKET_MAX_DIGIT;
    const int64_t nb = (int64_t)1 << d;
    const uint64_t dm = (uint64_t)nb - 1;
    const int sh[2] = {rem - 2 * d, rem - d};
    memset(h, 0, (size_t)(2 * nb) * sizeof *h);
    for (int64_t i = 0; i < m; i++) {
        const uint64_t key = k[i];
        h[(key >> sh[0]) & dm]++;
        h[nb + (int64_t)(key >> sh[1])]++;
    }
    uint64_t *a = k, *ap = p, *b = sk, *bp = sp;
    for (int q = 0; q < 2; q++) {
        int64_t *hq = h + q * nb;
        if (hq[(a[0] >> sh[q]) & dm] == m) continue; /* constant digit */
        spt__scan_exclusive(hq, nb);
        for (int64_t i = 0; i < m; i++) {
            const uint64_t key = a[i];
            const int64_t pos = hq[(key >> sh[q]) & dm]++;
            b[pos] = key;
            bp[pos] = ap[i];
        }
        uint64_t *x = a;
        a = b;
        b = x;
        x = ap;
        ap = bp;
        bp = x;
    }
    /* sorted by the top 2d bits: insertion by the whole word (stable: only strictly greater keys move) */
    int64_t moves = 0;
    for (int64_t i = 1; i < m; i++) {
        const uint64_t key = a[i];
        if (a[i - 1] <= key) continue;
        const uint64_t pay = ap[i];
        int64_t j = i;
        do {
            a[j] = a[j - 1];
            ap[j] = ap[j - 1];
            j--;
        } while (j > 0 && a[j - 1] > key);
        a[j] = key;
        ap[j] = pay;
        moves += i - j;
        if (moves > 4 * m) { /* crowded: LSD over every bit, from this (stably permuted) order */
            int w = spt__bucket_sort(a, ap, b, bp, m, rem, h);
            return (w ? b : a) != k;
        }
    }
    return a != k;
}

/* decode_span for two-word keys: the m sorted words of bucket b. */
static void decode_span128(const split2 *sp, const uint64_t *keys, uint64_t b, int64_t *ix, int64_t m) {
    const int64_t r = sp->r;
    uint64_t hb[SPT_MAX_RANK]; /* each component's bits from the bucket */
    for (int64_t k = 0; k < r; k++) hb[k] = (b << sp->dl[k]) >> sp->dr[k];
    if (r == 3) {
        const int64_t d0 = sp->ord[0], d1 = sp->ord[1], d2 = sp->ord[2];
        const int s0 = sp->sl[0], s1 = sp->sl[1], s2 = sp->sl[2];
        const uint64_t m0 = sp->dm[0], m1 = sp->dm[1], m2 = sp->dm[2];
        const uint64_t k0 = sp->mask[0], k1 = sp->mask[1], k2 = sp->mask[2];
        const uint64_t h0 = hb[0], h1 = hb[1], h2 = hb[2];
        for (int64_t i = 0; i < m; i++) {
            const uint64_t w = keys[i];
            int64_t *row = ix + i * 3;
            row[d0] = (int64_t)((((w >> s0) & m0) | h0) & k0);
            row[d1] = (int64_t)((((w >> s1) & m1) | h1) & k1);
            row[d2] = (int64_t)((((w >> s2) & m2) | h2) & k2);
        }
    } else {
        for (int64_t i = 0; i < m; i++) {
            const uint64_t w = keys[i];
            int64_t *row = ix + i * r;
            for (int64_t j = 0; j < r; j++)
                row[sp->ord[j]] = (int64_t)((((w >> sp->sl[j]) & sp->dm[j]) | hb[j]) & sp->mask[j]);
        }
    }
}

/* Reorder through packed keys. Everything is allocated before the first write to the tensor; after
 * that nothing can fail.
 * Large inputs (hybrid): one read of the indices checks them and counts the top digit; one MSD scatter
 * packs the keys again from the indices into (key, payload) pairs by top digit (about 4k entries per
 * bucket); then each bucket is sorted by the remaining bits in a per-thread scratch that stays in
 * cache (LSD; two pairs of arrays, so the bucket's lines in the scatter buffers are only read, never
 * written back to memory), decoded into the indices with its payload stored in the same loop -- so the
 * output is written once.
 * From rank 3 on, the first read also stores the keys (once the input is known unsorted) and the
 * scatter reads them instead of the rows.
 * Extra memory: 2 x 8 bytes per entry, 3 x 8 from rank 3 on (the keys; they also serve as the scratch of
 * the buckets too large for the per-thread one, which otherwise costs 8 more when some bucket is).
 * Small inputs or keys: keys array and LSD passes over it (3 x 8 bytes per entry).
 * Two-word keys (pk->bits > 64): always hybrid, with the top digit pk->msd wide enough that the word
 * carried through the scatter holds every bit below it; buckets sorted by bucket_sort_top.
 * The payload is the values themselves when they are 8 bytes wide (else the permutation, and the
 * values are gathered at the end). Both ways are stable.
 * Out of place (dst != t: a fresh owned tensor of t's dtype, shape and nnz, never strings): t is only
 * read, and the sorted entries are written straight into dst -- t is never copied first. */
/* The plan of a packed sort of n entries with nthr threads at most (the chunks: one per thread). */
static void plan_sort(radix_plan *rp, const packing *pk, int64_t n, int64_t nthr, bool two, bool hybrid) {
    rp->n = n;
    if (hybrid) {
        int msd = two ? pk->msd : hybrid_digit(n, pk->bits);
        rp->passes = 1;
        rp->digit = msd;
        rp->shift0 = pk->bits - msd;
    } else {
        rp->passes = (pk->bits + FAST_MAX_DIGIT - 1) / FAST_MAX_DIGIT;
        if (rp->passes < 1) rp->passes = 1;
        rp->digit = (pk->bits + rp->passes - 1) / rp->passes;
        if (rp->digit < 1) rp->digit = 1;
        rp->shift0 = 0;
    }
    rp->chunks = nthr > FAST_MAX_CHUNKS ? FAST_MAX_CHUNKS : nthr;
    if (rp->chunks > n) rp->chunks = n;
    rp->chunk = (n + rp->chunks - 1) / rp->chunks;
}

/* Bucket bounds from the top-digit histogram (rp->chunks x nb counts), before the scatter turns it into
 * offsets: bounds[b] is bucket b's first sorted position, bounds[nb] the total. Returns the largest bucket. */
static int64_t bucket_bounds(const radix_plan *rp, const int64_t *hist, int64_t nb, int64_t *bounds) {
    int64_t sum = 0, maxb = 0;
    for (int64_t b = 0; b < nb; b++) {
        bounds[b] = sum;
        for (int64_t c = 0; c < rp->chunks; c++) sum += hist[c * nb + b];
        if (sum - bounds[b] > maxb) maxb = sum - bounds[b];
    }
    bounds[nb] = sum;
    return maxb;
}

/* The values in sorted order into dst, from the sorted payload sp: the values themselves (direct, 8-byte
 * values; pay is dst's values) -- adopted when sp is the scratch *tp and dst owns its buffers (*tp then
 * NULL) -- or the source positions to gather t's values from, in place through *newvals (adopted when dst
 * owns its buffers: *newvals then NULL). */
static void place_values(const spt_tensor *t, spt_tensor *dst, size_t es, bool direct, const uint64_t *pay,
                         uint64_t *sp, uint64_t **tp, void **newvals) {
    const int64_t n = t->nnz;
    if (direct) {
        if (sp != pay) {
            if (dst->owns_buffers) {
                spt__free(dst->values);
                dst->values = sp;
                *tp = NULL; /* sp == tp */
            } else {
                memcpy(dst->values, sp, (size_t)n * es);
            }
        }
    } else if (dst != t) {
        spt__gather(dst->values, t->values, es, (const int64_t *)sp, n);
    } else { /* in place: dst is t */
        spt__gather(*newvals, t->values, es, (const int64_t *)sp, n);
        if (dst->owns_buffers) {
            spt__free(dst->values);
            dst->values = *newvals;
            *newvals = NULL;
        } else {
            memcpy(dst->values, *newvals, (size_t)n * es);
        }
    }
}

/* Each bucket b of [bounds[b], bounds[b+1]) after the MSD scatter into tk/tp: sorted in cache (in the
 * thread's scratch ts when it fits, scap entries, else in keys and pay at its place; at most nthr threads,
 * the count the scratch was sized for), its keys decoded into
 * dst's index rows and its payload stored in `pay` (free since the scatter), so the output is written once.
 * Returns the count of keys equal to the one before them within their bucket. */
static int64_t sort_buckets(const radix_plan *rp, const packing *pk, bool two, int64_t nb, const int64_t *bounds,
                            int64_t *bscratch, int64_t scap, int64_t nthr, uint64_t *ts, uint64_t *keys, uint64_t *pay,
                            uint64_t *tk, uint64_t *tp, spt_tensor *dst) {
    const int64_t bucket_scratch = (int64_t)BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT, r = pk->r, n = rp->n;
    int64_t repeated = 0;
    /* each bucket: sort in cache, decode its keys into the indices, store its payload in `pay`
     * (free since the scatter) -- the output is written once */
    const int rem = rp->shift0;
    split2 sp2;
    if (two) split_init(pk, &sp2);
    /* the per-thread scratch (ts, bscratch) was sized for nthr threads: the count may have changed
     * since (spt_set_num_threads from another thread), so never use more */
    /* about 4 (r + 1) words an entry: the pair read, moved by each digit pass, the row and value written */
    int nthb SPT__OMP_VAR = spt__threads_for(n * 4 * (r + 1));
    if (nthb > nthr) nthb = (int)nthr;
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthb) reduction(+ : repeated)
    for (int64_t b = 0; b < nb; b++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        int64_t lo = bounds[b], m = bounds[b + 1] - lo;
        if (m == 0) continue;
        /* in the thread's scratch: two pairs of arrays, so the bucket in tk/tp is only read (no
         * write-back of its lines to memory); a bucket too large for it sorts in keys/pay */
        const bool own = m <= scap;
        uint64_t *xk = own ? ts + (int64_t)tid * 4 * scap : keys + lo, *xp = own ? xk + scap : pay + lo;
        uint64_t *yk = own ? xk + 2 * scap : NULL, *yp = own ? xk + 3 * scap : NULL;
        int64_t *bh = bscratch + (int64_t)tid * bucket_scratch;
        int where = two ? bucket_sort_top(tk + lo, tp + lo, xk, xp, m, rem, bh)
                        : spt__bucket_sort3(tk + lo, tp + lo, xk, xp, yk, yp, m, rem, bh);
        const uint64_t *fk = where == 2 ? yk : where ? xk : tk + lo, *fp = where == 2 ? yp : where ? xp : tp + lo;
        if (two) {
            if (fp != pay + lo) spt__stream_copy8(pay + lo, fp, m);
            decode_span128(&sp2, fk, (uint64_t)b, dst->indices + lo * r, m);
            for (int64_t i = 1; i < m; i++) repeated += fk[i - 1] == fk[i];
        } else {
            repeated += decode_span(pk, fk, dst->indices + lo * r, m, true, fp != pay + lo ? fp : NULL, pay + lo);
        }
        spt__stream_fence();
    }
    return repeated;
}

spt_status spt__reorder_packed(const char *fn, const spt_tensor *t, spt_tensor *dst, const packing *pk,
                               bool *unique_out) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, r = pk->r;
    const size_t es = spt_dtype_size(t->dtype);
    const bool direct = es == 8;
    const bool two = pk->bits > 64; /* two-word keys: hybrid only (n >= PACKED128_MIN_N) */
    const bool hybrid = two || (n >= 65536 && pk->bits > 16);
    int nth = spt_get_num_threads();
    const int64_t nthr = nth < 1 ? 1 : nth;
    radix_plan rp;
    plan_sort(&rp, pk, n, nthr, two, hybrid);
    /* keyed: pass 1 stores the packed keys (streaming) and the scatter reads them instead of the index
     * rows: 8 bytes read for 8 r, at the cost of 8 more bytes an entry -- taken from rank 3 on, where
     * the input is 32 bytes an entry or more */
    const bool keyed = hybrid && !two && r >= 3;
    const int64_t nb = (int64_t)1 << rp.digit;
    /* counters: per-chunk digit histograms, bucket bounds (nb + 1), per-thread bucket-sort counters */
    const int64_t bucket_scratch = (int64_t)BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT;
    int64_t ncount = (int64_t)rp.passes * rp.chunks * nb + nb + 1 + nthr * bucket_scratch;
    const int64_t scap = hybrid ? 4 * (n >> rp.digit) + 1024 : 0; /* per-thread scratch entries */
    uint64_t *keys = NULL, *tk = NULL, *tp = NULL, *perm = NULL, *ts = NULL, *wc = NULL;
    void *newvals = NULL;
    bool sorted = false, unique = false;
    uint64_t kmask = 0;
    int64_t *hist = spt__alloc_array(fn, ncount, 1, sizeof(int64_t), true, &st);
    if (!hist) goto fail;
    if (!hybrid || keyed) {
        keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!keys) goto fail;
        spt__hint_huge(keys, (size_t)n * sizeof *keys);
    }
    if (two) SPT__CHECK(packed_keys128(fn, t, pk, &rp, hist, &sorted, &unique));
    else SPT__CHECK(packed_keys(fn, t, pk, &rp, keys, keyed, &kmask, hist, &sorted, &unique));
    if (sorted) {
        *unique_out = unique;
        if (dst != t) { /* nothing to move: the copy */
            memcpy(dst->indices, t->indices, (size_t)n * (size_t)r * sizeof(int64_t));
            memcpy(dst->values, t->values, (size_t)n * es);
        }
        goto fail; /* st == SPT_OK */
    }
    int64_t *bounds = hist + (int64_t)rp.passes * rp.chunks * nb, *bscratch = bounds + nb + 1;
    const int64_t maxb = hybrid ? bucket_bounds(&rp, hist, nb, bounds) : 0;
    tk = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    tp = tk ? spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st) : NULL;
    if (!tp) goto fail;
    spt__hint_huge(tk, (size_t)n * sizeof *tk);
    spt__hint_huge(tp, (size_t)n * sizeof *tp);
    if (hybrid) {
        ts = spt__alloc_array(fn, nthr * 4, scap, sizeof(uint64_t), false, &st);
        wc = ts ? spt__alloc_array(fn, rp.chunks * nb, 2 * WC_N, sizeof(uint64_t), false, &st) : NULL;
        if (!wc) goto fail;
        if (maxb > scap && !keys) { /* skewed keys: the large buckets sort through a full-size key scratch */
            keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
            if (!keys) goto fail;
        }
    }
    if (!direct) {
        perm = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!perm) goto fail;
        if (dst == t) { /* out of place, the values are gathered straight into dst's */
            newvals = spt__alloc_array(fn, n, 1, es, false, &st);
            if (!newvals) goto fail;
        }
        for (int64_t i = 0; i < n; i++) perm[i] = (uint64_t)i;
    }
    /* from here on nothing fails. The payload is read from pay_in and its sorted order ends in pay
     * (the same array in place; dst's values out of place) */
    uint64_t *pay = direct ? (uint64_t *)dst->values : perm;
    const uint64_t *pay_in = direct ? (const uint64_t *)t->values : perm;
    int64_t repeated = 0;
    uint64_t *sp = pay;
    if (hybrid) {
        if (two) msd128_from_indices(&rp, pk, t->indices, pay_in, hist, tk, tp, wc);
        else msd_from_indices(&rp, pk, t->indices, keyed ? keys : NULL, kmask, pay_in, hist, tk, tp, wc);
        repeated = sort_buckets(&rp, pk, two, nb, bounds, bscratch, scap, nthr, ts, keys, pay, tk, tp, dst);
        /* keys of different buckets differ in the top digit: no repeat across buckets */
    } else {
        if (pay != pay_in) memcpy(pay, pay_in, (size_t)n * sizeof *pay); /* the LSD passes sort it in place */
        int in_scratch = lsd_passes(&rp, hist, keys, pay, tk, tp);
        const uint64_t *sk = in_scratch ? tk : keys;
        sp = in_scratch ? tp : pay;
        int nth2 SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nth2) reduction(+ : repeated)
        for (int64_t i = 1; i < n; i++) repeated += sk[i - 1] == sk[i];
        decode_keys(pk, sk, dst->indices, n);
    }
    place_values(t, dst, es, direct, pay, sp, &tp, &newvals);
    *unique_out = repeated == 0;
fail:
    spt__free(wc);
    spt__free(ts);
    spt__free(newvals);
    spt__free(perm);
    spt__free(tp);
    spt__free(tk);
    spt__free(hist);
    spt__free(keys);
    return st;
}

/* ---- the distributed MSD radix sort (declared in internal.h, used by src/mpi/sort.c) ------------ */
/* The steps of the hybrid sort above, cut apart so that an all-to-all fits between the MSD scatter and
 * the bucket sorts: the same key packing, top-digit counts (packed_keys) and scatter
 * (msd_from_indices); the serial reorder does not go through here. */

spt_status spt__msd_count(const char *fn, spt__msd *m, const spt_tensor *t, int64_t *counts) {
    const int64_t nb = (int64_t)1 << m->rp.digit;
    memset(counts, 0, (size_t)nb * sizeof *counts);
    if (t->nnz == 0) return SPT_OK;
    bool sorted, unique;
    spt_status st = packed_keys(fn, t, &m->pk, &m->rp, NULL, false, NULL, m->hist, &sorted, &unique);
    if (st != SPT_OK) return st;
    for (int64_t c = 0; c < m->rp.chunks; c++)
        for (int64_t b = 0; b < nb; b++) counts[b] += m->hist[c * nb + b];
    return SPT_OK;
}

spt_status spt__msd_scatter(const char *fn, spt__msd *m, const spt_tensor *t, uint64_t *tk, uint64_t *tp) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, nb = (int64_t)1 << m->rp.digit;
    const size_t es = spt_dtype_size(t->dtype);
    if (n == 0) return SPT_OK;
    uint64_t *wc = spt__alloc_array(fn, m->rp.chunks * nb, 2 * WC_N, sizeof(uint64_t), false, &st), *wide = NULL;
    if (wc && es != 8) { /* narrower values travel zero-extended in the 8-byte payload */
        wide = spt__alloc_array(fn, n, 1, sizeof(uint64_t), true, &st);
        for (int64_t i = 0; wide && i < n; i++) memcpy(wide + i, (const char *)t->values + (size_t)i * es, es);
    }
    if (wc && (es == 8 || wide))
        msd_from_indices(&m->rp, &m->pk, t->indices, NULL, 0, es == 8 ? (const uint64_t *)t->values : wide, m->hist, tk,
                         tp, wc);
    spt__free(wide);
    spt__free(wc);
    return st;
}

spt_status spt__msd_prepare(const char *fn, spt__msd *m, int nsrc, const int64_t *cnt, int64_t nbk) {
    spt_status st = SPT_OK;
    const int64_t nbk1 = nbk + 1;
    m->nsrc = nsrc;
    m->nbk = nbk;
    m->cnt = cnt;
    if (nbk == 0) return SPT_OK;
    /* off[q * (nbk+1) + j]: where bucket j's piece from source q starts; bstart[j]: bucket j's first
     * position in the concatenation of the buckets */
    m->off = spt__alloc_array(fn, (int64_t)nsrc + 1, nbk1, sizeof(int64_t), false, &st);
    if (!m->off) return st;
    int64_t *off = m->off, *bstart = off + (int64_t)nsrc * nbk1, maxm = 0;
    for (int q = 0; q < nsrc; q++) {
        int64_t s = 0;
        for (int64_t j = 0; j < nbk; j++) {
            off[q * nbk1 + j] = s;
            s += cnt[q * nbk + j];
        }
        off[q * nbk1 + nbk] = s;
    }
    int64_t s = 0;
    for (int64_t j = 0; j < nbk; j++) {
        bstart[j] = s;
        int64_t mj = 0;
        for (int q = 0; q < nsrc; q++) mj += cnt[q * nbk + j];
        s += mj;
        if (mj > maxm) maxm = mj;
    }
    bstart[nbk] = s;
    int nthb = spt__threads_for(s);
    if (nthb > nbk) nthb = (int)nbk;
    if (nthb < 1) nthb = 1;
    m->nthb = nthb;
    m->maxm = maxm > 0 ? maxm : 1;
    const int64_t bscr = (int64_t)BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT;
    /* per thread: the bucket's pairs and the sort's scratch (4 x maxm words), its counters */
    m->ts = spt__alloc_array(fn, (int64_t)nthb * 4, m->maxm, sizeof(uint64_t), false, &st);
    m->hs = m->ts ? spt__alloc_array(fn, nthb, bscr, sizeof(int64_t), false, &st) : NULL;
    return st;
}

void spt__msd_finish(const spt__msd *m, const uint64_t *const *sk, const uint64_t *const *sp, int64_t skip,
                     int64_t keep, spt_tensor *out, bool *unique) {
    const int64_t r = m->pk.r, nbk = m->nbk, nbk1 = nbk + 1, maxm = m->maxm;
    const size_t es = spt_dtype_size(out->dtype);
    const int rem = m->rp.shift0, nsrc = m->nsrc;
    const int64_t bscr = (int64_t)BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT;
    *unique = true;
    if (keep == 0 || nbk == 0) return;
    const int64_t *off = m->off, *bstart = off + (int64_t)nsrc * nbk1;
    uint64_t *ts = m->ts;
    int64_t *hs = m->hs, repeated = 0;
    int nthb SPT__OMP_VAR = m->nthb;
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthb) reduction(+ : repeated)
    for (int64_t j = 0; j < nbk; j++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        const int64_t g0 = bstart[j], mj = bstart[j + 1] - g0;
        const int64_t lo = g0 > skip ? g0 : skip, hi = g0 + mj < skip + keep ? g0 + mj : skip + keep;
        if (mj == 0 || lo >= hi) continue;
        uint64_t *k = ts + (int64_t)tid * 4 * maxm, *p = k + maxm, *xk = p + maxm, *xp = xk + maxm;
        int64_t at = 0;
        for (int q = 0; q < nsrc; q++) { /* the pieces in source order: stable over the global sequence */
            const int64_t o = off[q * nbk1 + j], c = off[q * nbk1 + j + 1] - o;
            memcpy(k + at, sk[q] + o, (size_t)c * sizeof *k);
            memcpy(p + at, sp[q] + o, (size_t)c * sizeof *p);
            at += c;
        }
        int where = spt__bucket_sort(k, p, xk, xp, mj, rem, hs + (int64_t)tid * bscr);
        const uint64_t *fk = (where ? xk : k) + (lo - g0), *fp = (where ? xp : p) + (lo - g0);
        const int64_t c = hi - lo, dpos = lo - skip;
        if (es == 8) { /* the values stored in the decode's loop */
            repeated += decode_span(&m->pk, fk, out->indices + dpos * r, c, true, fp, (uint64_t *)out->values + dpos);
        } else {
            repeated += decode_span(&m->pk, fk, out->indices + dpos * r, c, true, NULL, NULL);
            for (int64_t i = 0; i < c; i++) memcpy((char *)out->values + (size_t)(dpos + i) * es, fp + i, es);
        }
        spt__stream_fence();
    }
    *unique = repeated == 0;
}
