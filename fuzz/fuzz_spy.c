/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_spy.c -- PNG spy plots (spt_write_spy_png and the coloured spt_write_spy_png_values) of decoded
 * tensors with any shape (dims up to INT64_MAX, empty, rank 0), any modes and any side (negative, 0,
 * 1, huge; capped at 700 so that a run stays fast): the call returns a known status, and a written file
 * is a PNG whose header gives a size no larger than the side allows (plus the frame and labels). */
#include "fz.h"
#include "fz_file.h"

#include <string.h>

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_tspec spec = {.dtype = -1, .rank = -1, .max_nnz = 24};
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    int64_t rm = fz_range(&in, -1, 4), cm = fz_range(&in, -1, 4), side = fz_int(&in, 64);
    if (side > 700) side = 700 - (side & 63);
    bool colour = fz_bool(&in);
    uint64_t before = fz_hash_tensor(t);
    char path[256];
    fz_scratch(path, sizeof path, "spy", ".png");
    remove(path);
    fz_op_begin();
    spt_status st = colour ? spt_write_spy_png_values(t, rm, cm, side, path) : spt_write_spy_png(t, rm, cm, side, path);
    fz_op_end();
    const char *op = colour ? "spt_write_spy_png_values" : "spt_write_spy_png";
    fz_check_status(op, st, NULL);
    if (fz_hash_tensor(t) != before) fz_die(op, "the input tensor was modified");
    if (st == SPT_OK) {
        unsigned char h[24];
        FILE *f = fopen(path, "rb");
        if (!f || fread(h, 1, sizeof h, f) != sizeof h) fz_die(op, "no PNG written");
        fclose(f);
        if (memcmp(h, "\x89PNG\r\n\x1a\n", 8) || memcmp(h + 12, "IHDR", 4)) fz_die(op, "not a PNG");
        const uint32_t w = be32(h + 16), ht = be32(h + 20), most = (uint32_t)(side > 0 ? side : 512) + 400;
        if (w == 0 || ht == 0 || w > most || ht > most) fz_die(op, "picture size out of bounds");
    }
    remove(path);
    spt_tensor_free(t);
    return 0;
}
