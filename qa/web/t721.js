// qa 721's browser half: filters and the URL round trip, and the diff
// of two windows of a workload that changes phase.  The expectations
// come from `staprelay fold -a ARCHIVE -S -T` of the same windows,
// filtered and diffed here by the rules the page states (pprof's focus/
// ignore; `diff`'s normalisation: floor(before * after_total /
// before_total)).
// usage: node t721.js URL STAPRELAY ARCHIVE METRIC
'use strict';
const L = require('./lib.js');
const { execFileSync } = require('child_process');
const [url, sr, arch, metric] = process.argv.slice(2);

function pcpTime(t) {
    const [s, f] = t.split('.');
    const d = new Date(+s * 1000), p = (n) => String(n).padStart(2, '0');
    return '@' + ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()] + ' ' +
        ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()] + ' ' +
        p(d.getUTCDate()) + ' ' + p(d.getUTCHours()) + ':' + p(d.getUTCMinutes()) + ':' + p(d.getUTCSeconds()) + '.' +
        (f || '0').padEnd(6, '0') + ' ' + d.getUTCFullYear();
}
const fold = (s, e) => L.folded(execFileSync(sr, ['fold', '-a', arch, '-S', pcpTime(s), '-T', pcpTime(e), metric],
    { env: Object.assign({}, process.env, { TZ: 'UTC' }), encoding: 'utf8' }));
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
const widths = (f) => { const m = new Map(); f.frames.slice(1).forEach((x) => m.set(x.n, (m.get(x.n) || 0) + x.w)); return m; };
const through = (stacks) => { const m = new Map(); for (const [s, v] of stacks) for (const n of new Set(s.split(';'))) m.set(n, (m.get(n) || 0) + v); return m; };
const same = (a, b) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
const show = (m) => JSON.stringify([...m].sort());
const drawn = (page) => L.until(page, 'a drawn view', () => {
    const a = window.staprelay_web;
    return a.ready && a.lastDraw && a.lastDraw.total > 0 && document.querySelector('#viewbody svg.flame') && a.lastDraw;
}, null, 60);

L.run(async () => {
    const origin = new URL(url).origin + '/';
    let { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    const ax = await page.evaluate(() => window.staprelay_web.axis);
    const n = ax.n;
    // phase b: the last third of the archive
    const b0 = ax.t0 + Math.ceil(n * 0.62), b1 = ax.t0 + n - 3;
    await L.dragCells(page, [b0, 49], [b1, 0]);
    await L.until(page, 'the selection', () => /start=/.test(location.search), null, 30);

    console.log('== filters set in the page');
    await page.type('#filters input[name=focus]', 'work');
    await page.type('#filters input[name=ignore]', 'common');
    await page.type('#filters input[name=comm]', 'app');
    await page.click('#filters button[type=submit]');
    await page.click('#icicle');
    await page.type('#search', 'spin');
    await L.until(page, 'the filtered flame graph', () => /focus=work/.test(location.search) && /q=spin/.test(location.search) &&
        window.staprelay_web.lastDraw && window.staprelay_web.lastDraw.total > 0, null, 60);
    await drawn(page);
    const link = await page.evaluate(() => location.href);
    const sel = await page.evaluate(() => { const p = new URLSearchParams(location.search); return [p.get('start'), p.get('end')]; });
    const f1 = await L.flame(page);
    const want = new Map([...fold(sel[0], sel[1]).stacks].filter(([s]) => /work/.test(s) && !/common/.test(s) && s.split(';')[0] === 'app'));
    const wantW = through(want);
    sayIf(same(widths(f1), wantW), 'the flame graph is fold\'s window with focus=work, ignore=common, comm=app',
        'drawn ' + show(widths(f1)) + ', wanted ' + show(wantW));
    const m1 = await page.$eval('#matched', (e) => e.textContent);
    const spin = [...want].filter(([s]) => /spin/.test(s)).reduce((a, [, v]) => a + v, 0);
    const tot = [...want].reduce((a, [, v]) => a + v, 0);
    sayIf(m1 === 'Matched: ' + (100 * spin / tot).toFixed(2) + '%', 'search "spin": Matched % is the share of the stacks through a match',
        'matched text "' + m1 + '", wanted ' + (100 * spin / tot).toFixed(2) + '%');
    const ys = f1.frames.map((x) => x.box[1]);
    sayIf(f1.frames[0].box[1] === Math.min(...ys), 'icicle: the root on top', 'the root is not on top');
    const url1 = new URL(link);
    console.log('the URL holds: ' + ['start', 'end', 'focus', 'ignore', 'comm', 'icicle', 'q'].filter((k) => url1.searchParams.get(k)).join(' '));

    console.log('== the link in a new browser');
    await browser.close();
    ({ browser, page, log } = await L.open(link));
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    await drawn(page);
    const f2 = await L.flame(page);
    sayIf(same(widths(f2), widths(f1)) && f2.frames.length === f1.frames.length, 'the same flame graph', 'another flame graph: ' + show(widths(f2)));
    const form = await page.evaluate(() => ['focus', 'ignore', 'comm'].map((k) => document.querySelector('#filters input[name=' + k + ']').value).join(' ') +
        ' icicle=' + document.getElementById('icicle').checked + ' search=' + document.getElementById('search').value);
    console.log('its controls: ' + form);
    const m2 = await page.$eval('#matched', (e) => e.textContent);
    sayIf(m2 === m1, 'the same Matched %', 'matched ' + m2 + ' after ' + m1);
    sayIf((await page.evaluate(() => location.href)) === link, 'the same URL', 'the URL changed');

    console.log('== zoom');
    await page.evaluate(() => { const g = [...document.querySelectorAll('#viewbody svg.flame g.f')].find((x) => x.dataset.n === 'phase_b'); g.dispatchEvent(new MouseEvent('click', { bubbles: true })); });
    await L.until(page, 'zoomed', () => /zoom=/.test(location.search) && document.querySelector('#viewbody svg.flame g.f.dim'), null, 30);
    const z = await L.flame(page);
    const zb = z.frames.find((x) => x.n === 'phase_b'), W = await page.$eval('#viewbody svg.flame', (e) => +e.getAttribute('width'));
    sayIf(zb && zb.box[2] - zb.box[0] > W - 30 && z.frames.every((x) => ['all', 'app', 'main', 'work', 'phase_b', 'spin_b'].includes(x.n)),
        'a click on phase_b zooms to it: full width, only it, its callees and (dimmed) callers', 'zoomed frames ' + JSON.stringify(z.frames.map((x) => [x.n, Math.round(x.box[2] - x.box[0])])));
    const zlink = await page.evaluate(() => location.href);
    const p2 = await browser.newPage();
    await p2.setViewport({ width: L.W, height: L.H });
    await p2.goto(zlink, { waitUntil: 'load' });
    await drawn(p2);
    const z2 = await L.flame(p2);
    sayIf(JSON.stringify(z2.frames.map((x) => [x.n, x.box])) === JSON.stringify(z.frames.map((x) => [x.n, x.box])), 'the zoomed link reproduces the zoom', 'the zoomed link draws another graph');
    await p2.close();
    await page.click('#unzoom');

    console.log('== diff of two windows (phase a, then phase b)');
    await page.click('#clearfilters');
    await page.click('#icicle');
    await page.evaluate(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); });
    const a0 = ax.t0 + 2, a1 = ax.t0 + Math.floor(n * 0.38);
    await L.dragCells(page, [a0, 49], [a1, 0]);
    await L.until(page, 'the first window', () => { const p = new URLSearchParams(location.search); return p.get('start') && !p.get('focus'); }, null, 30);
    await page.click('#baseline');
    await L.dragCells(page, [b0, 49], [b1, 0]);
    await page.click('#tabs button[data-view=diff]');
    await L.until(page, 'the diff', () => { const a = window.staprelay_web; return a.view && a.view.view === 'diff' && a.view.base > 0 && new URLSearchParams(location.search).get('bstart'); }, null, 60);
    const d = await L.flame(page);
    const q = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
    const A = fold(q.bstart, q.bend), B = fold(q.start, q.end);
    const leaf = (f, n) => f.frames.find((x) => x.n === n);
    // the delta on each stack's own leaf: `diff`'s rule
    const delta = (s, abs) => (B.stacks.get(s) || 0) - (abs ? (A.stacks.get(s) || 0) : Math.floor((A.stacks.get(s) || 0) * B.total / A.total));
    const sb = leaf(d, 'spin_b'), sa = leaf(d, 'spin_a');
    const red = (fill) => /^rgb\(255,(\d+),\1\)$/.test(fill) && +fill.match(/\d+/g)[1] < 210;
    sayIf(sb && sb.d === delta('app;main;work;phase_b;spin_b') && sb.d > 0 && red(sb.fill), 'normalised: spin_b grew, red, by fold\'s numbers',
        'spin_b ' + JSON.stringify(sb) + ', wanted delta ' + delta('app;main;work;phase_b;spin_b'));
    sayIf(!sa || sa.w === 0, 'spin_a is gone from the second window (no width)', 'spin_a ' + JSON.stringify(sa));
    // the same frames, offsets, widths and red/blue as the server's
    // `diff` (/api/diff.svg, the SVG download)
    const cmp = await page.evaluate(async () => {
        const t = await (await fetch(document.getElementById('dl-svg').getAttribute('href'))).text();
        const d = new DOMParser().parseFromString(t, 'image/svg+xml');
        const server = [...d.querySelectorAll('#frames g')].map((g) => { const r = g.querySelector('rect');
            return [g.querySelector('title').textContent.replace(/ \([^(]*\)$/, ''), +r.getAttribute('fg:x'), +r.getAttribute('fg:w'), r.getAttribute('fill')]; });
        const mine = [...document.querySelectorAll('#viewbody svg.flame g.f')].map((g) =>
            [g.dataset.n, +g.dataset.x, +g.dataset.w, g.querySelector('rect').getAttribute('fill')]);
        return [server, mine];
    });
    const key = (a) => JSON.stringify(a.slice().sort());
    sayIf(cmp[0].length > 1 && key(cmp[0]) === key(cmp[1]), 'the page\'s diff is staprelay diff\'s: the same frames, offsets, widths and colours',
        'page ' + key(cmp[1]) + ' server ' + key(cmp[0]));
    const head = await page.$eval('#viewhead', (e) => e.textContent);
    console.log('the heading says: ' + (/normalised: the baseline scaled to this total/.test(head) ? 'normalised' : /equal totals/.test(head) ? 'equal totals' : head));
    await page.select('#dmode', 'abs');
    await L.until(page, 'the absolute diff', () => /dmode=abs/.test(location.search) && /absolute counts/.test(document.getElementById('viewhead').textContent), null, 30);
    const d2 = await L.flame(page);
    const sb2 = leaf(d2, 'spin_b'), c2 = leaf(d2, 'common');
    sayIf(sb2 && sb2.d === delta('app;main;work;phase_b;spin_b', true) && c2 && c2.d === delta('app;main;work;common', true),
        'absolute: the deltas are the counts\' differences', 'absolute deltas spin_b ' + (sb2 && sb2.d) + ' common ' + (c2 && c2.d));
    const dsvg = await page.evaluate(async () => { const h = document.getElementById('dl-svg').getAttribute('href'), r = await fetch(h), t = await r.text(); return [h, r.status, /Differential/.test(t) && /<svg/.test(t)]; });
    sayIf(/^\/api\/diff\.svg\?/.test(dsvg[0]) && dsvg[1] === 200 && dsvg[2], 'the SVG download is the server\'s differential flame graph of the same windows', 'diff download ' + JSON.stringify(dsvg));
    const link2 = await page.evaluate(() => location.href);
    await browser.close();
    ({ browser, page, log } = await L.open(link2));
    await L.until(page, 'the diff again', () => { const a = window.staprelay_web; return a.ready && a.view && a.view.view === 'diff' && a.view.base > 0; }, null, 60);
    const d3 = await L.flame(page);
    sayIf(JSON.stringify(d3.frames.map((x) => [x.n, x.w, x.d])) === JSON.stringify(d2.frames.map((x) => [x.n, x.w, x.d])), 'the diff\'s link reproduces it', 'another diff from its link');
    sayIf(L.foreign(log, origin).length === 0 && log.errors.length === 0, 'only the server on the network, no script errors', 'foreign ' + L.foreign(log, origin) + ' errors ' + log.errors);
    await browser.close();
});
