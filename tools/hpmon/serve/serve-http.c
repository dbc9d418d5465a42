/* SPDX-License-Identifier: MIT */
/*
 * hpmon serve's HTTP side, over libmicrohttpd with strict limits: one
 * thread answers every connection in turn (MHD_USE_INTERNAL_POLLING_THREAD
 * without a pool), at most 64 connections are open, at most 4 from one
 * client address, and a request's line and headers must fit in 16 KiB (a
 * larger one is answered 414 or 431 by the library). A connection idle for
 * 10 s is closed by the library; and every request has 10 s in all, from
 * the connection's start or the previous response on it, however it
 * trickles its bytes: the library's timeout is an idle one, which a byte
 * every few seconds renews for ever, so a watchdog thread of ours shuts
 * down the socket of a connection past its deadline (the library then
 * sees it end and closes it). Only GET (and HEAD) of /metrics, exactly as
 * written in the request line, is served: /metrics with a query is 400,
 * another path (percent-encoded ones included, /metrics%00 among them,
 * and a raw NUL byte in the line, "/metrics\0x", which the library cuts)
 * 404, another method 405, a request with a body 413. hpmon makes the
 * listening socket itself, so that a port in use or an address that is
 * not this machine's is named with its cause.
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
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve/serve.h"

#define HTTP_TIMEOUT_S 10u          /* idle: the library's */
#define HTTP_DEADLINE_S 10u         /* a request in all: the watchdog's */
#define HTTP_WATCH_MS 250u          /* how often the watchdog looks */
#define HTTP_MAX_CONNECTIONS 64u
#define HTTP_PER_ADDRESS 4u
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
	typeof(MHD_get_connection_info) *get_connection_info;
} mhd;

/* Load HPM_MHD_SONAME (the soname of the libmicrohttpd hpmon was built
 * with) once. 0, or -1 after saying what is missing. The handle stays
 * open for the life of the process. */
static int mhd_load(void)
{
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_create_response_from_buffer",
		"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
		"MHD_lookup_connection_value", "MHD_get_connection_info",
	};
	void **slots[] = {
		(void **)&mhd.start_daemon, (void **)&mhd.stop_daemon,
		(void **)&mhd.create_response_from_buffer, (void **)&mhd.add_response_header,
		(void **)&mhd.queue_response, (void **)&mhd.destroy_response,
		(void **)&mhd.lookup_connection_value, (void **)&mhd.get_connection_info,
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

/* An open connection, as the watchdog sees it. */
struct conn {
	struct MHD_Connection *c;   /* NULL: a free slot */
	int fd;
	uint64_t since_ns;          /* its start, or its previous response's end */
	bool shut;                  /* past its deadline, shut down */
};

struct serve_http {
	struct MHD_Daemon *d;
	int fd;
	serve_render_fn fn;
	void *arg;
	/* touched only by the server's one thread */
	uint64_t scrapes, rejected;
	/* the open connections, between the server's thread (which fills and
	 * frees the slots) and the watchdog (which shuts down those past
	 * their deadline), under lock; a few spare slots over the library's
	 * bound, and a connection that finds none is shut down at once */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t watchdog;
	bool watching, stopping;
	struct conn conn[HTTP_MAX_CONNECTIONS + 8];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The library's connection notifications: a slot per open connection.
 * Its socket is closed after CLOSED is notified, so the watchdog never
 * shuts down a descriptor that was reused. */
static void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
			enum MHD_ConnectionNotificationCode toe)
{
	struct serve_http *h = cls;
	pthread_mutex_lock(&h->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct conn *slot = NULL;
		for (size_t i = 0; i < sizeof(h->conn) / sizeof(h->conn[0]) && !slot; i++)
			if (!h->conn[i].c)
				slot = &h->conn[i];
		if (ci && slot) {
			*slot = (struct conn){ .c = c, .fd = ci->connect_fd, .since_ns = mono_ns() };
			*socket_context = slot;
		} else if (ci) {
			shutdown(ci->connect_fd, SHUT_RDWR);
		}
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		struct conn *slot = *socket_context;
		if (slot)
			slot->c = NULL;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&h->lock);
}

/* A request is done: the next one on the connection has a deadline of
 * its own, from now. */
static void request_done(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct serve_http *h = cls;
	(void)req_cls;
	(void)toe;
	pthread_mutex_lock(&h->lock);
	for (size_t i = 0; i < sizeof(h->conn) / sizeof(h->conn[0]); i++)
		if (h->conn[i].c == c)
			h->conn[i].since_ns = mono_ns();
	pthread_mutex_unlock(&h->lock);
}

/* The watchdog: every HTTP_WATCH_MS, shut down the connections whose
 * request is past its deadline. */
static void *watch(void *arg)
{
	struct serve_http *h = arg;
	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		uint64_t now = mono_ns();
		for (size_t i = 0; i < sizeof(h->conn) / sizeof(h->conn[0]); i++) {
			struct conn *k = &h->conn[i];
			if (k->c && !k->shut && now - k->since_ns >= HTTP_DEADLINE_S * 1000000000ull) {
				shutdown(k->fd, SHUT_RDWR);
				k->shut = true;
			}
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)HTTP_WATCH_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->wake, &h->lock, &until);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* What the request line asked for, before the library cuts the query off
 * and decodes the path: the access handler gets it as its request
 * context. */
enum target { TARGET_METRICS, TARGET_QUERY, TARGET_OTHER };
static const enum target targets[] = { TARGET_METRICS, TARGET_QUERY, TARGET_OTHER };

static void *request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)c;
	if (!strcmp(uri, "/metrics"))
		return (void *)&targets[TARGET_METRICS];
	if (!strncmp(uri, "/metrics?", 9))
		return (void *)&targets[TARGET_QUERY];
	return (void *)&targets[TARGET_OTHER];
}

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

/*
 * Whether the request line's target held a NUL byte ("GET /metrics\0x
 * HTTP/1.1"). The library takes the line as bytes up to its end, then
 * hands the target and the handler C strings: a NUL cuts "/metrics\0x"
 * to "/metrics". The target and the version are in the connection's read
 * buffer as the line had them, the blank between them made a NUL: the
 * version starts right after the target's last byte, so a target that
 * ends before that held a NUL. (Were they in separate buffers, as a
 * library that copied them might put them, the version would not lie
 * within a line's length after the target: then nothing can be told, and
 * the library is trusted to have refused the NUL itself.) A query ends
 * the target early too ("/metrics?x" is "/metrics"): ask after it.
 */
static bool target_cut(const char *url, const char *version)
{
	uintptr_t u = (uintptr_t)url, v = (uintptr_t)version;
	if (!version || v <= u || v - u > HTTP_REQUEST_MAX)
		return false;
	return v - u != strlen(url) + 1;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct serve_http *h = cls;
	const enum target *target = *req_cls;
	size_t len = 0;

	if (!target || *target == TARGET_OTHER || strcmp(url, "/metrics"))
		return refuse(h, c, MHD_HTTP_NOT_FOUND,
			      "not found: hpmon serves GET /metrics only\n");
	if (*target == TARGET_QUERY)
		return refuse(h, c, MHD_HTTP_BAD_REQUEST,
			      "bad request: /metrics takes no query string\n");
	if (target_cut(url, version))
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
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	h->fd = listen_on(host, port, bound, blen);
	if (h->fd < 0) {
		serve_http__stop(h);
		return NULL;
	}
	h->d = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC, 0, NULL, NULL,
				handle, h,
				MHD_OPTION_LISTEN_SOCKET, h->fd,
				MHD_OPTION_CONNECTION_TIMEOUT, HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_PER_ADDRESS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_REQUEST_MAX,
				MHD_OPTION_NOTIFY_CONNECTION, conn_notify, h,
				MHD_OPTION_NOTIFY_COMPLETED, request_done, h,
				MHD_OPTION_URI_LOG_CALLBACK, request_line, h,
				MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "hpmon serve: cannot start the HTTP server on %s\n", bound);
		serve_http__stop(h);
		return NULL;
	}
	h->fd = -1; /* the daemon's now: MHD_stop_daemon closes it */
	int e = pthread_create(&h->watchdog, NULL, watch, h);
	if (e) {
		fprintf(stderr, "hpmon serve: cannot start the HTTP server's watchdog: %s\n",
			strerror(e));
		serve_http__stop(h);
		return NULL;
	}
	h->watching = true;
	return h;
}

void serve_http__stop(struct serve_http *h)
{
	if (!h)
		return;
	if (h->d)
		mhd.stop_daemon(h->d);
	if (h->fd >= 0)
		close(h->fd);
	if (h->watching) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->watchdog, NULL);
	}
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
