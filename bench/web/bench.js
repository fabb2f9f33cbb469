// bench/web's browser half (puppeteer-core from qa/web, Debian's chromium).
//   node bench.js file URL       page weight, time to the drawn page,
//                                brush -> drawn flame graph (1 h, 10 min, 1 min)
//   node bench.js live URL SECS  the newest sample's lag to its cell
// Prints "key value" lines for bench/web/run.
'use strict';
const L = require('../../qa/web/lib.js');
const [mode, url, secs] = process.argv.slice(2);
const med = (a) => { const b = a.slice().sort((x, y) => x - y); return b[Math.floor(b.length / 2)]; };
const pct = (a, p) => { const b = a.slice().sort((x, y) => x - y); return b[Math.min(b.length - 1, Math.floor(b.length * p))]; };

L.run(async () => {
    const t0 = Date.now();
    const { browser, page } = await L.open(null);
    const sizes = new Map();
    page.on('response', async (r) => {
        const u = new URL(r.url());
        if (u.pathname === '/' || u.pathname.startsWith('/static/')) {
            try { sizes.set(u.pathname, (await r.buffer()).length); } catch (e) { /* gone */ }
        }
    });
    await page.goto(url, { waitUntil: 'load' });
    await L.until(page, 'ready', () => window.staprelay_web && window.staprelay_web.ready, null, 300);
    console.log('ready_ms ' + (Date.now() - t0));
    console.log('page_bytes ' + [...sizes.values()].reduce((a, b) => a + b, 0) + ' ' + [...sizes].map(([k, v]) => k + '=' + v).join(','));
    if (mode === 'file') {
        const ax = await page.evaluate(() => window.staprelay_web.axis);
        const end = ax.t0 + ax.n;
        for (const [name, len] of [['hour', ax.n], ['10min', 600], ['1min', 60]]) {
            const ms = [];
            let total = 0;
            for (let k = 0; k < 3; k++) {
                const s = end - len - k, e = end - k;
                // a brush: select() is what the mouse-up calls; timed
                // in the page from the brush to the drawn flame graph
                const r = await page.evaluate((s, e) => new Promise((ok) => {
                    const a = window.staprelay_web, t = performance.now(), before = a.lastDraw;
                    a.select(String(s), String(e));
                    (function wait() {
                        if (a.lastDraw !== before && a.lastDraw && a.lastDraw.view === 'flame' && document.querySelector('#viewbody svg.flame'))
                            requestAnimationFrame(() => ok([performance.now() - t, a.lastDraw.total]));
                        else setTimeout(wait, 1);
                    })();
                }), s, e);
                ms.push(r[0]);
                total = r[1];
            }
            console.log('brush_' + name + '_ms ' + med(ms).toFixed(0) + ' samples ' + total);
        }
    } else {
        await new Promise((r) => setTimeout(r, (+secs || 30) * 1000));
        const lag = await page.evaluate(() => window.staprelay_web.lag || []);
        console.log('lag_ms ' + (lag.length ? med(lag).toFixed(0) + ' ' + pct(lag, 0.95).toFixed(0) + ' ' + Math.max(...lag).toFixed(0) + ' ' + lag.length : 'none'));
    }
    await browser.close();
});
