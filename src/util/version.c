#include "util/util.h"

ck_status ck_version_get(const char **version) {
  if (!version)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_version_get: version is NULL");
  *version = CK_VERSION_STRING;
  return CK_OK;
}
