/* SPDX-License-Identifier: Apache-2.0 */
/* test_out.c -- the one output path (src/io/out.c) against what a target can be: symlinks (the target
 * is updated, the link stays), dangling symlinks (the target is created), device nodes, FIFOs, pipes
 * through /proc/self/fd/N, files of mode 0600, hard links, names of 255 bytes, write failures and
 * SIGINT/SIGTERM in the middle of a write (no temporary file stays). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spt_test.h"

static char dir[] = "/tmp/spt_test_outXXXXXX";
static char buf[8192];

/* dir/name into buf2 */
static const char *at(char *b, const char *name) {
    snprintf(b, 4096, "%s/%s", dir, name);
    return b;
}

static spt_tensor *small(void) {
    int64_t shape[2] = {3, 3}, ix[4] = {0, 1, 2, 2};
    int64_t v[2] = {5, -7};
    spt_tensor *t = NULL;
    assert_int_equal(spt_tensor_new(SPT_INT64, 2, shape, 2, ix, v, NULL, &t), SPT_OK);
    return t;
}

static const char expect_tns[] = "# dtype: int64\n# shape: 3 3\n1 2 5\n3 3 -7\n";

static size_t slurp(const char *path, char *out, size_t cap) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    fclose(f);
    return n;
}

static void write_text(const char *path, const char *s) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(s, f);
    fclose(f);
}

/* Entries of dir whose names start with ".spt" (temporary files); the count. */
static int temps_in(const char *d) {
    DIR *dp = opendir(d);
    assert_non_null(dp);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (!strncmp(e->d_name, ".spt", 4)) n++;
    closedir(dp);
    return n;
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_symlink_updates_target(void **state) {
    (void)state;
    char target[4096], link[4096], abs_link[4096], sub[4096];
    spt_tensor *t = small();
    write_text(at(target, "real.tns"), "old\n");
    assert_int_equal(symlink("real.tns", at(link, "rel_link.tns")), 0);
    ASSERT_OK(spt_write(t, link, SPT_FORMAT_AUTO));
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    slurp(target, buf, sizeof buf);
    assert_string_equal(buf, expect_tns);
    /* an absolute link, and a chain of two links through a subdirectory */
    assert_int_equal(mkdir(at(sub, "sub"), 0755), 0);
    snprintf(buf, sizeof buf, "%s/sub/deep.tns", dir);
    write_text(buf, "old\n");
    assert_int_equal(symlink(buf, at(abs_link, "sub/abs.tns")), 0);
    assert_int_equal(symlink("sub/abs.tns", at(link, "chain.tns")), 0);
    ASSERT_OK(spt_write_tns(t, link));
    char got[8192];
    slurp(buf, got, sizeof got);
    assert_string_equal(got, expect_tns);
    assert_int_equal(lstat(abs_link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(temps_in(dir), 0);
    assert_int_equal(temps_in(sub), 0);
    /* a loop of links is a clean error */
    assert_int_equal(symlink("loop_b.tns", at(link, "loop_a.tns")), 0);
    assert_int_equal(symlink("loop_a.tns", at(link, "loop_b.tns")), 0);
    ASSERT_ST(SPT_EIO, spt_write_tns(t, link));
    spt_tensor_free(t);
}

static void test_dangling_symlink_creates_target(void **state) {
    (void)state;
    char link[4096], target[4096];
    spt_tensor *t = small();
    assert_int_equal(symlink("made.tns", at(link, "dangling.tns")), 0);
    ASSERT_OK(spt_write(t, link, SPT_FORMAT_AUTO));
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(at(target, "made.tns"), &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    slurp(target, buf, sizeof buf);
    assert_string_equal(buf, expect_tns);
    /* a dangling link into a missing directory: a clean error, nothing created */
    assert_int_equal(symlink("nodir/x.tns", at(link, "dangling2.tns")), 0);
    ASSERT_ST(SPT_EIO, spt_write(t, link, SPT_FORMAT_AUTO));
    ASSERT_MSG("temporary file");
    spt_tensor_free(t);
}

static void test_device_node_written_directly(void **state) {
    (void)state;
    char dev[4096];
    spt_tensor *t = small();
    if (mknod(at(dev, "null"), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        /* not root (or no CAP_MKNOD): the system's /dev/null shows the same */
        snprintf(dev, sizeof dev, "/dev/null");
    }
    ASSERT_OK(spt_write(t, dev, SPT_FORMAT_TNS));
    ASSERT_OK(spt_write(t, dev, SPT_FORMAT_NPZ));
    ASSERT_OK(spt_write(t, dev, SPT_FORMAT_MTX));
    struct stat sb;
    assert_int_equal(lstat(dev, &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    assert_int_equal(major(sb.st_rdev), 1);
    assert_int_equal(minor(sb.st_rdev), 3);
    assert_int_equal(temps_in(dir), 0);
    /* /dev/full: the write fails (ENOSPC) with a message, and the device stays a device */
    if (access("/dev/full", W_OK) == 0) {
        ASSERT_ST(SPT_EIO, spt_write(t, "/dev/full", SPT_FORMAT_TNS));
        ASSERT_MSG("/dev/full");
        assert_int_equal(lstat("/dev/full", &sb), 0);
        assert_true(S_ISCHR(sb.st_mode));
    }
    spt_tensor_free(t);
}

static void test_fifo_and_pipe(void **state) {
    (void)state;
    char fifo[4096];
    spt_tensor *t = small();
    assert_int_equal(mkfifo(at(fifo, "ff"), 0644), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the reader: copy what arrives to ff.out */
        char out[4096];
        snprintf(out, sizeof out, "%s/ff.out", dir);
        FILE *in = fopen(fifo, "rb"), *o = fopen(out, "wb");
        if (!in || !o) _exit(2);
        int c;
        while ((c = fgetc(in)) != EOF) fputc(c, o);
        fclose(o);
        _exit(0);
    }
    ASSERT_OK(spt_write(t, fifo, SPT_FORMAT_TNS));
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
    snprintf(buf, sizeof buf, "%s/ff.out", dir);
    char got[8192];
    slurp(buf, got, sizeof got);
    assert_string_equal(got, expect_tns);
    struct stat sb;
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    /* a pipe named through /proc/self/fd/N */
    int p[2];
    assert_int_equal(pipe(p), 0);
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", p[1]);
    ASSERT_OK(spt_write(t, name, SPT_FORMAT_TNS));
    close(p[1]);
    ssize_t n = read(p[0], got, sizeof got - 1);
    assert_true(n > 0);
    got[n] = 0;
    assert_string_equal(got, expect_tns);
    close(p[0]);
    spt_tensor_free(t);
}

static void test_mode_and_hard_links(void **state) {
    (void)state;
    char f[4096], h[4096];
    spt_tensor *t = small();
    write_text(at(f, "private.tns"), "old\n");
    assert_int_equal(chmod(f, 0600), 0);
    ASSERT_OK(spt_write(t, f, SPT_FORMAT_AUTO));
    struct stat sb;
    assert_int_equal(stat(f, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0600);
    assert_int_equal(chmod(f, 0640), 0);
    ASSERT_OK(spt_write(t, f, SPT_FORMAT_NPZ));
    assert_int_equal(stat(f, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    /* a hard link: written in place, both names see the new data, the inode is kept */
    write_text(at(f, "one.tns"), "old\n");
    assert_int_equal(link(f, at(h, "two.tns")), 0);
    struct stat before;
    assert_int_equal(stat(f, &before), 0);
    ASSERT_OK(spt_write(t, h, SPT_FORMAT_AUTO));
    assert_int_equal(stat(f, &sb), 0);
    assert_int_equal(sb.st_ino, before.st_ino);
    assert_int_equal(sb.st_nlink, 2);
    slurp(f, buf, sizeof buf);
    assert_string_equal(buf, expect_tns);
    /* shorter data truncates the old contents */
    int64_t s1[1] = {2};
    spt_tensor *e = NULL;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, s1, 0, NULL, NULL, NULL, &e));
    ASSERT_OK(spt_write(e, f, SPT_FORMAT_TNS));
    slurp(h, buf, sizeof buf);
    assert_string_equal(buf, "# dtype: int64\n# shape: 2\n");
    assert_int_equal(temps_in(dir), 0);
    spt_tensor_free(e);
    spt_tensor_free(t);
}

static void test_long_names(void **state) {
    (void)state;
    spt_tensor *t = small();
    char name[300], p[4096];
    memset(name, 'n', 251);
    memcpy(name + 251, ".tns", 5); /* 255 bytes: NAME_MAX */
    ASSERT_OK(spt_write(t, at(p, name), SPT_FORMAT_AUTO));
    slurp(p, buf, sizeof buf);
    assert_string_equal(buf, expect_tns);
    ASSERT_OK(spt_write(t, p, SPT_FORMAT_AUTO)); /* over an existing 255-byte name */
    memcpy(name + 251, ".npz", 5);
    ASSERT_OK(spt_write(t, at(p, name), SPT_FORMAT_AUTO));
    memset(name, 'n', 252);
    memcpy(name + 252, ".tns", 5); /* 256 bytes: the system's error, cleanly */
    ASSERT_ST(SPT_EIO, spt_write(t, at(p, name), SPT_FORMAT_AUTO));
    ASSERT_MSG("File name too long");
    ASSERT_ST(SPT_EINVAL, spt_write(t, "", SPT_FORMAT_TNS));
    ASSERT_MSG("empty");
    char *huge = malloc(8000);
    assert_non_null(huge);
    memset(huge, 'a', 7990);
    memcpy(huge + 7990, ".tns", 5);
    ASSERT_ST(SPT_EINVAL, spt_write(t, huge, SPT_FORMAT_TNS));
    ASSERT_MSG("bytes long");
    free(huge);
    ASSERT_ST(SPT_EIO, spt_write(t, dir, SPT_FORMAT_TNS));
    ASSERT_MSG("directory");
    assert_int_equal(temps_in(dir), 0);
    spt_tensor_free(t);
}

/* A write that fails half-way (the file size limit) removes its temporary file. */
static void test_failed_write_leaves_nothing(void **state) {
    (void)state;
    char sub[4096], f[8200];
    assert_int_equal(mkdir(at(sub, "fsize"), 0755), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        int64_t shape[1] = {100000}, *ix = malloc(100000 * sizeof *ix);
        if (!ix) _exit(3);
        for (int64_t i = 0; i < 100000; i++) ix[i] = i;
        spt_tensor *t = NULL;
        if (spt_tensor_new(SPT_INT64, 1, shape, 100000, ix, ix, NULL, &t) != SPT_OK) _exit(3);
        snprintf(f, sizeof f, "%s/big.tns", sub);
        spt_status st = spt_write(t, f, SPT_FORMAT_TNS);
        _exit(st == SPT_EIO ? 0 : 4);
    }
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst));
    assert_int_equal(WEXITSTATUS(wst), 0);
    assert_int_equal(temps_in(sub), 0);
    assert_int_equal(access(at(f, "fsize/big.tns"), F_OK), -1);
}

/* SIGINT (and SIGTERM) while a large tensor is being written: the process ends by the signal and no
 * temporary file stays. */
static void signal_mid_write(int sig) {
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/sig%d", dir, sig);
    assert_int_equal(mkdir(sub, 0755), 0);
    for (int64_t n = 2000000, attempt = 0; attempt < 4; attempt++, n *= 2) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(sig, SIG_DFL); /* a shell may start tests with SIGINT ignored */
            spt_set_num_threads(1);
            int64_t shape[2] = {n, 1000};
            spt_tensor *t = NULL;
            int64_t *ix = malloc((size_t)n * 2 * sizeof *ix);
            double *v = malloc((size_t)n * sizeof *v);
            if (!ix || !v) _exit(3);
            for (int64_t i = 0; i < n; i++) ix[2 * i] = i, ix[2 * i + 1] = i % 1000, v[i] = 0.1 * (double)i;
            if (spt_tensor_new(SPT_FLOAT64, 2, shape, n, ix, v, NULL, &t) != SPT_OK) _exit(3);
            char f[8200];
            snprintf(f, sizeof f, "%s/big.tns", sub);
            spt_write(t, f, SPT_FORMAT_TNS);
            _exit(0);
        }
        /* wait until the temporary file exists, then signal */
        bool seen = false;
        for (int k = 0; k < 20000 && !seen; k++) {
            if (temps_in(sub) > 0) seen = true;
            else {
                int wst;
                if (waitpid(pid, &wst, WNOHANG) == pid) break; /* finished before we saw it */
                struct timespec ts = {0, 500000};
                nanosleep(&ts, NULL);
            }
        }
        if (!seen) {
            waitpid(pid, NULL, 0);
            char f[8200];
            snprintf(f, sizeof f, "%s/big.tns", sub);
            unlink(f);
            continue;
        }
        kill(pid, sig);
        int wst;
        assert_int_equal(waitpid(pid, &wst, 0), pid);
        assert_true(WIFSIGNALED(wst));
        assert_int_equal(WTERMSIG(wst), sig);
        assert_int_equal(temps_in(sub), 0);
        char f[8200];
        snprintf(f, sizeof f, "%s/big.tns", sub);
        assert_int_equal(access(f, F_OK), -1);
        return;
    }
    fail_msg("the write always finished before the signal could be sent");
}

static void test_sigint_mid_write(void **state) {
    (void)state;
    signal_mid_write(SIGINT);
}

static void test_sigterm_mid_write(void **state) {
    (void)state;
    signal_mid_write(SIGTERM);
}

/* A signal the program handles itself is left alone: the write completes. */
static void test_program_handler_kept(void **state) {
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGINT, SIG_IGN);
        char f[8200];
        spt_tensor *t = small();
        snprintf(f, sizeof f, "%s/ign.tns", dir);
        if (spt_write(t, f, SPT_FORMAT_TNS) != SPT_OK) _exit(3);
        raise(SIGINT); /* still ignored */
        struct sigaction sa;
        sigaction(SIGINT, NULL, &sa);
        _exit(sa.sa_handler == SIG_IGN ? 0 : 4);
    }
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst));
    assert_int_equal(WEXITSTATUS(wst), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symlink_updates_target),
        cmocka_unit_test(test_dangling_symlink_creates_target),
        cmocka_unit_test(test_device_node_written_directly),
        cmocka_unit_test(test_fifo_and_pipe),
        cmocka_unit_test(test_mode_and_hard_links),
        cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_failed_write_leaves_nothing),
        cmocka_unit_test(test_sigint_mid_write),
        cmocka_unit_test(test_sigterm_mid_write),
        cmocka_unit_test(test_program_handler_kept),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
