/* assets: the page's files (the files of client/web/page/), embedded at build time
 * into build/gen/client/web/assets.c by scripts/embed.sh (client.mk). */
#ifndef STAPRELAY_WEB_ASSETS_H
#define STAPRELAY_WEB_ASSETS_H

#include <stddef.h>
#include "client/util/embed.h"

extern const embedded_file web_assets[];
extern const size_t web_assets_count;

#endif
