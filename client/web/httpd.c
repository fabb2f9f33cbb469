/* httpd: staprelay web's HTTP server on libmicrohttpd (see httpd.h).
 *
 * Threads: libmicrohttpd's internal polling thread accepts; each
 * connection has its own thread (MHD_USE_THREAD_PER_CONNECTION, at most
 * WEB_MAX_CLIENTS of them), so an SSE client's content reader may wait
 * on its queue's condition variable instead of returning "no data yet"
 * (which would make libmicrohttpd poll it in a busy loop).  A handler
 * runs in its connection's thread.
 *
 * What is checked where: the URI log callback sees the raw request
 * target before libmicrohttpd decodes it (its length, encoded slashes,
 * NULs and backslashes); the access handler the decoded path, the
 * method and the body's size. */
#include "client/web/httpd.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "client/render/html.h"
#include "client/web/assets.h"
#include "common/xalloc.h"

#define SSE_KEEPALIVE_S 15      /* a comment line: finds vanished clients */
#define MAX_ROUTES      32

typedef struct route {
    char       *path;
    bool        post;
    web_handler fn;
    void       *arg;
} route;

typedef struct sse_event {
    struct sse_event *next;
    size_t            len;
    char              data[];
} sse_event;

/* One SSE client: its queue of whole events (the head may be partly
 * sent: off), bounded to WEB_SSE_QUEUE bytes. */
typedef struct sse_client {
    struct sse_client *prev, *next;
    httpd             *h;
    sse_event         *head, *tail;
    size_t             off;         /* bytes of head already sent */
    size_t             bytes;       /* queued, head's unsent part included */
    uint64_t           dropped;     /* events dropped, not yet told */
    uint64_t           dropped_all;
} sse_client;

struct httpd {
    struct MHD_Daemon *d;
    int                fd;          /* the listening socket */
    char               url[128];
    /* listening on loopback: the Host names a request may carry (DNS
     * rebinding: a page of another site resolving its name to 127.0.0.1
     * must not read the profiles); empty: any */
    char               hosts[2][80];
    route              routes[MAX_ROUTES];
    int                nroutes;
    pthread_mutex_t    lock;        /* clients, stats */
    pthread_cond_t     cond;        /* an event was queued, or stopping */
    sse_client        *clients;
    bool               stopping;
    httpd_stats        st;
};

/* Per request (con_cls), made by the URI log callback. */
typedef struct req_state {
    int    refuse;          /* a status to answer before any handler */
    bool   started;         /* the first call (headers only) was made */
    bool   too_big;         /* body over WEB_MAX_BODY */
    strbuf body;
} req_state;

/* ---- parameters and replies (no libmicrohttpd) ------------------------- */
const char *web_param_get(const web_request *rq, const char *name)
{
    for (int i = 0; i < rq->nparams; i++)
        if (strcmp(rq->params[i].name, name) == 0)
            return rq->params[i].value;
    return NULL;
}

int web_param_all(const web_request *rq, const char *name,
                  const char **vals, int max)
{
    int n = 0;
    for (int i = 0; i < rq->nparams; i++)
        if (strcmp(rq->params[i].name, name) == 0) {
            if (n < max)
                vals[n] = rq->params[i].value;
            n++;
        }
    return n;
}

void web_reply_error(web_reply *rp, int status, const char *fmt, ...)
{
    rp->status = status;
    rp->content_type = "text/plain; charset=utf-8";
    rp->filename = NULL;
    sb_reset(&rp->body);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&rp->body, fmt, ap);
    va_end(ap);
    sb_addc(&rp->body, '\n');
}

/* ---- the listening address --------------------------------------------- */
/* "ADDR:PORT" or "[V6]:PORT" into host and port. */
static bool split_addr(const char *addr, char *host, size_t hsz,
                       char *port, size_t psz)
{
    const char *colon;
    const char *h = addr;
    size_t hl;
    if (addr[0] == '[') {
        const char *rb = strchr(addr, ']');
        if (rb == NULL || rb[1] != ':')
            return false;
        h = addr + 1;
        hl = (size_t)(rb - h);
        colon = rb + 1;
    } else {
        colon = strrchr(addr, ':');
        if (colon == NULL || memchr(addr, ':', (size_t)(colon - addr)))
            return false;
        hl = (size_t)(colon - addr);
    }
    if (hl == 0 || hl >= hsz || strlen(colon + 1) == 0
        || strlen(colon + 1) >= psz
        || strspn(colon + 1, "0123456789") != strlen(colon + 1))
        return false;
    memcpy(host, h, hl);
    host[hl] = '\0';
    strcpy(port, colon + 1);
    return atol(port) <= 65535;
}

httpd *httpd_new(const char *addr, strbuf *err)
{
    if (addr == NULL)
        addr = "127.0.0.1:0";
    char host[256], port[16];
    if (!split_addr(addr, host, sizeof host, port, sizeof port)) {
        sb_printf(err, "--listen %s: expected ADDR:PORT (127.0.0.1:8080, "
                  "[::1]:0, 0.0.0.0:8080)", addr);
        return NULL;
    }
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &ai);
    if (gai != 0) {
        sb_printf(err, "--listen %s: %s", addr, gai_strerror(gai));
        return NULL;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
        || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
        sb_printf(err, "--listen %s: %s", addr, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return NULL;
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char num[INET6_ADDRSTRLEN], sport[16];
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0
        || getnameinfo((struct sockaddr *)&ss, sl, num, sizeof num, sport,
                       sizeof sport, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        sb_printf(err, "--listen %s: %s", addr, strerror(errno));
        close(fd);
        return NULL;
    }
    httpd *h = xcalloc(1, sizeof *h);
    h->fd = fd;
    bool loop = ss.ss_family == AF_INET
        ? (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127
        : IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr);
    if (loop) {
        snprintf(h->hosts[0], sizeof h->hosts[0], ss.ss_family == AF_INET6
                 ? "[%s]:%s" : "%s:%s", num, sport);
        snprintf(h->hosts[1], sizeof h->hosts[1], "localhost:%s", sport);
    }
    snprintf(h->url, sizeof h->url, ss.ss_family == AF_INET6
             ? "http://[%s]:%s/" : "http://%s:%s/", num, sport);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cond, NULL);
    return h;
}

const char *httpd_url(const httpd *h)
{
    return h->url;
}

void httpd_route(httpd *h, const char *path, bool post, web_handler fn,
                 void *arg)
{
    if (h->nroutes == MAX_ROUTES) {
        fprintf(stderr, "staprelay web: too many routes (%s)\n", path);
        abort();
    }
    h->routes[h->nroutes++] = (route){ xstrdup(path), post, fn, arg };
}

/* ---- the embedded page --------------------------------------------------- */
static const char *content_type(const char *name)
{
    static const struct { const char *ext, *type; } types[] = {
        { ".html", "text/html; charset=utf-8" },
        { ".js",   "text/javascript; charset=utf-8" },
        { ".css",  "text/css; charset=utf-8" },
        { ".svg",  "image/svg+xml" },
        { ".json", "application/json" },
        { ".png",  "image/png" },
        { ".ico",  "image/x-icon" },
        { ".txt",  "text/plain; charset=utf-8" },
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* The embedded file a GET of path names, or NULL. */
static const embedded_file *asset_for(const char *path)
{
    if (strcmp(path, "/") == 0)
        return embedded_find(web_assets, web_assets_count, "index.html");
    if (strncmp(path, "/static/", 8) != 0 || path[8] == '\0')
        return NULL;
    /* the layout the heat-map page shares (render/html.h) */
    if (strcmp(path + 8, "flow.js") == 0)
        return &html_flow_js[0];
    return embedded_find(web_assets, web_assets_count, path + 8);
}

/* ---- SSE ------------------------------------------------------------------- */
/* Drop events from the front (never a partly sent head) until extra more
 * bytes fit.  Called locked. */
static void sse_make_room(httpd *h, sse_client *c, size_t extra)
{
    sse_event **pp = c->off > 0 && c->head ? &c->head->next : &c->head;
    while (*pp && c->bytes + extra > WEB_SSE_QUEUE) {
        sse_event *e = *pp;
        *pp = e->next;
        c->bytes -= e->len;
        h->st.sse_queued -= e->len;
        c->dropped++;
        c->dropped_all++;
        h->st.sse_dropped++;
        free(e);
    }
    c->tail = NULL;
    for (sse_event *e = c->head; e; e = e->next)
        c->tail = e;
}

static void sse_queue(httpd *h, sse_client *c, const char *text, size_t len)
{
    if (c->bytes + len > WEB_SSE_QUEUE)
        sse_make_room(h, c, len);
    if (c->bytes + len > WEB_SSE_QUEUE) {     /* still no room */
        c->dropped++;
        c->dropped_all++;
        h->st.sse_dropped++;
        return;
    }
    sse_event *e = xmalloc(sizeof *e + len);
    e->next = NULL;
    e->len = len;
    memcpy(e->data, text, len);
    if (c->tail)
        c->tail->next = e;
    else
        c->head = e;
    c->tail = e;
    c->bytes += len;
    h->st.sse_queued += len;
}

void httpd_sse_send(httpd *h, const char *event, const char *data)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "event: %s\ndata: %s\n\n", event, data);
    pthread_mutex_lock(&h->lock);
    for (sse_client *c = h->clients; c; c = c->next)
        sse_queue(h, c, sb.buf, sb.len);
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    sb_free(&sb);
}

/* libmicrohttpd asks for the next bytes of the stream: wait (this is the
 * connection's own thread) until there are some, sending a comment every
 * SSE_KEEPALIVE_S so a vanished client's closed socket is found. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse_client *c = cls;
    httpd *h = c->h;
    pthread_mutex_lock(&h->lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += SSE_KEEPALIVE_S;
    while (!h->stopping && c->head == NULL && c->dropped == 0)
        if (pthread_cond_timedwait(&h->cond, &h->lock, &until) == ETIMEDOUT)
            break;
    ssize_t n;
    if (h->stopping) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else if (c->dropped > 0 && c->off == 0) {
        /* tell the page it missed some: it refetches */
        int k = snprintf(buf, max, "event: dropped\ndata: {\"dropped\":%llu}"
                         "\n\n", (unsigned long long)c->dropped);
        n = k > 0 && (size_t)k < max ? k : 0;
        if (n > 0)
            c->dropped = 0;
    } else if (c->head == NULL) {
        static const char ka[] = ": keepalive\n\n";
        n = max >= sizeof ka - 1 ? (ssize_t)(sizeof ka - 1) : 0;
        memcpy(buf, ka, (size_t)n);
    } else {
        sse_event *e = c->head;
        size_t k = e->len - c->off;
        if (k > max)
            k = max;
        memcpy(buf, e->data + c->off, k);
        c->off += k;
        c->bytes -= k;
        h->st.sse_queued -= k;
        if (c->off == e->len) {
            c->head = e->next;
            if (c->head == NULL)
                c->tail = NULL;
            c->off = 0;
            free(e);
        }
        n = (ssize_t)k;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

static void sse_free(void *cls)
{
    sse_client *c = cls;
    httpd *h = c->h;
    pthread_mutex_lock(&h->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        h->clients = c->next;
    if (c->next)
        c->next->prev = c->prev;
    h->st.sse_clients--;
    h->st.sse_queued -= c->bytes;
    pthread_mutex_unlock(&h->lock);
    for (sse_event *e = c->head, *n; e; e = n) {
        n = e->next;
        free(e);
    }
    free(c);
}

static struct MHD_Response *sse_start(httpd *h)
{
    sse_client *c = xcalloc(1, sizeof *c);
    c->h = h;
    struct MHD_Response *r = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, c, sse_free);
    if (r == NULL) {
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&h->lock);
    c->next = h->clients;
    if (h->clients)
        h->clients->prev = c;
    h->clients = c;
    h->st.sse_clients++;
    pthread_mutex_unlock(&h->lock);
    /* the first bytes at once: the browser's EventSource opens now */
    static const char hello[] = ": staprelay web\nretry: 2000\n\n";
    pthread_mutex_lock(&h->lock);
    sse_queue(h, c, hello, sizeof hello - 1);
    pthread_mutex_unlock(&h->lock);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    return r;
}

/* ---- requests -------------------------------------------------------------- */
static void count(httpd *h, bool refused)
{
    pthread_mutex_lock(&h->lock);
    h->st.requests++;
    if (refused)
        h->st.refused++;
    pthread_mutex_unlock(&h->lock);
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, int status,
                                  const char *type, const char *filename,
                                  strbuf *body, const char *allow)
{
    size_t len = body->len;
    char *data = sb_steal(body);
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, data ? data : (char *)"", data ? MHD_RESPMEM_MUST_FREE
                                            : MHD_RESPMEM_PERSISTENT);
    if (r == NULL) {
        free(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type",
                            type ? type : "text/plain; charset=utf-8");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (allow)
        MHD_add_response_header(r, "Allow", allow);
    if (filename) {
        char cd[300];
        snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", filename);
        MHD_add_response_header(r, "Content-Disposition", cd);
    }
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result refuse(httpd *h, struct MHD_Connection *conn,
                              int status, const char *allow,
                              const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum MHD_Result refuse(httpd *h, struct MHD_Connection *conn,
                              int status, const char *allow,
                              const char *fmt, ...)
{
    count(h, true);
    strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    sb_addc(&sb, '\n');
    return send_reply(conn, status, NULL, NULL, &sb, allow);
}

/* The raw request target, before decoding: what no decoded path shows. */
static void *uri_check(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    req_state *rs = xcalloc(1, sizeof *rs);
    rs->body = (strbuf)STRBUF_INIT;
    size_t len = strlen(uri);
    const char *q = strchr(uri, '?');
    size_t plen = q ? (size_t)(q - uri) : len;
    if (len > WEB_MAX_URL)
        rs->refuse = 413;
    else if (memchr(uri, '\\', plen) || strcasestr(uri, "%2f") != NULL
             || strcasestr(uri, "%5c") != NULL || strstr(uri, "%00") != NULL)
        /* encoded slashes or backslashes: a path we never serve (checked
         * in the query too: a parameter never holds a path) */
        rs->refuse = 404;
    return rs;
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    req_state *rs = *con_cls;
    if (rs) {
        sb_free(&rs->body);
        free(rs);
    }
    *con_cls = NULL;
}

/* A decoded path with a "." or ".." segment, an empty one ("//"), or a
 * control byte: never one of ours. */
static bool path_ok(const char *path)
{
    if (path[0] != '/')
        return false;
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
            return false;
    for (const char *s = path + 1; ; ) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        if (n == 0 && e != NULL)
            return false;
        if (e == NULL)
            break;
        s = e + 1;
    }
    return true;
}

typedef struct collect_args {
    web_request *rq;
    bool         overflow;
} collect_args;

static enum MHD_Result add_param(void *cls, enum MHD_ValueKind kind,
                                 const char *key, const char *value)
{
    (void)kind;
    collect_args *ca = cls;
    if (ca->rq->nparams == WEB_MAX_PARAMS) {
        ca->overflow = true;
        return MHD_NO;
    }
    ca->rq->params[ca->rq->nparams++] = (web_param){ key, value ? value : "" };
    return MHD_YES;
}

/* The Host header of a request to a loopback listener: one of ours
 * (with or without the port: a browser drops :80), else refused. */
static bool host_ok(const httpd *h, struct MHD_Connection *conn)
{
    if (h->hosts[0][0] == '\0')
        return true;
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_HOST);
    if (host == NULL)
        return true;            /* HTTP/1.0 without one: not a browser's */
    for (int i = 0; i < 2; i++) {
        const char *colon = strrchr(h->hosts[i], ':');
        size_t bare = (size_t)(colon - h->hosts[i]);
        if (strcasecmp(host, h->hosts[i]) == 0
            || (strlen(host) == bare && strncasecmp(host, h->hosts[i], bare) == 0))
            return true;
    }
    return false;
}

static const route *find_route(const httpd *h, const char *path)
{
    for (int i = 0; i < h->nroutes; i++)
        if (strcmp(h->routes[i].path, path) == 0)
            return &h->routes[i];
    return NULL;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn,
                             const char *url, const char *method,
                             const char *version, const char *upload_data,
                             size_t *upload_data_size, void **con_cls)
{
    (void)version;
    httpd *h = cls;
    req_state *rs = *con_cls;
    if (rs == NULL)             /* no URI callback ran: refuse */
        return MHD_NO;
    if (rs->refuse == 413)
        return refuse(h, conn, 413, NULL, "request URL over %d bytes",
                      WEB_MAX_URL);
    if (rs->refuse)
        return refuse(h, conn, 404, NULL, "not found");
    if (!host_ok(h, conn))
        return refuse(h, conn, 403, NULL, "Host not served here: use %s",
                      h->url);
    if (!path_ok(url))
        return refuse(h, conn, 404, NULL, "not found");
    const route *rt = find_route(h, url);
    bool stream = strcmp(url, "/api/stream") == 0;
    const embedded_file *asset = rt || stream ? NULL : asset_for(url);
    if (rt == NULL && !stream && asset == NULL)
        return refuse(h, conn, 404, NULL, "not found");
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool post = strcmp(method, "POST") == 0 && rt && rt->post;
    if (!get && !post)
        return refuse(h, conn, 405, rt && rt->post ? "GET, HEAD, POST"
                      : "GET, HEAD", "method %s not allowed", method);
    /* The first call has the headers only: answer then only to refuse
     * (the connection is closed after such an answer, libmicrohttpd's
     * rule); a good request is answered once its body is in, so the
     * connection is kept alive for the next one. */
    if (!rs->started) {
        rs->started = true;
        const char *cl = MHD_lookup_connection_value(
            conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > WEB_MAX_BODY)
            return refuse(h, conn, 413, NULL, "request body over %d bytes",
                          WEB_MAX_BODY);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        if (!rs->too_big && rs->body.len + *upload_data_size > WEB_MAX_BODY)
            rs->too_big = true;
        if (!rs->too_big && post)   /* a GET's body is nobody's */
            sb_add(&rs->body, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (rs->too_big)
        return refuse(h, conn, 413, NULL, "request body over %d bytes",
                      WEB_MAX_BODY);
    if (asset) {
        count(h, false);
        struct MHD_Response *r = MHD_create_response_from_buffer(
            asset->len, (void *)asset->data, MHD_RESPMEM_PERSISTENT);
        if (r == NULL)
            return MHD_NO;
        MHD_add_response_header(r, "Content-Type", content_type(
            strcmp(url, "/") == 0 ? "index.html" : url));
        /* the page is the binary's: revalidated, so a new build shows */
        MHD_add_response_header(r, "Cache-Control", "no-cache");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    if (stream) {
        count(h, false);
        struct MHD_Response *r = sse_start(h);
        if (r == NULL)
            return MHD_NO;
        enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    web_request rq;
    memset(&rq, 0, sizeof rq);
    rq.method = method;
    rq.path = url;
    collect_args ca = { &rq, false };
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_param, &ca);
    if (ca.overflow)
        return refuse(h, conn, 400, NULL, "more than %d query parameters",
                      WEB_MAX_PARAMS);
    if (post) {
        rq.body = rs->body.buf ? rs->body.buf : "";
        rq.body_len = rs->body.len;
    }
    web_reply rp = { .status = 200, .body = STRBUF_INIT };
    rt->fn(rt->arg, &rq, &rp);
    count(h, false);
    return send_reply(conn, rp.status, rp.content_type, rp.filename,
                      &rp.body, NULL);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    /* libmicrohttpd's own complaints (a client's bad request line, a
     * reset connection) are the clients' business, not ours */
    (void)fmt;
    (void)ap;
}

int httpd_run(httpd *h, strbuf *err)
{
    h->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION
        | MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG,
        0, NULL, NULL, serve, h,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)h->fd,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)WEB_MAX_CLIENTS,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)0,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(WEB_MAX_URL * 4),
        MHD_OPTION_THREAD_STACK_SIZE, (size_t)(1024 * 1024),
        MHD_OPTION_URI_LOG_CALLBACK, uri_check, h,
        MHD_OPTION_NOTIFY_COMPLETED, completed, h,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
        MHD_OPTION_END);
    if (h->d == NULL) {
        sb_printf(err, "cannot start the HTTP server on %s", h->url);
        return -1;
    }
    return 0;
}

void httpd_get_stats(httpd *h, httpd_stats *st)
{
    pthread_mutex_lock(&h->lock);
    *st = h->st;
    pthread_mutex_unlock(&h->lock);
}

void httpd_free(httpd *h)
{
    if (h == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    h->stopping = true;            /* the SSE readers end their streams */
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    if (h->d) {
        /* no new connections; the socket back to us, to close after */
        MHD_socket fd = MHD_quiesce_daemon(h->d);
        MHD_stop_daemon(h->d);     /* joins every connection's thread */
        if (fd != MHD_INVALID_SOCKET)
            close(fd);
    } else if (h->fd >= 0) {
        close(h->fd);
    }
    for (int i = 0; i < h->nroutes; i++)
        free(h->routes[i].path);
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->lock);
    free(h);
}
