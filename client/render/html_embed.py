#!/usr/bin/env python3
"""Regenerate client/html_heatmap_js.c from client/html_heatmap.js."""
import os
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "html_heatmap.js"), encoding="utf-8").read()
out = ["/* GENERATED from client/html_heatmap.js by client/html_embed.py;",
       " * edit the .js file and rerun the script. */",
       '#include "client/html.h"', "", "const char html_heatmap_js[] ="]
for line in src.splitlines():
    esc = line.replace("\\", "\\\\").replace('"', '\\"')
    out.append('    "%s\\n"' % esc)
out[-1] += ";"
open(os.path.join(here, "html_heatmap_js.c"), "w").write("\n".join(out) + "\n")
