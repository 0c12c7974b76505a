/*
 * util.h - the utilities every part of libclkit uses: failures and their
 * messages, the host's clock and memory, SHA-256, files, CSV and text.
 * Nothing here is installed; every name is static or carries the ck__
 * prefix. The rooms above: runtime/runtime.h, framework/framework.h.
 */
#ifndef CK_UTIL_H
#define CK_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "clkit/clkit.h"

/* Records a failure for ck_error_get_last() and returns status. */
ck_status ck__fail(ck_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Puts text before the current failure message and sets its status
 * (the way to add context to a failure from a call further down). */
ck_status ck__fail_prefix(ck_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends text to the current failure message; returns its status. */
ck_status ck__fail_append(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
/* The calling thread's last failure, saved around internal calls whose
 * failure is ignored (a kernel cache that cannot be read or written, a
 * cached binary the driver refuses), so that a call which succeeds leaves
 * ck_error_get_last() as it found it. */
enum { CK__ERROR_MESSAGE_BYTES = 8192 };
typedef struct ck__error_saved {
  ck_status status;
  char message[CK__ERROR_MESSAGE_BYTES];
} ck__error_saved;
void ck__error_save(ck__error_saved *saved);
void ck__error_restore(const ck__error_saved *saved);
#ifdef __clang_analyzer__
/* The static analyzer sees one file at a time: this tells it that a
 * failure returns the status it was given, so that paths on which a
 * failure seems to return CK_OK are not reported. */
#define ck__fail(status, ...) (ck__fail((status), __VA_ARGS__), (status))
#define ck__fail_prefix(status, ...)                                           \
  (ck__fail_prefix((status), __VA_ARGS__), (status))
#endif

/* Jump to the function's fail: label with status set, when expr fails. */
#define CK_TRY(expr)                                                           \
  do {                                                                         \
    status = (expr);                                                           \
    if (status != CK_OK)                                                       \
      goto fail;                                                               \
  } while (0)

/* CK_TRY for a write that an option asked for: a failure's message begins
 * "option --OPTION: ", as the check before the run names it. */
#define CK_TRY_OUTPUT(option, expr)                                            \
  do {                                                                         \
    status = (expr);                                                           \
    if (status != CK_OK)                                                       \
      CK_FAIL_PREFIX(status, "option --%s: ", (option));                       \
  } while (0)

/* Sets status and a message, then jumps to fail:. */
#define CK_FAIL(code, ...)                                                     \
  do {                                                                         \
    status = ck__fail((code), __VA_ARGS__);                                    \
    goto fail;                                                                 \
  } while (0)

/* Returns CK_ERROR_INVALID_ARGUMENT, "function: pointer is NULL", when
 * pointer is NULL: a caller that passed several pointers learns which one
 * was at fault. CK__REQUIRE is for a public function's own checks, where
 * __func__ is the name the caller knows; a helper that checks for one
 * names it with CK__REQUIRE_IN. */
#define CK__REQUIRE_IN(function, pointer)                                      \
  do {                                                                         \
    if (!(pointer))                                                            \
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", (function), \
                      #pointer);                                               \
  } while (0)
#define CK__REQUIRE(pointer) CK__REQUIRE_IN(__func__, pointer)

/* ---- Little-endian integers in files (cache entries, lsq binaries) ----- */
static inline void ck__put_u32(uint8_t *out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out[i] = (uint8_t)(value >> (8 * i));
}

static inline void ck__put_u64(uint8_t *out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out[i] = (uint8_t)(value >> (8 * i));
}

static inline uint32_t ck__get_u32(const uint8_t *in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= (uint32_t)in[i] << (8 * i);
  return value;
}

static inline uint64_t ck__get_u64(const uint8_t *in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= (uint64_t)in[i] << (8 * i);
  return value;
}

/* SplitMix64's finaliser: every bit of value stirred into every bit of
 * the result, for hash tables and tokens. */
static inline uint64_t ck__mix64(uint64_t value) {
  value = (value ^ (value >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  value = (value ^ (value >> 27)) * UINT64_C(0x94d049bb133111eb);
  return value ^ (value >> 31);
}

/* Adds context before the current message and jumps to fail:. */
#define CK_FAIL_PREFIX(code, ...)                                              \
  do {                                                                         \
    status = ck__fail_prefix((code), __VA_ARGS__);                             \
    goto fail;                                                                 \
  } while (0)

/* ---- The host (host.c) ------------------------------------------------ */
/* Monotonic seconds, for wall times. */
double ck__seconds(void);

/* 1 where the environment variable is set to "0": a switch turned off
 * (CLKIT_PEER, CLKIT_IPC, CLKIT_NCCL, CLKIT_SPREAD_THREADS). */
int ck__setting_off(const char *variable);

/* The host's physical memory in bytes (ref's device memory); 0 when the
 * system does not say. */
unsigned long long ck__host_memory(void);

/* Whether `bytes` exceeds what a run may take of `memory` bytes (90%; the
 * rest is the driver's, the system's and the queue's), as
 * ck__device_memory_check and the host's large allocations judge it;
 * never when memory is 0 (unknown). */
int ck__memory_exceeded(double bytes, unsigned long long memory);

/* ---- Test hooks (test_control.c) ------------------------------------- */
/*
 * The one way tests steer the library past what its API offers: a small
 * bound reached without a long run, a failure on cue, a path a GPU of
 * another kind would take. Modelled on sqlite3_test_control(). Every hook
 * is 0 until a test sets it, and 0 is the library's own behaviour. The
 * library sets none, but clears a one-shot hook that it used and adds to
 * a count. A hook is the process's (every thread reads the
 * one value) or the calling thread's (runs on other threads go on as
 * they would, and a spread's workers do not inherit it).
 */
typedef enum ck__test_op {
  /* Process. The most entries a history holds (made even, and at least
   * 2), so that tests reach the bound without a long run. 0: as many as
   * fit in 64 MiB, and at least 64. Read by ck__history_init. */
  CK__TEST_HISTORY_LIMIT,
  /* Thread. The calling thread's next making of member N's worker thread
   * (ck__spread_each) fails as if the system refused it; back to 0 then. */
  CK__TEST_SPREAD_THREAD_FAILS,
  /* Thread. 1: ck__peer_open gives copies between ref devices too (a
   * memmove at the call), so that what crosses them is checked without a
   * GPU. At most 1. */
  CK__TEST_PEER_REF,
  /* Thread. 1: CUDA programs are built as PTX for their device's
   * architecture, as for a GPU newer than NVRTC, and loaded through the
   * driver's compiler; an older architecture (75 for sm_75): as PTX for
   * that one, so that the kernels' fallbacks for older GPUs run here. */
  CK__TEST_CUDA_AS_PTX,
  /* Thread. A count, not a switch: the CUDA programs built as PTX. */
  CK__TEST_CUDA_PTX_BUILDS,
  /* Thread. The next load of a CUDA program's machine code fails with
   * this CUDA error code (a cudaError_t) instead; back to 0 then. */
  CK__TEST_CUDA_LOAD_FAILS,
  /* Thread. While a gas spread is made (ck__gas_spread_begin): each
   * member's outbox for resident steps holds exactly this many entries
   * past the most a region last held, and a member starts with an outbox
   * of this many entries a side and this many slots past its particles,
   * which grow as they must. At most UINT32_MAX. */
  CK__TEST_GAS_ROOM,
  /* Thread. While a gas spread is made: the particles a member from which
   * slabs sort in two tiers (else TWO_TIERS_FROM, gas_spread_internal.h),
   * through the host too. */
  CK__TEST_GAS_TIERS_FROM,
  /* Thread. Not 0 while a gas spread is made: where its members measure
   * their speeds, they cut the slabs again by them as soon as they have
   * measured BALANCE_STEPS steps (gas_spread_internal.h), whatever the
   * seconds or the gain. Each such cut adds 1 on the thread stepping. */
  CK__TEST_GAS_BALANCE,
  /* Thread. While a gas spread is made: the particles a slab member from
   * which it writes the ghosts' positions on a queue beside its own (else
   * ASIDE_FROM, gas_spread_internal.h). */
  CK__TEST_GAS_ASIDE_FROM,
  CK__TEST_OPS /* how many there are */
} ck__test_op;

/* Sets hook op to value. CK_ERROR_INVALID_ARGUMENT, naming the hook, for
 * an op that is none of the above or a value past the hook's most. */
ck_status ck__test_control(ck__test_op op, size_t value);
/* The hook's value (the calling thread's, for a thread's hook); op must be
 * one of the above. */
size_t ck__test_value(ck__test_op op);

/* ---- SHA-256 (sha256.c) ------------------------------------------------ */
typedef struct ck__sha256_context {
  uint32_t state[8];
  uint64_t length;
  uint8_t block[64];
  size_t used;
} ck__sha256_context;

void ck__sha256_init(ck__sha256_context *context);
void ck__sha256_update(ck__sha256_context *context, const void *data,
                       size_t size);
void ck__sha256_final(ck__sha256_context *context, uint8_t digest[32]);
/* The digest of strings taken with their terminating NULs, so that no two
 * splits of the same text collide: the binary cache's keys. */
void ck__sha256_strings(const char *const *parts, size_t count,
                        uint8_t digest[32]);
/* Hashes one buffer. */
void ck__sha256(const void *data, size_t size, uint8_t digest[32]);
/* Writes 64 lowercase hex digits and a terminating NUL into hex[65]. */
void ck__hex(const uint8_t *bytes, size_t count, char *hex);

/* ---- Files (files.c; inputs: files_read.c) -------------------------- */
/*
 * Output files are written to a temporary beside the target (mode 0666
 * less the umask), flushed to disk, and renamed over it, so that the target
 * holds the old content or the new, never a mix.
 *   open_temporary: creates ".<name>.tmp.<token>"; *temp is malloc'd.
 *     The temporary is flock()ed until its rename or removal (a copy of
 *     its descriptor keeps the lock past commit's close). First it removes
 *     the output's temporaries whose lock is free, left by writers that
 *     were killed: regular files of this user's, named exactly so, and
 *     not empty or an hour old (an empty one may not be locked yet).
 *     A file replaced must be writable by this user (CK_ERROR_IO
 *     otherwise), and the temporary takes its permission bits, and its
 *     owner and group where the process may give them.
 *     A target that exists and is not a regular file (a device, a pipe),
 *     and a descriptor named as /dev/stdout, /dev/stderr, /dev/fd/N or
 *     /proc/self/fd/N, is written in place instead, *temp being a copy of
 *     path (a descriptor not open for writing is CK_ERROR_IO). A symbolic
 *     link keeps its link: the file it leads to is replaced (or made, for
 *     a dangling link), the temporary made beside that file.
 *   commit: fsync, close, rename; frees temp; on failure removes it.
 *   abandon: closes and removes the temporary after a failure (path is
 *     the one open_temporary took); frees temp.
 */
ck_status ck__file_open_temporary(const char *path, char **temp, int *fd);
/* Where an output is renamed to: the file a symbolic link leads to, so
 * that the link stays a link (a file it names that does not exist yet is
 * made, as a shell's redirection would); else path itself. malloc'd; NULL
 * when memory runs out. */
char *ck__file_output_target(const char *path);
/* A token for a temporary file's name that is unlikely to be taken, by
 * another thread or process either; the file is still opened O_EXCL. */
unsigned ck__temporary_token(void);
/* The descriptor that an output's path names as "-" or /dev/stdout (1),
 * /dev/stderr, /dev/fd/N or /proc/self/fd/N, open or not (such outputs
 * are written through it, in place); else -1. */
int ck__file_descriptor_named(const char *path);
/* CK_OK unless two outputs (their options and paths) name one descriptor,
 * where their bytes would run together: then CK_ERROR_INVALID_ARGUMENT
 * naming both options. */
ck_status ck__file_descriptors_apart(const char *first_option,
                                     const char *first,
                                     const char *second_option,
                                     const char *second);
/* CK_OK unless path names a descriptor on a terminal, which a binary
 * output would garble: then CK_ERROR_INVALID_ARGUMENT naming path. */
ck_status ck__file_check_binary(const char *path);
/* An input opened for reading (O_CLOEXEC): "-" gives a copy of standard
 * input, which the caller closes as any other; -1 with errno set. */
int ck__file_open_input(const char *path);
ck_status ck__file_commit(int fd, char *temp, const char *path);
void ck__file_abandon(int fd, char *temp, const char *path);
/*
 * Holding outputs back, so that a run replaces all of its outputs or
 * none: while the calling thread holds, a commit writes and closes its
 * temporary (keeping its lock) but leaves the rename to
 * ck__file_hold_end(). Holds nest, one level a begin (a run inside a
 * callback of another run): a commit goes to the innermost level.
 *   hold_begin: opens a level above those open on this thread and
 *     returns it (1 for the outermost).
 *   hold_pause / hold_resume: commits between them rename at once (a
 *     periodic checkpoint, which must stay whatever follows); resume takes
 *     what pause returned. No hold begins between them (the level below
 *     would hold again at its end).
 *   hold_end: ends the level begin returned, which must be the innermost
 *     open (an inner one left open ends with it): renames its outputs in
 *     order (commit 1) or removes them (commit 0), leaving those of the
 *     levels below held; CK_ERROR_IO when a rename fails, after which
 *     the rest are removed. A level of 0 ends nothing.
 */
int ck__file_hold_begin(void);
int ck__file_hold_pause(void);
void ck__file_hold_resume(int paused);
ck_status ck__file_hold_end(int level, int commit);
/* write() until done; 0, or -1 with errno set. */
int ck__write_all(int fd, const void *buffer, size_t size);
/* The whole of a file at once, through the three calls above. */
ck_status ck__file_write_atomic(const char *path, const void *data,
                                size_t size);
/* The most a whole-file read takes: data sets (IDX, the CSV of nn and of
 * lsq, whose rows take up to 4 times their text in memory); text
 * formats (TSPLIB instances, tours, optima, XYZ frames), which
 * leaves room for the largest explicit TSPLIB matrix written out in full;
 * OpenCL C sources. A stream (a pipe, /dev/zero) that runs on past its
 * limit is refused there, not read to the end of memory. */
#define CK__DATA_FILE_MAX_BYTES ((size_t)1 << 30)
#define CK__TEXT_FILE_MAX_BYTES                                                \
  ((size_t)(SIZE_MAX / 2 < (UINT64_C(4) << 30) ? SIZE_MAX / 2                  \
                                               : (UINT64_C(4) << 30)))
#define CK__SOURCE_FILE_MAX_BYTES ((size_t)64 << 20)
/* Reads a whole text file of at most max_bytes into a malloc'd
 * NUL-terminated string; a NUL byte ends the read at once and refuses the
 * file (CK_ERROR_PARSE), more than max_bytes refuses it
 * (CK_ERROR_UNSUPPORTED). This and the next read "-" as standard input
 * (ck__file_open_input), which can be read once. */
ck_status ck__file_read_text(const char *path, size_t max_bytes, char **text,
                             size_t *size);
/* Reads a whole file, any bytes, of at most max_bytes into a malloc'd
 * buffer (with a NUL after the last byte, not counted in size). With a
 * magic (magic_size bytes), a file that does not begin with it is read no
 * further than the difference, which the caller then reports. */
ck_status ck__file_read_bytes(const char *path, size_t max_bytes,
                              const void *magic, size_t magic_size,
                              char **bytes, size_t *size);
/* The most a binary file of clkit's own (a model, a checkpoint) may take:
 * the host's memory, which it must fit. */
size_t ck__file_binary_max_bytes(void);

/* A growing little-endian byte image of a file (models, checkpoints). A
 * zeroed writer is empty; a failed allocation sets failed and later puts
 * do nothing. ck__bytes_save appends the SHA-256 of everything before it,
 * writes the image atomically to path and frees it (CK_ERROR_OUT_OF_MEMORY
 * after a failed put, naming path). ck__bytes_free frees it alone. */
typedef struct ck__byte_writer {
  uint8_t *bytes;
  size_t size, capacity;
  int failed;
} ck__byte_writer;
void ck__bytes_put(ck__byte_writer *writer, const void *data, size_t size);
void ck__bytes_put_u32(ck__byte_writer *writer, uint32_t value);
void ck__bytes_put_u64(ck__byte_writer *writer, uint64_t value);
void ck__bytes_put_f32(ck__byte_writer *writer, float value);
void ck__bytes_put_f64(ck__byte_writer *writer, double value);
ck_status ck__bytes_save(ck__byte_writer *writer, const char *path);
void ck__bytes_free(ck__byte_writer *writer);

/* Numbers are read and written in the C locale ('.' as the decimal point)
 * whatever the process set: ck__c_locale_enter() switches the calling
 * thread to it (source names the file in the out-of-memory message) and
 * ck__c_locale_leave() restores the previous locale; leaving a zeroed or
 * already left scope does nothing. */
typedef struct ck__c_locale {
  void *c, *previous; /* locale_t */
} ck__c_locale;
ck_status ck__c_locale_enter(ck__c_locale *scope, const char *source);
void ck__c_locale_leave(ck__c_locale *scope);

/* ---- CSV lines and fields (csv.c) ---- */
/*
 * Lines are cut at '\n' by the reader and split at commas in place; a
 * field's text is trimmed of the blanks (spaces, tabs) around it. Like
 * strchr(), the finders return pointers into the caller's text.
 */
/* The first byte of [begin, end) that is not a blank, or end. */
char *ck__csv_trim_start(const char *begin, const char *end);
/* The end of [begin, end) once its trailing blanks are left out. */
char *ck__csv_trim_end(const char *begin, const char *end);
/* Where the field starting at begin stops: the next comma, or end. */
char *ck__csv_field_end(const char *begin, const char *end);

/*
 * What sets one reader apart: the numbers it takes, and the parts of its
 * messages, which read "<path><line_label><number><nul_byte> (is this a
 * binary file?)" and "<path><line_label><number><before_field>field 2:
 * <quote>x<quote> is not a number".
 */
typedef struct ck__csv_dialect {
  double largest;           /* the largest magnitude: DBL_MAX, FLT_MAX */
  const char *number_type;  /* in "is out of range for ...": "a double" */
  char quote;               /* around a field's text: '"', '\'' */
  const char *line_label;   /* ": line ", ":" */
  const char *nul_byte;     /* " contains a NUL byte" */
  const char *before_field; /* ", ", ": " */
} ck__csv_dialect;

typedef struct ck__csv_line {
  char *begin, *end; /* the text less a byte order mark and a final CR */
  size_t fields;     /* comma-separated fields; 0 for a line to skip */
} ck__csv_line;

/*
 * Prepares line number line_number (from 1) of path, [begin, end) where
 * *end is a NUL: drops a UTF-8 byte order mark on line 1 and a final CR
 * (a NUL goes in its place, so *line->end is a NUL too) and counts the
 * fields. A blank line or a comment ('#' after any blanks) gets 0 fields;
 * a line holding a NUL byte fails with CK_ERROR_PARSE.
 */
ck_status ck__csv_line_prepare(const ck__csv_dialect *dialect, const char *path,
                               size_t line_number, char *begin, char *end,
                               ck__csv_line *line);

typedef enum ck__csv_field_kind {
  CK__CSV_NUMBER,       /* a finite number within dialect->largest */
  CK__CSV_EMPTY,        /* nothing but blanks */
  CK__CSV_NOT_A_NUMBER, /* text strtod() does not take whole */
  CK__CSV_NOT_FINITE,   /* "nan", "inf", ... */
  CK__CSV_OUT_OF_RANGE  /* beyond dialect->largest */
} ck__csv_field_kind;

/*
 * Reads the field [begin, end) as a number; *value is set only for
 * CK__CSV_NUMBER. The byte at end must be a comma, a blank or a NUL
 * (none of which strtod() takes into a number), and the caller must be
 * in the C locale (ck__c_locale_enter).
 */
ck__csv_field_kind ck__csv_read_number(const ck__csv_dialect *dialect,
                                       const char *begin, const char *end,
                                       double *value);

/* The most bytes of a field's text a message quotes (then "..."). */
#define CK__CSV_QUOTE_MAX 40
/*
 * Fails with CK_ERROR_PARSE for field field_number (from 1) of a line,
 * [begin, end), that read as kind (not CK__CSV_NUMBER): "data.csv:3:
 * field 2 is empty", "data.csv:3: field 2: 'x' is not a number", ...
 */
ck_status ck__csv_field_error(const ck__csv_dialect *dialect, const char *path,
                              size_t line_number, const char *begin,
                              const char *end, size_t field_number,
                              ck__csv_field_kind kind);

/* ---- Tokens and numbers in text files (text.c) ---- */
/*
 * For the line-oriented readers (TSPLIB, extended XYZ), which take a whole
 * file at once and cut it in place: each line at its newline, each field
 * at the blank after it, so that fields are plain C strings.
 */
/* Takes a character; returns 1 for a blank (space, \t, \r, \v, \f), else
 * 0. A newline is not a blank: lines are cut at it first. */
int ck__text_is_blank(char c);

/* 1 when needle (not empty) stands in haystack, letters in any case. */
int ck__text_contains_caseless(const char *haystack, const char *needle);

/* 1 when the space-separated list (NULL: none) holds the word of length
 * bytes, as it is spelt. */
int ck__text_list_holds(const char *list, const char *word, size_t length);

/* The offset of the first control character (below 0x20, or 0x7f) of a
 * NUL-terminated text, or -1: names that go into line-oriented output
 * (class names, instance names) must have none. */
long ck__text_control_byte(const char *text);
/* The offset of the first byte of a NUL-terminated text that is not part
 * of a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or -1: names that go into XML (SVG
 * titles) must be well formed. */
long ck__text_invalid_utf8_byte(const char *text);
/* How much of text, at most `most` bytes, is taken without splitting a
 * UTF-8 sequence: a name cut to fit still ends in a whole character. */
size_t ck__text_utf8_cut(const char *text, size_t most);

/* A growing text (a JSON object, an SVG). A zeroed one is empty; a
 * failed allocation or format sets failed, and later puts do nothing.
 * Once anything is put, data is NUL-terminated and the caller's to free. */
typedef struct ck__text_buffer {
  char *data;
  size_t size, capacity;
  int failed;
} ck__text_buffer;
void ck__text_put(ck__text_buffer *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void ck__text_vput(ck__text_buffer *text, const char *format, va_list args);

/* The entity XML writes for c where c is one of its five special
 * characters (<, >, &, ", '), else NULL. */
const char *ck__text_xml_entity(char c);

/* The most characters of input a message quotes (then "..."). */
#define CK__TEXT_QUOTE_MAX 40
typedef struct ck__text_quoted {
  char text[CK__TEXT_QUOTE_MAX + 4];
} ck__text_quoted;
/* Takes a piece of input; returns it fit for a message inside "": at most
 * CK__TEXT_QUOTE_MAX characters, each unprintable one and '"' as '?',
 * and "..." after it when cut. */
ck__text_quoted ck__text_quote(const char *text);

/* Takes a cursor into a line (cut in place); returns the next
 * blank-separated field, NUL-terminated, and moves *cursor past it and the
 * blank after it; returns NULL, *cursor at the line's end, when only blanks
 * are left. */
char *ck__text_next_field(char **cursor);

typedef enum ck__text_number_kind {
  CK__TEXT_NUMBER_OK = 0,
  CK__TEXT_NUMBER_SYNTAX,     /* not a number */
  CK__TEXT_NUMBER_NOT_FINITE, /* "nan", "inf", "infinity", signed or not */
  CK__TEXT_NUMBER_RANGE       /* a number, but too large */
} ck__text_number_kind;
/*
 * Takes a whole field in decimal syntax, [+-] digits [. digits]
 * [(e|E) [+-] digits] with digits on at least one side of the point (no
 * blanks, hex, nan or inf, which strtod() would take); the caller is in the
 * C locale (ck__c_locale_enter). Returns OK with *value set (an underflow
 * reads as a tiny value or zero), RANGE when it overflows a double,
 * NOT_FINITE for the words nan, inf and infinity (any case), else SYNTAX;
 * *value is left alone unless OK.
 */
ck__text_number_kind ck__text_read_real(const char *text, double *value);
/* Takes a whole field, [+-] digits; returns OK with *value set, RANGE when
 * it is beyond int64_t, else SYNTAX; *value is left alone unless OK. */
ck__text_number_kind ck__text_read_integer(const char *text, int64_t *value);

/* The lines of a text read whole, cut one after another in place. */
typedef struct ck__text_lines {
  const char *source; /* names the text in messages: a path, "(text)" */
  char *text;         /* length bytes and a NUL after them */
  size_t length;
  size_t next; /* offset of the next line; 0 to begin */
  size_t line; /* 1-based number of the line last returned; 0 to begin */
} ck__text_lines;
/*
 * Takes the lines; returns CK_OK with *line the next line, its newline and
 * trailing blanks cut off (so "\r\n" endings vanish) and on line 1 a UTF-8
 * byte order mark too, or NULL at the end of the text. Leading blanks stay.
 * A NUL byte inside the line fails with CK_ERROR_PARSE (the rest of the
 * line would be lost).
 */
ck_status ck__text_next_line(ck__text_lines *lines, char **line);
/* Takes a status, the lines, a line number (0 reads as 1) and a printf
 * format; records "SOURCE:LINE: message" (ck__fail) and returns status. */
ck_status ck__text_fail_at(ck_status status, const ck__text_lines *lines,
                           size_t line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/* ck__text_fail_at() into status, then a jump to the function's fail:. */
#define CK__TEXT_FAIL_AT(code, lines, line, ...)                               \
  do {                                                                         \
    status = ck__text_fail_at((code), (lines), (line), __VA_ARGS__);           \
    goto fail;                                                                 \
  } while (0)

/* ---- The name a mistyped word meant (text.c) ----------------------------
 * One rule for every table of names a user types from (options,
 * functions, workloads), the library's and its callers' alike
 * (ck_param_suggest): each name is offered in turn, and the nearest that
 * is near enough stays. */
typedef struct ck__nearest {
  const char *word;
  const char *best; /* the nearest name offered so far, or NULL */
  int distance;     /* best's edits from word */
  size_t prefix;    /* the letters best and word begin with alike */
} ck__nearest;
void ck__nearest_begin(ck__nearest *nearest, const char *word);
/* Takes a name (NULL is skipped); keeps it where it is nearer than best. */
void ck__nearest_offer(ck__nearest *nearest, const char *name);
/* Appends "; did you mean PREFIXNAME?" to the current failure message
 * where a name was near; returns the failure's status. */
ck_status ck__nearest_append(const ck__nearest *nearest, const char *prefix);

/* ---- A public config's fields (fields.c) -------------------------------
 * The default and range of each field of a config (ck_gas_config, ...), in
 * one table a driver keeps: its config_init fills the defaults from it,
 * its checks take the ranges from it, and the workload's options point
 * into it (framework/options.c), so that none is written twice. */
typedef enum ck__field_type {
  CK__FIELD_INT,    /* int, or an enum */
  CK__FIELD_UINT,   /* unsigned, uint32_t */
  CK__FIELD_SIZE,   /* size_t */
  CK__FIELD_UINT64, /* uint64_t */
  CK__FIELD_INT64,  /* int64_t */
  CK__FIELD_REAL,   /* double */
  CK__FIELD_TEXT    /* const char *, not checked */
} ck__field_type;

/* A word that a field takes beside its range: an enum's name, or "auto"
 * for a value the driver resolves itself. */
typedef struct ck__field_word {
  const char *word;
  double value;
} ck__field_word;

enum {
  CK__FIELD_ABOVE = 1, /* the minimum itself is out of range */
  CK__FIELD_BELOW = 2, /* the maximum itself is out of range */
  /* Checked by its driver where it applies (a thermostat's friction),
   * not by ck__fields_check. */
  CK__FIELD_APART = 4,
  /* 0, the default, leaves it unset (a rule off, an optimum unknown, a
   * box from the density): the library takes 0, an option does not. */
  CK__FIELD_UNSET = 8
};

typedef struct ck__field {
  const char *name; /* the member, as messages name it: "rc" */
  ck__field_type type;
  size_t offset; /* offsetof the member */
  double value;  /* the default */
  double minimum, maximum;
  unsigned flags;              /* CK__FIELD_* */
  const ck__field_word *words; /* ended by a NULL word; NULL: none */
  const char *text;            /* the default of a TEXT field */
} ck__field;

/* The first members of a field of struct config, in a braced entry. */
#define CK__FIELD_OF(config, member, kind, fallback, low, high)                \
  .name = #member, .type = (kind), .offset = offsetof(config, member),         \
  .value = (fallback), .minimum = (low), .maximum = (high)
/* An enum: its words alone (an empty range, so that no number is one). */
#define CK__FIELD_ENUM(config, member, fallback, names)                        \
  .name = #member, .type = CK__FIELD_INT, .offset = offsetof(config, member),  \
  .value = (fallback), .minimum = 1, .maximum = 0, .words = (names)

/* The field's value in config, as a double. */
double ck__field_get(const void *config, const ck__field *field);
/* Stores value (in the field's range or words) into config. */
void ck__field_set(void *config, const ck__field *field, double value);
/* Each field of fields (count of them) at its default. */
void ck__fields_init(void *config, const ck__field *fields, size_t count);
/* The word of a value, or NULL where it has none. */
const char *ck__field_word_of(const ck__field *field, double value);
/* The word that is the length bytes of text, or NULL where none is. */
const ck__field_word *ck__field_word_named(const ck__field *field,
                                           const char *text, size_t length);
/* Whether value lies in the field's range (its words aside). */
int ck__field_in_range(const ck__field *field, double value);
/* The range as messages write it, "[0.5, 1e+06]" or "(0, 1]", into text
 * (size bytes); "" for a field without one. */
void ck__field_range_text(const ck__field *field, char *text, size_t size);
/* CK_OK when value is in the field's range, one of its words' values or
 * 0 where that leaves it unset, else CK_ERROR_INVALID_ARGUMENT:
 * "CONFIG.NAME: VALUE is outside RANGE"
 * (config may be NULL: "VALUE is outside RANGE"). */
ck_status ck__field_check_value(const char *config, const ck__field *field,
                                double value);
/* ck__field_check_value of the field's value in config. */
ck_status ck__field_check(const char *config_name, const void *config,
                          const ck__field *field);
/* ck__field_check of every field but those marked CK__FIELD_APART. */
ck_status ck__fields_check(const char *config_name, const void *config,
                           const ck__field *fields, size_t count);

#endif /* CK_UTIL_H */
