"use strict";
var FGNS = "http://github.com/jonhoo/inferno";
var details, searchbtn, unzoombtn, matchedtxt, svg, frames, ignorecaseBtn;
var searching = 0, currentSearchTerm = null, ignorecase = false, zoomed = null;

function init(evt) {
    details = document.getElementById("details").firstChild;
    searchbtn = document.getElementById("search");
    ignorecaseBtn = document.getElementById("ignorecase");
    unzoombtn = document.getElementById("unzoom");
    matchedtxt = document.getElementById("matched");
    frames = document.getElementById("frames");
    // the flame graph's own <svg> (a page may hold other SVGs)
    svg = frames.ownerSVGElement || document.getElementsByTagName("svg")[0];
    searching = 0;
    currentSearchTerm = null;
    var params = get_params();
    if (params.x && params.y) {
        var el = frame_at(parseFloat(params.x), parseFloat(params.y));
        if (el) zoom(el);
    }
    if (params.s) search(params.s);
}

// event delegation: one listener for every frame
window.addEventListener("click", function(e) {
    if (!details) return;    // before init (a page without a graph yet)
    var target = find_group(e.target);
    if (target) {
        if (target.nodeName == "a") {
            if (e.ctrlKey === false) return;
            e.preventDefault();
        }
        if (target.classList.contains("parent")) unzoom(true);
        zoom(target);
        var r = find_child(target, "rect");
        var params = get_params();
        if (r.attributes._orig_x) params.x = r.attributes._orig_x.value;
        else params.x = r.attributes.x.value;
        params.y = r.attributes.y.value;
        set_url(params);
    }
    else if (e.target.id == "unzoom") clearzoom();
    else if (e.target.id == "search") search_prompt();
    else if (e.target.id == "ignorecase") toggle_ignorecase();
}, false);

window.addEventListener("mouseover", function(e) {
    if (!details) return;    // before init (a page without a graph yet)
    var target = find_group(e.target);
    if (target) details.nodeValue = nametype + " " + with_share(g_to_text(target), target);
}, false);

window.addEventListener("mouseout", function(e) {
    if (!details) return;    // before init (a page without a graph yet)
    var target = find_group(e.target);
    if (target) details.nodeValue = " ";
}, false);

window.addEventListener("keydown", function(e) {
    if (!details) return;    // before init (a page without a graph yet)
    if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {
        e.preventDefault();
        search_prompt();
    } else if (e.ctrlKey && e.keyCode === 73) {
        e.preventDefault();
        toggle_ignorecase();
    }
}, false);

// helpers
function get_params() {
    var params = {};
    var q = document.location.search.substring(1);
    if (!q) return params;
    var parts = q.split("&");
    for (var i = 0; i < parts.length; i++) {
        if (!parts[i]) continue;
        var kv = parts[i].split("=");
        params[decodeURIComponent(kv[0])] = kv.length > 1 ? decodeURIComponent(kv.slice(1).join("=").replace(/\+/g, " ")) : "";
    }
    return params;
}
function parse_params(params) {
    var uri = "?";
    for (var key in params) {
        if (params[key] === undefined || params[key] === null) continue;
        uri += encodeURIComponent(key) + "=" + encodeURIComponent(params[key]) + "&";
    }
    if (uri.slice(-1) == "&") uri = uri.substring(0, uri.length - 1);
    if (uri == "?") uri = window.location.href.split("?")[0];
    return uri;
}
function set_url(params) {
    try { history.replaceState(null, null, parse_params(params)); } catch (e) {}
}
function find_child(node, selector) {
    var children = node.querySelectorAll(selector);
    if (children.length) return children[0];
    return null;
}
function find_group(node) {
    var parent = node.parentElement;
    if (!parent) return null;
    if (parent.id == "frames") return node;
    if (parent.nodeName == "svg" || parent.nodeName == "BODY") return null;
    return find_group(parent);
}
function frame_at(x, y) {
    var el = frames.children;
    for (var i = 0; i < el.length; i++) {
        var r = find_child(el[i], "rect");
        if (!r) continue;
        if (Math.abs(parseFloat(r.attributes.x.value) - x) < 0.05 &&
            Math.abs(parseFloat(r.attributes.y.value) - y) < 0.05)
            return el[i];
    }
    return null;
}
function fgv(r, a) {
    var v = r.getAttributeNS(FGNS, a);
    if (v === null || v === "") v = r.getAttribute("fg:" + a);
    return parseFloat(v);
}
function orig_save(e, attr, val) {
    if (e.attributes["_orig_" + attr] != undefined) return;
    if (e.attributes[attr] == undefined) return;
    if (val == undefined) val = e.attributes[attr].value;
    e.setAttribute("_orig_" + attr, val);
}
function orig_load(e, attr) {
    if (e.attributes["_orig_" + attr] == undefined) return;
    e.attributes[attr].value = e.attributes["_orig_" + attr].value;
    e.removeAttribute("_orig_" + attr);
}
function g_to_text(e) {
    return find_child(e, "title").firstChild.nodeValue;
}
function g_to_func(e) {
    // the name is the title up to its final " (N samples, P%)"
    return g_to_text(e).replace(/ \([^(]*\)$/, "");
}
function pct(v) {
    return (Math.round(v * 100) / 100).toFixed(2);
}
// while zoomed, a frame's details also give its share of the zoomed frame
function with_share(text, e) {
    if (!zoomed || e === zoomed || e.classList.contains("parent")) return text;
    var zr = find_child(zoomed, "rect"), r = find_child(e, "rect");
    var zw = fgv(zr, "w"), w = fgv(r, "w");
    if (!(zw > 0)) return text;
    return text.replace(/\)$/, "; " + pct(100 * w / zw) + "% of " + g_to_func(zoomed) + ")");
}
function update_text(e) {
    var r = find_child(e, "rect");
    var t = find_child(e, "text");
    var w = parseFloat(r.attributes.width.value) - 3;
    var txt = g_to_func(e).replace(/_\[[kwij]\]$/, "");
    t.attributes.x.value = parseFloat(r.attributes.x.value) + 3;

    // smaller than this size won't fit anything
    if (w < 2 * fontsize * fontwidth) {
        t.textContent = "";
        return;
    }
    t.textContent = txt;
    var sl = t.getSubStringLength(0, txt.length);
    // fits in full text width
    if (/^ *$/.test(txt) || sl < w) return;
    // estimate the cut, then shorten two characters at a time
    var start = Math.floor((w / sl) * txt.length);
    for (var x = start; x > 0; x = x - 2) {
        if (t.getSubStringLength(0, x + 2) <= w) {
            t.textContent = txt.substring(0, x) + "..";
            return;
        }
    }
    t.textContent = "";
}

// zoom
function zoom_reset(e) {
    var r = find_child(e, "rect");
    if (r) {
        orig_load(r, "x");
        orig_load(r, "width");
    }
    var t = find_child(e, "text");
    if (t) orig_load(t, "x");
}
function set_geom(e, x, width) {
    var r = find_child(e, "rect");
    orig_save(r, "x");
    orig_save(r, "width");
    r.attributes.x.value = x;
    r.attributes.width.value = width;
    var t = find_child(e, "text");
    if (t) orig_save(t, "x");
}
function zoom(node) {
    var attr = find_child(node, "rect");
    var zx = fgv(attr, "x"), zw = fgv(attr, "w");
    var ymin = parseFloat(attr.attributes.y.value);
    var fullw = svg.width.baseVal.value - 2 * xpad;
    unzoombtn.classList.remove("hide");
    zoomed = node;

    var el = frames.children;
    for (var i = 0; i < el.length; i++) {
        var e = el[i];
        var a = find_child(e, "rect");
        var ex = fgv(a, "x"), ew = fgv(a, "w");
        var ey = parseFloat(a.attributes.y.value);
        var upstack = inverted ? ey < ymin : ey > ymin;
        e.classList.remove("parent");
        e.classList.remove("hide");
        zoom_reset(e);
        if (upstack) {
            // an ancestor: covers the whole zoomed range
            if (ex <= zx && ex + ew >= zx + zw) {
                e.classList.add("parent");
                set_geom(e, xpad, fullw);
            } else {
                e.classList.add("hide");
            }
        } else if (ex < zx || ex >= zx + zw || (ey == ymin && e !== node)) {
            e.classList.add("hide");
        } else {
            set_geom(e, xpad + (ex - zx) * fullw / zw, ew * fullw / zw);
        }
        if (!e.classList.contains("hide")) update_text(e);
    }
    search();
}
function unzoom(dont_update_text) {
    unzoombtn.classList.add("hide");
    zoomed = null;
    var el = frames.children;
    for (var i = 0; i < el.length; i++) {
        el[i].classList.remove("parent");
        el[i].classList.remove("hide");
        zoom_reset(el[i]);
        if (!dont_update_text) update_text(el[i]);
    }
    search();
}
function clearzoom() {
    unzoom();
    var params = get_params();
    delete params.x;
    delete params.y;
    set_url(params);
}

// search
function toggle_ignorecase() {
    ignorecase = !ignorecase;
    if (ignorecase) ignorecaseBtn.classList.add("show");
    else ignorecaseBtn.classList.remove("show");
    reset_search();
    search();
}
function reset_search() {
    var el = frames.children;
    for (var i = 0; i < el.length; i++) {
        var r = find_child(el[i], "rect");
        if (r) orig_load(r, "fill");
    }
    var params = get_params();
    delete params.s;
    set_url(params);
}
function search_prompt() {
    if (!searching) {
        var term = prompt("Enter a search term (regexp allowed, eg: ^ext4_)"
            + (ignorecase ? ", ignoring case" : "")
            + "\nPress Ctrl-i to toggle case sensitivity", "");
        if (term != null) search(term);
    } else {
        reset_search();
        searching = 0;
        currentSearchTerm = null;
        searchbtn.classList.remove("show");
        searchbtn.firstChild.nodeValue = "Search";
        matchedtxt.classList.add("hide");
        matchedtxt.firstChild.nodeValue = "";
    }
}
function search(term) {
    if (term) currentSearchTerm = term;
    if (currentSearchTerm === null || currentSearchTerm === undefined) return;
    var re;
    try {
        re = new RegExp(currentSearchTerm, ignorecase ? "i" : "");
    } catch (err) {
        matchedtxt.classList.remove("hide");
        matchedtxt.firstChild.nodeValue = "Bad regexp";
        return;
    }
    var el = frames.children;
    var matches = new Map();
    var maxwidth = 0;
    searching = 0;
    for (var i = 0; i < el.length; i++) {
        var e = el[i];
        var func = g_to_func(e);
        var rect = find_child(e, "rect");
        if (func == null || rect == null) continue;
        orig_load(rect, "fill");
        var w = fgv(rect, "w"), x = fgv(rect, "x");
        // the root frame "all" is the widest
        if (w > maxwidth) maxwidth = w;
        if (func.match(re)) {
            orig_save(rect, "fill");
            rect.attributes.fill.value = searchcolor;
            // remember the widest match at each x
            if (!matches.has(x) || w > matches.get(x)) matches.set(x, w);
            searching = 1;
        }
    }
    if (!searching) {
        matchedtxt.classList.remove("hide");
        matchedtxt.firstChild.nodeValue = "Matched: 0%";
        return;
    }
    var params = get_params();
    params.s = currentSearchTerm;
    set_url(params);
    searchbtn.classList.add("show");
    searchbtn.firstChild.nodeValue = "Reset Search";

    // sum the widths, skipping matches inside an already counted one
    var keys = Array.from(matches.keys()).sort(function(a, b) { return a - b; });
    var count = 0, lastx = -1, lastw = 0;
    for (var k = 0; k < keys.length; k++) {
        var mx = keys[k];
        if (mx >= lastx + lastw) {
            count += matches.get(mx);
            lastx = mx;
            lastw = matches.get(mx);
        }
    }
    matchedtxt.classList.remove("hide");
    var p = 100 * count / maxwidth;
    if (p != 100) p = p.toFixed(1);
    matchedtxt.firstChild.nodeValue = "Matched: " + p + "%";
}

