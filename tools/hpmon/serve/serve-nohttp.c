/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve's HTTP side in a build without libmicrohttpd (the static
 * build of the guest lane, -DHPM_STATIC=ON): the command is there and
 * says why it cannot serve. serve-http.c is the real one.
 */
#include <stdio.h>

#include "serve/serve.h"

struct serve_http *serve_http__start(const char *host, unsigned port, serve_render_fn fn,
				     void *arg, char *bound, size_t blen)
{
	fprintf(stderr, "hpmon serve: this hpmon is a static build without libmicrohttpd, the HTTP "
			"server serve needs; use a build made without -DHPM_STATIC=ON, with "
			"libmicrohttpd-dev installed\n");
	return NULL;
}

void serve_http__stop(struct serve_http *h)
{
}
