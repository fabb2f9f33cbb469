/* heatmap_out: writes a heat map's grid (stack/heatmap.h): FlameScope's
 * JSON, a static SVG (heatmap_out.c) or the interactive page
 * (heatmap_html.c), all with FlameScope's colour scale. */
#ifndef STAPRELAY_HEATMAP_OUT_H
#define STAPRELAY_HEATMAP_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "client/stack/heatmap.h"

/* ---- colour ------------------------------------------------------------ */
/* FlameScope's scales: white → #FF5032 → #E50914 over [0, M/2, M], or
 * enhanced: [0, 1, 3, M/2, M] onto white, #6AAAFF, #FAA0B5, #FF5032,
 * #E50914.  Writes "#rrggbb" into buf (8 bytes). */
void heatmap_color(uint32_t v, uint32_t max, bool enhance, char buf[8]);

/* Cell width and height in pixels (width clamped to 6-10 as FlameScope). */
void heatmap_geometry(const heatmap *h, double *cw, double *ch);

/* ---- output ------------------------------------------------------------ */
typedef struct heatmap_page {
    const char *title;     /* NULL: "Heat map" */
    const char *source;    /* description of the input, for the page */
    bool        enhance;
} heatmap_page;

/* FlameScope's JSON: rows, columns, values (column-major), maxvalue. */
int heatmap_write_json(FILE *out, const heatmap *h);
/* The static heat map. */
int heatmap_write_svg(FILE *out, const heatmap *h, const heatmap_page *o);
/* The interactive page (heatmap_html.c). */
int heatmap_write_html(FILE *out, const heatmap *h, const heatmap_page *o);

#endif
