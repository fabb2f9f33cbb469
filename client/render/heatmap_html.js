// staprelay heatmap page's script, embedded into the client at build time
// (client.mk's embed rule, scripts/embed.sh): edit it here and rebuild.
(function () {
'use strict';
var US = 1000000;
var msgEl = document.getElementById('msg');
var detEl = document.getElementById('hmdetails');
var flameEl = document.getElementById('flame');
var flameHead = document.getElementById('flamehead');
function msg(t, cls) { msgEl.textContent = t; msgEl.className = cls || 'info'; }
var D;
try {
	D = JSON.parse(document.getElementById('hm-data').textContent);
} catch (e) {
	msg('The embedded data could not be read: ' + e, 'error');
	return;
}
var R = D.rows, C = D.cols, M = D.maxvalue;
var api = window.staprelay_heatmap = { data: D };

// ---- samples: base64 of varints (time delta in us, stack index, and
// when D.weighted the samples the record stands for) ----------------------
var T, S, Wt = null;
(function () {
	var s = atob(D.samples), n = D.nsamples, p = 0, t = 0;
	T = new Float64Array(n);
	S = new Uint32Array(n);
	if (D.weighted) Wt = new Float64Array(n);
	function varint() {
		var v = 0, m = 1, c;
		do { c = s.charCodeAt(p++); v += (c & 127) * m; m *= 128; } while (c & 128);
		return v;
	}
	for (var i = 0; i < n; i++) {
		t += varint();
		T[i] = t;
		S[i] = varint();
		if (Wt) Wt[i] = varint();
	}
})();
api.times = T;
api.stacks = S;
api.weights = Wt;

// ---- grid arithmetic (same as client/stack/heatmap.c) ------------------------
function rowStart(r) { var k = R - 1 - r; return Math.floor((k * US + R - 1) / R); }
function rowEnd(r) { return r == 0 ? US : rowStart(r - 1); }
function rowLabel(r) { return +(1000 * (R - 1 - r) / R).toFixed(3); }
function value(c, r) { return D.values[c * R + r]; }
function hex(x) { return [(x >> 16) & 255, (x >> 8) & 255, x & 255]; }
function color(v) {
	var dom, rng;
	if (D.enhance) { dom = [0, 1, 3, M / 2, M]; rng = [0xFFFFFF, 0x6AAAFF, 0xFAA0B5, 0xFF5032, 0xE50914]; }
	else { dom = [0, M / 2, M]; rng = [0xFFFFFF, 0xFF5032, 0xE50914]; }
	var a = rng[rng.length - 1], b = a, t = 0;
	if (v <= 0 || M == 0) { a = b = rng[0]; }
	else for (var i = 0; i + 1 < dom.length; i++)
		if (dom[i + 1] > dom[i] && v >= dom[i] && v <= dom[i + 1]) {
			a = rng[i]; b = rng[i + 1]; t = (v - dom[i]) / (dom[i + 1] - dom[i]); break;
		}
	var x = hex(a), y = hex(b), o = '#';
	for (var j = 0; j < 3; j++) {
		var c = Math.round(x[j] + (y[j] - x[j]) * t);
		o += (c < 16 ? '0' : '') + c.toString(16);
	}
	return o;
}
function secs(us) { return (us / US).toFixed(3); }
function absTime(us) {
	var t = D.base_s * US + us, s = Math.floor(t / US), f = String(t - s * US);
	return s + '.' + '000000'.slice(f.length) + f;
}

// ---- the heat map ----------------------------------------------------
// Cells sized to the page: the columns share the width there is (at
// least 3 px each, then the map scrolls, newest on screen), rows a
// readable height; a colour scale on the right; the x axis in local
// wall-clock time, its label never clipped.
var hmwrap = document.getElementById('hmwrap');
var left = 56, top = 10, legendW = 90;
var avail = Math.max(300, (hmwrap.clientWidth || window.innerWidth - 40) - left - legendW - 10);
var cw = Math.max(3, Math.min(80, Math.floor(avail / C * 10) / 10));
// rows: at most 38 % of the window, so the flame graph below has room
var ch = Math.max(4, Math.min(14, Math.floor(Math.min(window.innerHeight * 0.38, 560) / R)));
var hm = document.getElementById('hm');
var mapW = cw * C;
// wall-clock times (perf -k realtime, PCP records) in local time;
// perf's times since boot as seconds
var wall = D.wall;   // heatmap_wall_clock decides
var axisLabel = (wall ? 'local time (' + dayText(0) + ')' : 'seconds since ' + absTime(0)) +
	'; rows: millisecond within the second';
var W = Math.max(left + mapW + legendW + 10, left + axisLabel.length * 6.2 + 20), H = top + ch * R + 40;
hm.setAttribute('width', W);
hm.setAttribute('height', H);
function pad2(n) { return (n < 10 ? '0' : '') + n; }
function clockText(c) {
	if (!wall) return String(c);
	var d = new Date((D.base_s + c) * 1000);
	return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
}
function dayText(c) {
	var d = new Date((D.base_s + c) * 1000);
	var z = -d.getTimezoneOffset(), zs = (z >= 0 ? '+' : '-') + pad2(Math.floor(Math.abs(z) / 60)) + pad2(Math.abs(z) % 60);
	return d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' + pad2(d.getDate()) + ' UTC' + zs;
}
api.clockText = clockText;
(function () {
	var h = [];
	for (var c = 0; c < C; c++)
		for (var r = 0; r < R; r++)
			h.push('<rect class=cell data-c=' + c + ' data-r=' + r + ' x=' + (left + cw * c).toFixed(1) + ' y=' + (top + ch * r) +
				' width=' + cw + ' height=' + ch + ' fill=' + color(value(c, r)) + ' />');
	var step = R >= 20 ? Math.floor(R / 10) : 1;
	for (var r2 = 0; r2 < R; r2 += step)
		h.push('<text x=' + (left - 4) + ' y=' + (top + ch * r2 + ch) + ' text-anchor=end>' + rowLabel(r2) + '</text>');
	// a tick every few seconds, no closer than 64 px (HH:MM:SS is ~50 px)
	var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600], cs = steps[steps.length - 1];
	for (var i = 0; i < steps.length; i++) if (steps[i] * cw >= (wall ? 64 : 30)) { cs = steps[i]; break; }
	for (var c2 = 0; c2 < C; c2++) {
		if ((wall ? D.base_s + c2 : c2) % cs) continue;
		h.push('<line x1=' + (left + cw * c2) + ' x2=' + (left + cw * c2) + ' y1=' + (top + ch * R) + ' y2=' + (top + ch * R + 4) + ' stroke=#555 />');
		h.push('<text class=tick x=' + (left + cw * c2) + ' y=' + (top + ch * R + 15) + ' text-anchor=middle>' + clockText(c2) + '</text>');
	}
	h.push('<text id=xlabel x=' + left + ' y=' + (top + ch * R + 32) + '>' + axisLabel + '</text>');
	// the colour scale
	var lx = left + mapW + 16, ly = top, lh = Math.min(ch * R, 200), n = 40;
	for (var k = 0; k < n; k++) {
		var v = M * (n - 1 - k) / (n - 1);
		h.push('<rect x=' + lx + ' y=' + (ly + lh * k / n).toFixed(1) + ' width=14 height=' + (lh / n + 0.5).toFixed(1) + ' fill=' + color(v) + ' />');
	}
	h.push('<rect x=' + lx + ' y=' + ly + ' width=14 height=' + lh + ' fill=none stroke=#999 />');
	h.push('<text id=legendmax x=' + (lx + 18) + ' y=' + (ly + 9) + '>' + M + '</text>');
	h.push('<text x=' + (lx + 18) + ' y=' + (ly + lh / 2 + 4) + '>' + (M / 2) + '</text>');
	h.push('<text x=' + (lx + 18) + ' y=' + (ly + lh) + '>0</text>');
	h.push('<text x=' + lx + ' y=' + (ly + lh + 14) + '>' + D.countname + '</text>');
	h.push('<text x=' + lx + ' y=' + (ly + lh + 26) + '>per cell</text>');
	h.push('<g id=sel></g>');
	hm.innerHTML = h.join('');
	// newest on screen
	hmwrap.scrollLeft = hmwrap.scrollWidth;
})();
api.cell = { w: cw, h: ch, left: left, top: top };
var selG = document.getElementById('sel');

function cellAt(el) {
	if (!el || !el.getAttribute || el.getAttribute('data-c') === null) return null;
	return { c: +el.getAttribute('data-c'), r: +el.getAttribute('data-r') };
}
hm.addEventListener('mouseover', function (e) {
	var x = cellAt(e.target);
	if (x) detEl.textContent = (wall ? clockText(x.c) + ' (second ' + x.c + ')' : 'second ' + x.c) + ', millisecond ' + rowLabel(x.r) + ': ' + value(x.c, x.r) + ' ' + D.countname;
});
hm.addEventListener('mouseout', function () { detEl.textContent = ' '; });

// ---- selection (FlameScope's two clicks) ------------------------------
var anchor = null, r1 = null, r2 = null;
function isBefore(a, b) { return a.c < b.c || (a.c == b.c && a.r > b.r); }
function rangeOf(a, b) {
	if (isBefore(b, a)) { var t = a; a = b; b = t; }
	return { s: a.c * US + rowStart(a.r), e: b.c * US + rowEnd(b.r) };
}
function outline(rg, cls) {
	// one rectangle per column the range touches
	var ns = 'http://www.w3.org/2000/svg';
	for (var c = Math.floor(rg.s / US); c * US < rg.e && c < C; c++) {
		var lo = Math.max(rg.s, c * US) - c * US, hi = Math.min(rg.e, (c + 1) * US) - c * US;
		// rows: row of offset o is R-1-floor(o*R/US)
		var rtop = R - 1 - Math.floor(((hi - 1) * R) / US), rbot = R - 1 - Math.floor((lo * R) / US);
		var el = document.createElementNS(ns, 'rect');
		el.setAttribute('class', cls);
		el.setAttribute('x', left + cw * c);
		el.setAttribute('y', top + ch * rtop);
		el.setAttribute('width', cw);
		el.setAttribute('height', ch * (rbot - rtop + 1));
		selG.appendChild(el);
	}
}
function clearSel() {
	anchor = r1 = r2 = null;
	selG.innerHTML = '';
	flameEl.innerHTML = '';
	flameHead.textContent = 'Click a start cell, then an end cell, to draw the flame graph of that time range.';
}
api.clear = clearSel;
hm.addEventListener('click', function (e) {
	var x = cellAt(e.target);
	if (x) clickCell(x);
});
function clickCell(x) {
	if (anchor === null) {
		if (r2) clearSel();
		anchor = x;
		outline(rangeOf(x, x), 'anchor');
		msg('Start: second ' + x.c + ', millisecond ' + rowLabel(x.r) + '. Click the end cell' +
			(r1 ? ' of the range to compare with the first.' : '.'));
		return;
	}
	var rg = rangeOf(anchor, x);
	anchor = null;
	var old = selG.querySelectorAll('.anchor');
	for (var i = 0; i < old.length; i++) old[i].parentNode.removeChild(old[i]);
	select(rg);
}
api.click = function (c, r) { clickCell({ c: c, r: r }); };
function select(rg) {
	if (!r1) { r1 = rg; outline(rg, 'sel1'); show(r1, null); }
	else { r2 = rg; outline(rg, 'sel2'); show(r2, r1); }
}
// select by time, microseconds relative to floor(start); checked
api.select = function (s, e) {
	if (!(e > s)) { msg('Empty selection: the end (' + secs(e) + ' s) is not after the start (' + secs(s) + ' s).', 'error'); return false; }
	if (s < 0 || e > C * US) {
		msg('The selection ' + secs(s) + ' s to ' + secs(e) + ' s is outside the data, which covers 0 to ' + C + ' s (' +
			absTime(0) + ' to ' + absTime(C * US) + ').', 'error');
		return false;
	}
	if (r2) clearSel();
	select({ s: s, e: e });
	return true;
};

// ---- samples of a range --------------------------------------------------
function lower(t) { var lo = 0, hi = T.length; while (lo < hi) { var m = (lo + hi) >> 1; if (T[m] < t) lo = m + 1; else hi = m; } return lo; }
var framesOf = [];
function Node(n) { this.n = n; this.v = 0; this.k = null; }
function tree(rg) {
	var a = lower(rg.s), b = lower(rg.e), cnt = new Map();
	for (var i = a; i < b; i++) cnt.set(S[i], (cnt.get(S[i]) || 0) + (Wt ? Wt[i] : 1));
	var root = new Node('all');
	cnt.forEach(function (v, idx) {
		var fr = framesOf[idx] || (framesOf[idx] = D.stacks[idx].split(';'));
		var nd = root;
		nd.v += v;
		for (var j = 0; j < fr.length; j++) {
			var k = nd.k || (nd.k = Object.create(null));
			var ch2 = k[fr[j]] || (k[fr[j]] = new Node(fr[j]));
			ch2.v += v;
			nd = ch2;
		}
	});
	root.first = a; root.last = b;
	return root;
}
api.tree = function (s, e) { return tree({ s: s, e: e }); };
function clockAt(us) {
	var c = Math.floor(us / US), ms = String(Math.round(us - c * US) / 1000 | 0);
	return clockText(c) + '.' + '000'.slice(ms.length) + ms;
}
function describe(rg) {
	return secs(rg.s) + ' s to ' + secs(rg.e) + ' s (' + (wall ? clockAt(rg.s) + ' to ' + clockAt(rg.e) + ' local time'
		: absTime(rg.s) + ' to ' + absTime(rg.e)) + ')';
}
function show(rg, base) {
	var t = tree(rg);
	api.last = { range: rg, base: base, total: t.v };
	if (t.v == 0) {
		flameEl.innerHTML = '';
		flameHead.textContent = 'No samples in ' + describe(rg) + '.';
		msg('The selected window has no samples' + (D.keep_idle ? '.' : ' (idle samples are excluded).'), 'warn');
		return;
	}
	if (base) {
		var b = tree(base);
		if (b.v == 0) {
			flameHead.textContent = 'The first range has no samples; nothing to compare with.';
			msg('The first range has no samples.', 'warn');
			return;
		}
		flameHead.textContent = 'Differential: ' + describe(rg) + ', ' + t.v + ' samples, against ' +
			describe(base) + ', ' + b.v + ' samples (' + (t.v !== b.v ? 'normalised: the first range scaled to this total' :
			'equal totals, not scaled') + '; red: more than the first range, blue: less).';
		msg('Differential drawn. Click a cell to start a new selection; Esc clears.');
		draw(t, b);
	} else {
		flameHead.textContent = 'Flame graph of ' + describe(rg) + ': ' + t.v + ' samples.';
		msg('Flame graph drawn. Select a second range to compare with this one; Esc clears.');
		draw(t, null, 1);
	}
}

// ---- the flame graph: flame's own -----------------------------------------
// The head (style, title, Search/Reset Zoom texts) is flamesvg's, the
// colours flame's palette, the zoom and search script flame's
// (flamesvg_script, loaded once: init() below), and the layout
// flow.js's flow() (flamegraph.pl's), which the page carries before this.
function diffColor(d, maxd) {
	if (D.negate) d = -d;
	var r = 255, g = 255, b = 255;
	if (d > 0) g = b = Math.floor(210 * (maxd - d) / maxd);
	else if (d < 0) r = g = Math.floor(210 * (maxd + d) / maxd);
	return 'rgb(' + r + ',' + g + ',' + b + ')';
}
// The first range scaled to the second's total when they differ, each
// count floor(count * after / before): `staprelay diff`'s one rule
// (stacktab_normalize in client/stack/stacktab.c; keep the two alike).
function normalized(count, before, after) {
	return before === after ? count : Math.floor(count * after / before);
}
function draw(root, base) {
	// the folded lines of the range (and of the first range, normalised)
	var lines = [], maxd = 1, diff = !!base;
	var acc = new Map();
	function collect(nd, prefix, col) {
		if (!nd.k) return;
		for (var name in nd.k) {
			var c = nd.k[name], st = prefix === null ? name : prefix + ';' + name;
			var own = c.v;
			if (c.k) for (var n2 in c.k) own -= c.k[n2].v;
			if (own > 0) {
				var e = acc.get(st) || { s: st, a: 0, b: 0 };
				e[col] += own;
				acc.set(st, e);
			}
			collect(c, st, col);
		}
	}
	collect(root, null, 'b');
	if (base) collect(base, null, 'a');
	acc.forEach(function (e) {
		if (diff) {
			var a = normalized(e.a, base.v, root.v);
			if (!(e.b > 0 || a > 0)) return;
			lines.push({ s: e.s, v: e.b, d: e.b - a, key: e.s + ' ' + numText(a) + ' ' + numText(e.b) });
			if (Math.abs(e.b - a) > maxd) maxd = Math.abs(e.b - a);
		} else {
			lines.push({ s: e.s, v: e.b, key: e.s + ' ' + numText(e.b) });
		}
	});
	var nodes = flow(lines, diff), total = nodes[0].end;
	var FW = D.fwidth, FH = D.fheight, pad = 10, wpt = (FW - 2 * pad) / total;
	var minw = D.minwidth_pct ? total * D.minwidth / 100 : D.minwidth / wpt;
	var keep = [], depthmax = 0;
	for (var i = 0; i < nodes.length; i++) {
		var nd = nodes[i];
		if (i > 0 && !(nd.end - nd.x > 0 && nd.end - nd.x >= minw)) continue;
		keep.push(nd);
		if (nd.dep > depthmax) depthmax = nd.dep;
	}
	var ypad1 = D.fontsize * 3, ypad2 = D.fontsize * 2 + 10, H = (depthmax + 1) * FH + ypad1 + ypad2;
	var out = [];
	for (var j = 0; j < keep.length; j++) {
		var f = keep[j], w = f.end - f.x, x1 = pad + f.x * wpt, x2 = pad + f.end * wpt;
		var y1 = D.inverted ? ypad1 + f.dep * FH : H - ypad2 - (f.dep + 1) * FH + 1;
		var y2 = D.inverted ? ypad1 + (f.dep + 1) * FH - 1 : H - ypad2 - f.dep * FH;
		var name = j === 0 ? 'all' : f.n.replace(/_\[[kwij]\]$/, '');
		var title = esc(name) + ' (' + fmtn(w) + ' ' + esc(D.countname) + ', ' +
			(j === 0 ? '100%' : (100 * Math.round(w) / total).toFixed(2) + '%');
		if (diff && j > 0) {
			var dp = (100 * (D.negate ? -f.d : f.d) / total).toFixed(2);
			title += '; ' + (+dp > 0 ? '+' : '') + dp + '%';
		}
		title += ')';
		var fill = diff ? (j === 0 ? 'rgb(255,255,255)' : diffColor(f.d, maxd)) : (D.colors[f.n] || 'rgb(0,0,0)');
		var chars = Math.floor((x2 - x1) / (D.fontsize * D.fontwidth)), label = '';
		if (chars >= 3) label = name.length <= chars ? name : name.slice(0, chars - 2) + '..';
		var rx1 = +x1.toFixed(1), rx2 = +x2.toFixed(1);
		out.push('<g >\n<title>' + title + '</title><rect x="' + rx1.toFixed(1) + '" y="' + y1 + '" width="' +
			(rx2 - rx1).toFixed(1) + '" height="' + (y2 - y1).toFixed(1) + '" fill="' + fill +
			'" rx="2" ry="2" fg:x="' + f.x + '" fg:w="' + w + '"' + (diff ? ' fg:d="' + f.d + '"' : '') +
			' />\n<text  x="' + (x1 + 3).toFixed(2) + '" y="' + (3 + (y1 + y2) / 2) + '" >' + esc(label) + '</text>\n</g>\n');
	}
	var head = D.flamehead.replace(/@HD@/g, String(H - ypad2 / 2)).replace(/@H@/g, String(H));
	flameEl.innerHTML = head + '<g id="frames">\n' + out.join('') + '</g>\n</svg>\n';
	api.flameframes = keep.length;
	if (typeof init === 'function') init(null);     // flame's script
	fitFlame();
}
// The flame graph's box reaches the bottom of the window and opens at
// its root: the wide frames are on screen however deep its narrow
// towers are (the SVG is as tall as the deepest stack kept).
function fitFlame() {
	var top = flameEl.getBoundingClientRect().top + window.scrollY;
	flameEl.style.maxHeight = Math.max(240, window.innerHeight - top - 8) + 'px';
	flameEl.scrollTop = D.inverted ? 0 : flameEl.scrollHeight;
}
window.addEventListener('resize', function () { if (flameEl.firstChild) fitFlame(); });

document.addEventListener('keydown', function (e) {
	if (e.key == 'Escape') { clearSel(); msg('Selection cleared.'); }
});
document.getElementById('clear').addEventListener('click', function () { clearSel(); msg('Selection cleared.'); });
clearSel();
msg((D.weighted ? D.total + ' samples (' + D.nsamples + ' records)' : D.nsamples + ' samples') + ', ' + C + ' seconds, ' + R + ' rows of ' + (1000 / R).toFixed(3).replace(/\.?0+$/, '') +
	' ms; busiest cell ' + M + '. Hover a cell for its count; click a start cell, then an end cell.');
api.ready = true;
})();
