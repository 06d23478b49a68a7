/* SPDX-License-Identifier: Apache-2.0 */
/* load.c -- a whole input file's bytes: mapped when regular, read otherwise. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *spt__display_name(const char *path) { return strcmp(path, "-") ? path : "<stdin>"; }

/* The most bytes read from a stream (stdin, a pipe, a FIFO, a device): SPT_MAX_STREAM_BYTES from the
 * environment (a byte count with an optional K, M, G or T suffix, powers of 1024), else 4 GiB or half
 * the physical memory, whichever is smaller. */
size_t spt__max_stream_bytes(void) {
    const char *e = getenv("SPT_MAX_STREAM_BYTES");
    if (e && *e) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(e, &end, 10);
        int shift = 0;
        if (*end == 'k' || *end == 'K') shift = 10, end++;
        else if (*end == 'm' || *end == 'M') shift = 20, end++;
        else if (*end == 'g' || *end == 'G') shift = 30, end++;
        else if (*end == 't' || *end == 'T') shift = 40, end++;
        if (!errno && end != e && !*end && e[0] != '-') {
            if (v > (SIZE_MAX >> shift)) return SIZE_MAX;
            return (size_t)v << shift;
        }
    }
    size_t lim = (size_t)4 << 30;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0 && (uint64_t)pages * (uint64_t)psz / 2 < lim)
        lim = (size_t)((uint64_t)pages * (uint64_t)psz / 2);
    return lim;
}

size_t spt__max_text_stream_bytes(void) {
    const char *e = getenv("SPT_MAX_STREAM_BYTES");
    return e && *e ? spt__max_stream_bytes() : SIZE_MAX;
}

/* Refuse a stream whose first bytes are neither `magic` nor a compressed or tar start. */
static spt_status check_magic(const char *fn, const char *path, const char *buf, size_t len, const char *magic,
                              size_t mlen, const char *what) {
    /* a start shorter than the magic is left to the format's parser, which says what is missing */
    if (!magic || len < mlen || spt__packed_kind(buf, len) || !memcmp(buf, magic, mlen)) return SPT_OK;
    (void)fn; /* parse errors start with the file's name */
    const unsigned char *b = (const unsigned char *)buf;
    return spt__err(SPT_EPARSE, "%s: expected a %s file (its magic bytes first), found the bytes %02x %02x %02x %02x",
                    spt__display_name(path), what, b[0], len > 1 ? b[1] : 0, len > 2 ? b[2] : 0, len > 3 ? b[3] : 0);
}

/* Read fd to its end after the `plen` bytes `pre` already read from it (pre is taken over). */
static spt_status read_fd(const char *fn, const char *path, int fd, const char *magic, size_t mlen, const char *what,
                          char *pre, size_t plen, spt__file *f) {
    size_t cap = plen > (1 << 16) ? plen : 1 << 16, len = plen;
    struct stat sb; /* a regular file (stdin redirected from one) has an end: no bound */
    const size_t most = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? SIZE_MAX : spt__max_stream_bytes();
    char *buf = spt__realloc(pre, cap);
    if (!buf) {
        spt__free(pre);
        return spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, spt__display_name(path));
    }
    for (;;) {
        if (len > most) {
            spt__free(buf);
            return spt__err(SPT_EOVERFLOW,
                            "%s: %s is not a regular file and gives more than %zu bytes; stopped there "
                            "(SPT_MAX_STREAM_BYTES sets the limit)",
                            fn, spt__display_name(path), most);
        }
        if (len == cap) {
            size_t ncap;
            if (spt__mul_sz(cap, 2, &ncap)) {
                spt__free(buf);
                return spt__err(SPT_EOVERFLOW, "%s: %s is too large", fn, spt__display_name(path));
            }
            if (most < SIZE_MAX && ncap > most + 1) ncap = most + 1 > cap ? most + 1 : cap + 1;
            char *nb = spt__realloc(buf, ncap);
            if (!nb) {
                spt__free(buf);
                return spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, spt__display_name(path));
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            spt__free(buf);
            return spt__err(SPT_EIO, "%s: cannot read %s: %s", fn, spt__display_name(path), strerror(e));
        }
        if (r == 0) break;
        len += (size_t)r;
        if (magic && len >= 263) { /* enough to tell (a tar's magic is at 257) */
            spt_status st = check_magic(fn, path, buf, len, magic, mlen, what);
            if (st != SPT_OK) {
                spt__free(buf);
                return st;
            }
            magic = NULL;
        }
    }
    if (magic) {
        spt_status st = check_magic(fn, path, buf, len, magic, mlen, what);
        if (st != SPT_OK) {
            spt__free(buf);
            return st;
        }
    }
    f->buf = buf;
    f->data = buf;
    f->len = len;
    return SPT_OK;
}

/* Seconds to wait for a FIFO's writer: SPT_FIFO_TIMEOUT from the environment (1 .. 86400), else 30. */
static int fifo_timeout(void) {
    const char *v = getenv("SPT_FIFO_TIMEOUT");
    char *e;
    long x = v ? strtol(v, &e, 10) : 0;
    return v && e != v && !*e && x >= 1 && x <= 86400 ? (int)x : 30;
}

/* Whether data or a writer's end came within fifo_timeout() (fd: a FIFO opened O_NONBLOCK for reading;
 * with no writer yet, poll reports nothing). */
static bool fifo_writer(int fd) {
    struct pollfd p = {fd, POLLIN, 0};
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const long long limit = (long long)fifo_timeout() * 1000;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long left = limit - ((long long)(t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) return false;
        int r = poll(&p, 1, (int)left);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return true; /* let the read report it */
    }
}

spt_status spt__open_input(const char *fn, const char *path, int *fd_out) {
    *fd_out = -1;
    /* non-blocking: open() of a FIFO nobody writes to would block for ever */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return spt__err(SPT_EIO, "%s: cannot open %s: %s", fn, path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode) && !fifo_writer(fd)) {
        close(fd);
        return spt__err(SPT_EIO, "%s: %s is a FIFO that no writer opened within %d s (SPT_FIFO_TIMEOUT)", fn, path,
                        fifo_timeout());
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        return spt__err(SPT_EIO, "%s: cannot read %s: %s", fn, path, strerror(e));
    }
    *fd_out = fd;
    return SPT_OK;
}

static spt_status load(const char *fn, const char *path, const char *magic, size_t mlen, const char *what,
                       spt__file *f) {
    if (!strcmp(path, "-")) return read_fd(fn, path, 0, magic, mlen, what, NULL, 0, f);
    int fd;
    SPT__TRY(spt__open_input(fn, path, &fd));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return spt__err(SPT_EIO, "%s: cannot stat %s: %s", fn, path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return spt__err(SPT_EIO, "%s: %s is a directory", fn, path);
    }
    spt_status st;
    if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            (void)madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL | MADV_WILLNEED);
            f->map = m;
            f->maplen = (size_t)sb.st_size;
            f->data = m;
            f->len = (size_t)sb.st_size;
            close(fd);
            return SPT_OK;
        }
    }
    st = read_fd(fn, path, fd, magic, mlen, what, NULL, 0, f);
    close(fd);
    return st;
}

/* Name f after path and decode a compressed or tar input; released on failure. */
static spt_status unpacked(const char *fn, const char *path, const char *magic, size_t mlen, const char *what,
                           spt__file *f) {
    f->name = spt__display_name(path);
    if (!spt__packed_kind(f->data, f->len)) return SPT_OK;
    spt_status st = spt__file_unpack(fn, path, f);
    if (st == SPT_OK) st = check_magic(fn, path, f->data, f->len, magic, mlen, what);
    if (st != SPT_OK) spt__file_release(f);
    return st;
}

spt_status spt__file_load_magic(const char *fn, const char *path, const char *magic, size_t mlen, const char *what,
                                spt__file *f) {
    memset(f, 0, sizeof *f);
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    SPT__TRY(load(fn, path, magic, mlen, what, f));
    return unpacked(fn, path, magic, mlen, what, f);
}

spt_status spt__file_load_rest(const char *fn, const char *path, int fd, char *pre, size_t plen, spt__file *f) {
    memset(f, 0, sizeof *f);
    SPT__TRY(read_fd(fn, path, fd, NULL, 0, NULL, pre, plen, f));
    f->name = spt__display_name(path);
    if (!spt__packed_kind(f->data, f->len)) return SPT_OK;
    spt_status st = spt__file_unpack(fn, path, f);
    if (st != SPT_OK) spt__file_release(f);
    return st;
}

spt_status spt__file_load(const char *fn, const char *path, spt__file *f) {
    return spt__file_load_magic(fn, path, NULL, 0, NULL, f);
}

void spt__file_release(spt__file *f) {
    if (f->map) munmap(f->map, f->maplen);
    spt__free(f->buf);
    spt__free(f->name_buf);
    spt__free(f->member);
    memset(f, 0, sizeof *f);
}

/* ---- mappings shared with the objects made from them ------------------------------------------- */

spt__map *spt__file_share(spt__file *f) {
    if (!f->map) return NULL;
    spt__map *m = spt__malloc(sizeof *m);
    if (!m) return NULL;
    atomic_init(&m->refs, 1);
    m->addr = f->map;
    m->len = f->maplen;
    f->map = NULL; /* f's bytes stay readable: the mapping now belongs to m */
    return m;
}

void spt__map_ref(spt__map *m) { atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed); }

void spt__map_unref(spt__map *m) {
    if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1) return;
    munmap(m->addr, m->len);
    spt__free(m);
}

bool spt__map_writable(const void *p, size_t n) {
    const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(pg - 1);
    const uintptr_t e = ((uintptr_t)p + n + pg - 1) & ~(pg - 1);
    return n == 0 || mprotect((void *)a, e - a, PROT_READ | PROT_WRITE) == 0;
}

/* The flag of this thread, through a pthread key holding a non-NULL pointer for "copy" (nothing is
 * allocated): not a _Thread_local, which a dlopen'ed libspt.so allocates on a thread's first use, ending
 * the process when that fails (see the tar member's name in decode.c). */
static pthread_key_t copy_key;
static pthread_once_t copy_once = PTHREAD_ONCE_INIT;
static int copy_key_ok;
static void copy_key_init(void) { copy_key_ok = pthread_key_create(&copy_key, NULL) == 0; }

void spt_set_read_copy(bool copy) {
    pthread_once(&copy_once, copy_key_init);
    if (copy_key_ok) (void)pthread_setspecific(copy_key, copy ? (void *)&copy_key : NULL);
}
bool spt__read_copy(void) {
    pthread_once(&copy_once, copy_key_init);
    return copy_key_ok && pthread_getspecific(copy_key) != NULL;
}

/* ---- a stream spooled to a temporary file ------------------------------------------------------ */

/* A new temporary file in $TMPDIR (else /tmp), unlinked at once: it lives as long as its descriptor. */
static int spool_file(void) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir || strlen(dir) > 4000) dir = "/tmp";
    char name[4096 + 16];
    snprintf(name, sizeof name, "%s/.sptXXXXXX", dir);
    int fd = mkstemp(name);
    if (fd >= 0) unlink(name);
    return fd;
}

/* A descriptor read to its end for spt__spool; its first bytes checked against the magic. */
typedef struct fd_src {
    const char *fn, *path, *magic, *what;
    size_t mlen;
    int fd;
    bool first;
} fd_src;

static spt_status fd_read(void *ctx, char *buf, size_t cap, size_t *got) {
    fd_src *s = ctx;
    ssize_t r;
    *got = 0;
    do r = read(s->fd, buf, cap);
    while (r < 0 && errno == EINTR);
    if (r < 0) return spt__err(SPT_EIO, "%s: cannot read %s: %s", s->fn, spt__display_name(s->path), strerror(errno));
    if (r > 0 && s->first && s->magic)
        SPT__TRY(check_magic(s->fn, s->path, buf, (size_t)r, s->magic, s->mlen, s->what));
    s->first = false;
    *got = (size_t)r;
    return SPT_OK;
}

spt_status spt__spool(const char *fn, const char *path, spt__read_fn rd, void *ctx, spt__file *f) {
    int out = spool_file();
    if (out < 0)
        return spt__err(SPT_EIO, "%s: cannot make a temporary file to hold %s: %s", fn, spt__display_name(path),
                        strerror(errno));
    spt_status st = SPT_OK;
    char *buf = spt__malloc((size_t)1 << 20);
    size_t total = 0, r = 0;
    if (!buf) st = spt__err(SPT_ENOMEM, "%s: out of memory reading %s", fn, spt__display_name(path));
    while (st == SPT_OK && (st = rd(ctx, buf, (size_t)1 << 20, &r)) == SPT_OK && r > 0) {
        for (size_t w = 0; st == SPT_OK && w < r;) {
            ssize_t k = write(out, buf + w, r - w);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0)
                st = spt__err(SPT_EIO, "%s: cannot spool %s to a temporary file: %s", fn, spt__display_name(path),
                              k < 0 ? strerror(errno) : "no space");
            else w += (size_t)k;
        }
        total += r;
    }
    spt__free(buf);
    if (st == SPT_OK && total == 0) {
        f->buf = spt__malloc(1);
        if (!f->buf) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        f->data = f->buf;
    } else if (st == SPT_OK) {
        void *m = mmap(NULL, total, PROT_READ, MAP_PRIVATE, out, 0);
        if (m == MAP_FAILED)
            st = spt__err(SPT_EIO, "%s: cannot map the spooled %s: %s", fn, spt__display_name(path), strerror(errno));
        else f->map = m, f->maplen = total, f->data = m, f->len = total;
    }
    close(out);
    return st;
}

/* Copy fd to an unlinked temporary file and map it into f. */
static spt_status spool(const char *fn, const char *path, int in, const char *magic, size_t mlen, const char *what,
                        spt__file *f) {
    fd_src src = {fn, path, magic, what, mlen, in, true};
    return spt__spool(fn, path, fd_read, &src, f);
}

spt_status spt__file_load_spooled(const char *fn, const char *path, const char *magic, size_t mlen, const char *what,
                                  spt__file *f) {
    memset(f, 0, sizeof *f);
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    int fd = 0;
    struct stat sb;
    if (strcmp(path, "-")) SPT__TRY(spt__open_input(fn, path, &fd));
    if (fstat(fd, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) { /* mapped (or refused) as usual */
        if (fd != 0) close(fd);
        return spt__file_load_magic(fn, path, magic, mlen, what, f);
    }
    spt_status st = spool(fn, path, fd, magic, mlen, what, f);
    if (fd != 0) close(fd);
    if (st != SPT_OK) {
        spt__file_release(f);
        return st;
    }
    return unpacked(fn, path, magic, mlen, what, f);
}
