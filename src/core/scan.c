/* SPDX-License-Identifier: Apache-2.0 */
/* scan.c -- prefix sums: the one place counts become offsets (counting sorts, radix passes, CSR row
 * pointers, message layouts). */
#include "core/internal.h"

int64_t spt__scan_exclusive(int64_t *a, int64_t n) {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = a[i];
        a[i] = sum;
        sum += c;
    }
    return sum;
}

int64_t spt__scan_histograms(int64_t *h, int64_t chunks, int64_t nb, int64_t *bounds) {
    int64_t sum = 0;
    for (int64_t b = 0; b < nb; b++) {
        if (bounds) bounds[b] = sum;
        for (int64_t c = 0; c < chunks; c++) {
            const int64_t cnt = h[c * nb + b];
            h[c * nb + b] = sum;
            sum += cnt;
        }
    }
    if (bounds) bounds[nb] = sum;
    return sum;
}
