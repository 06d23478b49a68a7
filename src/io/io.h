/* SPDX-License-Identifier: Apache-2.0 */
/* io.h -- what the file-format readers and writers share (internal to src/io).
 *
 * The toolbox files (load.c, lex.c, values.c, coords.c, order.c, out.c, progress.c, format.c, json.c) call
 * nothing above them; the formats (tns.c, mtx.c, npy.c, npz.c, png.c) call the toolbox; dispatch.c
 * (spt_read, spt_write) calls the formats. No format calls the dispatcher. */
#ifndef SPT_IO_H
#define SPT_IO_H

#include "core/internal.h"

#include <stdio.h>

/* ---- whole-file input (load.c) --------------------------------------------------------------- */

/* A file's bytes: mapped read-only (regular files) or read into an spt buffer (stdin, pipes). */
typedef struct spt__file {
    const char *data;
    size_t len;
    void *map; /* non-NULL when mapped */
    size_t maplen;
    char *buf;        /* non-NULL when read */
    const char *name; /* for messages: "<stdin>", the path, or "PATH[MEMBER]" for a tar member */
    char *name_buf;   /* owns name when it was built */
    char *member;     /* the tar member read, or NULL */
} spt__file;

/* Load `path` ("-" = stdin). SPT_EIO naming `fn` and the system error when it cannot be read.
 * Compressed and tar inputs (recognised by their first bytes) are decoded (decode.c). */
spt_status spt__file_load(const char *fn, const char *path, spt__file *f);
/* The same for a binary format whose bytes start with `magic` (after any decoding): another start is
 * refused from the first bytes of a stream, before reading on. `what` names the format in messages. */
spt_status spt__file_load_magic(const char *fn, const char *path, const char *magic, size_t mlen, const char *what,
                                spt__file *f);
void spt__file_release(spt__file *f);
/* The same for a stream of which the `plen` bytes `pre` (an spt buffer, taken over) were read already. */
spt_status spt__file_load_rest(const char *fn, const char *path, int fd, char *pre, size_t plen, spt__file *f);
/* "gzip", "bzip2", "xz", "zstd" or "tar" when p[0..len) starts like one, else NULL (decode.c). */
const char *spt__packed_kind(const char *p, size_t len);
/* Replace f's bytes by their decoded content (a tar archive's chosen member). */
spt_status spt__file_unpack(const char *fn, const char *path, spt__file *f);
/* The most bytes spt__file_load reads from a non-regular file (see SPT_MAX_STREAM_BYTES in spt.h). */
size_t spt__max_stream_bytes(void);
/* The bound on a streamed text's bytes: SPT_MAX_STREAM_BYTES when the environment sets it, else none
 * (the parser holds the tensor and a fixed buffer, not the text). */
size_t spt__max_text_stream_bytes(void);
/* Open `path` for reading (SPT_EIO naming fn when it cannot be): a FIFO is waited for until a writer
 * opens it, at most SPT_FIFO_TIMEOUT seconds (default 30), then SPT_EIO. */
spt_status spt__open_input(const char *fn, const char *path, int *fd);
/* The name to use in messages for `path` ("<stdin>" for "-"). */
const char *spt__display_name(const char *path);
/* A text file's UTF-8 byte-order mark (EF BB BF) at the start of buf is skipped: *buf, *len past it. */
static inline void spt__skip_bom(const char **buf, size_t *len) {
    if (*buf && *len >= 3 && !memcmp(*buf, "\xEF\xBB\xBF", 3)) *buf += 3, *len -= 3;
}

/* A file's mapping shared by the objects made from it (a tensor's values, a dense array's data): the
 * last spt__map_unref unmaps it. */
typedef struct spt__map {
    _Atomic long refs;
    void *addr;
    size_t len;
} spt__map;
/* Move f's mapping into a new shared mapping (one reference; f keeps its bytes readable but no longer
 * unmaps them); NULL when f is not mapped or memory is short. */
spt__map *spt__file_share(spt__file *f);
void spt__map_ref(spt__map *m);
void spt__map_unref(spt__map *m);
/* Make the pages holding p[0..n) of a private mapping writable (copy on write: the file never changes),
 * so that in-place ops may write a wrapped buffer; false when the system refuses. */
bool spt__map_writable(const void *p, size_t n);
/* Whether the readers on this thread copy instead of mapping (spt_set_read_copy). */
bool spt__read_copy(void);
/* Load `path` like spt__file_load_magic; a stream (pipe, stdin, FIFO, device) is first copied to an
 * unlinked temporary file in $TMPDIR (else /tmp) and mapped from there: bounded by the disk, not RAM. */
spt_status spt__file_load_spooled(const char *fn, const char *path, const char *magic, size_t mlen, const char *what,
                                  spt__file *f);
/* A source of bytes for spt__spool: up to cap bytes into buf, *got == 0 at its end. */
typedef spt_status (*spt__read_fn)(void *ctx, char *buf, size_t cap, size_t *got);
/* Copy what rd gives, to its end, to an unlinked temporary file and map it into f (f->name left unset). */
spt_status spt__spool(const char *fn, const char *path, spt__read_fn rd, void *ctx, spt__file *f);

/* ---- zip archives read in place (zipread.c) -------------------------------------------------- */

typedef struct spt__zip_entry {
    const char *name; /* into the central directory, nlen bytes, not NUL-terminated */
    size_t nlen;
    const unsigned char *data; /* the member's stored (compressed) bytes in the image */
    uint64_t csize, usize;
    uint32_t crc;
    unsigned method, flags;
} spt__zip_entry;
typedef struct spt__zip {
    const char *name;
    spt__zip_entry *e;
    size_t n;
    bool mapped; /* the image is a read-only private file mapping (its pages may be dropped behind a pass) */
} spt__zip;
/* Read the central directory of the zip image data[0..len): every entry's local header and data range
 * checked against the image (SPT_EPARSE naming `name`). */
spt_status spt__zip_open(const char *fn, const char *name, const char *data, size_t len, bool mapped, spt__zip *z);
void spt__zip_close(spt__zip *z);
/* The entry named m, NULL when there is none. */
const spt__zip_entry *spt__zip_find(const spt__zip *z, const char *m);
/* The first min(cap, size) bytes of a member (its header), inflating only those. */
spt_status spt__zip_head(const char *fn, const char *label, const spt__zip_entry *e, char *buf, size_t cap,
                         size_t *got);
/* A member's bytes, CRC-32 and size checked: a stored member where it lies (*own NULL); a deflated one
 * inflated by libdeflate into a new buffer (*own, spt__free it) placed so that byte `align` of the member
 * is 64-byte aligned (*out = *own + *shift). */
spt_status spt__zip_extract(const char *fn, const char *label, const spt__zip *z, const spt__zip_entry *e, size_t align,
                            const char **out, char **own, size_t *shift);
/* Drop the whole pages of p[0..n) from this process's view of a read-only private file mapping (they come
 * back from the page cache when touched again): keeps a pass over a mapped file out of the peak memory. */
void spt__unmap_behind(const void *p, size_t n);

/* ---- zip archives written (zipwrite.c) ------------------------------------------------------- */

#define SPT__NPY_HDR_CAP (64 * 24 + 256)
typedef struct spt__zipw_member {
    char name[32];
    char head[SPT__NPY_HDR_CAP]; /* the member's first bytes (a .npy header), copied */
    size_t hlen;
    const char *body; /* then these, borrowed until written */
    size_t blen;
    void *own;  /* freed with the writer */
    char *comp; /* the deflated member */
    uint64_t usize, csize;
    uint32_t crc;
    unsigned method;
} spt__zipw_member;
typedef struct spt__zipw {
    spt__zipw_member m[SPT_MAX_RANK + 8]; /* binsparse COO: an index array per mode, values, fill, descriptor */
    int n;
    int level; /* 0: stored, each member's data on a 64-byte boundary of the file; 1..12: libdeflate's level */
} spt__zipw;
/* Add a member (own is freed with w, also on failure). SPT_EINVAL past SPT_MAX_RANK + 8 members. */
spt_status spt__zipw_add(const char *fn, spt__zipw *w, const char *name, const char *head, size_t hlen,
                         const void *body, size_t blen, void *own);
/* Compress (the largest member on a second thread) and write the archive to fp. */
spt_status spt__zipw_write(const char *fn, spt__zipw *w, FILE *fp);
void spt__zipw_free(spt__zipw *w);

/* ---- streamed input (stream.c) -------------------------------------------------------------- */

/* Text read in pieces: a pipe, stdin, a FIFO, or a gzip, bzip2, xz or zstd stream (from any of those or
 * a regular file), so that a parser holds a fixed buffer rather than the whole text. */
typedef struct spt__stream {
    const char *name; /* for messages */
    int fd;
    bool close_fd;
    int kind;  /* 0 plain, 1 gzip (zlib), 2 bzip2/xz/zstd (libarchive) */
    char *pre; /* bytes read from fd before the decision, handed out first */
    size_t pre_len, pre_pos;
    char *seen; /* while deciding: every byte a decoder took, to load the whole input after all */
    size_t seen_len, seen_cap;
    bool record, raw_eof, done;
    char *raw;  /* the decoder's input buffer */
    void *z;    /* z_stream */
    void *a;    /* struct archive */
    char *head; /* decoded bytes looked at before the first read, handed out first */
    size_t head_len, head_pos;
    uint64_t in_bytes, total, out_bytes; /* compressed bytes consumed, the file's size (0: unknown), decoded */
    size_t most;                         /* the bound on decoded bytes (spt__max_text_stream_bytes) */
} spt__stream;

/* Open `path` ("-" = stdin) for reading. When a stream is not worth it -- a regular uncompressed file
 * (mapped), or a tar archive (a member is chosen from the whole) -- the input is loaded into *f instead
 * and *loaded is true; otherwise s is ready for spt__stream_read. */
spt_status spt__stream_open(const char *fn, const char *path, spt__stream *s, spt__file *f, bool *loaded);
/* Up to cap decoded bytes into buf; *got == 0 at the end. Corrupt or truncated data is SPT_EPARSE. */
spt_status spt__stream_read(const char *fn, spt__stream *s, char *buf, size_t cap, size_t *got);
void spt__stream_close(spt__stream *s);
/* The first (up to) n decoded bytes not yet read, without consuming them: *p, *len (less than n only
 * at the end of the input). */
spt_status spt__stream_peek(const char *fn, spt__stream *s, size_t n, const char **p, size_t *len);
/* The rest of the decoded stream copied to a temporary file and mapped into f (spt__spool), named as s. */
spt_status spt__stream_spool(const char *fn, spt__stream *s, spt__file *f);
/* The text parsers on an opened stream (tns.c, mtx.c), for spt_read when the content decides. */
spt_status spt__tns_stream(const char *fn, spt__stream *s, const spt_read_opts *opts, int base, spt_tensor **out);
spt_status spt__mtx_stream(const char *fn, spt__stream *s, const spt_read_opts *opts, spt_tensor **out);


/* ---- output (out.c): the one path every writer takes ----------------------------------------- */

/* An output in progress. New files and single-link regular files are written to a temporary
 * ".sptXXXXXX" beside the target (after following symlinks) and renamed over it on commit, keeping the
 * old file's mode; hard-linked files are produced in a scratch file and copied in place on commit;
 * devices, FIFOs and other non-regular targets are written directly. */
typedef struct spt__out {
    FILE *fp;
    const char *path; /* as given, for messages */
    char *target;     /* the name the data goes to (symlinks followed) */
    char *tmp;        /* the temporary's name while it exists (rename mode) */
    char *vbuf;       /* stdio buffer */
    int mode;         /* how the target is written (out.c) */
    int slot;         /* signal-cleanup registration of tmp, or -1 */
    bool is_stdout;
    FILE *raw; /* the file under a compressor (encode.c) while fp writes into the compressor */
} spt__out;

/* Open for writing: "-" is stdout (only when allow_stdout). SPT_EINVAL for an empty or over-long
 * path, SPT_EIO naming the path and the system error otherwise. */
spt_status spt__out_open(const char *fn, const char *path, bool allow_stdout, spt__out *o);
/* Flush and put the data in place (or flush stdout); on any failure removes the temporary. */
spt_status spt__out_commit(const char *fn, spt__out *o);
/* Drop the output without touching the target (a direct write may have written part of it). */
void spt__out_abort(spt__out *o);
/* encode.c: when o's name ends in .gz, .bz2, .xz or .zst, put that compressor between fp and the file
 * (o->raw); spt__out_unpack finishes the compressed stream and puts fp back. */
spt_status spt__out_pack(const char *fn, spt__out *o);
spt_status spt__out_unpack(const char *fn, spt__out *o);

/* ---- lexing (lex.c) -------------------------------------------------------------------------- */

static inline bool spt__is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Describe a token for a message: "'abc'" (truncated) or "end of line". buf >= 64 bytes. */
void spt__describe_token(char *buf, size_t cap, const char *p, const char *end);

/* Parse a decimal integer token [p, e) (optional sign). Returns 0 ok, 1 not an integer, 2 overflow. */
int spt__parse_i64(const char *p, const char *e, int64_t *v);
/* Parse an unsigned decimal integer (optional '+'), 0 ok, 1 not an integer, 2 overflow. */
int spt__parse_u64(const char *p, const char *e, uint64_t *v);
/* Parse a float token: decimal with optional fraction and exponent, or inf/infinity/nan (any case,
 * optional sign). 0 ok, 1 not a number, 2 out of range (finite literal that overflows). */
int spt__parse_f64(const char *p, const char *e, double *v);

/* ---- the coordinate-list parser shared by .tns and .mtx (coords.c) --------------------------- */

enum { SPT__VK_INFER, SPT__VK_INT, SPT__VK_UINT64, SPT__VK_FLOAT, SPT__VK_NONE };

typedef struct spt__coord_spec {
    const char *name;                         /* file name in messages */
    int64_t first_line;                       /* line number of buf[0] */
    int64_t rank;                             /* index fields per line */
    int nval;                                 /* value fields per line: 0, 1 or 2 (complex) */
    int vkind;                                /* SPT__VK_*: how values are parsed */
    int64_t lo, hi;                           /* VK_INT: accepted value range */
    const char *vname;                        /* what a value is called in messages ("an int8 value") */
    const int64_t *shape;                     /* when non-NULL, index k must lie in 1..shape[k] */
    char comment;                             /* lines whose first non-blank char is this are skipped */
    bool zero_based;                          /* indices are 0-based (0..shape[k]-1) instead of 1-based */
    void (*progress)(double done, void *ctx); /* optional, called by the parser of the first chunk */
    void *progress_ctx;
} spt__coord_spec;

typedef struct spt__coord_result {
    int64_t n;       /* entries parsed */
    int64_t *idx;    /* n * rank, 0-based (spt__malloc'd) */
    uint64_t *v0;    /* n values: int64 / uint64 / double bit patterns (NULL when nval == 0) */
    double *v1;      /* imaginary parts (nval == 2) */
    uint8_t *isflt;  /* VK_INFER: 1 where v0 holds a double */
    bool any_float;  /* VK_INFER: some value was not an integer */
    int64_t *maxidx; /* rank: 1 + the largest 0-based index per mode (0 when n == 0) */
    int64_t lines;   /* line starts in the text parsed */
    int64_t cap;     /* spt__coord_result_append: the arrays' capacity in entries */
} spt__coord_result;

/* Parse buf[0..len) as lines of `rank` 1-based indices and `nval` values with both cores.
 * Parse errors are SPT_EPARSE "NAME:LINE: expected X, found Y". */
spt_status spt__parse_coords(const char *fn, const char *buf, size_t len, const spt__coord_spec *spec,
                             spt__coord_result *res);
void spt__coord_result_free(spt__coord_result *res);
/* Append `part` (parsed from the next piece of a stream, same spec) to `acc` (empty at first: zeroed);
 * part is freed either way. Arrays grow by doubling (large blocks are remapped, not copied). */
spt_status spt__coord_result_append(const char *fn, const spt__coord_spec *sp, spt__coord_result *acc,
                                    spt__coord_result *part);

/* Store element i of a value array of dtype `d` from the parsed bit pattern (int64/uint64/double)
 * and imaginary part. */
void spt__store_value(spt_dtype d, void *values, int64_t i, uint64_t v0, double v1, bool isflt);

/* Fill sp->nval, vkind, lo, hi, vname for values of dtype d (SPT_NUM_DTYPES: infer int64/float64). */
void spt__value_kind(spt_dtype d, spt__coord_spec *sp);

/* The calling thread's progress callbacks (spt_set_read_progress, spt_set_write_progress). */
void spt__read_progress(spt_progress_fn *fn, void **ctx);
void spt__write_progress(spt_progress_fn *fn, void **ctx);

/* Build a tensor from parsed coordinates (adopting res->idx and, when it already holds the dtype's
 * bits, res->v0); `ones` stores 1 in every value (pattern files). Known valid, order undefined. */
spt_status spt__tensor_from_coords(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape,
                                   spt__coord_result *res, bool ones, spt_tensor **out);

/* ---- streamed coordinates (stream.c) ---------------------------------------------------------- */

/* A stream's text a piece at a time: complete lines are parsed, the rest kept for the next piece. */
enum { SPT__PIECE = 16 << 20, SPT__MAX_LINE = 1 << 20 };
typedef struct spt__pieces {
    char *p;
    size_t len, cap;
    bool eof;
} spt__pieces;
/* Read until b is full or the stream ends (doubling b first when `grow`). */
spt_status spt__pieces_fill(const char *fn, spt__stream *s, spt__pieces *b, bool grow);
/* Parse b's complete lines as coordinates, then the rest of the stream, piece after piece, into acc
 * (line: the line number of b->p[0]); calls the thread's progress callback by the bytes consumed. */
spt_status spt__pieces_parse(const char *fn, spt__stream *s, spt__pieces *b, spt__coord_spec *sp, int64_t line,
                             spt__coord_result *acc);
/* SPT_EPARSE "NAME:LINE: expected an end of line within SPT__MAX_LINE bytes". */
spt_status spt__line_too_long(const char *name, int64_t line);

/* ---- the order a file states (order.c) ------------------------------------------------------- */

#define SPT__META_CAP (16 + 21 * SPT_MAX_RANK)
/* "order: D0 D1 ... sorted[ unique]" into buf when t is known valid and sorted by a full order, else
 * "" (returns the length, 0 when nothing is claimed). */
int spt__order_meta_format(const spt_tensor *t, char *buf, size_t cap);
/* Verify in one pass that t's entries are sorted by `order` (a permutation); when they are, set the
 * order and the sorted flag, and the unique flag when no two entries are equal. Otherwise no change. */
void spt__order_restore(spt_tensor *t, const int64_t *order);
/* The same from the text "order: ..." in [p, e) (ignored when malformed). */
void spt__order_restore_meta(spt_tensor *t, const char *p, const char *e);
/* The same from the header lines of a text file: the leading lines that start with prefix[0]; the one
 * that starts with `prefix` and then "order:" ("#" for .tns, "% spt" for Matrix Market). */
void spt__order_restore_header(spt_tensor *t, const char *buf, size_t len, const char *prefix);

/* ---- number formatting (values.c) ------------------------------------------------------------ */

/* Shortest "%.Ng" that reads back to the same double (or float when is_float32). Returns length. */
int spt__fmt_double(char *buf, size_t cap, double v, bool is_float32);
/* Format value i of `values` (numeric or bool dtype) as text; complex writes "re im". */
int spt__fmt_value(char *buf, size_t cap, spt_dtype d, const void *values, int64_t i);
/* Every entry of t as a line "i j k ... value" (indices from `base`) to fp, blocks formatted by the
 * threads and written in order (.tns and Matrix Market coordinate bodies). */
spt_status spt__write_entry_lines(const char *fn, const spt_tensor *t, int base, FILE *fp);

/* ---- .npy in memory (npy.c), for npz --------------------------------------------------------- */

/* What a .npy header declares. */
typedef struct spt__npy_head {
    spt_dtype dtype;
    size_t isz; /* bytes per element in the file */
    bool swap;  /* byte order differs from the host's */
    bool ucs4;  /* a 'U' (unicode) array, read as UTF-8 strings */
    bool fortran;
    int64_t rank;
    int64_t shape[SPT_MAX_RANK];
    int64_t vol; /* elements */
    size_t hdr;  /* bytes before the data */
    size_t data; /* bytes of data the shape and dtype need */
} spt__npy_head;
/* Parse the preamble and header of a .npy image; buf[0..len) needs to hold only the header. */
spt_status spt__npy_head_parse(const char *fn, const char *name, const char *buf, size_t len, spt__npy_head *h);
/* Parse a whole .npy image into a dense array. Strings come from 'S' (bytes) arrays. */
spt_status spt__npy_parse(const char *fn, const char *name, const char *buf, size_t len, spt_dense **out);
/* The .npy 1.0 header of an array of dtype/rank/shape (Fortran order: the shape's first index fastest)
 * into head (SPT__NPY_HDR_CAP bytes, padded to a multiple of 64); *isz the bytes per element, *body the
 * bytes of the data after it. */
spt_status spt__npy_header(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, const void *data,
                           bool fortran, char *head, size_t *hlen, size_t *isz, size_t *body);
/* Serialize a dense array (or raw typed data) into a new spt buffer (*out, *outlen). */
spt_status spt__npy_build(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, const void *data,
                          char **out, size_t *outlen);

/* ---- JSON descriptors (json.c) ------------------------------------------------------------------ */

enum { SPT__JSON_NULL, SPT__JSON_BOOL, SPT__JSON_NUMBER, SPT__JSON_STRING, SPT__JSON_ARRAY, SPT__JSON_OBJECT };
/* A node of a parsed JSON text; nodes[0] is the root. Strings (and member names) are raw spans of the
 * text between the quotes, escapes undecoded. */
typedef struct spt__json {
    int type;
    bool is_int;   /* a number written without fraction or exponent that fits int64 (in i) */
    int64_t i;     /* the integer; for BOOL 1 (true) or 0 */
    double d;      /* a number's value */
    const char *s; /* STRING: the raw span; NUMBER: its text */
    size_t len;
    const char *key; /* the member name when the node is an object's member */
    size_t klen;
    int64_t child, next, count; /* first child, next sibling (-1: none), number of children */
} spt__json;
/* Parse text[0..len) into a new node array (*nodes, spt__free it). SPT_EPARSE "NAME: byte B of the JSON
 * text: expected X, found Y"; at most 64 levels of nesting. */
spt_status spt__json_parse(const char *fn, const char *name, const char *text, size_t len, spt__json **nodes);
/* The member `key` of object obj (the last of equal names), or NULL (also when obj is not an object). */
const spt__json *spt__json_get(const spt__json *nodes, const spt__json *obj, const char *key);
/* True when x is a string whose raw text is s. */
bool spt__json_is(const spt__json *x, const char *s);

/* ---- the formats' readers from bytes in memory (for dispatch.c) ------------------------------- */

spt_status spt__tns_from_bytes(const char *buf, size_t len, const char *name, const spt_read_opts *opts, int base,
                               spt_tensor **out);
spt_status spt__mtx_from_bytes(const char *fn, const char *name, const char *data, size_t len,
                               const spt_read_opts *opts, spt_tensor **out);
spt_status spt__npz_from_bytes(const char *fn, const char *name, const char *data, size_t len, spt_tensor **out);
/* npz.c, for binsparse.c: member m (".npy" appended) of z as a dense array, CRC and size checked
 * (SPT_EPARSE naming name[m.npy] when missing or malformed); a member m holding an array as .npy (its data
 * borrowed from `data` until written, `own` freed with z; Fortran order when asked); z written to path
 * through spt__out when st is SPT_OK, then freed with its members (z itself spt__calloc'd). */
spt_status spt__npz_member(const char *fn, const char *name, const spt__zip *z, const char *m, spt_dense **out);
spt_status spt__npz_add(const char *fn, spt__zipw *z, const char *m, spt_dtype dt, int64_t rank, const int64_t *shape,
                        const void *data, bool fortran, void *own);
spt_status spt__npz_save(const char *fn, spt__zipw *z, const char *path, spt_status st);
/* binsparse.c: a binsparse archive (a .npz holding binsparse.npy) from its bytes; spt_write for the
 * SPT_FORMAT_BINSPARSE* formats. */
spt_status spt__binsparse_from_bytes(const char *fn, const char *name, const char *data, size_t len, spt_tensor **out);
spt_status spt__binsparse_from_zip(const char *fn, const char *name, const spt__zip *z, spt_tensor **out);
spt_status spt__write_binsparse(const char *fn, const spt_tensor *t, const char *path, spt_format format);

#endif
