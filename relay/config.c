/* config: parse the relay's JSON configuration. */
#include "relay/config.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

relay_config *config_new_default(void)
{
    relay_config *cfg = calloc(1, sizeof(*cfg));
    if (cfg == NULL)
        return NULL;
    cfg->poll_interval = CONFIG_DEFAULT_POLL_INTERVAL;
    cfg->exec_timeout = CONFIG_DEFAULT_EXEC_TIMEOUT;
    cfg->max_document_size = CONFIG_DEFAULT_MAX_DOCUMENT;
    cfg->event_queue_size = 16u * 1024 * 1024;
    cfg->max_record_size = 1024 * 1024;
    cfg->event_fetch_size = 512 * 1024;
    cfg->max_stacks = 10000;
    cfg->stack_expiry = 600;
    cfg->exec_user = strdup("nobody");
    /* kernel runtime, and the BPF runtime's FIFO directory for root */
    static const char *roots[] = {"/proc/systemtap", "/var/tmp/systemtap-root"};
    cfg->stap_roots = calloc(3, sizeof(char *));
    if (cfg->stap_roots != NULL) {
        for (size_t i = 0; i < 2; i++)
            cfg->stap_roots[i] = strdup(roots[i]);
        cfg->nstap_roots = 2;
    }
    if (cfg->exec_user == NULL) {
        free(cfg);
        return NULL;
    }
    return cfg;
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void config_free(relay_config *cfg)
{
    if (cfg == NULL)
        return;
    free_list(cfg->directories, cfg->ndirectories);
    free_list(cfg->trusted_directories, cfg->ntrusted_directories);
    free_list(cfg->stap_roots, cfg->nstap_roots);
    free(cfg->exec_user);
    free(cfg);
}

static int parse_dir_list(json_t *v, const char *key, char ***out, size_t *n,
                          char *err, size_t errlen)
{
    if (!json_is_array(v)) {
        snprintf(err, errlen, "config: \"%s\" must be an array of directory names", key);
        return -1;
    }
    size_t cnt = json_array_size(v);
    char **list = calloc(cnt + 1, sizeof(char *));
    if (list == NULL) {
        snprintf(err, errlen, "config: out of memory");
        return -1;
    }
    for (size_t i = 0; i < cnt; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_string(e) || json_string_length(e) == 0 ||
            strlen(json_string_value(e)) != json_string_length(e)) {
            snprintf(err, errlen, "config: \"%s\"[%zu] must be a non-empty string", key, i);
            free_list(list, i);
            return -1;
        }
        list[i] = strdup(json_string_value(e));
    }
    free_list(*out, *n);
    *out = list;
    *n = cnt;
    return 0;
}

static int parse_seconds(json_t *v, const char *key, double min, double max,
                         double *out, char *err, size_t errlen)
{
    if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
        json_number_value(v) < min || json_number_value(v) > max) {
        snprintf(err, errlen, "config: \"%s\" must be a number of seconds between %g and %g",
                 key, min, max);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

static int parse_size(json_t *v, const char *key, json_int_t min, json_int_t max,
                      size_t *out, char *err, size_t errlen)
{
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        snprintf(err, errlen, "config: \"%s\" must be an integer between %lld and %lld",
                 key, (long long)min, (long long)max);
        return -1;
    }
    *out = (size_t)json_integer_value(v);
    return 0;
}

static int apply_key(relay_config *cfg, const char *key, json_t *v,
                     char *err, size_t errlen, char *warn, size_t warnlen)
{
    if (strcmp(key, "directory_list") == 0)
        return parse_dir_list(v, key, &cfg->directories, &cfg->ndirectories, err, errlen);
    if (strcmp(key, "trusted_directory_list") == 0)
        return parse_dir_list(v, key, &cfg->trusted_directories,
                              &cfg->ntrusted_directories, err, errlen);
    if (strcmp(key, "stap_roots") == 0)
        return parse_dir_list(v, key, &cfg->stap_roots, &cfg->nstap_roots, err, errlen);
    if (strcmp(key, "poll_interval") == 0)
        return parse_seconds(v, key, 0.01, 86400, &cfg->poll_interval, err, errlen);
    if (strcmp(key, "exec_timeout") == 0)
        return parse_seconds(v, key, 0.01, 3600, &cfg->exec_timeout, err, errlen);
    if (strcmp(key, "max_document_size") == 0) {
        if (!json_is_integer(v) || json_integer_value(v) < 1024 ||
            json_integer_value(v) > (json_int_t)1 << 30) {
            snprintf(err, errlen, "config: \"max_document_size\" must be an integer "
                     "number of bytes between 1024 and 1073741824");
            return -1;
        }
        cfg->max_document_size = (size_t)json_integer_value(v);
        return 0;
    }
    if (strcmp(key, "event_queue_size") == 0)
        return parse_size(v, key, 4096, (json_int_t)1 << 32, &cfg->event_queue_size, err, errlen);
    if (strcmp(key, "max_record_size") == 0)
        return parse_size(v, key, 256, (json_int_t)16 << 20, &cfg->max_record_size, err, errlen);
    if (strcmp(key, "event_fetch_size") == 0)
        return parse_size(v, key, 65536, (json_int_t)12 << 20, &cfg->event_fetch_size, err, errlen);
    if (strcmp(key, "max_stacks") == 0)
        return parse_size(v, key, 1, 10000000, &cfg->max_stacks, err, errlen);
    if (strcmp(key, "stack_expiry") == 0)
        return parse_seconds(v, key, 1, 86400 * 365, &cfg->stack_expiry, err, errlen);
    if (strcmp(key, "exec_user") == 0) {
        if (!json_is_string(v) || json_string_length(v) == 0) {
            snprintf(err, errlen, "config: \"exec_user\" must be a user name");
            return -1;
        }
        char *u = strdup(json_string_value(v));
        if (u == NULL)
            return -1;
        free(cfg->exec_user);
        cfg->exec_user = u;
        return 0;
    }
    if (warn != NULL) {
        size_t used = strlen(warn);
        snprintf(warn + used, warnlen - used, "%sconfig: ignoring unknown option \"%s\"",
                 used ? "; " : "", key);
    }
    return 0;
}

relay_config *config_parse(const char *text, size_t len, char *err, size_t errlen,
                           char *warn, size_t warnlen)
{
    json_error_t jerr;
    if (warn != NULL && warnlen > 0)
        warn[0] = '\0';
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        snprintf(err, errlen, "config: line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "config: top level must be an object");
        json_decref(root);
        return NULL;
    }
    relay_config *cfg = config_new_default();
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (apply_key(cfg, key, v, err, errlen, warn, warnlen) != 0) {
            config_free(cfg);
            json_decref(root);
            return NULL;
        }
    }
    json_decref(root);
    return cfg;
}

relay_config *config_load(const char *path, char *err, size_t errlen,
                          char *warn, size_t warnlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "config: cannot open %s: %m", path);
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, len = 0, n;
    do {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "config: out of memory");
                return NULL;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0 && len < (1u << 20));
    fclose(f);
    relay_config *cfg = config_parse(buf, len, err, errlen, warn, warnlen);
    free(buf);
    return cfg;
}
