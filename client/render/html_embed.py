#!/usr/bin/env python3
"""Regenerate client/render/heatmap_html_js.c from client/render/heatmap_html.js."""
import os
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "heatmap_html.js"), encoding="utf-8").read()
out = ["/* GENERATED from client/render/heatmap_html.js by client/render/html_embed.py;",
       " * edit the .js file and rerun the script. */",
       '#include "client/render/html.h"', "", "const char html_heatmap_js[] ="]
for line in src.splitlines():
    esc = line.replace("\\", "\\\\").replace('"', '\\"')
    out.append('    "%s\\n"' % esc)
out[-1] += ";"
open(os.path.join(here, "heatmap_html_js.c"), "w").write("\n".join(out) + "\n")
