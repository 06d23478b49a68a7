/* SPDX-License-Identifier: Apache-2.0 */
/* test_spy.c -- PNG spy plots (read back with libpng), and the format names. */
#include <complex.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spt_test.h"

static char path[] = "/tmp/spt_test_spyXXXXXX.png";

static unsigned char pix[1 << 20];
static int W, H;

/* Read the grey 8-bit PNG at `path` into pix; W and H its size. */
static void read_png(void) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_GRAY;
    assert_true(PNG_IMAGE_SIZE(img) <= sizeof pix);
    assert_true(png_image_finish_read(&img, NULL, pix, 0, NULL));
    W = (int)img.width;
    H = (int)img.height;
}

/* The plot area of a pw x ph plot: inside the black 1-pixel frame (found by scanning). Returns its
 * top-left corner; fails when there is no such frame. */
static void find_plot(int pw, int ph, int *x0, int *y0) {
    for (int y = 0; y + ph + 1 < H; y++)
        for (int x = 0; x + pw + 1 < W; x++) {
            bool ok = true;
            for (int k = 0; k < pw + 2 && ok; k++) ok = !pix[y * W + x + k] && !pix[(y + ph + 1) * W + x + k];
            for (int k = 0; k < ph + 2 && ok; k++) ok = !pix[(y + k) * W + x] && !pix[(y + k) * W + x + pw + 1];
            if (ok) {
                *x0 = x + 1;
                *y0 = y + 1;
                return;
            }
        }
    fail_msg("no %d x %d framed plot in the %d x %d picture", pw, ph, W, H);
}

/* Black pixels outside the framed plot: left of it (row labels) and above it (column labels). */
static void expect_labels(int x0, int y0) {
    int left = 0, above = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < x0 - 4; x++) left += !pix[y * W + x];
    for (int y = 0; y < y0 - 4; y++)
        for (int x = 0; x < W; x++) above += !pix[y * W + x];
    assert_true(left > 0);
    assert_true(above > 0);
}

/* The pixel of cell (r, c) at `zoom` pixels per cell (its top-left one; all zoom^2 are checked). */
static int cell(int x0, int y0, int zoom, int r, int c) {
    int p = pix[(y0 + r * zoom) * W + x0 + c * zoom];
    for (int y = 0; y < zoom; y++)
        for (int x = 0; x < zoom; x++) assert_int_equal(pix[(y0 + r * zoom + y) * W + x0 + c * zoom + x], p);
    return p;
}

static void test_small_matrix(void **state) {
    (void)state;
    /* 3 x 4: one entry at (0,1), two (duplicates) at (2,3); at most 8 pixels a side: 2 per cell */
    int64_t s[2] = {3, 4}, ix[6] = {0, 1, 2, 3, 2, 3};
    double v[3] = {1, 2, 3};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 1, 8, path));
    read_png();
    int x0, y0;
    find_plot(8, 6, &x0, &y0);
    expect_labels(x0, y0);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) {
            int p = cell(x0, y0, 2, y, x);
            if (y == 2 && x == 3) assert_int_equal(p, 0);             /* the most entries: black */
            else if (y == 0 && x == 1) assert_true(p > 0 && p < 160); /* fewer: grey */
            else assert_int_equal(p, 255);
        }
    /* transposed modes: 4 x 3 cells */
    ASSERT_OK(spt_write_spy_png(t, 1, 0, 8, path));
    read_png();
    find_plot(6, 8, &x0, &y0);
    assert_int_equal(cell(x0, y0, 2, 3, 2), 0);
    assert_int_equal(cell(x0, y0, 2, 2, 3 - 1), 255);
    /* the default size: 512 / 4 = 128 pixels per cell, the aspect ratio kept */
    ASSERT_OK(spt_write_spy_png(t, 0, 1, 0, path));
    read_png();
    find_plot(512, 384, &x0, &y0);
    assert_int_equal(cell(x0, y0, 128, 2, 3), 0);
    /* bad modes; rank 0 */
    ASSERT_ST(SPT_ERANGE, spt_write_spy_png(t, 0, 0, 0, path));
    ASSERT_ST(SPT_ERANGE, spt_write_spy_png(t, 0, 2, 0, path));
    spt_tensor_free(t);
    double one = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 0, NULL, 1, NULL, &one, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_write_spy_png(t, 0, 1, 0, path));
    spt_tensor_free(t);
}

/* The RGB of pixel (x, y) of the picture at `path`, read as 8-bit RGB. */
static unsigned char rgbpix[3 << 20];
static void read_rgb(void) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    assert_int_equal(img.format & PNG_FORMAT_FLAG_COLOR, PNG_FORMAT_FLAG_COLOR); /* written as RGB */
    img.format = PNG_FORMAT_RGB;
    assert_true(PNG_IMAGE_SIZE(img) <= sizeof rgbpix);
    assert_true(png_image_finish_read(&img, NULL, rgbpix, 0, NULL));
}
static void expect_rgb(int x, int y, int r, int g, int b) {
    const unsigned char *p = rgbpix + 3 * (y * W + x);
    if (p[0] != r || p[1] != g || p[2] != b)
        fail_msg("pixel (%d, %d) is (%d, %d, %d), expected (%d, %d, %d)", x, y, p[0], p[1], p[2], r, g, b);
}

static void test_values(void **state) {
    (void)state;
    /* 2 x 3: +4 at (0,0), -2 at (0,2), 1 and -1 at (1,1) (they cancel), NaN at (1,2); 2 pixels a cell */
    int64_t s[2] = {2, 3}, ix[10] = {0, 0, 0, 2, 1, 1, 1, 1, 1, 2};
    double v[5] = {4, -2, 1, -1, NAN};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 5, ix, v, NULL, &t));
    ASSERT_OK(spt_write_spy_png_values(t, 0, 1, 6, path));
    read_png(); /* as grey: the frame is black as in the count plot */
    int x0, y0;
    find_plot(6, 4, &x0, &y0);
    expect_labels(x0, y0);
    read_rgb();
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            expect_rgb(x0 + 0 + dx, y0 + 0 + dy, 180, 0, 0);     /* the largest |sum|: full red */
            expect_rgb(x0 + 4 + dx, y0 + 0 + dy, 89, 89, 206);   /* half of it, negative: 65 % blue */
            expect_rgb(x0 + 2 + dx, y0 + 0 + dy, 255, 255, 255); /* empty */
            expect_rgb(x0 + 0 + dx, y0 + 2 + dy, 255, 255, 255);
            expect_rgb(x0 + 2 + dx, y0 + 2 + dy, 200, 200, 200); /* entries that cancel */
            expect_rgb(x0 + 4 + dx, y0 + 2 + dy, 0, 160, 0);     /* NaN */
        }
    expect_rgb(x0 - 1, y0 - 1, 0, 0, 0); /* the frame */
    ASSERT_ST(SPT_ERANGE, spt_write_spy_png_values(t, 0, 0, 0, path));
    spt_tensor_free(t);
    /* complex: the modulus; strings: refused */
    double _Complex z[1] = {3 - 4 * I};
    int64_t ixz[2] = {0, 0};
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 2, s, 1, ixz, z, NULL, &t));
    ASSERT_OK(spt_write_spy_png_values(t, 0, 1, 6, path));
    read_png();
    read_rgb();
    expect_rgb(x0, y0, 180, 0, 0);
    spt_tensor_free(t);
    spt_str str[1] = {{"a", 1}};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 1, ixz, str, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_write_spy_png_values(t, 0, 1, 6, path));
    spt_tensor_free(t);
}

static void test_binning(void **state) {
    (void)state;
    /* a 1000 x 1000 x 2 tensor binned to 10 x 10: the diagonal */
    int64_t s[3] = {1000, 2, 1000};
    int64_t *ix = malloc(sizeof(int64_t) * 3000);
    double *v = malloc(sizeof(double) * 1000);
    for (int i = 0; i < 1000; i++) {
        ix[3 * i] = i;
        ix[3 * i + 1] = i & 1;
        ix[3 * i + 2] = i;
        v[i] = 1;
    }
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s, 1000, ix, v, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 2, 10, path));
    read_png();
    int x0, y0;
    find_plot(10, 10, &x0, &y0);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) assert_int_equal(pix[(y0 + y) * W + x0 + x], x == y ? 0 : 255);
    /* modes 0 and 1 (1000 x 2): square bins keep the shape, 10 x 1 */
    ASSERT_OK(spt_write_spy_png(t, 0, 1, 10, path));
    read_png();
    find_plot(1, 10, &x0, &y0);
    spt_tensor_free(t);
    /* rank 1: one row; an empty tensor: all white */
    int64_t s1[1] = {5}, i1[1] = {4};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s1, 1, i1, v, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 0, 5, path));
    read_png();
    find_plot(5, 1, &x0, &y0);
    assert_int_equal(pix[y0 * W + x0 + 4], 0);
    assert_int_equal(pix[y0 * W + x0], 255);
    spt_tensor_free(t);
    int64_t s0[2] = {0, 3};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s0, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 1, 3, path));
    read_png();
    find_plot(3, 1, &x0, &y0);
    for (int x = 0; x < 3; x++) assert_int_equal(pix[y0 * W + x0 + x], 255);
    spt_tensor_free(t);
    free(ix);
    free(v);
}

/* Dims near INT64_MAX: the bin size and the tick steps computed without overflow (the plot used to
 * loop forever with max_side 1, or to fail with a negative size): one binned cell, ticks at 0 only. */
static void test_huge_dims(void **state) {
    (void)state;
    const int64_t M = INT64_MAX;
    const int64_t shapes[][2] = {{M, 1}, {1, M}, {M, M}, {M, 3}, {M - 1, M / 2}, {1000000000000000000, 1}};
    const int64_t sides[] = {1, 2, 3, 7, 0, 600};
    for (size_t a = 0; a < sizeof shapes / sizeof *shapes; a++)
        for (size_t b = 0; b < sizeof sides / sizeof *sides; b++) {
            int64_t ix[4] = {0, 0, shapes[a][0] - 1, shapes[a][1] - 1};
            double v[2] = {1, -2};
            spt_tensor *t;
            ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shapes[a], 2, ix, v, NULL, &t));
            ASSERT_OK(spt_write_spy_png(t, 0, 1, sides[b], path));
            read_png();
            /* square bins of ceil(largest dim / side) cells: the grid is ceil(dim / bin) per dim */
            const int64_t side = sides[b] ? sides[b] : 512,
                          big = shapes[a][0] > shapes[a][1] ? shapes[a][0] : shapes[a][1];
            const int64_t bin = big / side + (big % side != 0);
            int ph = (int)(shapes[a][0] / bin + (shapes[a][0] % bin != 0)),
                pw = (int)(shapes[a][1] / bin + (shapes[a][1] % bin != 0));
            if (side >= 4 && pw * ph > 1) { /* the frame around the binned grid */
                int x0, y0;
                find_plot(pw, ph, &x0, &y0);
                assert_int_equal(pix[y0 * W + x0], 0); /* cell (0, 0) is occupied */
            }
            ASSERT_OK(spt_write_spy_png_values(t, 0, 1, sides[b], path));
            spt_tensor_free(t);
        }
}

static void test_formats(void **state) {
    (void)state;
    assert_int_equal(spt_format_from_path("a/b.TNS"), SPT_FORMAT_TNS);
    assert_int_equal(spt_format_from_path("x.mtx"), SPT_FORMAT_MTX);
    assert_int_equal(spt_format_from_path("x.npy"), SPT_FORMAT_NPY);
    assert_int_equal(spt_format_from_path("x.npz"), SPT_FORMAT_NPZ);
    assert_int_equal(spt_format_from_path("x.txt"), SPT_FORMAT_AUTO);
    assert_int_equal(spt_format_from_path("dir.tns/x"), SPT_FORMAT_AUTO);
    assert_int_equal(spt_format_from_path("-"), SPT_FORMAT_AUTO);
    spt_format f;
    ASSERT_OK(spt_format_from_name("frostt", &f));
    assert_int_equal(f, SPT_FORMAT_TNS);
    ASSERT_OK(spt_format_from_name("scipy-csr", &f));
    assert_int_equal(f, SPT_FORMAT_NPZ_SCIPY_CSR);
    ASSERT_ST(SPT_EINVAL, spt_format_from_name("csv", &f));
    assert_string_equal(spt_format_name(SPT_FORMAT_NPZ_SCIPY_COO), "npz-scipy-coo");
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(SPT_EIO, spt_read("x.csv", SPT_FORMAT_AUTO, NULL, &t)); /* read to look at its content */
    assert_null(t);
    ASSERT_MSG("cannot open x.csv");
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_read("tests/io/test_spy.c", SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("cannot tell the format of tests/io/test_spy.c from its name or its first bytes");
}

static int setup(void **state) {
    (void)state;
    int fd = mkstemps(path, 4);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}
static int teardown(void **state) {
    (void)state;
    unlink(path);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_matrix), cmocka_unit_test(test_binning),   cmocka_unit_test(test_values),
        cmocka_unit_test(test_formats),      cmocka_unit_test(test_huge_dims),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
