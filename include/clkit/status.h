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

/*
 * CK_STATUS_MAP - every status once, in value order: X(NAME, value,
 * message) gives CK_NAME, its fixed number and a short message. The enum,
 * the names and the messages below are all generated from it.
 */
#define CK_STATUS_MAP(X)                                                       \
  X(OK, 0, "success")                                                          \
  X(ERROR_INVALID_ARGUMENT, 1, "a parameter or option is out of range")        \
  X(ERROR_OUT_OF_MEMORY, 2, "host allocation failed")                          \
  X(ERROR_IO, 3, "a file could not be read or written")                        \
  X(ERROR_PARSE, 4, "malformed input data")                                    \
  X(ERROR_NOT_FOUND, 5, "a named device, kernel or file is absent")            \
  X(ERROR_NO_PLATFORM, 6, "no OpenCL platform is installed")                   \
  X(ERROR_BUILD, 7, "a kernel program failed to build")                        \
  X(ERROR_DEVICE, 8, "the device runtime reported an error")                   \
  X(ERROR_DEVICE_MEMORY, 9, "the device is out of memory")                     \
  X(ERROR_UNSUPPORTED, 10, "the operation is not offered here")                \
  X(ERROR_CACHE, 11, "the kernel cache could not be used")                     \
  X(ERROR_CANCELLED, 12, "a callback asked to stop")                           \
  X(ERROR_MISMATCH, 13, "a result disagrees with its reference")              \
  X(ERROR_EXCHANGE, 14, "the members of a spread run could not exchange")

typedef enum ck_status {
#define CK__STATUS_ENUM(name, value, message) CK_##name = value,
  CK_STATUS_MAP(CK__STATUS_ENUM)
#undef CK__STATUS_ENUM
} ck_status;

/*
 * ck_status_get_name - the symbolic name of a status.
 * Takes: status, and name, where a pointer to a static string such as
 * "CK_ERROR_PARSE" is stored (unknown codes give "CK_ERROR_UNKNOWN").
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if name is NULL.
 */
ck_status ck_status_get_name(ck_status status, const char **name);

/*
 * ck_status_get_message - a short description of a status.
 * Takes: status, and message, where a pointer to a static string such as
 * "malformed input data" is stored. It says what the code means in
 * general; ck_error_get_last() says what went wrong in a given call.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if message is NULL or status
 * is not a clkit status (message is then left alone).
 */
ck_status ck_status_get_message(ck_status status, const char **message);

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
