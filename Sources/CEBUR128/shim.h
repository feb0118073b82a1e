#ifndef TILAWA_CEBUR128_SHIM_H
#define TILAWA_CEBUR128_SHIM_H
#include <ebur128.h>
#endif
