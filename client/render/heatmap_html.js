// staprelay heatmap page.  Source of client/render/heatmap_html_js.c: after
// an edit run  python3 client/render/html_embed.py  (no double quotes or
// backslashes needed here; the generator escapes them anyway).
(function () {
'use strict';
var US = 1000000;
var msgEl = document.getElementById('msg');
var detEl = document.getElementById('details');
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
var cw = D.cw, ch = D.ch, left = 50, top = 10;
var hm = document.getElementById('hm');
var W = left + cw * C + 10, H = top + ch * R + 36;
hm.setAttribute('width', W);
hm.setAttribute('height', H);
(function () {
	var h = [];
	for (var c = 0; c < C; c++)
		for (var r = 0; r < R; r++)
			h.push('<rect class=cell data-c=' + c + ' data-r=' + r + ' x=' + (left + cw * c) + ' y=' + (top + ch * r) +
				' width=' + cw + ' height=' + ch + ' fill=' + color(value(c, r)) + ' />');
	var step = R >= 20 ? Math.floor(R / 10) : 1;
	for (var r2 = 0; r2 < R; r2 += step)
		h.push('<text x=' + (left - 4) + ' y=' + (top + ch * r2 + ch) + ' text-anchor=end>' + rowLabel(r2) + '</text>');
	var cs = C > 60 ? 10 : C > 20 ? 5 : 1;
	for (var c2 = 0; c2 < C; c2 += cs)
		h.push('<text x=' + (left + cw * c2) + ' y=' + (top + ch * R + 12) + '>' + c2 + '</text>');
	h.push('<text x=' + left + ' y=' + (top + ch * R + 28) + '>seconds since ' + absTime(0) + ' (rows: millisecond offset)</text>');
	h.push('<g id=sel></g>');
	hm.innerHTML = h.join('');
})();
var selG = document.getElementById('sel');

function cellAt(el) {
	if (!el || !el.getAttribute || el.getAttribute('data-c') === null) return null;
	return { c: +el.getAttribute('data-c'), r: +el.getAttribute('data-r') };
}
hm.addEventListener('mouseover', function (e) {
	var x = cellAt(e.target);
	if (x) detEl.textContent = 'second: ' + x.c + ', millisecond: ' + rowLabel(x.r) + ', count: ' + value(x.c, x.r);
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
function describe(rg) {
	return secs(rg.s) + ' s to ' + secs(rg.e) + ' s (' + absTime(rg.s) + ' to ' + absTime(rg.e) + ')';
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
			describe(base) + ', ' + b.v + ' samples (red: more than the first range, scaled to this total; blue: less).';
		msg('Differential drawn. Click a cell to start a new selection; Esc clears.');
		draw(t, b, t.v / b.v);
	} else {
		flameHead.textContent = 'Flame graph of ' + describe(rg) + ': ' + t.v + ' samples.';
		msg('Flame graph drawn. Select a second range to compare with this one; Esc clears.');
		draw(t, null, 1);
	}
}

// ---- flame graph (flamegraph.pl geometry: 1200 wide, 16 per frame) -----
function hot(name) {
	var h = 0;
	for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
	var v1 = (h & 255) / 255, v2 = ((h >>> 8) & 255) / 255, v3 = ((h >>> 16) & 255) / 255;
	return 'rgb(' + (205 + Math.floor(50 * v3)) + ',' + Math.floor(230 * v1) + ',' + Math.floor(55 * v2) + ')';
}
function diffColor(d, maxd) {
	if (d == 0 || maxd == 0) return 'rgb(250,250,250)';
	var c = Math.floor(210 * (maxd - Math.abs(d)) / maxd);
	return d > 0 ? 'rgb(255,' + c + ',' + c + ')' : 'rgb(' + c + ',' + c + ',255)';
}
function fmt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
function draw(root, base, scale) {
	var FW = 1200, FH = 16, pad = 10, fs = 12, fwid = 0.59;
	var frames = [], maxdep = 0, maxd = 0, total = root.v;
	function walk(nd, bn, x, dep) {
		var w = nd.v / total * (FW - 2 * pad);
		if (w < 0.1) return;
		var d = null;
		if (base) { d = Math.round(nd.v - (bn ? bn.v : 0) * scale); if (Math.abs(d) > maxd) maxd = Math.abs(d); }
		frames.push({ n: nd.n, v: nd.v, d: d, x: x, w: w, dep: dep });
		if (dep > maxdep) maxdep = dep;
		if (!nd.k) return;
		var names = Object.keys(nd.k).sort(), cx = x;
		for (var i = 0; i < names.length; i++) {
			var c = nd.k[names[i]];
			walk(c, bn && bn.k ? bn.k[names[i]] : null, cx, dep + 1);
			cx += c.v / total * (FW - 2 * pad);
		}
	}
	walk(root, base, pad, 0);
	var ns = 'http://www.w3.org/2000/svg', hgt = (maxdep + 1) * FH + 20;
	var svg = document.createElementNS(ns, 'svg');
	svg.setAttribute('width', FW);
	svg.setAttribute('height', hgt);
	svg.setAttribute('id', 'flamesvg');
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], g = document.createElementNS(ns, 'g');
		g.setAttribute('class', 'frame');
		g.setAttribute('data-name', f.n);
		g.setAttribute('data-v', f.v);
		if (f.d !== null) g.setAttribute('data-d', f.d);
		var title = document.createElementNS(ns, 'title');
		title.textContent = f.n + ' (' + fmt(f.v) + ' samples, ' + (100 * f.v / total).toFixed(2) + '%' +
			(f.d !== null ? '; ' + (f.d > 0 ? '+' : '') + fmt(f.d) + ' against the first range' : '') + ')';
		g.appendChild(title);
		var y = hgt - 10 - (f.dep + 1) * FH;
		var rect = document.createElementNS(ns, 'rect');
		rect.setAttribute('x', f.x.toFixed(1));
		rect.setAttribute('y', y);
		rect.setAttribute('width', f.w.toFixed(1));
		rect.setAttribute('height', FH - 1);
		rect.setAttribute('rx', 2);
		rect.setAttribute('fill', f.d !== null ? diffColor(f.d, maxd) : hot(f.n));
		g.appendChild(rect);
		var chars = Math.floor(f.w / (fs * fwid));
		if (chars >= 3) {
			var text = document.createElementNS(ns, 'text');
			text.setAttribute('x', (f.x + 3).toFixed(1));
			text.setAttribute('y', y + 11.5);
			text.textContent = f.n.length <= chars ? f.n : f.n.slice(0, chars - 2) + '..';
			g.appendChild(text);
		}
		svg.appendChild(g);
	}
	svg.addEventListener('mouseover', function (e) {
		var g2 = e.target.parentNode;
		if (g2 && g2.getAttribute && g2.getAttribute('class') == 'frame')
			detEl.textContent = g2.querySelector('title').textContent;
	});
	flameEl.innerHTML = '';
	flameEl.appendChild(svg);
}

document.addEventListener('keydown', function (e) {
	if (e.key == 'Escape') { clearSel(); msg('Selection cleared.'); }
});
document.getElementById('clear').addEventListener('click', function () { clearSel(); msg('Selection cleared.'); });
clearSel();
msg((D.weighted ? D.total + ' samples (' + D.nsamples + ' records)' : D.nsamples + ' samples') + ', ' + C + ' seconds, ' + R + ' rows of ' + (1000 / R).toFixed(3).replace(/\.?0+$/, '') +
	' ms; busiest cell ' + M + '. Hover a cell for its count; click a start cell, then an end cell.');
api.ready = true;
})();
