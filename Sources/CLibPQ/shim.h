#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
// PostgreSQL's client library (libpq), used by OIDCPostgres only.
#include <libpq-fe.h>
#endif
