/* flame_js: the JavaScript embedded in every flame-graph SVG: click to
 * zoom (ancestors dimmed, URL ?x=&y= keeps it), regex search with
 * highlight and "Matched: P%" (URL ?s=), Ctrl-F/F3, Ctrl-I case toggle,
 * tooltip details with the share of the zoomed frame.  It reads exact
 * counts from the fg:x / fg:w attributes rather than pixel geometry.
 * Settings (nametype, fontsize, fontwidth, xpad, inverted, searchcolor)
 * are written as variables by the renderer before this text.
 *
 * Its source is client/render/flame.js; client.mk's embed rule writes
 * this table into build/gen/client/render/flame_js.c at build time
 * (scripts/embed.sh): one file, flame_js[0]. */
#ifndef STAPRELAY_FLAME_JS_H
#define STAPRELAY_FLAME_JS_H

#include "client/util/embed.h"

extern const embedded_file flame_js[];
extern const size_t flame_js_count;

#endif
