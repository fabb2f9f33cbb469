// qa/web/lib.js: what the browser tests (qa 720-739) share.  Real
// Chromium (Debian's /usr/bin/chromium, or $QA_CHROMIUM) driven by
// puppeteer-core; a 1400x900 window; every request the page makes is
// logged so a test can say that none left the server.
'use strict';
const puppeteer = require('puppeteer-core');

const W = 1400, H = 900;

async function open(url, opts) {
    opts = opts || {};
    const browser = await puppeteer.launch({
        executablePath: process.env.QA_CHROMIUM || '/usr/bin/chromium',
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
               '--no-first-run', '--disable-background-networking',
               '--disable-component-update', '--disable-sync',
               '--window-size=' + W + ',' + H],
        defaultViewport: { width: W, height: H },
        protocolTimeout: 180000,
    });
    const page = await browser.newPage();
    const log = { requests: [], errors: [], console: [] };
    page.on('request', (r) => log.requests.push(r.url()));
    page.on('pageerror', (e) => log.errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') log.console.push(m.text()); });
    page.setDefaultTimeout(120000);
    if (url) await page.goto(url, { waitUntil: 'load' });
    return { browser, page, log };
}

// wait until fn (run in the page) returns a truthy value; bounded, never
// a fixed sleep.  Returns the value, or throws naming what was awaited.
async function until(page, what, fn, arg, seconds) {
    const end = Date.now() + (seconds || 60) * 1000;
    let last;
    for (;;) {
        try { last = await page.evaluate(fn, arg); } catch (e) { last = undefined; }
        if (last) return last;
        if (Date.now() > end) throw new Error('not true after ' + (seconds || 60) + ' s: ' + what);
        await new Promise((r) => setTimeout(r, 100));
    }
}

// the requests that went anywhere but origin (data: and blob: are local)
function foreign(log, origin) {
    return log.requests.filter((u) => !u.startsWith(origin) && !/^(data|blob|about):/.test(u));
}

// drag with the mouse from one heat map cell to another: (second, row)
async function dragCells(page, a, b) {
    const p = await page.evaluate((a, b) => {
        const c = document.getElementById('hm'), r = c.getBoundingClientRect(), ax = window.staprelay_web.axis;
        c.scrollIntoView({ block: 'nearest', inline: 'nearest' });
        const at = (s, row) => ({ x: r.left + 58 + (s - ax.t0 + 0.5) * ax.cw, y: r.top + row * 4 + 2 });
        return [at(a[0], a[1]), at(b[0], b[1])];
    }, a, b);
    await page.mouse.move(p[0].x, p[0].y);
    await page.mouse.down();
    await page.mouse.move((p[0].x + p[1].x) / 2, (p[0].y + p[1].y) / 2, { steps: 3 });
    await page.mouse.move(p[1].x, p[1].y, { steps: 3 });
    await page.mouse.up();
}

// the flame graph as drawn: its root's samples and its frames
async function flame(page, sel) {
    return page.evaluate((sel) => {
        const svg = document.querySelector(sel || '#viewbody svg.flame');
        if (!svg) return null;
        const frames = [...svg.querySelectorAll('g.f')].map((g) => ({
            n: g.dataset.n, w: +g.dataset.w, dep: +g.dataset.dep,
            d: g.dataset.d === undefined ? null : +g.dataset.d,
            fill: g.querySelector('rect').getAttribute('fill'),
            box: (() => { const b = g.querySelector('rect').getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })(),
        }));
        return { total: +svg.dataset.total, frames };
    }, sel);
}

function folded(text) {       // "a;b 3" lines -> {stacks: Map, total}
    const m = new Map();
    let total = 0;
    for (const l of text.split('\n')) {
        if (!l) continue;
        const i = l.lastIndexOf(' ');
        const v = +l.slice(i + 1);
        m.set(l.slice(0, i), (m.get(l.slice(0, i)) || 0) + v);
        total += v;
    }
    return { stacks: m, total };
}

// run main(); any failure is one line on stdout (the golden diff shows
// it) and a non-zero exit
function run(main) {
    main().then(() => process.exit(0), (e) => {
        console.log('FAIL: ' + (e && e.message ? e.message : e));
        if (e && e.stack) console.error(e.stack);
        process.exit(1);
    });
}

module.exports = { open, until, foreign, dragCells, flame, folded, run, W, H };
