/* SPDX-License-Identifier: MIT */
#include "builtin.h"
#include "top.h"
int top_tui(struct top *t)
{
	(void)t;
	return HPM_EXIT_FAIL;
}
