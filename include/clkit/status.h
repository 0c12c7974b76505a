/*
 * clkit/status.h - status codes and the last error message.
 *
 * Every public clkit function returns a ck_status. CK_OK is zero; every
 * other value is a failure, and the thread that saw it can fetch a
 * human-readable message with ck_error_get_last().
 *
 * In the contracts of the headers, "device errors" stands for
 * CK_ERROR_DEVICE (the runtime refused or failed an operation, with its
 * error name in the message) and CK_ERROR_DEVICE_MEMORY (the device, or
 * the host for ref buffers, ran out of memory or resources).
 */
#ifndef CLKIT_STATUS_H
#define CLKIT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ck_status {
  CK_OK = 0,
  CK_ERROR_INVALID_ARGUMENT = 1, /* a parameter or option is out of range */
  CK_ERROR_OUT_OF_MEMORY = 2,    /* host allocation failed */
  CK_ERROR_IO = 3,               /* a file could not be read or written */
  CK_ERROR_PARSE = 4,            /* malformed input data */
  CK_ERROR_NOT_FOUND = 5,        /* a named device, kernel or file is absent */
  CK_ERROR_NO_PLATFORM = 6,      /* no OpenCL platform is installed */
  CK_ERROR_BUILD = 7,            /* a kernel program failed to build */
  CK_ERROR_DEVICE = 8,           /* the device runtime reported an error */
  CK_ERROR_DEVICE_MEMORY = 9,    /* the device is out of memory */
  CK_ERROR_UNSUPPORTED = 10,     /* the operation is not offered here */
  CK_ERROR_CACHE = 11,           /* the kernel cache could not be used */
  CK_ERROR_CANCELLED = 12,       /* a callback asked to stop */
  CK_ERROR_MISMATCH = 13         /* a result disagrees with its reference */
} ck_status;

/*
 * ck_status_get_name - the symbolic name of a status.
 * Takes: status, and name, where a pointer to a static string such as
 * "CK_ERROR_PARSE" is stored (unknown codes give "CK_ERROR_UNKNOWN").
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if name is NULL.
 */
ck_status ck_status_get_name(ck_status status, const char **name);

/*
 * ck_error_get_last - the most recent failure on the calling thread.
 * Takes: message, where a pointer to the message text is stored (NULL to
 * skip it). The text is owned by clkit, per thread, and is overwritten by
 * the thread's next failing call or ck_error_clear().
 * Returns: the status of that failure, or CK_OK (with message "") if no
 * call on this thread has failed since the last ck_error_clear().
 */
ck_status ck_error_get_last(const char **message);

/*
 * ck_error_clear - forget the calling thread's last failure.
 * Returns: CK_OK.
 */
ck_status ck_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_STATUS_H */
