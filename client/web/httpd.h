/* httpd: staprelay web's HTTP server, on libmicrohttpd (no HTTP parsing
 * of ours).  It owns the listening socket, the route table, the
 * embedded page (web_assets, generated into build/gen from
 * client/web/page/), the request limits and the Server-Sent Events
 * clients.  Handlers never see libmicrohttpd: they get a web_request
 * (method, decoded path, query parameters, body) and fill a web_reply,
 * so they are unit-tested by calling them directly.
 *
 * What it refuses, before any handler runs (docs/web.md, Security):
 *   - listening on loopback, a Host header other than the address it
 *     listens on or localhost, with its port: 403 (DNS rebinding);
 *   - a path it does not serve: 404 (".." segments, encoded slashes
 *     "%2f", NUL, backslashes, anything outside "/", "/static/NAME" and
 *     the routes: no file system is ever read);
 *   - a method other than GET, HEAD (and POST on a POST route): 405;
 *   - a URL over WEB_MAX_URL bytes or a body over WEB_MAX_BODY: 413;
 *   - more than WEB_MAX_CLIENTS connections at once: the newest closed.
 * Handlers report bad parameters themselves with web_reply_error(rp,
 * 400, ...), which gives a text/plain reason.
 *
 * Threads: libmicrohttpd's own (an internal polling thread, and a
 * thread per connection, at most WEB_MAX_CLIENTS: an SSE client's
 * reader waits on its queue there instead of being polled): a handler
 * may run while the collector thread adds samples, so whatever it reads
 * is locked by its owner (web/store.h).
 *
 * Server-Sent Events (GET /api/stream): each client has a bounded queue
 * (WEB_SSE_QUEUE bytes); httpd_sse_send() never blocks: a client whose
 * queue is full loses the oldest events, they are counted (per client,
 * and in httpd_stats) and the client is sent "event: dropped" so the
 * page refetches what it missed.  A vanished client is freed when
 * libmicrohttpd notices the closed socket. */
#ifndef STAPRELAY_HTTPD_H
#define STAPRELAY_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/strbuf.h"

#define WEB_MAX_URL      8192          /* bytes of path + query */
#define WEB_MAX_BODY     65536         /* bytes of a POST body */
#define WEB_MAX_CLIENTS  256           /* connections at once */
#define WEB_SSE_QUEUE    (256 * 1024)  /* bytes queued per SSE client */
#define WEB_MAX_PARAMS   64            /* query parameters kept */

typedef struct web_param {
    const char *name, *value;   /* decoded (percent and '+') */
} web_param;

typedef struct web_request {
    const char *method;         /* "GET", "HEAD", "POST" */
    const char *path;           /* decoded, without the query */
    web_param   params[WEB_MAX_PARAMS];
    int         nparams;        /* in the order given; repeats kept */
    const char *body;           /* POST body (not NUL-terminated), or NULL */
    size_t      body_len;
} web_request;

/* The first value of parameter name, or NULL when absent. */
const char *web_param_get(const web_request *rq, const char *name);
/* Every value of a repeated parameter (host=a&host=b): up to max into
 * vals; returns how many there were. */
int web_param_all(const web_request *rq, const char *name,
                  const char **vals, int max);

typedef struct web_reply {
    int         status;         /* 200 unless set */
    const char *content_type;   /* static string; default text/plain */
    const char *filename;       /* non-NULL: Content-Disposition:
                                 * attachment; filename="..." (a static
                                 * or reply-owned string) */
    strbuf      body;           /* the handler appends; httpd frees */
} web_reply;

/* Set status and a one-line reason as a text/plain body ("staprelay
 * web: " is not prefixed: the reason is the whole body). */
void web_reply_error(web_reply *rp, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

typedef void (*web_handler)(void *arg, const web_request *rq,
                            web_reply *rp);

typedef struct httpd httpd;

/* Listen on addr ("127.0.0.1:0" picks a free port; "[::1]:8080",
 * "0.0.0.0:8080"; NULL: 127.0.0.1:0).  Nothing is served until
 * httpd_run().  Returns NULL with the reason in err. */
httpd *httpd_new(const char *addr, strbuf *err);
/* Add a route: exact path ("/api/folded"); post: POST is accepted (GET
 * is always).  Call before httpd_run(). */
void httpd_route(httpd *h, const char *path, bool post, web_handler fn,
                 void *arg);
/* Start serving (libmicrohttpd's threads).  0, or -1 with err. */
int httpd_run(httpd *h, strbuf *err);
/* "http://ADDR:PORT/" as it listens (the port found for :0). */
const char *httpd_url(const httpd *h);

/* Queue one event for every SSE client (event: a name; data: one line
 * of JSON, no newline).  Thread-safe, never blocks. */
void httpd_sse_send(httpd *h, const char *event, const char *data);

typedef struct httpd_stats {
    uint64_t requests;      /* answered, any status */
    uint64_t refused;       /* 4xx before a handler (path, method, size) */
    uint64_t sse_clients;   /* connected now */
    uint64_t sse_dropped;   /* events dropped for full queues */
    uint64_t sse_queued;    /* bytes queued now, all clients */
} httpd_stats;
void httpd_get_stats(httpd *h, httpd_stats *st);

/* Stop serving: SSE clients are ended, threads joined, the socket
 * closed; frees h. */
void httpd_free(httpd *h);

#endif
