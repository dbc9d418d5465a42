/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve's HTTP side, over libmicrohttpd with strict limits: one
 * thread answers every connection in turn (MHD_USE_INTERNAL_POLLING_THREAD
 * without a pool), a connection idle for 10 s is closed, at most 32 are
 * open, and a request's line and headers must fit in 16 KiB (a larger one
 * is answered 414 or 431 by the library). Only GET (and HEAD) of /metrics
 * is served: another path is 404, another method 405, a request with a body
 * 413. hpmon makes the listening socket itself, so that a port in use or an
 * address that is not this machine's is named with its cause.
 *
 * libmicrohttpd is loaded here, by dlopen, when serve starts: linked, it
 * and what it links (GnuTLS and eight more objects) were mapped, relocated
 * and initialised at every start of every hpmon command, about 1.3 ms
 * of the 2.6 ms that `hpmon stat true` took (bench/startup.sh).
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve/serve.h"

#define HTTP_TIMEOUT_S 10u
#define HTTP_MAX_CONNECTIONS 32u
#define HTTP_REQUEST_MAX ((size_t)16384)

static const char ct_openmetrics[] = "application/openmetrics-text; version=1.0.0; charset=utf-8";
static const char ct_text[] = "text/plain; version=0.0.4; charset=utf-8";

/* The library's functions that serve calls, found by dlsym in mhd_load();
 * typeof keeps each pointer's type the header's prototype. */
static struct {
	typeof(MHD_start_daemon) *start_daemon;
	typeof(MHD_stop_daemon) *stop_daemon;
	typeof(MHD_create_response_from_buffer) *create_response_from_buffer;
	typeof(MHD_add_response_header) *add_response_header;
	typeof(MHD_queue_response) *queue_response;
	typeof(MHD_destroy_response) *destroy_response;
	typeof(MHD_lookup_connection_value) *lookup_connection_value;
} mhd;

/* Load HPM_MHD_SONAME (the soname of the libmicrohttpd hpmon was built
 * with) once. 0, or -1 after saying what is missing. The handle stays
 * open for the life of the process. */
static int mhd_load(void)
{
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_create_response_from_buffer",
		"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
		"MHD_lookup_connection_value",
	};
	void **slots[] = {
		(void **)&mhd.start_daemon, (void **)&mhd.stop_daemon,
		(void **)&mhd.create_response_from_buffer, (void **)&mhd.add_response_header,
		(void **)&mhd.queue_response, (void **)&mhd.destroy_response,
		(void **)&mhd.lookup_connection_value,
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == sizeof(slots) / sizeof(slots[0]),
		       "one name per slot");

	if (mhd.start_daemon)
		return 0;
	void *lib = dlopen(HPM_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "hpmon serve: cannot load %s, the HTTP server serve needs: %s; "
				"install it (Debian: apt-get install libmicrohttpd12)\n",
			HPM_MHD_SONAME, dlerror());
		return -1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *f = dlsym(lib, names[i]);
		if (!f) {
			fprintf(stderr, "hpmon serve: %s has no %s: hpmon was built against "
					"another libmicrohttpd; rebuild it\n", HPM_MHD_SONAME, names[i]);
			dlclose(lib);
			return -1;
		}
		*slots[i] = f;
	}
	return 0;
}

struct serve_http {
	struct MHD_Daemon *d;
	int fd;
	serve_render_fn fn;
	void *arg;
	/* touched only by the server's one thread */
	uint64_t scrapes, rejected;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			     char *body, size_t len, bool owned)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(
		len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result refuse(struct serve_http *h, struct MHD_Connection *c, unsigned status,
			      const char *msg)
{
	h->rejected++;
	return reply(c, status, "text/plain; charset=utf-8", (char *)msg, strlen(msg), false);
}

static bool has_body(struct MHD_Connection *c)
{
	const char *cl = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING);
	return te || (cl && strspn(cl, "0") != strlen(cl));
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct serve_http *h = cls;
	size_t len = 0;

	if (strcmp(url, "/metrics"))
		return refuse(h, c, MHD_HTTP_NOT_FOUND,
			      "not found: hpmon serves GET /metrics only\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return refuse(h, c, MHD_HTTP_METHOD_NOT_ALLOWED,
			      "method not allowed: /metrics takes GET (or HEAD)\n");
	if (has_body(c) || *upload_data_size)
		return refuse(h, c, MHD_HTTP_CONTENT_TOO_LARGE,
			      "a request for /metrics has no body\n");
	bool om = serve_expo_wants_openmetrics(mhd.lookup_connection_value(c, MHD_HEADER_KIND,
								MHD_HTTP_HEADER_ACCEPT));
	h->scrapes++;
	char *text = h->fn(h->arg, om, h->scrapes, h->rejected, &len);
	if (!text) {
		static const char msg[] = "hpmon serve: cannot read the counts now\n";
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
			     (char *)msg, sizeof(msg) - 1, false);
	}
	return reply(c, MHD_HTTP_OK, om ? ct_openmetrics : ct_text, text, len, true);
}

static bool loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static int listen_on(const char *host, unsigned port, char *bound, size_t blen)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	int one = 1;

	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		sl = sizeof(*a4);
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		sl = sizeof(*a6);
	} else {
		fprintf(stderr, "hpmon serve: '%s' is not a numeric IPv4 or IPv6 address: give "
				"--listen 127.0.0.1:PORT, [::1]:PORT or 0.0.0.0:PORT\n", host);
		return -1;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "hpmon serve: cannot make a socket: %s\n", strerror(errno));
		return -1;
	}
	/* a restart may bind again while the last run's connections wait out
	 * TIME_WAIT; a port another process listens on stays refused */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 16)) {
		int e = errno;
		fprintf(stderr, "hpmon serve: cannot listen on %s port %u: %s", host, port, strerror(e));
		if (e == EADDRINUSE)
			fprintf(stderr, ": another program listens there; choose another port "
					"(--listen %s:PORT)\n", ss.ss_family == AF_INET6 ? "[::1]" : host);
		else if (e == EADDRNOTAVAIL)
			fprintf(stderr, ": no interface of this machine has that address\n");
		else if (e == EACCES)
			fprintf(stderr, ": ports below 1024 need root or CAP_NET_BIND_SERVICE\n");
		else
			fprintf(stderr, "\n");
		close(fd);
		return -1;
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
	snprintf(bound, blen, ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, port);
	if (!loopback(&ss))
		fprintf(stderr, "hpmon serve: listening on %s, beyond this machine: whoever reaches "
				"the port reads its counts (no authentication, no TLS); a firewall "
				"or a proxy in front should decide who may\n", bound);
	return fd;
}

struct serve_http *serve_http__start(const char *host, unsigned port, serve_render_fn fn,
				     void *arg, char *bound, size_t blen)
{
	if (mhd_load())
		return NULL;
	struct serve_http *h = calloc(1, sizeof(*h));
	if (!h) {
		fprintf(stderr, "hpmon serve: out of memory\n");
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	h->fd = listen_on(host, port, bound, blen);
	if (h->fd < 0) {
		free(h);
		return NULL;
	}
	h->d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, h,
				MHD_OPTION_LISTEN_SOCKET, h->fd,
				MHD_OPTION_CONNECTION_TIMEOUT, HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_REQUEST_MAX,
				MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "hpmon serve: cannot start the HTTP server on %s\n", bound);
		close(h->fd);
		free(h);
		return NULL;
	}
	h->fd = -1; /* the daemon's now: MHD_stop_daemon closes it */
	return h;
}

void serve_http__stop(struct serve_http *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->d);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}
