// staprelay web: the page (docs/web.md is the API it talks to).
//
// One time line: PCP metric charts over a FlameScope heat map (integer
// microsecond cells, the grid /api/heatmap gives, `heatmap --format
// json`'s), on one x axis; a drag over cells or a chart selects a time
// range; the views of the selection are drawn here from /api/folded,
// the selection's folded stacks (`fold`'s bytes): flame graph
// (flamegraph.pl's layout and palette, the rules of
// client/render/heatmap_html.js's in-page flame graph), diff (`diff`'s
// normalisation and red/blue), top, sandwich, call graph.  Every view
// and filter is in the page's URL; the selection parameters are the
// API's own, so a link and an API call name the same samples.  Live
// inputs push Server-Sent Events (/api/stream): a `samples` event makes
// the page fetch the new columns.  No request leaves the server.
(function () {
'use strict';
var US = 1e6;
var $ = function (id) { return document.getElementById(id); };
var api = window.staprelay_web = { ready: false, fetches: 0, draws: 0 };

// ---- state, and the URL that holds it ------------------------------------
// API selection parameters (docs/web.md) and the page's own.
var SEL_ONE = ['metric', 'run', 'start', 'end', 'focus', 'ignore', 'hide', 'show', 'rows', 'by_host', 'hotcold'];
var SEL_MANY = ['host', 'pid', 'tid', 'comm', 'state'];
var PAGE_ONE = ['view', 'fn', 'icicle', 'q', 'bstart', 'bend', 'dmode', 'sort', 'win', 'zoom'];
var PAGE_MANY = ['chart'];
var st = {};
function readUrl() {
	var p = new URLSearchParams(location.search);
	st = {};
	SEL_ONE.concat(PAGE_ONE).forEach(function (k) { if (p.get(k) !== null && p.get(k) !== '') st[k] = p.get(k); });
	SEL_MANY.concat(PAGE_MANY).forEach(function (k) { st[k] = p.getAll(k).filter(function (v) { return v !== ''; }); });
	st.view = st.view || 'flame';
}
function writeUrl() {
	var p = new URLSearchParams();
	SEL_ONE.concat(PAGE_ONE).forEach(function (k) { if (st[k] !== undefined && st[k] !== '') p.set(k, st[k]); });
	SEL_MANY.concat(PAGE_MANY).forEach(function (k) { (st[k] || []).forEach(function (v) { p.append(k, v); }); });
	var q = p.toString();
	history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
}
// the API query of the selection; over: {start, end} to replace the window
function selQuery(over, noWindow) {
	var p = new URLSearchParams();
	SEL_ONE.forEach(function (k) {
		if ((k === 'start' || k === 'end') && (noWindow || over)) return;
		if (st[k] !== undefined && st[k] !== '') p.set(k, st[k]);
	});
	SEL_MANY.forEach(function (k) { (st[k] || []).forEach(function (v) { p.append(k, v); }); });
	if (over) {
		if (over.start !== undefined && over.start !== null) p.set('start', over.start);
		if (over.end !== undefined && over.end !== null) p.set('end', over.end);
	}
	return p.toString();
}
api.selQuery = selQuery;

function msg(t, cls) { var e = $('msg'); e.textContent = t; e.className = cls || ''; }
function setState(id, t, cls) { var e = $(id); e.textContent = t; e.className = 'state ' + (cls || ''); }
function get(url, kind) {
	api.fetches++;
	return fetch(url, { cache: 'no-store' }).then(function (r) {
		return r.text().then(function (t) {
			if (!r.ok) { var e = new Error(t.trim() || r.status + ' ' + r.statusText); e.status = r.status; throw e; }
			return kind === 'json' ? JSON.parse(t) : t;
		});
	});
}

// ---- times -----------------------------------------------------------------
function pad(n, w) { n = String(n); while (n.length < w) n = '0' + n; return n; }
// integer microseconds since the epoch <-> "S.UUUUUU" (exact: no float)
function usText(us) { var s = Math.floor(us / US); return s + '.' + pad(us - s * US, 6); }
function textUs(t) {
	if (t === undefined || t === null || t === '') return null;
	var m = /^(\d+)(?:\.(\d{1,6})\d*)?$/.exec(String(t));
	if (!m) return null;
	return +m[1] * US + (m[2] ? +(m[2] + '000000').slice(0, 6) : 0);
}
function clock(us, ms) {
	var d = new Date(us / 1000);
	var t = pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2);
	return ms ? t + '.' + pad(Math.floor(us / 1000) % 1000, 3) : t;
}
function nsUs(ns) { return Math.floor(Number(ns) / 1000); }
function pct(v, t) { return t > 0 ? (100 * v / t).toFixed(2) + '%' : '-'; }

// ---- heat map grid (client/stack/heatmap.c's arithmetic) --------------------
var R = 50;
function rowStart(r) { var k = R - 1 - r; return Math.floor((k * US + R - 1) / R); }
function rowEnd(r) { return r === 0 ? US : rowStart(r - 1); }
function rowOf(off) { return R - 1 - Math.floor(off * R / US); }
function rowLabel(r) { return +(1000 * (R - 1 - r) / R).toFixed(3); }
var cols = new Map();     // epoch second -> Uint32Array(R) of counts
var maxv = 0;
var haveFrom = null, haveTo = null;   // seconds fetched (inclusive)
var gaps = [];            // {s: us, e: us, text}
var info = null;
function mergeGrid(g, fromSec) {
	// g: {rows:[..], columns:[..], values:[[..]..], maxvalue, start, end}
	if (!g || !g.values || !g.columns) return 0;
	var base = Math.floor(Number(g.start));
	var n = 0;
	for (var i = 0; i < g.columns.length; i++) {
		var sec = base + g.columns[i], v = g.values[i];
		if (fromSec !== undefined && sec < fromSec) continue;
		var a = new Uint32Array(R);
		for (var r = 0; r < R && r < v.length; r++) a[r] = v[r];
		cols.set(sec, a);
		n++;
	}
	if (cols.size) {
		var last = base + g.columns[g.columns.length - 1];
		if (haveTo === null || last > haveTo) haveTo = last;
		if (haveFrom === null || base < haveFrom) haveFrom = base;
	}
	recomputeMax();
	return n;
}
function recomputeMax() {
	cellsDirty = true;
	maxv = 0;
	var lo = winFrom();
	cols.forEach(function (a, sec) {
		if (lo !== null && sec < lo) { cols.delete(sec); return; }
		for (var r = 0; r < R; r++) if (a[r] > maxv) maxv = a[r];
	});
}
// FlameScope's colours (heatmap_html.js: white -> red)
function hex(x) { return [(x >> 16) & 255, (x >> 8) & 255, x & 255]; }
function cellColor(v) {
	var dom = [0, maxv / 2, maxv], rng = [0xFFFFFF, 0xFF5032, 0xE50914];
	var a = rng[2], b = a, t = 0;
	if (v <= 0 || maxv === 0) { a = b = rng[0]; }
	else for (var i = 0; i + 1 < dom.length; i++)
		if (dom[i + 1] > dom[i] && v >= dom[i] && v <= dom[i + 1]) { a = rng[i]; b = rng[i + 1]; t = (v - dom[i]) / (dom[i + 1] - dom[i]); break; }
	var x = hex(a), y = hex(b);
	return 'rgb(' + Math.round(x[0] + (y[0] - x[0]) * t) + ',' + Math.round(x[1] + (y[1] - x[1]) * t) + ',' + Math.round(x[2] + (y[2] - x[2]) * t) + ')';
}

// ---- the time axis shared by the charts and the heat map --------------------
var LEFT = 58, RIGHT = 70, CH = 4, CHART_H = 64, AXIS_H = 30;
var ax = { t0: 0, n: 1, cw: 4 };      // first second, seconds shown, px per second
function live() { return !!(info && info.live); }
// what the counts are: "samples", or "ns" for blocks weighed by time
// (the server's count name: /api/info's count)
// hot/cold weighs both parts in ns (flame --hotcold's count name)
function unit() { return st.hotcold === '1' ? 'ns' : (info && info.count) || 'samples'; }
function winMinutes() { return Math.max(1, +(st.win || (info && info.window_minutes) || 10)); }
function newestSec() {
	var l = info && info.last_ns ? Math.floor(nsUs(info.last_ns) / US) : null;
	if (haveTo !== null && (l === null || haveTo > l)) l = haveTo;
	return l;
}
function winFrom() {
	// a run selected: all of its samples (its own window bounds them),
	// however long ago it ended
	if (!live() || st.run) return null;
	var n = newestSec();
	return n === null ? null : n - winMinutes() * 60 + 1;
}
function layoutAxis() {
	var first, last;
	// "follow the newest" off: the window stays where it is (columns
	// still arrive; they show when it is on again)
	if (live() && ax.laid && !$('follow').checked && ax.winMin === winMinutes()) { ax.width = LEFT + ax.n * ax.cw + RIGHT; return; }
	ax.laid = true;
	ax.winMin = winMinutes();
	if (live()) {
		last = newestSec();
		if (last === null) last = Math.floor(Date.now() / 1000);
		first = last - winMinutes() * 60 + 1;
	} else {
		first = info && info.first_ns ? Math.floor(nsUs(info.first_ns) / US) : haveFrom;
		last = info && info.last_ns ? Math.floor(nsUs(info.last_ns) / US) : haveTo;
		if (first === null || last === null) { first = last = Math.floor(Date.now() / 1000); }
	}
	ax.t0 = first;
	ax.n = Math.max(1, last - first + 1);
	var avail = Math.max(300, $('timewrap').clientWidth - LEFT - RIGHT - 4);
	ax.cw = Math.max(1, Math.min(live() ? 24 : 60, Math.floor(avail / ax.n * 100) / 100));
	ax.width = LEFT + ax.n * ax.cw + RIGHT;
}
function xOfUs(us) { return LEFT + (us / US - ax.t0) * ax.cw; }
function usOfX(x) { return Math.round((ax.t0 + (x - LEFT) / ax.cw) * US); }
api.axis = ax;

// ---- drawing the heat map ------------------------------------------------------
function drawHeatmap() {
	var c = $('hm'), w = Math.ceil(ax.width), h = R * CH + AXIS_H;
	if (c.width !== w) c.width = w;
	if (c.height !== h) c.height = h;
	var g = c.getContext('2d');
	g.clearRect(0, 0, w, h);
	g.fillStyle = '#fff';
	g.fillRect(0, 0, w, h);
	var nodata = paintCells(g);
	// gaps the server reported (pmcd restarts, sources gone): a red band
	gaps.forEach(function (gp) {
		var x1 = Math.max(LEFT, xOfUs(gp.s)), x2 = Math.min(LEFT + ax.n * ax.cw, xOfUs(gp.e === null ? (newestSec() + 1) * US : gp.e));
		if (x2 < LEFT || x1 > LEFT + ax.n * ax.cw) return;
		g.fillStyle = 'rgba(200,0,0,0.18)';
		g.fillRect(x1, 0, Math.max(2, x2 - x1), R * CH);
		g.fillStyle = '#b00';
		g.fillRect(x1, 0, 2, R * CH);
	});
	// selection and baseline outlines
	outline(g, textUs(st.bstart), textUs(st.bend), '#1f6feb');
	outline(g, textUs(st.start), textUs(st.end), '#000');
	if (brush && brush.kind === 'hm') {
		var rg = cellRange(brush.a, brush.b);
		outline(g, rg.s, rg.e, '#555');
	}
	// the axes
	g.fillStyle = '#000';
	g.font = '10px Verdana, sans-serif';
	g.textAlign = 'right';
	for (var r2 = 0; r2 < R; r2 += 10) g.fillText(rowLabel(r2) + ' ms', LEFT - 4, r2 * CH + 8);
	g.textAlign = 'center';
	var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600], cs = 3600;
	for (var k = 0; k < steps.length; k++) if (steps[k] * ax.cw >= 64) { cs = steps[k]; break; }
	for (var j = 0; j < ax.n; j++) {
		if ((ax.t0 + j) % cs) continue;
		var tx = LEFT + j * ax.cw;
		g.fillRect(tx, R * CH, 1, 4);
		g.fillText(clock((ax.t0 + j) * US), tx, R * CH + 14);
	}
	g.textAlign = 'left';
	var label = 'local time; rows: millisecond within the second; busiest cell ' + maxv;
	g.fillText(label, LEFT, R * CH + 27);
	// colour scale, right of the map
	var lx = LEFT + ax.n * ax.cw + 8;
	for (var q = 0; q < 20; q++) { g.fillStyle = cellColor(maxv * (19 - q) / 19); g.fillRect(lx, q * R * CH / 20, 10, R * CH / 20 + 0.5); }
	g.strokeStyle = '#999'; g.strokeRect(lx, 0, 10, R * CH);
	g.fillStyle = '#000'; g.fillText(String(maxv), lx + 13, 9); g.fillText('0', lx + 13, R * CH);
	api.heatmap = { columns: cols.size, nodata: nodata, t0: ax.t0, n: ax.n, cw: ax.cw, maxvalue: maxv, gaps: gaps.length };
	api.draws++;
}
// The cells, painted pixel by pixel into an ImageData kept until the
// grid or the axis changes: a brush redraws only what lies over them
// (3,600 columns x 50 rows were 180,000 fillRect calls, 0.8 s a brush).
var cellCache = null, cellsDirty = true;
function rgbOf(v) { var m = /rgb\((\d+),(\d+),(\d+)\)/.exec(cellColor(v)); return [+m[1], +m[2], +m[3]]; }
function paintCells(g) {
	var w = Math.ceil(ax.n * ax.cw), h = R * CH, key = ax.t0 + ',' + ax.n + ',' + ax.cw + ',' + R + ',' + maxv;
	if (w <= 0) return 0;
	if (cellsDirty || !cellCache || cellCache.key !== key) {
		var img = g.createImageData(w, h), d = img.data, lut = new Map(), nodata = 0;
		var grey = [228, 228, 228];
		for (var px = 0; px < w; px++) {
			var i = Math.floor(px / ax.cw), sec = ax.t0 + i, a = cols.get(sec);
			var edge = ax.cw > 3 && px === Math.floor((i + 1) * ax.cw) - 1;   // a thin white seam between wide columns
			if (!a && !(haveFrom !== null && sec >= haveFrom && sec <= haveTo)) continue;
			if (!a && px === Math.floor(i * ax.cw)) nodata++;
			for (var r = 0; r < R; r++) {
				var v = a ? a[r] : -1;
				if (v === 0 || edge) continue;
				var c = v < 0 ? grey : lut.get(v);
				if (!c) { c = rgbOf(v); lut.set(v, c); }
				for (var y = r * CH; y < (r + 1) * CH; y++) {
					var o = (y * w + px) * 4;
					d[o] = c[0]; d[o + 1] = c[1]; d[o + 2] = c[2]; d[o + 3] = 255;
				}
			}
		}
		cellCache = { key: key, img: img, nodata: nodata };
		cellsDirty = false;
	}
	// putImageData ignores the alpha of what is under it: the white
	// background is already there, transparent pixels stay white
	var tmp = paintCells.canvas || (paintCells.canvas = document.createElement('canvas'));
	if (tmp.width !== w || tmp.height !== h) { tmp.width = w; tmp.height = h; tmp.dirtyKey = null; }
	if (tmp.dirtyKey !== cellCache) { tmp.getContext('2d').putImageData(cellCache.img, 0, 0); tmp.dirtyKey = cellCache; }
	g.drawImage(tmp, LEFT, 0);
	return cellCache.nodata;
}
function outline(g, s, e, color) {
	if (s === null || e === null || !(e > s)) return;
	// narrow columns: a veil over the range and a frame around it;
	// wide ones: each column's cells outlined (FlameScope's)
	var wide = ax.cw >= 6;
	g.strokeStyle = color;
	g.fillStyle = color === '#000' ? 'rgba(0,0,0,0.28)' : 'rgba(31,111,235,0.28)';
	g.lineWidth = wide ? 2 : 1;
	for (var sec = Math.floor(s / US); sec * US < e; sec++) {
		var i = sec - ax.t0;
		if (i < 0 || i >= ax.n) continue;
		var lo = Math.max(s, sec * US) - sec * US, hi = Math.min(e, (sec + 1) * US) - sec * US;
		var rtop = rowOf(hi - 1), rbot = rowOf(lo);
		if (wide) g.strokeRect(LEFT + i * ax.cw, rtop * CH, ax.cw, (rbot - rtop + 1) * CH);
		else g.fillRect(LEFT + i * ax.cw, rtop * CH, ax.cw, (rbot - rtop + 1) * CH);
	}
	if (!wide) {
		var x1 = Math.max(LEFT, xOfUs(Math.floor(s / US) * US)), x2 = Math.min(LEFT + ax.n * ax.cw, xOfUs(Math.ceil(e / US) * US));
		if (x2 > x1) g.strokeRect(x1 - 0.5, 0.5, x2 - x1 + 1, R * CH - 1);
	}
	g.lineWidth = 1;
}

// ---- metric charts ------------------------------------------------------------
var chartData = {};   // metric -> {series: [{name, pts: [[us, v]..]}], units, err}
function parseValues(j) {
	// tolerant of the shapes /api/values may take: {series|instances:
	// [{name|instance, points|values: [[t, v]..]}]} or {points: [[t, v]]};
	// t in seconds (float) or nanoseconds
	var out = { series: [], units: j.units || '' };
	function tUs(t) { t = Number(t); return t > 1e14 ? Math.floor(t / 1000) : Math.round(t * US); }
	function pts(a) {
		return (a || []).map(function (p) {
			if (Array.isArray(p)) return [tUs(p[0]), p[1] === null ? null : Number(p[1])];
			return [p.t_ns !== undefined ? nsUs(p.t_ns) : tUs(p.t !== undefined ? p.t : p.time), p.v === undefined ? Number(p.value) : (p.v === null ? null : Number(p.v))];
		});
	}
	// /api/values (api_metrics): {t_ms: [..], instances: [{name, values: [..]}]}
	if (Array.isArray(j.t_ms) && Array.isArray(j.instances)) {
		j.instances.forEach(function (inst) {
			out.series.push({ name: inst.name === null ? '' : inst.name, pts: j.t_ms.map(function (t, k) {
				var v = inst.values[k];
				return [Math.round(t * 1000), v === null || v === undefined ? null : Number(v)];
			}) });
		});
		if (j.rate && out.units) out.units += '';
		if (j.error) out.err = j.error;
		return out;
	}
	var list = j.series || j.instances || j.values;
	if (Array.isArray(list) && list.length && typeof list[0] === 'object' && !Array.isArray(list[0]))
		list.forEach(function (s) { out.series.push({ name: s.name || s.instance || s.inst || '', pts: pts(s.points || s.values || s.samples) }); });
	else if (j.points) out.series.push({ name: '', pts: pts(j.points) });
	return out;
}
function fetchChart(m) {
	var p = new URLSearchParams();
	p.set('metric', m);
	(st.host || []).forEach(function (h) { p.append('host', h); });
	p.set('start', String(ax.t0));
	p.set('end', String(ax.t0 + ax.n));
	return get('/api/values?' + p.toString(), 'json').then(function (j) {
		chartData[m] = parseValues(j);
	}, function (e) { chartData[m] = { series: [], err: e.message }; }).then(drawCharts);
}
function fetchCharts() { return Promise.all((st.chart || []).map(fetchChart)); }
var CHART_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
function drawCharts() {
	var box = $('charts');
	var want = st.chart || [];
	// one .chart div per metric, in order
	Array.prototype.slice.call(box.children).forEach(function (d) { if (want.indexOf(d.dataset.metric) < 0) box.removeChild(d); });
	want.forEach(function (m) {
		var d = box.querySelector('.chart[data-metric="' + CSS.escape(m) + '"]');
		if (!d) {
			d = document.createElement('div');
			d.className = 'chart';
			d.dataset.metric = m;
			d.innerHTML = '<canvas></canvas><span class="name"></span><button class="rm" type="button" title="remove">x</button>';
			d.querySelector('.rm').onclick = function () { st.chart = st.chart.filter(function (x) { return x !== m; }); writeUrl(); drawCharts(); redrawAll(); };
			hookBrush(d.querySelector('canvas'), 'chart');
			box.appendChild(d);
		}
		drawChart(d, m);
	});
}
function drawChart(d, m) {
	var c = d.querySelector('canvas'), w = Math.ceil(ax.width), h = CHART_H;
	if (c.width !== w) c.width = w;
	c.height = h;
	var g = c.getContext('2d'), data = chartData[m];
	g.fillStyle = '#fff'; g.fillRect(0, 0, w, h);
	g.strokeStyle = '#ccc'; g.strokeRect(LEFT, 0.5, ax.n * ax.cw, h - 1);
	var name = d.querySelector('.name');
	if (!data) { name.textContent = m + ' (loading)'; return; }
	if (data.err) { name.textContent = m + ': ' + data.err; return; }
	var max = 0;
	data.series.forEach(function (s) { s.pts.forEach(function (p) { if (p[1] !== null && p[1] > max) max = p[1]; }); });
	if (max <= 0) max = 1;
	data.series.slice(0, CHART_COLORS.length).forEach(function (s, i) {
		g.strokeStyle = CHART_COLORS[i];
		g.beginPath();
		var pen = false;
		s.pts.forEach(function (p) {
			if (p[1] === null || isNaN(p[1])) { pen = false; return; }
			var x = xOfUs(p[0]), y = h - 2 - (h - 6) * p[1] / max;
			if (pen) g.lineTo(x, y); else g.moveTo(x, y);
			pen = true;
		});
		g.stroke();
	});
	outline2(g, textUs(st.start), textUs(st.end), h);
	if (brush && brush.kind === 'chart' && brush.canvas === c) {
		g.fillStyle = 'rgba(0,0,0,0.12)';
		g.fillRect(Math.min(brush.x0, brush.x1), 0, Math.abs(brush.x1 - brush.x0), h);
	}
	g.fillStyle = '#000'; g.font = '10px Verdana, sans-serif'; g.textAlign = 'right';
	g.fillText(String(+max.toPrecision(4)), LEFT - 4, 10);
	g.fillText('0', LEFT - 4, h - 2);
	name.textContent = m + (data.units ? ' (' + data.units + ')' : '') + (data.series.length > 1 ? ': ' + data.series.slice(0, CHART_COLORS.length).map(function (s) { return s.name; }).join(', ') : '');
	d.dataset.points = data.series.reduce(function (n, s) { return n + s.pts.length; }, 0);
}
function outline2(g, s, e, h) {
	if (s === null || e === null) return;
	g.fillStyle = 'rgba(31,111,235,0.15)';
	g.fillRect(xOfUs(s), 0, Math.max(1, xOfUs(e) - xOfUs(s)), h);
}

// ---- brushing: a drag over heat map cells or a chart selects the range -----
var brush = null;
function cellAt(c, ev) {
	var rect = c.getBoundingClientRect(), x = ev.clientX - rect.left, y = ev.clientY - rect.top;
	var i = Math.floor((x - LEFT) / ax.cw), r = Math.floor(y / CH);
	if (i < 0 || i >= ax.n || r < 0 || r >= R) return null;
	return { sec: ax.t0 + i, r: r };
}
function before(a, b) { return a.sec < b.sec || (a.sec === b.sec && a.r > b.r); }
// FlameScope's range of two cells: from the first one's start to the
// last one's end, integer microseconds
function cellRange(a, b) {
	if (before(b, a)) { var t = a; a = b; b = t; }
	return { s: a.sec * US + rowStart(a.r), e: b.sec * US + rowEnd(b.r) };
}
api.cellRange = function (s1, r1, s2, r2) { var rg = cellRange({ sec: s1, r: r1 }, { sec: s2, r: r2 }); return [usText(rg.s), usText(rg.e)]; };
function hookBrush(c, kind) {
	c.addEventListener('mousedown', function (ev) {
		if (kind === 'hm') {
			var a = cellAt(c, ev);
			if (!a) return;
			brush = { kind: 'hm', a: a, b: a };
		} else {
			var x = ev.clientX - c.getBoundingClientRect().left;
			brush = { kind: 'chart', canvas: c, x0: x, x1: x };
		}
		ev.preventDefault();
	});
	c.addEventListener('mousemove', function (ev) {
		if (kind === 'hm') {
			var x = cellAt(c, ev);
			if (x) {
				var a = cols.get(x.sec);
				$('hmdetails').textContent = clock(x.sec * US) + ' (' + x.sec + '), millisecond ' + rowLabel(x.r) + ': ' + (a ? a[x.r] : 'no data');
				if (brush && brush.kind === 'hm') { brush.b = x; drawHeatmap(); }
			}
		} else if (brush && brush.kind === 'chart' && brush.canvas === c) {
			brush.x1 = ev.clientX - c.getBoundingClientRect().left;
			drawCharts();
		}
	});
}
window.addEventListener('mouseup', function (ev) {
	if (!brush) return;
	var b = brush;
	brush = null;
	if (b.kind === 'hm') {
		var x = cellAt($('hm'), ev) || b.b;
		var rg = cellRange(b.a, x);
		select(rg.s, rg.e);
	} else {
		var x1 = Math.min(b.x0, b.x1), x2 = Math.max(b.x0, b.x1);
		if (x2 - x1 < 2) { drawCharts(); return; }
		select(usOfX(x1), usOfX(x2));
	}
});
function select(s, e) {
	if (!(e > s)) return;
	st.start = usText(s);
	st.end = usText(e);
	delete st.zoom;
	writeUrl();
	redrawAll();
	showSel();
	refreshView();
}
api.select = function (s, e) { select(textUs(s), textUs(e)); };
function showSel() {
	var s = textUs(st.start), e = textUs(st.end);
	$('seltext').textContent = s !== null && e !== null ?
		'Selection ' + clock(s, true) + ' to ' + clock(e, true) + ' (' + ((e - s) / US).toFixed(3) + ' s; ' + st.start + ' to ' + st.end + ')' :
		'No selection: the views show ' + (live() ? 'the last ' + winMinutes() + ' minutes' : 'everything held') + '. Drag across heat map cells or a chart to select.';
	var bs = textUs(st.bstart), be = textUs(st.bend);
	$('basetext').textContent = bs !== null && be !== null ? 'baseline ' + clock(bs, true) + ' to ' + clock(be, true) : 'baseline: the minute before the selection';
}

// ---- loading the heat map -----------------------------------------------------
var hmBusy = false, hmAgain = false;
function heatmapQuery(from, to) {
	var p = new URLSearchParams(selQuery({}, true));
	p.set('rows', String(R));
	if (from !== null && from !== undefined) p.set('start', String(from));
	if (to !== null && to !== undefined) p.set('end', String(to));
	return '/api/heatmap?' + p.toString();
}
function loadHeatmap(full) {
	if (hmBusy) { hmAgain = true; return Promise.resolve(); }
	hmBusy = true;
	var from;
	if (full || haveTo === null) { cols.clear(); cellsDirty = true; haveFrom = haveTo = null; from = live() ? winFrom() : null; }
	else from = haveTo;            // the newest column again: it was partial
	var newest = info && info.last_ns;      // held when the fetch starts
	return get(heatmapQuery(from, null), 'json').then(function (g) {
		mergeGrid(g, from === null ? undefined : from);
		var t = Date.now();
		api.lastColumnAt = t;
		api.lastColumnSec = haveTo;
		// how far behind its own time the newest sample reached its
		// cell (bench/web): the last 100 fetches
		if (live() && newest) {
			api.lag = (api.lag || []).concat([t - newest / 1e6]).slice(-100);
		}
	}, function (e) {
		if (e.status === 400 && /no samples|empty|nothing/i.test(e.message)) return;
		msg('heat map: ' + e.message, 'warn');
	}).then(function () {
		hmBusy = false;
		layoutAxis();
		drawHeatmap();
		if (hmAgain) { hmAgain = false; return loadHeatmap(false); }
	});
}

// ---- folded stacks and the views -------------------------------------------
function parseFolded(text) {
	var lines = [], total = 0;
	text.split('\n').forEach(function (l) {
		if (!l) return;
		var i = l.lastIndexOf(' ');
		if (i < 0) return;
		var v = +l.slice(i + 1);
		if (!(v > 0) && v !== 0) return;
		lines.push({ s: l.slice(0, i), v: v });
		total += v;
	});
	return { lines: lines, total: total };
}
function viewWindow() {
	// the selection, or (none) the live window / everything
	if (st.start || st.end) return null;
	var f = winFrom();
	return f === null ? null : { start: String(f) };
}
function foldedUrl(over) { return '/api/folded?' + selQuery(over || viewWindow()); }
function baseWindow() {
	var bs = textUs(st.bstart), be = textUs(st.bend);
	if (bs !== null && be !== null) return { start: st.bstart, end: st.bend };
	var s = textUs(st.start), e = textUs(st.end);
	if (s === null) return null;
	return { start: usText(s - 60 * US), end: usText(s) };     // the minute before
}

// palette: flame's "hot" (client/render/palette.c: Perl's srand(sum of
// the name's code points); rand()), and "blue" for hot/cold's offcpu
// part (palette_of_part)
var colorCache = new Map();
function paletteColor(name, blue) {
	var key = (blue ? 'b:' : 'h:') + name, c = colorCache.get(key);
	if (c) return c;
	if (name === '--') c = 'rgb(160,160,160)';
	else if (name === '-') c = 'rgb(200,200,200)';
	else {
		var sum = 0;
		for (var ch of name) sum = (sum + ch.codePointAt(0)) >>> 0;
		var x = ((BigInt(sum) << 16n) + 0x330En) & ((1n << 48n) - 1n);
		x = (x * 0x5DEECE66Dn + 0xBn) & ((1n << 48n) - 1n);
		var v = Number(x) / 281474976710656;
		if (blue) {
			var b = 80 + Math.floor(60 * v);
			c = 'rgb(' + b + ',' + b + ',' + (205 + Math.floor(50 * v)) + ')';
		} else {
			c = 'rgb(' + (205 + Math.floor(50 * v)) + ',' + Math.floor(230 * v) + ',' + Math.floor(55 * v) + ')';
		}
	}
	colorCache.set(key, c);
	return c;
}
function diffColor(d, maxd) {
	if (maxd <= 0) maxd = 1;
	if (d > 0) { var k = Math.floor(210 * (maxd - d) / maxd); return 'rgb(255,' + k + ',' + k + ')'; }
	if (d < 0) { var k2 = Math.floor(210 * (maxd + d) / maxd); return 'rgb(' + k2 + ',' + k2 + ',255)'; }
	return 'rgb(255,255,255)';
}
// esc, fmtn, numText and flow (the layout) are flow.js's, loaded first.
// draw frames into an SVG string.  o: {inverted, diff, maxd, zoom: node
// spec "x,dep", search RegExp, rootName}
function flameSvg(nodes, o) {
	var total = nodes[0].end, W = Math.max(600, $('viewbody').clientWidth - 20), FH = 16, pad = 10;
	var zx = 0, zend = total, zdep = 0;
	if (o.zoom) {
		var z = o.zoom.split(',');
		nodes.forEach(function (nd) { if (nd.x === +z[0] && nd.dep === +z[1]) { zx = nd.x; zend = nd.end; zdep = nd.dep; } });
	}
	var span = zend - zx || 1, wpt = (W - 2 * pad) / span, minw = 0.1 / wpt;
	var keep = [], depthmax = 0;
	nodes.forEach(function (nd, i) {
		var inside = nd.x >= zx && nd.end <= zend;
		var ancestor = nd.dep < zdep && nd.x <= zx && nd.end >= zend;
		if (!inside && !ancestor) return;
		if (i > 0 && !(nd.end - nd.x > 0 && (nd.end - nd.x) >= minw)) return;
		keep.push({ nd: nd, anc: ancestor });
		if (nd.dep > depthmax) depthmax = nd.dep;
	});
	var H = (depthmax + 1) * FH + 8, out = [], matched = [];
	// hot/cold: the offcpu part (a frame under the root's offcpu child) blue
	var cold = o.hotcold ? nodes.filter(function (nd) { return nd.dep === 1 && nd.n === 'offcpu'; }) : [];
	var isCold = function (f) { return f.dep > 0 && cold.some(function (c) { return f.x >= c.x && f.end <= c.end; }); };
	keep.forEach(function (k, j) {
		var f = k.nd, w = f.end - f.x;
		var x1 = k.anc ? pad : pad + (f.x - zx) * wpt, x2 = k.anc ? W - pad : pad + (f.end - zx) * wpt;
		var y = o.inverted ? 4 + f.dep * FH : H - 4 - (f.dep + 1) * FH;
		var name = f.dep === 0 ? (o.rootName || 'all') : f.n;
		var shown = name.replace(/_\[[kwij]\]$/, '');
		var title = shown + ' (' + fmtn(w) + ' ' + unit() + ', ' + (f.dep === 0 ? '100%' : (100 * w / total).toFixed(2) + '%');
		if (o.diff && f.dep > 0) title += '; ' + (f.d > 0 ? '+' : '') + (100 * f.d / total).toFixed(2) + '%';
		title += ')';
		var fill = o.diff ? (f.dep === 0 ? 'rgb(255,255,255)' : diffColor(f.d, o.maxd)) : paletteColor(f.dep === 0 ? (o.rootName || '') : f.n, isCold(f));
		var m = o.search && f.dep > 0 && o.search.test(f.n);
		if (m) matched.push([f.x, f.end]);
		var chars = Math.floor((x2 - x1) / (12 * 0.59)), label = '';
		if (chars >= 3) label = shown.length <= chars ? shown : shown.slice(0, chars - 2) + '..';
		out.push('<g class="f' + (k.anc ? ' dim' : '') + '" data-x="' + f.x + '" data-dep="' + f.dep + '" data-n="' + esc(name) + '" data-w="' + w + '"' +
			(o.diff ? ' data-d="' + f.d + '"' : '') + '><title>' + esc(title) + '</title><rect x="' + x1.toFixed(1) + '" y="' + y +
			'" width="' + Math.max(0.1, x2 - x1).toFixed(1) + '" height="' + (FH - 1) + '" fill="' + fill + '" rx="2" ry="2"' + (m ? ' class="match"' : '') +
			'/><text x="' + (x1 + 3).toFixed(1) + '" y="' + (y + 11.5) + '">' + esc(label) + '</text></g>');
	});
	// Matched %: the union of the matched frames' extents (flamegraph.pl)
	matched.sort(function (a, b) { return a[0] - b[0]; });
	var mw = 0, me = -1;
	matched.forEach(function (r) { if (r[0] >= me) { mw += r[1] - r[0]; me = r[1]; } else if (r[1] > me) { mw += r[1] - me; me = r[1]; } });
	return { svg: '<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="' + W + '" height="' + H + '" data-total="' + total + '" data-frames="' + keep.length + '">' +
		'<rect x="0" y="0" width="' + W + '" height="' + H + '" fill="#f4f4ea"/>' + out.join('') + '</svg>', matched: mw, total: total, frames: keep.length };
}
function flameNodes(parsed) {
	return flow(parsed.lines.map(function (l) { return { s: l.s, v: l.v, key: l.s + ' ' + numText(l.v) }; }), false);
}
function searchRe() {
	if (!st.q) return null;
	try { return new RegExp(st.q); } catch (e) { return null; }
}
function showMatched(r) {
	$('matched').textContent = st.q ? 'Matched: ' + pct(r.matched, r.total) : '';
	api.matched = st.q ? r.matched / (r.total || 1) : null;
}
function hookFrames(el, nodes) {
	el.querySelectorAll('g.f').forEach(function (g) {
		g.addEventListener('click', function () {
			var dep = +g.dataset.dep;
			st.zoom = dep === 0 ? undefined : g.dataset.x + ',' + dep;
			if (st.zoom === undefined) delete st.zoom;
			writeUrl();
			render();
		});
	});
}

var cur = null;        // {folded: parsed, base: parsed|null, key}
var viewSeq = 0;
function refreshView() {
	var seq = ++viewSeq;
	var t0 = performance.now();
	var want = [get(foldedUrl())];
	var bw = st.view === 'diff' ? baseWindow() : null;
	if (st.view === 'diff' && bw) want.push(get(foldedUrl(bw)));
	$('viewhead').textContent = 'loading...';
	return Promise.all(want).then(function (r) {
		if (seq !== viewSeq) return;
		cur = { folded: parseFolded(r[0]), base: r[1] !== undefined ? parseFolded(r[1]) : null, bw: bw };
		api.folded = r[0];
		render();
		api.lastDraw = { ms: performance.now() - t0, total: cur.folded.total, view: st.view };
		$('filtermsg').textContent = '';
	}, function (e) {
		if (seq !== viewSeq) return;
		cur = null;
		$('viewhead').textContent = '';
		$('viewbody').innerHTML = '<div class="empty">' + esc(e.message) + '</div>';
		if (e.status === 400) $('filtermsg').textContent = e.message;
		api.lastDraw = { error: e.message, view: st.view };
	});
}
function render() {
	var body = $('viewbody'), head = $('viewhead');
	document.querySelectorAll('#tabs button[data-view]').forEach(function (b) { b.classList.toggle('on', b.dataset.view === st.view); });
	$('dmodebox').style.display = st.view === 'diff' ? '' : 'none';
	$('unzoom').hidden = !st.zoom;
	updateDownloads();
	if (!cur) return;
	var f = cur.folded;
	var what = (st.start ? $('seltext').textContent.replace(/^Selection /, '') : live() ? 'the last ' + winMinutes() + ' minutes' : 'everything held');
	if (f.total === 0 && st.view !== 'diff') {
		head.textContent = 'No samples in ' + what + '.';
		body.innerHTML = '<div class="empty">No samples: select another range, or loosen the filters.</div>';
		api.view = { view: st.view, total: 0 };
		return;
	}
	if (st.view === 'flame') {
		var r = flameSvg(flameNodes(f), { inverted: st.icicle === '1', zoom: st.zoom, search: searchRe(), hotcold: st.hotcold === '1' });
		head.textContent = 'Flame graph of ' + what + ': ' + fmtn(f.total) + ' ' + unit() + ', ' + f.lines.length + ' stacks' + (st.zoom ? ' (zoomed: click the root to reset)' : '');
		body.innerHTML = r.svg;
		hookFrames(body);
		showMatched(r);
		api.view = { view: 'flame', total: r.total, frames: r.frames };
		if (st.icicle !== '1') $('view').scrollTop = $('view').scrollHeight;   // the root on screen
	} else if (st.view === 'diff') renderDiff(head, body, what);
	else if (st.view === 'top') renderTop(head, body, what, f);
	else if (st.view === 'sandwich') renderSandwich(head, body, f);
	else if (st.view === 'graph') renderGraph(head, body, what, f);
	else if (st.view === 'source') renderSource(head, body, f);
}
// `staprelay diff`'s rule (stacktab_normalize): normalised, the
// baseline is scaled to the selection's total, floor(count * after /
// before); red where the selection has more, blue where less
function renderDiff(head, body, what) {
	if (!cur.base) { head.textContent = 'Diff: select a range first (the baseline is the minute before it, or one set with "set as baseline").'; body.innerHTML = ''; api.view = { view: 'diff', total: 0 }; return; }
	var a = cur.base, b = cur.folded, abs = st.dmode === 'abs';
	var acc = new Map();
	a.lines.forEach(function (l) { var e = acc.get(l.s) || { s: l.s, a: 0, b: 0 }; e.a += l.v; acc.set(l.s, e); });
	b.lines.forEach(function (l) { var e = acc.get(l.s) || { s: l.s, a: 0, b: 0 }; e.b += l.v; acc.set(l.s, e); });
	var lines = [], maxd = 1;
	acc.forEach(function (e) {
		var av = abs || a.total === b.total || a.total === 0 ? e.a : Math.floor(e.a * b.total / a.total);
		if (!(e.b > 0 || av > 0)) return;
		lines.push({ s: e.s, v: e.b, d: e.b - av, key: e.s + ' ' + numText(av) + ' ' + numText(e.b) });
		if (Math.abs(e.b - av) > maxd) maxd = Math.abs(e.b - av);
	});
	var nodes = flow(lines, true);
	var r = flameSvg(nodes, { inverted: st.icicle === '1', diff: true, maxd: maxd, zoom: st.zoom, search: searchRe() });
	head.textContent = 'Diff: ' + what + ', ' + fmtn(b.total) + ' ' + unit() + ', against ' + clock(textUs(cur.bw.start), true) + ' to ' + clock(textUs(cur.bw.end), true) +
		', ' + fmtn(a.total) + ' ' + unit() + ' (' + (abs ? 'absolute counts' : a.total !== b.total ? 'normalised: the baseline scaled to this total' : 'equal totals, not scaled') +
		'; red: more than the baseline, blue: less)';
	body.innerHTML = r.svg;
	hookFrames(body);
	showMatched(r);
	api.view = { view: 'diff', total: b.total, base: a.total, frames: r.frames };
}
function topTable(f) {
	var self = new Map(), tot = new Map();
	f.lines.forEach(function (l) {
		var fr = l.s.split(';'), seen = new Set();
		self.set(fr[fr.length - 1], (self.get(fr[fr.length - 1]) || 0) + l.v);
		fr.forEach(function (n) { if (!seen.has(n)) { seen.add(n); tot.set(n, (tot.get(n) || 0) + l.v); } });
	});
	var rows = [];
	tot.forEach(function (t, n) { rows.push({ name: n, self: self.get(n) || 0, total: t }); });
	return rows;
}
api.topTable = function () { return cur ? topTable(cur.folded) : null; };
function renderTop(head, body, what, f) {
	var rows = topTable(f), key = st.sort || 'self';
	rows.sort(function (a, b) {
		if (key === 'name') return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
		return b[key] - a[key] || (a.name < b.name ? -1 : 1);
	});
	head.textContent = 'Top of ' + what + ': ' + rows.length + ' functions, ' + fmtn(f.total) + ' ' + unit() + ' (click a column to sort, a name for its sandwich)';
	var h = ['<table class="top"><thead><tr>'];
	[['name', 'function'], ['self', 'self'], ['selfp', 'self %'], ['total', 'total'], ['totalp', 'total %']].forEach(function (c) {
		var k = c[0] === 'selfp' ? 'self' : c[0] === 'totalp' ? 'total' : c[0];
		h.push('<th data-sort="' + k + '" class="' + (c[0] === 'name' ? 'name ' : '') + (k === key ? 'sorted' : '') + '">' + c[1] + '</th>');
	});
	h.push('</tr></thead><tbody>');
	rows.slice(0, 2000).forEach(function (r) {
		h.push('<tr><td class="name" data-fn="' + esc(r.name) + '">' + esc(r.name) + '</td><td>' + fmtn(r.self) + '</td><td>' + pct(r.self, f.total) +
			'</td><td>' + fmtn(r.total) + '</td><td>' + pct(r.total, f.total) + '</td></tr>');
	});
	h.push('</tbody></table>');
	body.innerHTML = h.join('');
	body.querySelectorAll('th').forEach(function (th) { th.onclick = function () { st.sort = th.dataset.sort; writeUrl(); render(); }; });
	body.querySelectorAll('td.name').forEach(function (td) { td.onclick = function () { st.fn = td.dataset.fn; st.view = 'sandwich'; delete st.zoom; writeUrl(); render(); }; });
	api.view = { view: 'top', total: f.total, rows: rows.length };
}
// sandwich: the callers of fn (from its first frame in each stack up to
// the root) and its callees (from there to the leaf)
function sandwich(f, fn) {
	var up = [], down = [], total = 0;
	f.lines.forEach(function (l) {
		var fr = l.s.split(';'), i = fr.indexOf(fn);
		if (i < 0) return;
		total += l.v;
		up.push({ s: fr.slice(0, i).reverse().join(';'), v: l.v });
		down.push({ s: fr.slice(i + 1).join(';'), v: l.v });
	});
	return { total: total, callers: up, callees: down };
}
api.sandwich = function (fn) { return cur ? sandwich(cur.folded, fn) : null; };
function renderSandwich(head, body, f) {
	if (!st.fn) {
		var rows = topTable(f).sort(function (a, b) { return b.self - a.self; });
		st.fn = rows.length ? rows[0].name : '';
	}
	var sw = sandwich(f, st.fn);
	head.textContent = 'Sandwich of ' + st.fn + ': ' + fmtn(sw.total) + ' ' + unit() + ' (' + pct(sw.total, f.total) + ' of ' + fmtn(f.total) + '): callers above, callees below';
	function nodesOf(lines) {
		var acc = new Map();
		lines.forEach(function (l) { acc.set(l.s, (acc.get(l.s) || 0) + l.v); });
		var ls = [];
		acc.forEach(function (v, s) { ls.push({ s: s, v: v, key: s + ' ' + numText(v) }); });
		return flow(ls, false);
	}
	var re = searchRe();
	// each graph's root is fn: its callers grow up from it, its callees down
	var c1 = flameSvg(nodesOf(sw.callers), { inverted: false, search: re, rootName: st.fn });
	var c2 = flameSvg(nodesOf(sw.callees), { inverted: true, search: re, rootName: st.fn });
	body.innerHTML = '<div class="sandwich"><label>function <input id="swfn" size="40" list="swfns" value="' + esc(st.fn) + '"></label><datalist id="swfns"></datalist>' +
		'<h3>callers of ' + esc(st.fn) + '</h3><div id="swup">' + c1.svg + '</div><h3>callees of ' + esc(st.fn) + '</h3><div id="swdown">' + c2.svg + '</div></div>';
	var dl = $('swfns');
	topTable(f).sort(function (a, b) { return b.total - a.total; }).slice(0, 300).forEach(function (r) { var o = document.createElement('option'); o.value = r.name; dl.appendChild(o); });
	$('swfn').onchange = function () { st.fn = this.value; writeUrl(); render(); };
	var sb = document.createElement('button');
	sb.type = 'button'; sb.id = 'swsource'; sb.textContent = 'source lines';
	sb.title = 'staprelay annotate of ' + st.fn;
	sb.onclick = function () { st.view = 'source'; writeUrl(); render(); };
	body.querySelector('.sandwich label').after(sb);
	api.view = { view: 'sandwich', total: sw.total, fn: st.fn };
}
// the source lines of one function: /api/annotate, `staprelay annotate
// ^FN$ FILE...`'s text (pprof -list) of the selection
var srcSeq = 0;
function reEscape(t) { return String(t).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
function renderSource(head, body, f) {
	if (!st.fn) {
		var rows = topTable(f).sort(function (a, b) { return b.self - a.self; });
		st.fn = rows.length ? rows[0].name : '';
	}
	var fn = st.fn, seq = ++srcSeq;
	head.textContent = 'Source lines of ' + fn + ' (staprelay annotate): loading...';
	body.innerHTML = '<div class="source"><label>function <input id="srcfn" size="40" list="srcfns" value="' + esc(fn) + '"></label><datalist id="srcfns"></datalist><pre id="srctext"></pre></div>';
	var dl = $('srcfns');
	topTable(f).sort(function (a, b) { return b.total - a.total; }).slice(0, 300).forEach(function (r) { var o = document.createElement('option'); o.value = r.name; dl.appendChild(o); });
	$('srcfn').onchange = function () { st.fn = this.value; writeUrl(); render(); };
	api.view = { view: 'source', fn: fn, text: null };
	var p = new URLSearchParams(selQuery(viewWindow()));
	p.set('function', '^' + reEscape(fn) + '$');
	get('/api/annotate?' + p.toString()).then(function (t) {
		if (seq !== srcSeq || st.view !== 'source') return;
		head.textContent = 'Source lines of ' + fn + ' (staprelay annotate): flat, cumulative, line';
		$('srctext').textContent = t;
		api.view = { view: 'source', fn: fn, text: t };
	}, function (e) {
		if (seq !== srcSeq || st.view !== 'source') return;
		head.textContent = 'No source lines for ' + fn;
		$('srctext').textContent = e.message;
		api.view = { view: 'source', fn: fn, text: null, error: e.message, status: e.status };
	});
}
function renderGraph(head, body, what, f) {
	// the call graph as its edges: caller -> callee, weighted by the
	// samples whose stack has that call (once per stack)
	var edges = new Map(), self = new Map();
	f.lines.forEach(function (l) {
		var fr = l.s.split(';'), seen = new Set();
		for (var i = 0; i + 1 < fr.length; i++) {
			var k = fr[i] + '\u0000' + fr[i + 1];
			if (seen.has(k)) continue;
			seen.add(k);
			edges.set(k, (edges.get(k) || 0) + l.v);
		}
		self.set(fr[fr.length - 1], (self.get(fr[fr.length - 1]) || 0) + l.v);
	});
	var rows = [];
	edges.forEach(function (v, k) { var p = k.split('\u0000'); rows.push({ from: p[0], to: p[1], v: v }); });
	rows.sort(function (a, b) { return b.v - a.v; });
	head.textContent = 'Call graph of ' + what + ': ' + rows.length + ' calls, heaviest first';
	var h = ['<table class="top"><thead><tr><th class="name">caller</th><th class="name">callee</th><th>samples</th><th>%</th><th>callee self</th></tr></thead><tbody>'];
	rows.slice(0, 1000).forEach(function (r) {
		h.push('<tr><td class="name" data-fn="' + esc(r.from) + '">' + esc(r.from) + '</td><td class="name" data-fn="' + esc(r.to) + '">' + esc(r.to) + '</td><td>' + fmtn(r.v) +
			'</td><td>' + pct(r.v, f.total) + '</td><td>' + fmtn(self.get(r.to) || 0) + '</td></tr>');
	});
	h.push('</tbody></table>');
	// pprof's drawing of it, `staprelay graph` (Graphviz on the server),
	// above the table; the DOT text is a download
	var q = selQuery(viewWindow());
	h.unshift('<p><a href="/api/graph.dot?' + esc(q) + '" download="graph.dot">DOT</a> (staprelay graph)</p>' +
		'<object class="callgraph" type="image/svg+xml" data="/api/graph.svg?' + esc(q) + '"></object>');
	body.innerHTML = h.join('');
	body.querySelectorAll('td.name').forEach(function (td) { td.onclick = function () { st.fn = td.dataset.fn; st.view = 'sandwich'; writeUrl(); render(); }; });
	api.view = { view: 'graph', total: f.total, edges: rows.length };
}
function updateDownloads() {
	var q = selQuery(viewWindow());
	var svg = '/api/flame.svg?' + q;
	if (st.view === 'diff') {
		var bw = baseWindow();
		if (bw) {
			var p = new URLSearchParams(q);
			p.set('base_start', bw.start);      // api_diff_svg's names
			p.set('base_end', bw.end);
			if (st.dmode === 'abs') p.set('absolute', '1');
			svg = '/api/diff.svg?' + p.toString();
		}
	}
	$('dl-svg').href = svg;
	$('dl-folded').href = '/api/folded?' + q;
	$('dl-pprof').href = '/api/pprof?' + q;
	$('dl-speedscope').href = '/api/speedscope?' + q;
}

// ---- live updates: Server-Sent Events -------------------------------------------
var es = null, liveTimer = null, lastViewRefresh = 0;
function connect() {
	es = new EventSource('/api/stream');
	setState('conn', 'connecting', 'warn');
	es.onopen = function () {
		setState('conn', 'live: connected', 'ok');
		api.connected = true;
		api.opens = (api.opens || 0) + 1;
		// back after a break: what was missed comes with the next fetch
		if (api.opens > 1) { refreshInfo().then(function () { loadHeatmap(false); }); loadRuns(); }
	};
	es.onerror = function () {
		api.connected = false;
		api.errors = (api.errors || 0) + 1;
		setState('conn', es.readyState === 2 ? 'disconnected' : 'reconnecting to the server...', 'bad');
	};
	es.addEventListener('samples', function (ev) {
		var d = {};
		try { d = JSON.parse(ev.data); } catch (e) { /* keep going */ }
		if (d.last_ns && info) info.last_ns = d.last_ns;
		if (d.samples !== undefined && info) { info.samples = d.samples; showCounts(); }
		api.lastEvent = d;
		scheduleLive();
	});
	es.addEventListener('gap', function (ev) {
		// a gap opens (to_ns null), then closes: the same gap twice
		var g = parseGap(ev.data);
		if (g) {
			gaps = gaps.filter(function (x) { return x.s !== g.s; }).concat([g]);
			api.gapEvents = (api.gapEvents || 0) + 1;
			setState('gapstate', g.text, g.e === null ? 'bad' : 'warn');
			drawHeatmap();
		}
		refreshInfo();
	});
	es.addEventListener('notice', function (ev) {
		var t = ev.data;
		try { var j = JSON.parse(ev.data); t = j.text || j.message || j.notice || ev.data; } catch (e) { /* plain */ }
		api.notices = (api.notices || []).concat([t]);
		setState('srcstate', t, /back|reconnect|appeared/i.test(t) ? 'ok' : 'warn');
		refreshInfo();
	});
	es.addEventListener('run', function (ev) {
		// web/runs: {name, state, samples, following} as a run goes on
		var j = null;
		try { j = JSON.parse(ev.data); } catch (e) { return; }
		if (j && j.name) runEvent(j);
	});
	es.addEventListener('dropped', function () { loadHeatmap(true); });
}
function scheduleLive() {
	// at most one heat map fetch in flight, one a second
	if (liveTimer) return;
	liveTimer = setTimeout(function () {
		liveTimer = null;
		loadHeatmap(false).then(function () {
			if (st.chart && st.chart.length) fetchCharts();
			// no selection: the views follow the window, every 5 s
			if (!st.start && !st.end && Date.now() - lastViewRefresh > 5000) { lastViewRefresh = Date.now(); refreshView(); }
		});
	}, 250);
}
function parseGap(data) {
	var j;
	try { j = typeof data === 'string' ? JSON.parse(data) : data; } catch (e) { return { s: Date.now() * 1000, e: null, text: String(data) }; }
	if (!j) return null;
	var s = j.start_ns !== undefined ? nsUs(j.start_ns) : j.from_ns !== undefined ? nsUs(j.from_ns) : j.start !== undefined ? Math.round(j.start * US) : Date.now() * 1000;
	var e = j.end_ns !== undefined && j.end_ns !== null && j.end_ns !== 0 ? nsUs(j.end_ns) : j.to_ns ? nsUs(j.to_ns) : j.end ? Math.round(j.end * US) : null;
	var text = j.text || j.reason || j.why || 'gap';
	return { s: s, e: e, text: 'gap ' + clock(s) + (e !== null ? ' to ' + clock(e) : ' (ongoing)') + ': ' + text };
}
function showCounts() {
	var j = info, n = j.samples !== undefined ? j.samples : j.nsamples;
	$('counts').textContent = (n !== undefined ? fmtn(n) + ' samples held' : '') + (j.memory_bytes !== undefined ? ', ' + (j.memory_bytes / 1048576).toFixed(1) + ' MiB' : '') +
		(j.dropped ? ', ' + fmtn(j.dropped) + ' dropped' : '');
}
function refreshInfo() {
	return get('/api/info', 'json').then(function (j) {
		info = j;
		api.info = j;
		gaps = (j.gaps || []).map(parseGap).filter(Boolean);
		showCounts();
		if (gaps.length) { var g = gaps[gaps.length - 1]; setState('gapstate', g.text, g.e === null ? 'bad' : 'warn'); }
	}, function (e) { msg('info: ' + e.message, 'error'); });
}

// ---- on demand runs (--allow-runs) ---------------------------------------------
// The runs the server follows (GET /api/runs, then SSE `run` events):
// a list with each one's state, live; a click selects its samples
// (run=NAME, the API's parameter: that run's own samples, in its
// window), clicked again the window's.  The server keeps a run's samples
// after it ends, so its flame graph stays.
var runs = {}, runOrder = [], runViewTimer = null;
api.runs = runs;
api.runEvents = [];
function runEvent(j) {
	api.runEvents.push({ name: j.name, state: j.state, samples: j.samples, following: j.following });
	var old = runs[j.name];
	if (!old) runOrder.push(j.name);
	runs[j.name] = j;
	drawRuns();
	// the selected run's graph follows its records, at most once a second
	if (st.run === j.name && (!old || old.samples !== j.samples || old.state !== j.state) && !runViewTimer) {
		runViewTimer = setTimeout(function () { runViewTimer = null; loadHeatmap(true); refreshView(); }, 1000);
	}
}
function drawRuns() {
	var ul = $('runs');
	ul.textContent = '';
	runOrder.forEach(function (n) {
		var r = runs[n], li = document.createElement('li');
		li.className = 'run state-' + r.state + (st.run === n ? ' sel' : '');
		li.dataset.run = n;
		li.dataset.state = r.state;
		li.textContent = n + ': ' + r.state + (r.following ? '' : ' (kept)') + ', ' + fmtn(r.samples) + ' samples' + (r.error ? ' -- ' + r.error : '');
		li.title = 'click: this run\'s samples (run=' + n + ')';
		li.onclick = function () { selectRun(st.run === n ? null : n); };
		ul.appendChild(li);
	});
	ul.hidden = runOrder.length === 0;
}
function selectRun(n) {
	if (n) st.run = n; else delete st.run;
	writeUrl();
	drawRuns();
	loadHeatmap(true);
	refreshView();
}
api.selectRun = selectRun;
function loadRuns() {
	return get('/api/runs', 'json').then(function (j) {
		(j.runs || []).forEach(function (r) { if (!runs[r.name] || runs[r.name].samples !== r.samples || runs[r.name].state !== r.state) runEvent(r); });
	}, function () { /* no runs endpoint: nothing listed */ });
}
function followRun(metric) {
	if (!metric || st.metric === metric) return;
	var sel = $('metric');
	if (![].some.call(sel.options, function (o) { return o.value === metric; })) { var o = document.createElement('option'); o.value = o.textContent = metric; sel.appendChild(o); }
	sel.value = metric;
	st.metric = metric;
	writeUrl();
	loadHeatmap(true);
	refreshView();
}
function startRun() {
	var secs = +$('runsecs').value;
	$('runmsg').textContent = 'asking the PMDA...';
	var body = new URLSearchParams();
	body.set('script', 'profile');
	body.set('seconds', String(secs));
	(st.host || []).slice(0, 1).forEach(function (h) { body.set('host', h); });
	fetch('/api/run', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body.toString() }).then(function (r) {
		return r.text().then(function (t) {
			var shown = t.trim(), j = null;
			// api_metrics: {accepted, answer: "accepted: NAME" | "refused: WHY", run, reason}
			try { j = JSON.parse(t); shown = j.answer || (j.reason ? 'refused: ' + j.reason : '') || j.status || t.trim(); } catch (e) { /* text */ }
			if (!/^(accepted|refused)/.test(shown)) shown = (r.ok ? 'accepted: ' : 'refused: ') + shown;
			$('runmsg').textContent = shown + (j && j.run ? ' (run ' + j.run + ': listed below; click it for its flame graph)' : '');
			api.runAnswer = { ok: r.ok, status: r.status, text: shown, run: j && j.run };
			if (r.ok && j && j.metric) followRun(j.metric);
		});
	}, function (e) { $('runmsg').textContent = 'failed: ' + e.message; });
}

// ---- controls ---------------------------------------------------------------
// by_host: the URL's, else the server's default (web --by-host)
function byHost() { return st.by_host !== undefined ? st.by_host === '1' : !!(info && info.by_host); }
function fillControls() {
	var f = $('filters');
	['focus', 'ignore', 'hide', 'show'].forEach(function (k) { f.elements[k].value = st[k] || ''; });
	['pid', 'tid', 'comm', 'state'].forEach(function (k) { f.elements[k].value = (st[k] || []).join(','); });
	$('icicle').checked = st.icicle === '1';
	$('hotcold').checked = st.hotcold === '1';
	$('byhost').checked = byHost();
	$('search').value = st.q || '';
	$('dmode').value = st.dmode === 'abs' ? 'abs' : 'norm';
	$('win').value = winMinutes();
}
function hook() {
	$('filters').addEventListener('submit', function (ev) {
		ev.preventDefault();
		var f = $('filters'), bad = null;
		['focus', 'ignore', 'hide', 'show'].forEach(function (k) {
			var v = f.elements[k].value;
			try { if (v) new RegExp(v); f.elements[k].classList.remove('bad'); } catch (e) { bad = k + ': ' + e.message; f.elements[k].classList.add('bad'); }
			if (v) st[k] = v; else delete st[k];
		});
		['pid', 'tid', 'comm', 'state'].forEach(function (k) {
			st[k] = f.elements[k].value.split(/[\s,]+/).filter(function (x) { return x !== ''; });
		});
		$('filtermsg').textContent = bad || '';
		delete st.zoom;
		writeUrl();
		loadHeatmap(true);
		refreshView();
	});
	$('clearfilters').onclick = function () {
		['focus', 'ignore', 'hide', 'show'].forEach(function (k) { delete st[k]; });
		st.pid = []; st.tid = []; st.comm = []; st.state = [];
		fillControls(); writeUrl(); loadHeatmap(true); refreshView();
	};
	document.querySelectorAll('#tabs button[data-view]').forEach(function (b) {
		b.onclick = function () { var was = st.view; st.view = b.dataset.view; delete st.zoom; writeUrl(); if (st.view === 'diff' || was === 'diff') refreshView(); else render(); };
	});
	$('icicle').onchange = function () { if (this.checked) st.icicle = '1'; else delete st.icicle; writeUrl(); render(); };
	$('hotcold').onchange = function () { if (this.checked) st.hotcold = '1'; else delete st.hotcold; delete st.zoom; writeUrl(); refreshView(); };
	$('byhost').onchange = function () { st.by_host = this.checked ? '1' : '0'; delete st.zoom; writeUrl(); refreshView(); };
	$('dmode').onchange = function () { if (this.value === 'abs') st.dmode = 'abs'; else delete st.dmode; writeUrl(); render(); };
	$('search').oninput = function () { if (this.value) st.q = this.value; else delete st.q; writeUrl(); render(); };
	$('unzoom').onclick = function () { delete st.zoom; writeUrl(); render(); };
	$('selall').onclick = function () { delete st.start; delete st.end; delete st.zoom; writeUrl(); showSel(); redrawAll(); refreshView(); };
	$('baseline').onclick = function () {
		if (!st.start || !st.end) return;
		st.bstart = st.start; st.bend = st.end;
		writeUrl(); showSel(); redrawAll();
		if (st.view === 'diff') refreshView();
	};
	$('basebefore').onclick = function () { delete st.bstart; delete st.bend; writeUrl(); showSel(); redrawAll(); if (st.view === 'diff') refreshView(); };
	$('metric').onchange = function () { st.metric = this.value; writeUrl(); loadHeatmap(true); refreshView(); };
	$('host').onchange = function () {
		st.host = [].filter.call(this.options, function (o) { return o.selected; }).map(function (o) { return o.value; });
		if (st.host.length === this.options.length) st.host = [];
		writeUrl(); loadHeatmap(true); refreshView(); fetchCharts();
	};
	$('follow').onchange = function () { layoutAxis(); redrawAll(); fetchCharts(); };
	$('win').onchange = function () { st.win = String(Math.max(1, +this.value || 10)); writeUrl(); loadHeatmap(true); fetchCharts(); };
	function addChart() {
		var m = $('addchart').value.trim();
		if (!m) return;
		st.chart = (st.chart || []).filter(function (x) { return x !== m; }).concat([m]);
		$('addchart').value = '';
		writeUrl(); drawCharts(); fetchChart(m);
	}
	$('addchartbtn').onclick = addChart;
	$('addchart').addEventListener('keydown', function (ev) { if (ev.key === 'Enter') addChart(); });
	var pmnsAsked = '';
	$('addchart').addEventListener('input', function () {
		// the namespace below what is typed, one level at a time
		var v = this.value, prefix = v.lastIndexOf('.') > 0 ? v.slice(0, v.lastIndexOf('.')) : '';
		if (prefix === pmnsAsked) return;
		pmnsAsked = prefix;
		loadPmns(prefix);
	});
	$('runbtn').onclick = startRun;
	hookBrush($('hm'), 'hm');
	$('hm').addEventListener('mouseleave', function () { $('hmdetails').textContent = ' '; });
	window.addEventListener('resize', function () { layoutAxis(); redrawAll(); render(); });
	document.addEventListener('keydown', function (e) { if (e.key === 'Escape' && brush) { brush = null; redrawAll(); } });
}
function loadPmns(prefix) {
	var p = new URLSearchParams();
	if (prefix) p.set('prefix', prefix);
	(st.host || []).slice(0, 1).forEach(function (h) { p.set('host', h); });
	return get('/api/pmns?' + p.toString(), 'json').then(function (j) {
		var list = Array.isArray(j) ? j : j.metrics || [];
		var dl = $('pmns');
		dl.innerHTML = '';
		list.slice(0, 500).forEach(function (m) { var o = document.createElement('option'); o.value = typeof m === 'string' ? m : m.name; dl.appendChild(o); });
		api.pmns = list.length;
	}, function () { /* no namespace (file inputs): charts unavailable */ api.pmns = 0; });
}
function redrawAll() { drawHeatmap(); drawCharts(); }
function fillPickers() {
	var hs = $('host'), ms = $('metric');
	hs.innerHTML = ''; ms.innerHTML = '';
	(info.hosts || []).forEach(function (h) {
		var name = typeof h === 'string' ? h : h.name;
		var o = document.createElement('option'); o.value = o.textContent = name;
		o.selected = !st.host.length || st.host.indexOf(name) >= 0;
		hs.appendChild(o);
	});
	hs.size = Math.min(3, Math.max(1, hs.options.length));
	(info.metrics || []).forEach(function (m) {
		var name = typeof m === 'string' ? m : m.name;
		var o = document.createElement('option'); o.value = o.textContent = name;
		ms.appendChild(o);
	});
	if (st.metric) ms.value = st.metric;
	var inputs = info.inputs ? (Array.isArray(info.inputs) ? info.inputs.map(function (x) { return typeof x === 'string' ? x : x.name || x.spec || JSON.stringify(x); }).join(', ') : String(info.inputs)) : '';
	$('src').textContent = inputs;
	$('src').title = inputs;
	$('runbox').hidden = !info.allow_runs;
	$('win').parentNode.hidden = $('follow').parentNode.hidden = !live();
}

// ---- start ---------------------------------------------------------------------
function start() {
	readUrl();
	if (st.rows && +st.rows >= 1 && +st.rows <= 1000) R = +st.rows;
	hook();
	refreshInfo().then(function () {
		if (!info) return;
		fillPickers();
		fillControls();
		showSel();
		layoutAxis();
		setState('conn', live() ? 'connecting' : 'archive/file: not live', live() ? 'warn' : '');
		if (live()) connect();
		return Promise.all([loadHeatmap(true), refreshView(), loadPmns(''), loadRuns()]).then(function () {
			fetchCharts();
			msg(live() ? 'Live: the heat map fills in as samples arrive. Drag across cells or a chart to select a range.' :
				'Drag across heat map cells or a chart to select a range; the views below show it.');
			api.ready = true;
		});
	}).catch(function (e) { msg('The page failed: ' + e.message, 'error'); });
}
window.onerror = function (m) { msg('The page failed: ' + m, 'error'); api.error = String(m); };
start();
})();
