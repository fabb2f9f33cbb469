// flow.js: the layout both flame-graph pages share (the heat map page,
// heatmap_html.js, and staprelay web's page, web.js), loaded before each.
// It is flamegraph.pl's flow(): the folded lines sorted as Perl sorts
// them (bytewise, by the line's text), each frame merged with the line
// before only, so a page draws the same frames `staprelay flame` does.
'use strict';

// s as HTML text, for titles and attributes
function esc(t) { return String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'); }
// a count as flamegraph.pl prints it (thousands separated)
function fmtn(v) { return String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
// a width as the folded line carries it (the sort key's number)
function numText(v) { return String(Math.round(v * 1e6) / 1e6); }

// lines: [{s: stack, v: width, d: delta (diff only), key: the line's text}]
// -> frames [{n, x, end, dep, d}], the root (dep 0) first.  lines is not
// changed.
function flow(lines, diff) {
	lines = lines.slice().sort(function (a, b) { return a.key < b.key ? -1 : a.key > b.key ? 1 : 0; });
	var root = { n: '', x: 0, end: 0, dep: 0, d: 0 }, nodes = [root], path = [root], time = 0;
	function close(k) { while (path.length > k) { var nd = path.pop(); nd.end = time; } }
	for (var i = 0; i < lines.length; i++) {
		var fr = lines[i].s.split(';');
		while (fr.length && fr[fr.length - 1] === '') fr.pop();
		var k = 1;
		while (k < path.length && k - 1 < fr.length && path[k].n === fr[k - 1]) k++;
		close(k);
		var opened = false;
		for (var j = k - 1; j < fr.length; j++) {
			var nd = { n: fr[j], x: time, end: 0, dep: j + 1, d: 0 };
			nodes.push(nd);
			path.push(nd);
			opened = true;
		}
		if (diff && opened) path[path.length - 1].d += lines[i].d;
		time += lines[i].v;
	}
	close(1);
	root.end = time;
	return nodes;
}
