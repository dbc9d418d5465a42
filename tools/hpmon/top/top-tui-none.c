/* SPDX-License-Identifier: MIT */
/*
 * hpmon top's full-screen view where the build found no ncurses (a
 * static cross build: tools/hpmon/CMakeLists.txt): the frames are there
 * with -b, and the view says what is missing.
 */
#include <stdio.h>

#include "output/exit.h"
#include "top/top.h"

int top_tui(struct top *t)
{
	(void)t;
	fprintf(stderr, "hpmon top: this hpmon was built without ncurses, so it has no "
			"full-screen view: use 'hpmon top -b' (frames as text, --json or -x,), "
			"or build with libncurses-dev installed\n");
	return HPM_EXIT_FAIL;
}
