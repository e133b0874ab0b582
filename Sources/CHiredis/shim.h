#ifndef LOCSTREAM_CHIREDIS_SHIM_H
#define LOCSTREAM_CHIREDIS_SHIM_H
/* hiredis (Debian libhiredis-dev), imported by the RedisBroker target only. */
#include <hiredis/hiredis.h>
#endif
