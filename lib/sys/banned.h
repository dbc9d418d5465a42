/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sys/ owns perf_event_open, the ring reader, options; may use libc only.
 *
 * Functions hpmon does not call, each for a reason: strcpy, strcat,
 * sprintf and vsprintf write without a bound; strncpy and strncat bound
 * the copy but not the result (no NUL, or a size that is easy to get
 * wrong); strtok keeps state across calls; atoi, atol and atoll cannot
 * report an error; gmtime, localtime, ctime and asctime return shared
 * static buffers. Use snprintf, strtok_r, strtol/strtoul with a check of
 * the end, gmtime_r and localtime_r.
 *
 * The build includes this header first in every file of lib/ and tools/
 * (-include). It includes the system headers that declare these
 * functions before it defines the macros, so that later includes of them
 * change nothing; a use then fails to compile, naming the function.
 *
 * Ownership: none; macros only.
 */
#ifndef HPM_SYS_BANNED_H
#define HPM_SYS_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HPM_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) HPM_BANNED(strcpy)
#undef strcat
#define strcat(x, y) HPM_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) HPM_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) HPM_BANNED(strncat)
#undef strtok
#define strtok(x, y) HPM_BANNED(strtok)
#undef sprintf
#define sprintf(...) HPM_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) HPM_BANNED(vsprintf)
#undef atoi
#define atoi(x) HPM_BANNED(atoi)
#undef atol
#define atol(x) HPM_BANNED(atol)
#undef atoll
#define atoll(x) HPM_BANNED(atoll)
#undef gmtime
#define gmtime(t) HPM_BANNED(gmtime)
#undef localtime
#define localtime(t) HPM_BANNED(localtime)
#undef ctime
#define ctime(t) HPM_BANNED(ctime)
#undef asctime
#define asctime(t) HPM_BANNED(asctime)

#endif
