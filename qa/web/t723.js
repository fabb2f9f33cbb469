// qa 723's browser half: every page in a 1400x900 window.
//   web: `staprelay web`'s page: after a brush, flame frames (the root
//        and the frames above it) are on screen without scrolling, the
//        heat map's axis label is inside its canvas; a screenshot of it
//        is written to SHOT (the test copies it to docs/web.png)
//   live: `staprelay live --dir`'s index.html: flame.svg's root frame is
//        on screen without scrolling
//   heatmap: `staprelay heatmap`'s page: after a selection, the in-page
//        flame graph's root frame is on screen without scrolling
//   svg: a narrow heatmap.svg: its title is inside the image
// The files are served from WWW by a static server here (loopback), so
// the page can read flame.svg's document inside its <object>.
// usage: node t723.js WEBURL WWW SHOT
'use strict';
const L = require('./lib.js');
const http = require('http'), fs = require('fs'), path = require('path');
const [webUrl, www, shot] = process.argv.slice(2);
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
const onScreen = (b) => b && b[1] >= 0 && b[3] <= L.H && b[0] >= 0 && b[2] <= L.W;

function serve(dir) {
    const types = { '.html': 'text/html', '.svg': 'image/svg+xml' };
    const srv = http.createServer((q, r) => {
        const f = path.join(dir, path.basename(decodeURIComponent(new URL(q.url, 'http://x').pathname)));
        // the heat map's image comes last, as it did in a CI run: it
        // moves the flame graph's box down after flame.svg has loaded
        const late = path.basename(f) === 'heatmap.svg' ? 1000 : 0;
        fs.readFile(f, (e, b) => setTimeout(() => {
            if (e) { r.writeHead(404); r.end(); return; }
            r.writeHead(200, { 'Content-Type': types[path.extname(f)] || 'text/plain' });
            r.end(b);
        }, late));
    });
    return new Promise((ok) => srv.listen(0, '127.0.0.1', () => ok(srv)));
}

L.run(async () => {
    console.log('== staprelay web');
    let { browser, page, log } = await L.open(webUrl);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    // a chart of the run queue, if the host has one
    // a chart of the run queue over the heat map (pmdalinux in the pmcd)
    const pm = await page.evaluate(() => window.staprelay_web.pmns);
    sayIf(pm > 0, 'web: the host\'s namespace is offered', 'web: no namespace from /api/pmns');
    await page.type('#addchart', 'kernel.all.runnable');
    await page.click('#addchartbtn');
    await L.until(page, 'the chart has points', () => { const d = document.querySelector('.chart'); return d && +d.dataset.points >= 6; }, null, 90);
    const chart = await page.evaluate(() => { const c = document.querySelector('.chart canvas').getBoundingClientRect(), h = document.getElementById('hm').getBoundingClientRect(); return [c.left, c.width, h.left, h.width, c.bottom <= h.top]; });
    sayIf(chart[0] === chart[2] && chart[1] === chart[3] && chart[4], 'web: the chart sits over the heat map on the same time axis', 'web: chart ' + JSON.stringify(chart));
    // a drag across the chart selects that time range, for the heat map
    // and the views too
    const cb = await page.evaluate(() => { const a = window.staprelay_web.axis, c = document.querySelector('.chart canvas').getBoundingClientRect();
        return { left: c.left, top: c.top, h: c.height, t0: a.t0, n: a.n, cw: a.cw }; });
    const xa = cb.left + 58 + (cb.n - 7.5) * cb.cw, xb = cb.left + 58 + (cb.n - 2.25) * cb.cw;
    await page.evaluate(() => { document.getElementById('follow').click(); });     // hold the axis still
    await page.mouse.move(xa, cb.top + cb.h / 2);
    await page.mouse.down();
    await page.mouse.move(xb, cb.top + cb.h / 2, { steps: 4 });
    await page.mouse.up();
    await L.until(page, 'the chart\'s selection drawn', () => /start=/.test(location.search) && window.staprelay_web.lastDraw && window.staprelay_web.lastDraw.total > 0, null, 60);
    const csel = await page.evaluate(() => { const p = new URLSearchParams(location.search); return [+p.get('start'), +p.get('end')]; });
    const want = [cb.t0 + (xa - cb.left - 58) / cb.cw, cb.t0 + (xb - cb.left - 58) / cb.cw];
    // (to a pixel: the mouse events' coordinates are whole pixels)
    const px = 1.5 / cb.cw;
    sayIf(Math.abs(csel[0] - want[0]) < px && Math.abs(csel[1] - want[1]) < px, 'web: a drag across the chart selects its time range (the views follow)',
        'web: chart drag selected ' + csel + ', the axis says ' + want);
    await page.evaluate(() => { document.getElementById('follow').click(); });
    const ax = await page.evaluate(() => window.staprelay_web.axis);
    const last = await page.evaluate(() => window.staprelay_web.heatmap.t0 + window.staprelay_web.heatmap.n - 1);
    await L.dragCells(page, [last - 8, 49], [last - 1, 0]);
    await L.until(page, 'the flame graph of the selection', () => /start=/.test(location.search) && window.staprelay_web.lastDraw &&
        window.staprelay_web.lastDraw.total > 0 && document.querySelector('#viewbody svg.flame'), null, 60);
    const f = await L.flame(page);
    const seen = f.frames.filter((x) => onScreen(x.box));
    sayIf(onScreen(f.frames[0].box) && seen.length >= Math.min(5, f.frames.length), 'web: the flame graph\'s root and frames are on screen',
        'web: ' + seen.length + ' of ' + f.frames.length + ' frames on screen, root at ' + JSON.stringify(f.frames[0].box));
    const hm = await page.evaluate(() => { const b = document.getElementById('hm').getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; });
    sayIf(hm[3] <= L.H * 0.6, 'web: the heat map is in the upper part of the window', 'web: the heat map ends at ' + hm[3]);
    const scroll = await page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight && document.documentElement.scrollWidth <= window.innerWidth);
    sayIf(scroll, 'web: the page itself does not scroll', 'web: the page scrolls');
    await page.evaluate(() => { document.getElementById('hmdetails').textContent = ' '; });
    if (shot) await page.screenshot({ path: shot });
    sayIf(log.errors.length === 0, 'web: no script errors', 'web: ' + log.errors.join('; '));
    await browser.close();

    const srv = await serve(www);
    const base = 'http://127.0.0.1:' + srv.address().port + '/';
    console.log('== live --dir: index.html');
    ({ browser, page, log } = await L.open(null));
    // the copy without its refresh (it would reload under the test)
    fs.writeFileSync(path.join(www, 'qa-index.html'), fs.readFileSync(path.join(www, 'index.html'), 'utf8').replace(/<meta http-equiv="refresh"[^>]*>/, ''));
    await page.goto(base + 'qa-index.html', { waitUntil: 'load' });
    const root = await L.until(page, 'flame.svg in its object', () => {
        const o = document.querySelector('object'), d = o && o.contentDocument;
        if (!d || !d.querySelector('#frames')) return null;
        const ob = o.getBoundingClientRect();
        const rects = [...d.querySelectorAll('#frames g')].map((g) => ({ t: g.querySelector('title').textContent, r: g.querySelector('rect').getBoundingClientRect() }));
        const box = (r) => [ob.left + r.left, ob.top + r.top, ob.left + r.right, ob.top + r.bottom];
        const all = rects.find((x) => /^all /.test(x.t));
        return all ? { root: box(all.r), wide: rects.filter((x) => x.r.width > 50).map((x) => box(x.r)) } : null;
    }, null, 30);
    // frames in the object are in the SVG's own coordinates; the box
    // clips and scrolls them: what shows is what is inside the box
    const vis = await page.evaluate(() => { const b = document.querySelector('object').parentNode.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; });
    console.error('live: root frame and its box (debug)', JSON.stringify(root.root), JSON.stringify(vis));
    const inBox = (r) => r[1] >= vis[1] - 1 && r[3] <= vis[3] + 1;
    sayIf(onScreen(vis.map((v, i) => i === 3 ? Math.min(v, L.H) : v)) && inBox(root.root) && root.root[3] <= L.H,
        'live: flame.svg\'s root frame is on screen', 'live: root frame at ' + JSON.stringify(root.root) + ', its box ' + JSON.stringify(vis));
    sayIf(root.wide.filter((r) => inBox(r) && r[3] <= L.H).length >= 3, 'live: its wide frames are on screen', 'live: wide frames off screen');
    await browser.close();

    console.log('== heatmap: the page');
    ({ browser, page, log } = await L.open(base + 'heatmap-page.html'));
    await L.until(page, 'the heat map page', () => window.staprelay_heatmap && window.staprelay_heatmap.ready, null, 30);
    await page.evaluate(() => { const h = window.staprelay_heatmap; h.select(0, h.data.cols * 1e6); });
    const hroot = await L.until(page, 'its flame graph', () => {
        const g = [...document.querySelectorAll('#flame #frames g')].find((x) => /^all /.test(x.querySelector('title').textContent));
        if (!g) return null;
        const r = g.querySelector('rect').getBoundingClientRect(), b = document.getElementById('flame').getBoundingClientRect();
        return { r: [r.left, r.top, r.right, r.bottom], b: [b.left, b.top, b.right, b.bottom] };
    }, null, 30);
    sayIf(hroot.r[3] <= L.H && hroot.r[1] >= hroot.b[1] - 1 && hroot.r[3] <= hroot.b[3] + 1, 'heatmap: the flame graph\'s root frame is on screen',
        'heatmap: root frame at ' + JSON.stringify(hroot.r) + ', its box ' + JSON.stringify(hroot.b));
    await browser.close();

    console.log('== heatmap: a narrow SVG');
    ({ browser, page, log } = await L.open(base + 'narrow.svg'));
    const t = await page.evaluate(() => {
        const svg = document.documentElement, title = svg.querySelector('text'), b = title.getBBox();
        return { x0: b.x, x1: b.x + b.width, w: +svg.getAttribute('width') };
    });
    sayIf(t.x0 >= 0 && t.x1 <= t.w, 'svg: the title is inside the image', 'svg: the title spans ' + t.x0.toFixed(0) + ' to ' + t.x1.toFixed(0) + ' of ' + t.w + ' px');
    await browser.close();
    srv.close();
});
