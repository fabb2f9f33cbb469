// qa 722's browser half: the live page.  Phases, each ended by a file
// in DIR that the shell waits for (it restarts pmcd, then the server):
//   1. heat map columns appear as samples arrive; the hot functions
//      show in the flame graph of the window           -> DIR/phase1
//   2. (pmcd restarted) the gap is shown; columns after it arrive
//                                                      -> DIR/phase2
//   3. (staprelay web restarted on the same port) the page says it
//      reconnects, is connected again, and columns keep coming
// usage: node t722.js URL DIR SHOT
'use strict';
const L = require('./lib.js');
const fs = require('fs');
const [url, dir, shot] = process.argv.slice(2);
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
async function waitFile(f, s) {
    const end = Date.now() + s * 1000;
    while (!fs.existsSync(f)) {
        if (Date.now() > end) throw new Error(f + ' did not appear in ' + s + ' s');
        await new Promise((r) => setTimeout(r, 100));
    }
}

L.run(async () => {
    const origin = new URL(url).origin + '/';
    const { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    await L.until(page, 'live: connected', () => /live: connected/.test(document.getElementById('conn').textContent), null, 60);
    console.log('the page says: live: connected');
    const c0 = await L.until(page, 'a first column', () => window.staprelay_web.heatmap.columns > 0 && window.staprelay_web.heatmap.columns, null, 60);
    const c1 = await L.until(page, 'three more columns', (c0) => window.staprelay_web.heatmap.columns >= c0 + 3 && window.staprelay_web.heatmap.columns, c0, 60);
    console.log('heat map columns appear as samples arrive');
    const hot = await L.until(page, 'hot_multiply and hot_hash in the flame graph', () => {
        const names = [...document.querySelectorAll('#viewbody svg.flame g.f')].map((g) => g.dataset.n);
        return names.includes('hot_multiply') && names.includes('hot_hash') && names;
    }, null, 60);
    console.log('the flame graph shows hot_multiply and hot_hash');
    if (shot) await page.screenshot({ path: shot });
    fs.writeFileSync(dir + '/phase1', '');

    // pmcd restarts
    const g = await L.until(page, 'the gap shown', () => { const t = document.getElementById('gapstate').textContent; return /^gap /.test(t) && window.staprelay_web.heatmap.gaps > 0 && t; }, null, 90);
    console.log('the page shows the gap: ' + g.replace(/[0-9]{2}:[0-9]{2}:[0-9]{2}/g, 'TIME'));
    await waitFile(dir + '/pmcd.back', 120);
    const closed = await L.until(page, 'the gap closed', () => { const t = document.getElementById('gapstate').textContent; return / to [0-9:]+: /.test(t) && t; }, null, 120);
    console.log('and its end: ' + closed.replace(/[0-9]{2}:[0-9]{2}:[0-9]{2}/g, 'TIME'));
    const gapEnd = await page.evaluate(() => { const a = window.staprelay_web; return a.info && a.info.gaps && a.info.gaps.length ? a.info.gaps[a.info.gaps.length - 1].to_ns : null; });
    await L.until(page, 'columns after the gap', (e) => window.staprelay_web.lastColumnSec > Math.floor(e / 1e9) + 1, gapEnd, 120);
    console.log('columns after the gap arrive');
    fs.writeFileSync(dir + '/phase2', '');

    // the server restarts on the same port
    await L.until(page, 'the page says it reconnects', () => /reconnecting/.test(document.getElementById('conn').textContent), null, 60);
    console.log('the page says: reconnecting to the server...');
    await waitFile(dir + '/web.back', 120);
    await L.until(page, 'connected again', () => /live: connected/.test(document.getElementById('conn').textContent) && window.staprelay_web.opens >= 2, null, 120);
    console.log('the page says: live: connected (again, by itself)');
    const before = await page.evaluate(() => window.staprelay_web.lastColumnSec);
    await L.until(page, 'new columns from the new server', (b) => window.staprelay_web.lastColumnSec > b, before, 90);
    console.log('new columns keep coming');
    sayIf(L.foreign(log, origin).length === 0, 'network: every request went to the server', 'requests elsewhere: ' + L.foreign(log, origin));
    sayIf(log.errors.length === 0, 'no script errors', 'script errors: ' + log.errors.join('; '));
    await browser.close();
});
