/* SPDX-License-Identifier: Apache-2.0 */
/* template/unpack_int64.c -- the decode loop of a packed list of varints into int64, for one way of joining
 * a varint's 7-bit groups. Not compiled on its own: varint.c includes it once with UNPACK_NAME unpack_shift
 * (portable) and once with UNPACK_NAME unpack_pext (BMI2's PEXT, in a function compiled for BMI2), and
 * UNPACK_JOIN(w, n) the value of the n-byte (1..8) varint at the low end of the 8-byte word w. Values of 9
 * or 10 bytes, any whose 8-byte word would run past the list, and all of them on a big-endian host, are read
 * byte by byte. False for a
 * malformed varint (more than 64 bits) or a list that does not end with a complete varint. */

UNPACK_ATTR static bool UNPACK_NAME(const unsigned char *p, size_t len, int64_t *o) {
    size_t start = 0; /* the first byte of the next varint */
    for (size_t i = 0; i < len; i += 64) {
        for (uint64_t m = block_ends(p, len, i); m; m &= m - 1) {
            const size_t end = i + (size_t)__builtin_ctzll(m), n = end - start + 1;
            uint64_t v, w;
            if (UNPACK_LE && n <= 8 && start + 8 <= len) {
                memcpy(&w, p + start, 8);
                v = UNPACK_JOIN(w, n);
            } else if (!varint_n(p + start, n, &v)) {
                return false;
            }
            *o++ = (int64_t)v;
            start = end + 1;
        }
    }
    return start == len;
}
