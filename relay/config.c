/* config: parse the relay's JSON configuration. */
#include "relay/config.h"
#include "relay/events.h"

#include <ctype.h>
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
    cfg->max_document_memory = CONFIG_DEFAULT_DOCUMENT_MEMORY;
    cfg->max_source_memory = CONFIG_DEFAULT_SOURCE_MEMORY;
    cfg->max_total_memory = CONFIG_DEFAULT_TOTAL_MEMORY;
    cfg->event_queue_size = 16u * 1024 * 1024;
    cfg->max_record_size = 1024 * 1024;
    cfg->event_fetch_size = 512 * 1024;
    cfg->max_stacks = 10000;
    cfg->pmid_clusters_per_root = 256;
    cfg->pmid_clusters_reserved = 1024;
    cfg->stack_expiry = 600;
    cfg->exec_user = strdup("nobody");
    cfg->exec_max_processes = 128;
    cfg->runs.max_duration = 300;
    cfg->runs.default_duration = 30;
    cfg->runs.max_concurrent = 1;
    cfg->runs.max_queued = 4;
    cfg->runs.history = 32;
    cfg->runs.start_timeout = 600;
    /* the kernel runtime, and every user's BPF-runtime FIFO directory
     * (stapbpf makes /var/tmp/systemtap-<user name>; relay.c decides
     * trust per module, as for directories) */
    static const char *roots[] = {"/proc/systemtap", "/var/tmp/systemtap-*"};
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
    free_list(cfg->runs.scripts, cfg->runs.nscripts);
    free(cfg->runs.command);
    free(cfg->runs.directory);
    free(cfg);
}

static int parse_dir_list(json_t *v, const char *key, char ***out, size_t *n,
                          char *err, size_t errlen)
{
    if (!json_is_array(v)) {
        snprintf(err, errlen, "config: \"%s\" must be an array of strings", key);
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

static void warn_unknown(char *warn, size_t warnlen, const char *key)
{
    if (warn == NULL)
        return;
    size_t used = strlen(warn);
    snprintf(warn + used, warnlen - used, "%sconfig: ignoring unknown option \"%s\"",
             used ? "; " : "", key);
}

static int parse_string(json_t *v, const char *key, char **out, char *err, size_t errlen)
{
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        strlen(json_string_value(v)) != json_string_length(v)) {
        snprintf(err, errlen, "config: \"%s\" must be a non-empty string", key);
        return -1;
    }
    char *s = strdup(json_string_value(v));
    if (s == NULL)
        return -1;
    free(*out);
    *out = s;
    return 0;
}

/* A script name as `staprelay list` shows it: it becomes an argument of
 * the run command, so nothing that could read as an option or a path. */
static bool script_name_ok(const char *s)
{
    if (*s == '\0' || strlen(s) > 64 || !islower((unsigned char)*s))
        return false;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static int parse_runs_key(runs_config *rc, const char *key, json_t *v,
                          char *err, size_t errlen, char *warn, size_t warnlen)
{
    if (strcmp(key, "enabled") == 0) {
        if (!json_is_boolean(v)) {
            snprintf(err, errlen, "config: \"runs.enabled\" must be true or false");
            return -1;
        }
        rc->enabled = json_is_true(v);
        return 0;
    }
    if (strcmp(key, "scripts") == 0) {
        if (parse_dir_list(v, "runs.scripts", &rc->scripts, &rc->nscripts, err, errlen) != 0)
            return -1;
        for (size_t i = 0; i < rc->nscripts; i++)
            if (!script_name_ok(rc->scripts[i])) {
                snprintf(err, errlen, "config: \"runs.scripts\": \"%.64s\" is not a script "
                         "name (lower-case letters, digits, _)", rc->scripts[i]);
                return -1;
            }
        return 0;
    }
    if (strcmp(key, "max_duration") == 0)
        return parse_seconds(v, "runs.max_duration", 1, 86400, &rc->max_duration, err, errlen);
    if (strcmp(key, "default_duration") == 0)
        return parse_seconds(v, "runs.default_duration", 1, 86400, &rc->default_duration,
                             err, errlen);
    if (strcmp(key, "start_timeout") == 0)
        return parse_seconds(v, "runs.start_timeout", 1, 86400, &rc->start_timeout, err, errlen);
    if (strcmp(key, "max_concurrent") == 0)
        return parse_size(v, "runs.max_concurrent", 1, 64, &rc->max_concurrent, err, errlen);
    if (strcmp(key, "max_queued") == 0)
        return parse_size(v, "runs.max_queued", 0, 1024, &rc->max_queued, err, errlen);
    if (strcmp(key, "history") == 0)
        return parse_size(v, "runs.history", 0, 10000, &rc->history, err, errlen);
    if (strcmp(key, "command") == 0)
        return parse_string(v, "runs.command", &rc->command, err, errlen);
    if (strcmp(key, "directory") == 0)
        return parse_string(v, "runs.directory", &rc->directory, err, errlen);
    char name[96];
    snprintf(name, sizeof(name), "runs.%.80s", key);
    warn_unknown(warn, warnlen, name);
    return 0;
}

static int parse_runs(runs_config *rc, json_t *v, char *err, size_t errlen,
                      char *warn, size_t warnlen)
{
    if (!json_is_object(v)) {
        snprintf(err, errlen, "config: \"runs\" must be an object (docs/runs.md)");
        return -1;
    }
    const char *key;
    json_t *kv;
    json_object_foreach(v, key, kv) {
        if (parse_runs_key(rc, key, kv, err, errlen, warn, warnlen) != 0)
            return -1;
    }
    if (rc->default_duration > rc->max_duration)
        rc->default_duration = rc->max_duration;
    return 0;
}

/* max_record_size is measured as PCP encodes a record.  Up to 16 MiB was
 * accepted before that was known to be more than PCP can carry (a record
 * then broke every fetch): such a value is lowered to the most PCP
 * carries, with a warning, rather than refused. */
static int parse_max_record(relay_config *cfg, json_t *v, char *err, size_t errlen,
                            char *warn, size_t warnlen)
{
    if (parse_size(v, "max_record_size", 256, (json_int_t)16 << 20, &cfg->max_record_size,
                   err, errlen) != 0)
        return -1;
    if (cfg->max_record_size > EVENT_WIRE_MAX_RECORD) {
        if (warn != NULL) {
            size_t used = strlen(warn);
            snprintf(warn + used, warnlen - used, "%sconfig: \"max_record_size\" %zu is more "
                     "than PCP can carry in one event record: using %zu", used ? "; " : "",
                     cfg->max_record_size, (size_t)EVENT_WIRE_MAX_RECORD);
        }
        cfg->max_record_size = EVENT_WIRE_MAX_RECORD;
    }
    return 0;
}

static int apply_key(relay_config *cfg, const char *key, json_t *v,
                     char *err, size_t errlen, char *warn, size_t warnlen)
{
    if (strcmp(key, "runs") == 0)
        return parse_runs(&cfg->runs, v, err, errlen, warn, warnlen);
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
    if (strcmp(key, "max_document_memory") == 0 || strcmp(key, "max_source_memory") == 0 ||
        strcmp(key, "max_total_memory") == 0) {
        size_t *to = key[4] == 'd' ? &cfg->max_document_memory
                     : key[4] == 's' ? &cfg->max_source_memory : &cfg->max_total_memory;
        return parse_size(v, key, (json_int_t)1 << 20, (json_int_t)1 << 40, to, err, errlen);
    }
    if (strcmp(key, "event_queue_size") == 0)
        return parse_size(v, key, 4096, (json_int_t)1 << 32, &cfg->event_queue_size, err, errlen);
    if (strcmp(key, "max_record_size") == 0)
        return parse_max_record(cfg, v, err, errlen, warn, warnlen);
    if (strcmp(key, "event_fetch_size") == 0)
        return parse_size(v, key, 65536, (json_int_t)12 << 20, &cfg->event_fetch_size, err, errlen);
    if (strcmp(key, "pmid_clusters_per_root") == 0)
        return parse_size(v, key, 1, 4095, &cfg->pmid_clusters_per_root, err, errlen);
    if (strcmp(key, "pmid_clusters_reserved") == 0)
        return parse_size(v, key, 0, 4094, &cfg->pmid_clusters_reserved, err, errlen);
    if (strcmp(key, "max_stacks") == 0)
        return parse_size(v, key, 1, 10000000, &cfg->max_stacks, err, errlen);
    if (strcmp(key, "stack_expiry") == 0)
        return parse_seconds(v, key, 1, 86400 * 365, &cfg->stack_expiry, err, errlen);
    if (strcmp(key, "exec_max_processes") == 0)
        return parse_size(v, key, 1, 1000000, &cfg->exec_max_processes, err, errlen);
    if (strcmp(key, "exec_isolation") == 0) {
        const char *iso = json_string_value(v);
        if (iso == NULL || (strcmp(iso, "auto") != 0 && strcmp(iso, "reaper") != 0)) {
            snprintf(err, errlen, "config: \"exec_isolation\" must be \"auto\" (a PID namespace "
                     "per command where the kernel allows, else a reaper) or \"reaper\"");
            return -1;
        }
        cfg->exec_reaper_only = strcmp(iso, "reaper") == 0;
        return 0;
    }
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
    warn_unknown(warn, warnlen, key);
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

int config_add_directory(relay_config *cfg, const char *dir)
{
    char *copy = strdup(dir);
    char **nl = copy != NULL ? realloc(cfg->directories,
                                       (cfg->ndirectories + 2) * sizeof(char *)) : NULL;
    if (nl == NULL) {
        free(copy);
        return -1;
    }
    nl[cfg->ndirectories++] = copy;
    nl[cfg->ndirectories] = NULL;
    cfg->directories = nl;
    return 0;
}
