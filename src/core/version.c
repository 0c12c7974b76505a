#include "internal.h"

ck_status ck_version(const char **version) {
  if (!version)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_version: version is NULL");
  *version = CK_VERSION_STRING;
  return CK_OK;
}
