/* Suite: client/web/httpd: the HTTP layer on a real socket (libmicrohttpd
 * on 127.0.0.1, a free port) with a raw client -- the page and routes
 * served, traversal and encoded slashes refused before any handler, a
 * Host that is not the loopback server's 403 (DNS rebinding), 405,
 * 413 for a long URL and for a body over 64 KiB on a POST route, POST
 * bodies handed over whole; SSE: events reach a reading client, a client
 * that never reads loses the oldest (counted) while httpd_sse_send never
 * waits, and httpd_free ends with it still connected. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "client/web/httpd.h"
#include "tests/testutil.h"

static int port_of(const httpd *h)
{
    const char *u = httpd_url(h);
    const char *c = strrchr(u, ':');
    return atoi(c + 1);
}

static int dial(const httpd *h, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port_of(h)) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;         /* the server may close early (413) */
        p += k;
        n -= (size_t)k;
    }
}

/* Read until the server closes (or max bytes); the test's time-out
 * bounds a hang. */
static char *read_all(int fd, size_t max)
{
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    ssize_t k;
    while (sb.len < max && (k = recv(fd, buf, sizeof buf, 0)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        sb_add(&sb, buf, (size_t)k);
    }
    return sb.buf ? sb_steal(&sb) : strdup("");
}

static char *request(const httpd *h, const char *req, size_t len);
#define request_s(h, req) request((h), (req), strlen(req))

/* "Host: t" in the tests' requests stands for the server's own name
 * (a loopback server refuses other names: DNS rebinding). */
static void send_req(const httpd *h, int fd, const char *req, size_t len)
{
    const char *t = memmem(req, len, "Host: t\r\n", 9);
    if (t == NULL) {
        send_all(fd, req, len);
        return;
    }
    const char *u = httpd_url(h) + strlen("http://");
    char host[96];
    int n = snprintf(host, sizeof host, "Host: %.*s\r\n",
                     (int)(strlen(u) - 1), u);
    send_all(fd, req, (size_t)(t - req));
    send_all(fd, host, (size_t)n);
    send_all(fd, t + 9, len - (size_t)(t - req) - 9);
}

/* One request on its own connection; the whole answer. */
static char *request(const httpd *h, const char *req, size_t len)
{
    int fd = dial(h, 0);
    send_req(h, fd, req, len);
    shutdown(fd, SHUT_WR);
    char *r = read_all(fd, 1 << 20);
    close(fd);
    return r;
}

static int status_of(const char *resp)
{
    int st = 0;
    sscanf(resp, "HTTP/1.%*d %d", &st);
    return st;
}

static int get(const httpd *h, const char *target)
{
    char req[16384];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: t\r\n"
                     "Connection: close\r\n\r\n", target);
    char *r = request(h, req, (size_t)n);
    int st = status_of(r);
    free(r);
    return st;
}

static int handled;

static void echo(void *arg, const web_request *rq, web_reply *rp)
{
    (void)arg;
    handled++;
    sb_printf(&rp->body, "%s %s", rq->method, rq->path);
    for (int i = 0; i < rq->nparams; i++)
        sb_printf(&rp->body, " %s=%s", rq->params[i].name, rq->params[i].value);
    if (rq->body)
        sb_printf(&rp->body, " body %zu", rq->body_len);
}

static httpd *start(void)
{
    strbuf err = STRBUF_INIT;
    httpd *h = httpd_new("127.0.0.1:0", &err);
    ck_assert_msg(h != NULL, "%s", err.buf);
    httpd_route(h, "/api/echo", false, echo, NULL);
    httpd_route(h, "/api/post", true, echo, NULL);
    ck_assert_int_eq(httpd_run(h, &err), 0);
    sb_free(&err);
    ck_assert_ptr_nonnull(strstr(httpd_url(h), "http://127.0.0.1:"));
    return h;
}

START_TEST(paths_and_methods)
{
    httpd *h = start();
    handled = 0;
    ck_assert_int_eq(get(h, "/"), 200);
    ck_assert_int_eq(get(h, "/static/index.html"), 200);
    ck_assert_int_eq(get(h, "/api/echo?a=1&b=x+y&a=%41"), 200);
    ck_assert_int_eq(handled, 1);
    const char *bad[] = { "/static/../static/index.html", "/static/%2e%2e/x",
                          "/static%2findex.html", "/api%2Fecho", "/x/..",
                          "/static/a\\b", "/api/echo/", "//api/echo",
                          "/static/", "/static/nothing.js", "/api/echo%00",
                          "/etc/passwd", "/api/echo?p=%2f" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(get(h, bad[i]) == 404, "%s", bad[i]);
    ck_assert_int_eq(handled, 1);       /* no handler saw any of them */
    char *r = request_s(h, "DELETE /api/echo HTTP/1.1\r\nHost: t\r\n"
                        "Connection: close\r\n\r\n");
    ck_assert_int_eq(status_of(r), 405);
    ck_assert_ptr_nonnull(strstr(r, "Allow: GET, HEAD"));
    free(r);
    r = request_s(h, "POST /api/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 0"
                  "\r\nConnection: close\r\n\r\n");
    ck_assert_int_eq(status_of(r), 405);
    free(r);
    r = request_s(h, "GET /api/echo?a=1&b=x+y&a=%41 HTTP/1.1\r\nHost: t\r\n"
                  "Connection: close\r\n\r\n");
    ck_assert_ptr_nonnull(strstr(r, "\r\n\r\nGET /api/echo a=1 b=x y a=A"));
    free(r);
    /* a name that is not the server's: another site's page (DNS
     * rebinding) */
    r = request_s(h, "GET /api/echo HTTP/1.1\r\nHost: evil.example\r\n"
                  "Connection: close\r\n\r\n");
    ck_assert_int_eq(status_of(r), 403);
    free(r);
    char lh[128];
    snprintf(lh, sizeof lh, "GET /api/echo HTTP/1.1\r\nHost: localhost:%d"
             "\r\nConnection: close\r\n\r\n", port_of(h));
    r = request_s(h, lh);
    ck_assert_int_eq(status_of(r), 200);
    free(r);
    ck_assert_int_eq(handled, 3);
    httpd_stats st;
    httpd_get_stats(h, &st);
    ck_assert_uint_ge(st.refused, 16);
    httpd_free(h);
}
END_TEST

START_TEST(sizes)
{
    httpd *h = start();
    char *target = malloc(WEB_MAX_URL + 100);
    memset(target, 'a', WEB_MAX_URL + 99);
    memcpy(target, "/api/echo?q=", 12);
    target[WEB_MAX_URL + 99] = '\0';
    ck_assert_int_eq(get(h, target), 413);
    target[WEB_MAX_URL - 1] = '\0';
    ck_assert_int_eq(get(h, target), 200);
    free(target);
    /* a body over 64 KiB: by its Content-Length, and chunked */
    size_t n = WEB_MAX_BODY + 10;
    char *req = malloc(n + 200);
    int k = sprintf(req, "POST /api/post HTTP/1.1\r\nHost: t\r\nContent-Length:"
                    " %zu\r\nConnection: close\r\n\r\n", n);
    memset(req + k, 'x', n);
    char *r = request(h, req, (size_t)k + n);
    ck_assert_int_eq(status_of(r), 413);
    free(r);
    k = sprintf(req, "POST /api/post HTTP/1.1\r\nHost: t\r\nContent-Length:"
                " 1000\r\nConnection: close\r\n\r\n");
    memset(req + k, 'x', 1000);
    r = request(h, req, (size_t)k + 1000);
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "POST /api/post body 1000"));
    free(r);
    strbuf ch = STRBUF_INIT;
    sb_adds(&ch, "POST /api/post HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: "
            "chunked\r\nConnection: close\r\n\r\n");
    for (int i = 0; i < 20; i++) {
        sb_printf(&ch, "1000\r\n");
        for (int j = 0; j < 0x1000; j++)
            sb_addc(&ch, 'y');
        sb_adds(&ch, "\r\n");
    }
    sb_adds(&ch, "0\r\n\r\n");
    r = request(h, ch.buf, ch.len);
    ck_assert_int_eq(status_of(r), 413);
    free(r);
    sb_free(&ch);
    free(req);
    httpd_free(h);
}
END_TEST

static bool wait_stat(httpd *h, uint64_t clients)
{
    for (int i = 0; i < 600; i++) {
        httpd_stats st;
        httpd_get_stats(h, &st);
        if (st.sse_clients == clients)
            return true;
        usleep(10000);
    }
    return false;
}

START_TEST(sse_bounded)
{
    httpd *h = start();
    const char *req = "GET /api/stream HTTP/1.1\r\nHost: t\r\n\r\n";
    int slow = dial(h, 4096);        /* never reads */
    send_req(h, slow, req, strlen(req));
    ck_assert(wait_stat(h, 1));
    int fast = dial(h, 0);
    send_req(h, fast, req, strlen(req));
    ck_assert(wait_stat(h, 2));
    /* 20 MiB of events: far more than the slow client's queue and the
     * kernel's buffers; the sender never waits for it */
    char *data = malloc(8192);
    memset(data, 'd', 8191);
    data[8191] = '\0';
    char buf[65536];
    size_t got = 0;
    for (int i = 0; i < 2560; i++) {
        httpd_sse_send(h, "samples", data);
        /* the fast one reads as it goes */
        struct pollfd pf = { fast, POLLIN, 0 };
        while (poll(&pf, 1, 0) > 0) {
            ssize_t k = recv(fast, buf, sizeof buf, 0);
            if (k <= 0)
                break;
            got += (size_t)k;
        }
    }
    httpd_stats st;
    httpd_get_stats(h, &st);
    ck_assert_uint_gt(st.sse_dropped, 0);
    ck_assert_uint_le(st.sse_queued, 2 * WEB_SSE_QUEUE);
    ck_assert_uint_gt(got, 0);
    /* the slow one reads at last: it is told it missed some */
    strbuf seen = STRBUF_INIT;
    httpd_sse_send(h, "samples", "{\"last\":1}");
    for (int tries = 0; tries < 100000 && !strstr(seen.buf ? seen.buf : "",
                                                  "{\"last\":1}"); tries++) {
        struct pollfd pf = { slow, POLLIN, 0 };
        if (poll(&pf, 1, 100) <= 0)
            continue;
        ssize_t k = recv(slow, buf, sizeof buf - 1, 0);
        if (k <= 0)
            break;
        sb_add(&seen, buf, (size_t)k);
    }
    ck_assert_ptr_nonnull(strstr(seen.buf, "event: dropped\ndata: {\"dropped\":"));
    ck_assert_ptr_nonnull(strstr(seen.buf, "{\"last\":1}"));
    sb_free(&seen);
    free(data);
    /* a client that vanishes is freed */
    close(fast);
    httpd_sse_send(h, "samples", "{}");
    ck_assert(wait_stat(h, 1));
    /* the server stops with a client still connected */
    httpd_free(h);
    close(slow);
}
END_TEST

START_TEST(listen_errors)
{
    strbuf err = STRBUF_INIT;
    ck_assert_ptr_null(httpd_new("nonsense", &err));
    ck_assert_ptr_nonnull(strstr(err.buf, "expected ADDR:PORT"));
    sb_reset(&err);
    ck_assert_ptr_null(httpd_new("127.0.0.1:99999", &err));
    sb_reset(&err);
    httpd *h = start();
    char busy[64];
    snprintf(busy, sizeof busy, "127.0.0.1:%d", port_of(h));
    ck_assert_ptr_null(httpd_new(busy, &err));
    ck_assert_ptr_nonnull(strstr(err.buf, "in use"));
    httpd_free(h);
    sb_free(&err);
}
END_TEST

TEST_SUITE(client_web_httpd)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("httpd");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, paths_and_methods);
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, sse_bounded);
    tcase_add_test(tc, listen_errors);
    suite_add_tcase(s, tc);
    return s;
}
