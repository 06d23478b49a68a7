/* SPDX-License-Identifier: Apache-2.0 */
/* out.c -- the one output path of every writer (spt_write*, the CLI, split's pieces, spy's PNG).
 *
 * How a target is written depends on what it is (see "Writing files" in include/spt.h):
 *  - a new name, or an existing regular file with one link: the data goes to a temporary file
 *    ".sptXXXXXX" in the target's directory, which is renamed over the target once complete; an existing
 *    file's mode (and owner and group, where the process may set them) carry over to the new file;
 *  - a symlink is followed (to its final target, also when that does not exist yet: it is created), so
 *    the link stays and its target is updated;
 *  - a regular file with several hard links: the data is first produced completely in an unnamed
 *    temporary file, then copied into the target in place (opened with O_TRUNC), so every link sees
 *    the new contents;
 *  - anything else that exists (a device, a FIFO, a socket's /proc/self/fd/N, /dev/stdout): opened and
 *    written directly, never replaced or renamed over;
 *  - "-" is stdout.
 * Temporary files are removed on every failure, and on SIGINT, SIGTERM and SIGHUP (when the process
 * left that signal at its default action when the write starts; checked at each write): the handler
 * unlinks the registered names and re-raises. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- temporary names removed by a fatal signal --------------------------------------------------- */

#define TMP_SLOTS 32
static char tmp_names[TMP_SLOTS][PATH_MAX];
static atomic_int tmp_state[TMP_SLOTS]; /* 0 free, 1 claimed, 2 live (the handler unlinks it) */
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static void on_fatal_signal(int sig) {
    int saved = errno;
    for (int i = 0; i < TMP_SLOTS; i++)
        if (atomic_load(&tmp_state[i]) == 2) unlink(tmp_names[i]);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig); /* delivered (default action) when the handler returns */
}

/* Catch each of `caught` that is at its default action (a handler or SIG_IGN the program chose stays). */
static void install_handlers(void) {
    for (size_t k = 0; k < sizeof caught / sizeof *caught; k++) {
        struct sigaction old;
        if (sigaction(caught[k], NULL, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue; /* the program's own choice */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(caught[k], &sa, NULL);
    }
}

/* Register `name` for removal by a fatal signal: a slot number, or -1 when all slots are taken (the
 * file is then still removed on failure, only not on a signal). */
static int tmp_register(const char *name) {
    size_t n = strlen(name);
    if (n >= PATH_MAX) return -1;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int z = 0;
        if (atomic_compare_exchange_strong(&tmp_state[i], &z, 1)) {
            memcpy(tmp_names[i], name, n + 1);
            atomic_store(&tmp_state[i], 2);
            return i;
        }
    }
    return -1;
}

static void tmp_unregister(int slot) {
    if (slot < 0) return;
    atomic_store(&tmp_state[slot], 1);
    atomic_store(&tmp_state[slot], 0);
}

/* ---- paths ----------------------------------------------------------------------------------------- */

/* The directory part of `path` with a trailing '/', or "" (spt__malloc'd). */
static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    char *d = spt__malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = 0;
    }
    return d;
}

/* Create a new file ".sptXXXXXX" in directory `dir` ("" or ending in '/') with O_EXCL and `mode` (the
 * umask applies). Returns the fd and its name in *name (spt__malloc'd), or -1 with errno set. */
static int make_temp(const char *dir, mode_t mode, char **name) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t dl = strlen(dir);
    char *t = spt__malloc(dl + 12);
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(t, dir, dl);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() ^ (uint64_t)attempt << 40;
            for (int k = 0; k < 6; k++) r[k] = (unsigned char)(x >> (8 * k));
        }
        memcpy(t + dl, ".spt", 4);
        for (int k = 0; k < 6; k++) t[dl + 4 + k] = al[r[k] % (sizeof al - 1)];
        t[dl + 10] = 0;
        int fd = open(t, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd >= 0) {
            *name = t;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    int e = errno;
    spt__free(t);
    errno = e;
    return -1;
}

/* Follow symlinks from `path` to the name that holds the data. On return *final is that name
 * (spt__malloc'd) and *exists tells whether it exists (then *sb is its lstat). A chain that ends in a
 * missing name (a dangling link) yields that name: writing creates it. */
static spt_status resolve(const char *fn, const char *path, char **final, bool *exists, struct stat *sb) {
    *final = NULL;
    *exists = false;
    size_t n = strlen(path);
    char *cur = spt__malloc(n + 1);
    if (!cur) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    memcpy(cur, path, n + 1);
    for (int hop = 0; hop <= 40; hop++) {
        if (lstat(cur, sb) != 0) {
            int e = errno;
            if (e == ENOENT) {
                *final = cur;
                return SPT_OK;
            }
            spt__free(cur);
            return spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, path, strerror(e));
        }
        if (!S_ISLNK(sb->st_mode)) {
            *final = cur;
            *exists = true;
            return SPT_OK;
        }
        char *lnk = spt__malloc(PATH_MAX);
        ssize_t ln = lnk ? readlink(cur, lnk, PATH_MAX - 1) : -1;
        if (ln < 0) {
            int e = lnk ? errno : ENOMEM;
            spt__free(lnk);
            spt__free(cur);
            return spt__err(SPT_EIO, "%s: cannot follow the link %s: %s", fn, path, strerror(e));
        }
        lnk[ln] = 0;
        char *next;
        if (lnk[0] == '/') {
            next = lnk;
        } else {
            char *d = dir_of(cur);
            size_t dl = d ? strlen(d) : 0;
            next = d ? spt__malloc(dl + (size_t)ln + 1) : NULL;
            if (next) {
                memcpy(next, d, dl);
                memcpy(next + dl, lnk, (size_t)ln + 1);
            }
            spt__free(d);
            spt__free(lnk);
            if (!next) {
                spt__free(cur);
                return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
            }
        }
        spt__free(cur);
        cur = next;
        if (strlen(cur) >= PATH_MAX) {
            spt__free(cur);
            return spt__err(SPT_EINVAL, "%s: the link %s leads to a path longer than %d bytes", fn, path, PATH_MAX - 1);
        }
    }
    spt__free(cur);
    return spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, path, strerror(ELOOP));
}

/* Give the new file `fd` the mode, and where allowed the owner and group, of the file it replaces. */
static void keep_attrs(int fd, const struct stat *old) {
    if (fchown(fd, geteuid() == 0 ? old->st_uid : (uid_t)-1, old->st_gid) != 0 && geteuid() == 0)
        (void)fchown(fd, (uid_t)-1, old->st_gid);
    (void)fchmod(fd, old->st_mode & 07777);
}

/* ---- opening, committing, aborting ------------------------------------------------------------------ */

enum { OUT_STDOUT, OUT_RENAME, OUT_INPLACE, OUT_DIRECT };

static void out_free(spt__out *o);

static spt_status open_fp(const char *fn, spt__out *o, int fd) {
    o->fp = fdopen(fd, o->mode == OUT_INPLACE ? "w+b" : "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        return spt__err(SPT_ENOMEM, "%s: cannot write %s: %s", fn, o->path, strerror(e));
    }
    o->vbuf = malloc(1 << 16); /* stdio's buffer, from the C library like stdio's own */
    if (o->vbuf) setvbuf(o->fp, o->vbuf, _IOFBF, 1 << 16);
    return SPT_OK;
}

/* A device, FIFO, socket or pipe (also through /proc/self/fd/N): written directly. */
static spt_status open_direct(const char *fn, const char *path, spt__out *o) {
    o->mode = OUT_DIRECT;
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, path, strerror(errno));
    spt_status st = open_fp(fn, o, fd);
    if (st == SPT_OK && (st = spt__out_pack(fn, o)) != SPT_OK) fclose(o->fp);
    if (st != SPT_OK) out_free(o);
    return st;
}

spt_status spt__out_open(const char *fn, const char *path, bool allow_stdout, spt__out *o) {
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    o->path = path;
    if (!*path) return spt__err(SPT_EINVAL, "%s: the output path is empty", fn);
    if (strlen(path) >= PATH_MAX)
        return spt__err(SPT_EINVAL, "%s: the output path is %zu bytes long, more than the system's %d", fn,
                        strlen(path), PATH_MAX - 1);
    if (!strcmp(path, "-")) {
        if (!allow_stdout) return spt__err(SPT_EINVAL, "%s: this format cannot be written to stdout", fn);
        o->fp = stdout;
        o->mode = OUT_STDOUT;
        o->is_stdout = true;
        return SPT_OK;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) return open_direct(fn, path, o);
    bool exists;
    SPT__TRY(resolve(fn, path, &o->target, &exists, &sb));
    if (exists && S_ISDIR(sb.st_mode)) {
        spt__free(o->target);
        o->target = NULL;
        return spt__err(SPT_EIO, "%s: cannot write %s: it is a directory", fn, path);
    }
    /* What the kernel opens for `path` may differ from the name found by following links: a
     * /proc/self/fd/N of a deleted or unreachable file. Then that object is written in place. */
    struct stat real;
    int rs = exists ? stat(path, &real) : -1;
    bool same = rs != 0 || (real.st_dev == sb.st_dev && real.st_ino == sb.st_ino);
    if (!same && S_ISREG(real.st_mode)) {
        size_t n = strlen(path);
        char *p = spt__malloc(n + 1);
        if (!p) {
            spt__free(o->target);
            o->target = NULL;
            return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        }
        memcpy(p, path, n + 1);
        spt__free(o->target);
        o->target = p;
        sb = real;
    } else if (exists && (!same || !S_ISREG(sb.st_mode))) {
        spt__free(o->target);
        o->target = NULL;
        return open_direct(fn, path, o);
    }
    char *dir = dir_of(o->target);
    if (!dir) {
        spt__free(o->target);
        o->target = NULL;
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    bool inplace = exists && (sb.st_nlink > 1 || !same);
    /* the caught signals wait while the temporary is created and registered: a signal in between
     * would otherwise find a file it does not know to remove */
    install_handlers(); /* each time: the program may have changed a disposition since */
    sigset_t block, saved;
    sigemptyset(&block);
    for (size_t k = 0; k < sizeof caught / sizeof *caught; k++) sigaddset(&block, caught[k]);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    int fd = make_temp(dir, exists ? 0600 : 0666, &o->tmp);
    int e = errno;
    spt__free(dir);
    if (fd < 0 && exists && (inplace || e == EACCES || e == EROFS || e == EPERM)) {
        /* an existing file in a directory we cannot create in: write it in place, from a scratch
         * file in TMPDIR */
        const char *td = getenv("TMPDIR");
        char tdir[PATH_MAX];
        snprintf(tdir, sizeof tdir, "%s/", td && *td && strlen(td) < PATH_MAX - 16 ? td : "/tmp");
        fd = make_temp(tdir, 0600, &o->tmp);
        e = errno;
        inplace = true;
    }
    if (fd < 0) {
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        spt__free(o->target);
        o->target = NULL;
        return spt__err(e == ENOMEM ? SPT_ENOMEM : SPT_EIO, "%s: cannot create a temporary file beside %s: %s", fn,
                        path, strerror(e));
    }
    o->mode = inplace ? OUT_INPLACE : OUT_RENAME;
    if (inplace) { /* an unnamed scratch file: nothing to clean up on a signal */
        unlink(o->tmp);
        spt__free(o->tmp);
        o->tmp = NULL;
    } else o->slot = tmp_register(o->tmp);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (!inplace && exists) keep_attrs(fd, &sb);
    spt_status st = open_fp(fn, o, fd);
    if (st == SPT_OK) st = spt__out_pack(fn, o);
    if (st != SPT_OK) spt__out_abort(o);
    return st;
}

/* Copy the scratch file of an in-place write into the target (opened without creating it). */
static spt_status copy_in_place(const char *fn, spt__out *o) {
    int src = fileno(o->fp);
    if (lseek(src, 0, SEEK_SET) != 0) return spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(errno));
    int dst = open(o->target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
    if (dst < 0) return spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(errno));
    char *buf = spt__malloc(1 << 16);
    spt_status st = buf ? SPT_OK : spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    while (st == SPT_OK) {
        ssize_t r = read(src, buf, 1 << 16);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) st = spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(errno));
        if (r <= 0) break;
        for (ssize_t w = 0; w < r && st == SPT_OK;) {
            ssize_t k = write(dst, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) st = spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(errno));
            else w += k;
        }
    }
    spt__free(buf);
    if (close(dst) != 0 && st == SPT_OK)
        st = spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(errno));
    return st;
}

static void out_free(spt__out *o) {
    spt__free(o->tmp);
    spt__free(o->target);
    free(o->vbuf);
    memset(o, 0, sizeof *o);
    o->slot = -1;
}

spt_status spt__out_commit(const char *fn, spt__out *o) {
    if (o->is_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return spt__err(SPT_EIO, "%s: cannot write to stdout: %s", fn, strerror(errno));
        return SPT_OK;
    }
    spt_status st = spt__out_unpack(fn, o);
    int bad = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (bad && st == SPT_OK) st = spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(e ? e : EIO));
    if (st == SPT_OK && o->mode == OUT_INPLACE) st = copy_in_place(fn, o);
    if (fclose(o->fp) != 0 && st == SPT_OK)
        st = spt__err(SPT_EIO, "%s: cannot write %s: %s", fn, o->path, strerror(errno));
    o->fp = NULL;
    if (o->mode == OUT_RENAME) {
        if (st == SPT_OK && rename(o->tmp, o->target) != 0)
            st = spt__err(SPT_EIO, "%s: cannot rename into %s: %s", fn, o->path, strerror(errno));
        if (st != SPT_OK) unlink(o->tmp);
        tmp_unregister(o->slot);
    }
    out_free(o);
    return st;
}

void spt__out_abort(spt__out *o) {
    if (o->is_stdout) {
        fflush(stdout);
        memset(o, 0, sizeof *o);
        o->slot = -1;
        return;
    }
    if (o->raw) (void)spt__out_unpack("", o);
    if (o->fp) fclose(o->fp);
    o->fp = NULL;
    if (o->tmp) unlink(o->tmp);
    tmp_unregister(o->slot);
    out_free(o);
}
