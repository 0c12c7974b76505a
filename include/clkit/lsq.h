/*
 * clkit/lsq.h - data for the least-squares ("lsq") objective.
 *
 * A data set holds P rows (a_j, b_j), each a_j a vector of dim values and
 * b_j a scalar, and defines, for a coefficient vector x of dim entries,
 *
 *   f(x) = sum over j of (b_j - sum over d of x_d * a_j,d)^2.
 *
 * Ownership: a ck_lsq_data filled by ck_lsq_load() or ck_lsq_generate()
 * owns its arrays a and b; release them with ck_lsq_free(). Those two
 * functions overwrite *data without freeing what it held, so free a
 * previous data set first. A zeroed ck_lsq_data is a valid empty value.
 * Functions that only read a data set (save, evaluate) also accept one
 * whose arrays the caller allocated.
 *
 * Files come in two formats; ck_lsq_load() tells them apart by the magic
 * at the start of the binary format and reads anything else as CSV.
 *
 * CSV (text): one row a_0,...,a_{dim-1},b per line, b last, separated by
 * commas, with optional spaces or tabs around each field. dim is taken
 * from the first data row and every row must have the same number of
 * fields, from 2 to CK_LSQ_MAX_DIM + 1. Line 1 may be a header if none of
 * its fields reads as a number. Lines starting with '#' are comments;
 * empty (or blank) lines, a trailing "\r" on a line and a missing final
 * newline are all accepted. Values must be finite. Numbers are read and
 * written in the C locale ('.' as decimal point) whatever the process
 * locale is; ck_lsq_save() writes a header "a1,...,aD,b" and each value
 * with "%.17g", so text round-trips exactly. A CSV file holds at most
 * 1 GiB (2^30 bytes); larger data sets take the binary format.
 *
 * Binary: all integers and doubles little-endian.
 *
 *   offset  size             field
 *        0  8                magic "CKLSQF64"
 *        8  4                format version, uint32 (1)
 *       12  4                dim, uint32, 1..CK_LSQ_MAX_DIM
 *       16  8                rows, uint64, >= 1
 *       24  rows*(dim+1)*8   IEEE-754 binary64 values, row by row:
 *                            a_j,0 ... a_j,dim-1 then b_j
 *
 * The file size must be exactly 24 + rows*(dim+1)*8 bytes and every
 * value finite.
 *
 * Error messages name the file and, for malformed input, the 1-based line
 * (CSV) or row (binary) and field at fault.
 */
#ifndef CLKIT_LSQ_H
#define CLKIT_LSQ_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of coefficients a data set may have. */
#define CK_LSQ_MAX_DIM 64

typedef struct ck_lsq_data {
  size_t rows; /* P >= 1 */
  size_t dim;  /* 1..CK_LSQ_MAX_DIM */
  double *a;   /* rows * dim values, row-major: a[j * dim + d] */
  double *b;   /* rows values */
} ck_lsq_data;

typedef enum ck_lsq_format {
  CK_LSQ_CSV = 0,   /* text, see above */
  CK_LSQ_BINARY = 1 /* "CKLSQF64" layout, see above */
} ck_lsq_format;

/*
 * ck_lsq_load - read a data set from a file in either format.
 * Takes: path ("-": standard input); data, filled in (release it with
 * ck_lsq_free()). On failure *data is left zeroed.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if path or data is NULL;
 * CK_ERROR_IO if the file cannot be opened or read; CK_ERROR_PARSE if its
 * content is malformed (empty, no data rows, ragged rows, non-numeric or
 * non-finite fields, dim out of range, bad binary header, truncated or
 * oversized binary payload); CK_ERROR_UNSUPPORTED for a CSV file (or
 * stream) past 1 GiB; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_lsq_load(const char *path, ck_lsq_data *data);

/*
 * ck_lsq_save - write a data set to a file, atomically: the content goes
 * to a temporary file in the same directory that is then renamed over
 * path, so readers see the old file or the complete new one, never a part.
 * Takes: path; data (not modified); format, CK_LSQ_CSV or CK_LSQ_BINARY.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if an argument is NULL, the
 * format is unknown, rows is 0, dim is out of range or a value is not
 * finite, or path names a directory by its spelling ("x/", "."), or the
 * binary format goes to a terminal ("-" is standard output); CK_ERROR_IO if
 * the file cannot be written (no temporary file is left behind);
 * CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_lsq_save(const char *path, const ck_lsq_data *data,
                      ck_lsq_format format);

/*
 * ck_lsq_save_coefficients - write a coefficient vector, one value a line
 * ("%.17g"), atomically (a temporary beside path, then a rename).
 * Takes: path; x (dim entries, each finite); dim (1 .. CK_LSQ_MAX_DIM).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT (a NULL argument, dim out of
 * range, or a value not finite, naming its coefficient, counted from 1;
 * a path that names a directory by its spelling); CK_ERROR_IO naming the
 * file; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_lsq_save_coefficients(const char *path, const double *x,
                                   size_t dim);

/*
 * ck_lsq_save_generated - write a data set and the coefficients it was
 * made from, both or neither: each goes to a temporary first, and the
 * two are renamed over their paths only once both are written. A failure
 * on either removes both temporaries and leaves both paths as they were
 * (an output written in place, a device or a pipe, cannot be taken back).
 * Takes: data_path, data and format as ck_lsq_save(); coefficients_path
 * and x (data->dim entries) as ck_lsq_save_coefficients().
 * Returns: CK_OK; as ck_lsq_save() and ck_lsq_save_coefficients();
 * CK_ERROR_IO when a rename fails: the data file, renamed first, stays
 * replaced if only the coefficients' rename failed.
 */
ck_status ck_lsq_save_generated(const char *data_path, const ck_lsq_data *data,
                                ck_lsq_format format,
                                const char *coefficients_path, const double *x);

/*
 * ck_lsq_generate - make a synthetic data set with a known solution.
 * Coefficients x*_d are uniform in [-2, 2), multipliers a_j,d uniform in
 * [-1, 1) and b_j = sum_d x*_d a_j,d + noise * N(0,1), all drawn from
 * clkit's Philox generator keyed by seed, so one seed always gives the
 * same data (bit for bit with noise 0; the normal variates go through the
 * host's logf/sinf/cosf). With noise 0, f(x*) is 0 up to rounding.
 * Takes: rows >= 1; dim in 1..CK_LSQ_MAX_DIM; seed; noise, finite and
 * >= 0; data, filled in (release it with ck_lsq_free()); coefficients,
 * optional, receives the dim true coefficients x*.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if data is NULL or a size or
 * noise is out of range; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_lsq_generate(size_t rows, size_t dim, uint64_t seed, double noise,
                          ck_lsq_data *data, double *coefficients);

/*
 * ck_lsq_evaluate - the reference value of f at x, computed in double
 * with compensated summation over the rows.
 * Takes: data; x, data->dim coefficients; value, set to f(x).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if a pointer is NULL or data
 * is not a valid data set (rows 0, dim out of range, arrays missing).
 */
ck_status ck_lsq_evaluate(const ck_lsq_data *data, const double *x,
                          double *value);

/*
 * ck_lsq_free - release the arrays of a data set and zero it.
 * Takes: data, made by ck_lsq_load() or ck_lsq_generate(); NULL and a
 * zeroed struct are accepted.
 * Returns: CK_OK.
 */
ck_status ck_lsq_free(ck_lsq_data *data);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_LSQ_H */
