/* test_spy.c -- PNG spy plots (read back with libpng), and the format names. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spt_test.h"

static char path[] = "/tmp/spt_test_spyXXXXXX.png";

/* Read a grey 8-bit PNG into pix (cap bytes); returns width and height. */
static void read_png(int *w, int *h, unsigned char *pix, size_t cap) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_GRAY;
    assert_true(PNG_IMAGE_SIZE(img) <= cap);
    assert_true(png_image_finish_read(&img, NULL, pix, 0, NULL));
    *w = (int)img.width;
    *h = (int)img.height;
}

static void test_small_matrix(void **state) {
    (void)state;
    /* 3 x 4: one entry at (0,1), two (duplicates) at (2,3) */
    int64_t s[2] = {3, 4}, ix[6] = {0, 1, 2, 3, 2, 3};
    double v[3] = {1, 2, 3};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 1, 0, path));
    int w, h;
    unsigned char pix[64];
    read_png(&w, &h, pix, sizeof pix);
    assert_int_equal(w, 4);
    assert_int_equal(h, 3);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) {
            unsigned char p = pix[y * 4 + x];
            if (y == 2 && x == 3) assert_int_equal(p, 0);           /* the most entries: black */
            else if (y == 0 && x == 1) assert_true(p > 0 && p < 160); /* fewer: grey */
            else assert_int_equal(p, 255);
        }
    /* transposed modes */
    ASSERT_OK(spt_write_spy_png(t, 1, 0, 0, path));
    read_png(&w, &h, pix, sizeof pix);
    assert_int_equal(w, 3);
    assert_int_equal(h, 4);
    assert_int_equal(pix[3 * 3 + 2], 0);
    /* bad modes; rank 0 */
    ASSERT_ST(SPT_ERANGE, spt_write_spy_png(t, 0, 0, 0, path));
    ASSERT_ST(SPT_ERANGE, spt_write_spy_png(t, 0, 2, 0, path));
    spt_tensor_free(t);
    double one = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 0, NULL, 1, NULL, &one, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_write_spy_png(t, 0, 1, 0, path));
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
    int w, h;
    unsigned char pix[128];
    read_png(&w, &h, pix, sizeof pix);
    assert_int_equal(w, 10);
    assert_int_equal(h, 10);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) assert_int_equal(pix[y * 10 + x], x == y ? 0 : 255);
    spt_tensor_free(t);
    /* rank 1: one row; an empty tensor: all white */
    int64_t s1[1] = {5}, i1[1] = {4};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s1, 1, i1, v, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 0, 0, path));
    read_png(&w, &h, pix, sizeof pix);
    assert_int_equal(w, 5);
    assert_int_equal(h, 1);
    assert_int_equal(pix[4], 0);
    assert_int_equal(pix[0], 255);
    spt_tensor_free(t);
    int64_t s0[2] = {0, 3};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s0, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_write_spy_png(t, 0, 1, 0, path));
    read_png(&w, &h, pix, sizeof pix);
    assert_int_equal(w, 3);
    assert_int_equal(h, 1);
    spt_tensor_free(t);
    free(ix);
    free(v);
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
    ASSERT_ST(SPT_EINVAL, spt_read("x.csv", SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("cannot tell the format");
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
        cmocka_unit_test(test_small_matrix),
        cmocka_unit_test(test_binning),
        cmocka_unit_test(test_formats),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
