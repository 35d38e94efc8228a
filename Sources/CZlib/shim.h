#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
// zlib, for the Token Status List's compressed `lst` (JOSE's StatusList): inflate only, with a bound.
#include <zlib.h>
#endif
