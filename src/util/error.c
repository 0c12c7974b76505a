/* Thread-local last-error storage, and status names and messages. */
#include "util/util.h"

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

/* The name and message of a known status; 0 for any other value. A switch,
 * so that two statuses given one value fail to compile. */
static int status_describe(ck_status status, const char **name,
                           const char **message) {
  switch (status) {
#define CK__STATUS_CASE(symbol, value, text)                                   \
  case CK_##symbol:                                                            \
    *name = "CK_" #symbol;                                                     \
    *message = text;                                                           \
    return 1;
    CK_STATUS_MAP(CK__STATUS_CASE)
#undef CK__STATUS_CASE
  }
  return 0;
}

ck_status ck_status_get_name(ck_status status, const char **name) {
  if (!name)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_status_get_name: name is NULL");
  const char *message = NULL;
  if (!status_describe(status, name, &message))
    *name = "CK_ERROR_UNKNOWN";
  return CK_OK;
}

ck_status ck_status_get_message(ck_status status, const char **message) {
  if (!message)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_status_get_message: message is NULL");
  const char *name = NULL, *text = NULL;
  if (!status_describe(status, &name, &text))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_status_get_message: %d is not a clkit status",
                    (int)status);
  *message = text;
  return CK_OK;
}
