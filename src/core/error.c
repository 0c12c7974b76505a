/* Thread-local last-error storage and status names. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The definitions, not the static analyzer's view of the calls. */
#undef ck__fail
#undef ck__fail_prefix

static _Thread_local ck_status last_status = CK_OK;
static _Thread_local char last_message[CK__ERROR_MESSAGE_BYTES];

ck_status ck__fail(ck_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_message, sizeof last_message, format, args);
  va_end(args);
  last_status = status;
  return status;
}

void ck__error_save(ck__error_saved *saved) {
  saved->status = last_status;
  memcpy(saved->message, last_message, sizeof last_message);
}

void ck__error_restore(const ck__error_saved *saved) {
  last_status = saved->status;
  memcpy(last_message, saved->message, sizeof last_message);
}

ck_status ck__fail_append(const char *format, ...) {
  size_t used = strlen(last_message);
  if (used + 1 >= sizeof last_message)
    return last_status;
  va_list args;
  va_start(args, format);
  vsnprintf(last_message + used, sizeof last_message - used, format, args);
  va_end(args);
  return last_status;
}

ck_status ck__fail_prefix(ck_status status, const char *format, ...) {
  char prefix[512];
  va_list args;
  va_start(args, format);
  int written = vsnprintf(prefix, sizeof prefix, format, args);
  va_end(args);
  size_t length = written < 0 ? 0 : strlen(prefix);
  size_t kept = strlen(last_message);
  if (length + kept + 1 > sizeof last_message)
    kept = sizeof last_message - length - 1;
  /* The message moves aside in place: it may not be a format argument. */
  memmove(last_message + length, last_message, kept);
  memcpy(last_message, prefix, length);
  last_message[length + kept] = '\0';
  last_status = status;
  return status;
}

ck_status ck_error_get_last(const char **message) {
  if (message)
    *message = last_message;
  return last_status;
}

ck_status ck_error_clear(void) {
  last_status = CK_OK;
  last_message[0] = '\0';
  return CK_OK;
}

ck_status ck_status_get_name(ck_status status, const char **name) {
  static const char *const names[] = {"CK_OK",
                                      "CK_ERROR_INVALID_ARGUMENT",
                                      "CK_ERROR_OUT_OF_MEMORY",
                                      "CK_ERROR_IO",
                                      "CK_ERROR_PARSE",
                                      "CK_ERROR_NOT_FOUND",
                                      "CK_ERROR_NO_PLATFORM",
                                      "CK_ERROR_BUILD",
                                      "CK_ERROR_DEVICE",
                                      "CK_ERROR_DEVICE_MEMORY",
                                      "CK_ERROR_UNSUPPORTED",
                                      "CK_ERROR_CACHE",
                                      "CK_ERROR_CANCELLED",
                                      "CK_ERROR_MISMATCH"};
  if (!name)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_status_get_name: name is NULL");
  if ((unsigned)status < sizeof names / sizeof names[0])
    *name = names[status];
  else
    *name = "CK_ERROR_UNKNOWN";
  return CK_OK;
}
