// qa 720's browser half: the page of `staprelay web -a ARCHIVE` in
// Chromium.  A mouse drag over heat map cells selects a range; the
// flame graph drawn for it, the top table and the sandwich are checked
// against `staprelay fold -a ARCHIVE -S -T` of the same window (run
// here, TZ=UTC); the network log holds only the server.
// usage: node t720.js URL STAPRELAY ARCHIVE METRIC SHOTFILE
'use strict';
const L = require('./lib.js');
const { execFileSync } = require('child_process');
const [url, sr, arch, metric, shot] = process.argv.slice(2);

function pcpTime(t) {        // "S.UUUUUU" epoch -> PCP's "@ctime" (UTC)
    const [s, f] = t.split('.');
    const d = new Date(+s * 1000);
    const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
    const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
    const p = (n) => String(n).padStart(2, '0');
    return '@' + day + ' ' + mon + ' ' + p(d.getUTCDate()) + ' ' + p(d.getUTCHours()) + ':' + p(d.getUTCMinutes()) + ':' +
        p(d.getUTCSeconds()) + '.' + (f || '0').padEnd(6, '0') + ' ' + d.getUTCFullYear();
}
function fold(start, end) {
    return execFileSync(sr, ['fold', '-a', arch, '-S', pcpTime(start), '-T', pcpTime(end), metric],
        { env: Object.assign({}, process.env, { TZ: 'UTC' }), encoding: 'utf8' });
}
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }

L.run(async () => {
    const origin = new URL(url).origin + '/';
    const { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    const hm = await page.evaluate(() => window.staprelay_web.heatmap);
    console.log('heat map: ' + (hm.columns >= 10 ? 'at least 10 columns' : hm.columns + ' columns') + ', no column without data: ' + (hm.nodata === 0));
    const ax = await page.evaluate(() => window.staprelay_web.axis);
    // from millisecond 100 of the 3rd second to millisecond 700 of the 12th
    await L.dragCells(page, [ax.t0 + 2, 44], [ax.t0 + 11, 14]);
    await L.until(page, 'a flame graph of the selection', () => {
        const a = window.staprelay_web;
        return a.lastDraw && a.lastDraw.view === 'flame' && /start=/.test(location.search) && document.querySelector('#viewbody svg.flame') && a.lastDraw.total > 0;
    }, null, 60);
    const sel = await page.evaluate(() => { const p = new URLSearchParams(location.search); return { start: p.get('start'), end: p.get('end') }; });
    const want = await page.evaluate((ax) => window.staprelay_web.cellRange(ax.t0 + 2, 44, ax.t0 + 11, 14), ax);
    sayIf(sel.start === want[0] && sel.end === want[1], 'the drag selected the cells\' range (FlameScope\'s: first cell\'s start to last cell\'s end)',
        'selected ' + JSON.stringify(sel) + ', the cells are ' + JSON.stringify(want));
    const folded = L.folded(fold(sel.start, sel.end));
    const f = await L.flame(page);
    console.log('fold of the window: ' + (folded.total > 300 ? 'more than 300 samples' : folded.total + ' samples'));
    sayIf(f.total === folded.total && f.frames[0].w === folded.total, 'the flame graph\'s total equals fold\'s of the window',
        'flame total ' + f.total + ' root ' + f.frames[0].w + ', fold ' + folded.total);
    // every frame name: the samples of the stacks through it
    const through = new Map(), self = new Map();
    for (const [s, v] of folded.stacks) {
        const fr = s.split(';');
        for (const n of new Set(fr)) through.set(n, (through.get(n) || 0) + v);
        self.set(fr[fr.length - 1], (self.get(fr[fr.length - 1]) || 0) + v);
    }
    const drawn = new Map();
    for (const fr of f.frames.slice(1)) drawn.set(fr.n, (drawn.get(fr.n) || 0) + fr.w);
    const bad = [...through].filter(([n, v]) => drawn.get(n) !== v).map(([n, v]) => n + ' ' + drawn.get(n) + '/' + v);
    sayIf(bad.length === 0 && drawn.size === through.size, 'every frame is as wide as fold says (' + through.size + ' functions)', 'frames differ: ' + bad.join(', '));
    // the same layout and colours as `staprelay flame` (the server's
    // /api/flame.svg of the selection): every frame's name, offset and
    // width in samples (flamegraph.pl's fg:x, fg:w) and its fill
    const server = await page.evaluate(async () => {
        const t = await (await fetch('/api/flame.svg?' + window.staprelay_web.selQuery())).text();
        const d = new DOMParser().parseFromString(t, 'image/svg+xml');
        return [...d.querySelectorAll('#frames g')].map((g) => { const r = g.querySelector('rect');
            return [g.querySelector('title').textContent.replace(/ \([^(]*\)$/, ''), +r.getAttribute('fg:x'), +r.getAttribute('fg:w'), r.getAttribute('fill')]; });
    });
    const mine = await page.evaluate(() => [...document.querySelectorAll('#viewbody svg.flame g.f')].map((g) =>
        [g.dataset.n, +g.dataset.x, +g.dataset.w, g.querySelector('rect').getAttribute('fill')]));
    const key = (a) => JSON.stringify(a.slice().sort());
    sayIf(server.length > 1 && key(server) === key(mine), 'the page\'s flame graph is staprelay flame\'s: the same frames at the same offsets and widths, the same colours',
        'page ' + key(mine).slice(0, 300) + ' server ' + key(server).slice(0, 300));
    if (shot) await page.screenshot({ path: shot });

    // the top table, read from the page
    await page.click('#tabs button[data-view=top]');
    await L.until(page, 'the top table', () => document.querySelectorAll('table.top tbody tr').length > 0, null, 30);
    const rows = await page.evaluate(() => [...document.querySelectorAll('table.top tbody tr')].map((tr) =>
        [...tr.children].map((td) => td.textContent)));
    const num = (t) => +t.replace(/,/g, '');
    const topBad = rows.filter((r) => num(r[1]) !== (self.get(r[0]) || 0) || num(r[3]) !== through.get(r[0]));
    sayIf(rows.length === through.size && topBad.length === 0, 'top: self and total of every function agree with the folded stacks',
        'top rows differ: ' + JSON.stringify(topBad.slice(0, 5)) + ' (' + rows.length + ' rows, ' + through.size + ' functions)');
    const selfs = rows.map((r) => num(r[1]));
    sayIf(selfs.every((v, i) => i === 0 || selfs[i - 1] >= v), 'top: sorted by self', 'not sorted by self: ' + selfs);
    await page.click('table.top th[data-sort=total]');
    const totals = await page.evaluate(() => [...document.querySelectorAll('table.top tbody tr')].map((tr) => +tr.children[3].textContent.replace(/,/g, '')));
    sayIf(totals.every((v, i) => i === 0 || totals[i - 1] >= v) && /sort=total/.test(await page.evaluate(() => location.search)),
        'top: a click on "total" sorts by total (and the URL says so)', 'not sorted by total: ' + totals);

    // sandwich of "work" (a click on its name in the table)
    await page.click('table.top td.name[data-fn="work"]');
    await L.until(page, 'the sandwich of work', () => window.staprelay_web.view && window.staprelay_web.view.view === 'sandwich' && document.querySelectorAll('#swup svg, #swdown svg').length === 2, null, 30);
    const up = await L.flame(page, '#swup svg'), down = await L.flame(page, '#swdown svg');
    const wt = through.get('work');
    sayIf(up.total === wt && down.total === wt, 'sandwich: callers and callees of work hold the ' + (wt > 0 ? 'samples through it' : 'nothing'),
        'sandwich totals ' + up.total + '/' + down.total + ', fold says ' + wt);
    // callers: main then the commands; callees: phase_a, phase_b, common
    const upNames = new Map(), downNames = new Map();
    up.frames.slice(1).forEach((x) => upNames.set(x.n, (upNames.get(x.n) || 0) + x.w));
    down.frames.slice(1).forEach((x) => downNames.set(x.n, (downNames.get(x.n) || 0) + x.w));
    let callers = new Map(), callees = new Map();
    for (const [s, v] of folded.stacks) {
        const fr = s.split(';'), i = fr.indexOf('work');
        if (i < 0) continue;
        fr.slice(0, i).forEach((n) => callers.set(n, (callers.get(n) || 0) + v));
        fr.slice(i + 1).forEach((n) => callees.set(n, (callees.get(n) || 0) + v));
    }
    const same = (a, b) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
    sayIf(same(upNames, callers) && same(downNames, callees), 'sandwich: its callers and callees are fold\'s',
        'callers ' + JSON.stringify([...upNames]) + ' vs ' + JSON.stringify([...callers]) + '; callees ' + JSON.stringify([...downNames]) + ' vs ' + JSON.stringify([...callees]));

    // the call graph: caller -> callee edges weighted by fold's stacks
    await page.click('#tabs button[data-view=graph]');
    await L.until(page, 'the call graph', () => window.staprelay_web.view && window.staprelay_web.view.view === 'graph', null, 30);
    const edges = await page.evaluate(() => [...document.querySelectorAll('table.top tbody tr')].map((tr) => [tr.children[0].textContent, tr.children[1].textContent, +tr.children[2].textContent.replace(/,/g, '')]));
    const calls = new Map();
    for (const [s, v] of folded.stacks) {
        const fr = s.split(';'), seen = new Set();
        for (let i = 0; i + 1 < fr.length; i++) { const k = fr[i] + ' -> ' + fr[i + 1]; if (!seen.has(k)) { seen.add(k); calls.set(k, (calls.get(k) || 0) + v); } }
    }
    sayIf(edges.length === calls.size && edges.every((e) => calls.get(e[0] + ' -> ' + e[1]) === e[2]), 'call graph: every call weighs what fold\'s stacks say (' + calls.size + ' calls)',
        'call graph ' + JSON.stringify(edges.slice(0, 5)) + ' vs ' + JSON.stringify([...calls].slice(0, 5)));

    // downloads of the view: the API's, for the same selection
    const dl = await page.evaluate(async () => {
        const out = {};
        for (const id of ['dl-svg', 'dl-folded', 'dl-pprof', 'dl-speedscope']) {
            const a = document.getElementById(id), r = await fetch(a.getAttribute('href'));
            const b = await r.arrayBuffer();
            out[id] = { status: r.status, type: r.headers.get('content-type'), bytes: b.byteLength, text: id === 'dl-folded' ? new TextDecoder().decode(b) : null,
                href: a.getAttribute('href') };
        }
        return out;
    });
    const dlFold = L.folded(dl['dl-folded'].text);
    sayIf(Object.values(dl).every((d) => d.status === 200 && d.bytes > 0) && dlFold.total === folded.total && /start=/.test(dl['dl-svg'].href),
        'downloads: SVG, folded (fold\'s stacks of the window), pprof, speedscope of the selection', 'downloads: ' + JSON.stringify(Object.values(dl).map((d) => [d.href, d.status, d.type, d.bytes])));

    const away = L.foreign(log, origin);
    sayIf(log.requests.length > 3 && away.length === 0, 'network: every request went to the server', 'requests elsewhere: ' + away.join(' '));
    sayIf(log.errors.length === 0, 'no script errors', 'script errors: ' + log.errors.join('; '));
    await browser.close();
});
