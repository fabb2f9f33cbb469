// qa 725's browser half: the host picker and the "by host" toggle over
// two hosts.  The expectations are `staprelay fold` outputs the bash half
// wrote (fold --by-host of both archives, fold --by-host and fold of the
// second host's alone): the page's folded text must be those bytes, and
// its flame graph's root frames the hosts with their totals.
// usage: node t725.js URL HOST1 HOST2 FOLD_BYHOST FOLD_TWO_BYHOST FOLD_TWO
'use strict';
const fs = require('fs');
const L = require('./lib.js');
const [url, h1, h2, fBh, fTwoBh, fTwo] = process.argv.slice(2);
const read = (f) => fs.readFileSync(f, 'utf8');
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
const drawnText = (page, text, what) => L.until(page, what, (t) => {
    const a = window.staprelay_web;
    return a.ready && a.folded === t && document.querySelector('#viewbody svg.flame') ? a.lastDraw : null;
}, text, 60);
// the root's children as drawn: name -> width
const rootKids = async (page) => {
    const f = await L.flame(page);
    const m = {};
    f.frames.filter((x) => x.dep === 1).forEach((x) => { m[x.n] = (m[x.n] || 0) + x.w; });
    return m;
};
const firstFrames = (text) => {
    const m = {};
    for (const [s, v] of L.folded(text).stacks) { const k = s.split(';')[0]; m[k] = (m[k] || 0) + v; }
    return m;
};
const sameObj = (a, b) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

L.run(async () => {
    const origin = new URL(url).origin + '/';
    let { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    const opts = await page.evaluate(() => [...document.querySelectorAll('#host option')].map((o) => o.value).sort());
    sayIf(JSON.stringify(opts) === JSON.stringify([h1, h2].sort()), 'host picker: both hosts',
        'host picker lists ' + JSON.stringify(opts));
    sayIf(!(await page.$eval('#byhost', (e) => e.checked)), 'by host: off at first', 'by host is on at first');

    console.log('== by host');
    await page.click('#byhost');
    await L.until(page, 'by_host=1 in the URL', () => /[?&]by_host=1(&|$)/.test(location.search), null, 30);
    await drawnText(page, read(fBh), 'the page shows fold --by-host');
    console.log('page folded: fold --by-host of both archives, byte for byte');
    let kids = await rootKids(page);
    sayIf(sameObj(kids, firstFrames(read(fBh))) && Object.keys(kids).length === 2,
        'flame graph: the two hosts are the root frames, with fold\'s totals',
        'root frames ' + JSON.stringify(kids));

    console.log('== the host picker: the second host alone');
    await page.select('#host', h2);
    await L.until(page, 'host= in the URL', (h) => new URLSearchParams(location.search).getAll('host').join() === h, h2, 30);
    await drawnText(page, read(fTwoBh), 'the page shows fold --by-host of the second host');
    console.log('page folded: fold --by-host of the second archive alone');
    kids = await rootKids(page);
    sayIf(Object.keys(kids).length === 1 && kids[h2] === L.folded(read(fTwoBh)).total,
        'flame graph: one root frame, the second host', 'root frames ' + JSON.stringify(kids));

    console.log('== the URL round trip');
    const link = await page.url();
    await page.close();
    page = await browser.newPage();
    page.on('request', (r) => log.requests.push(r.url()));
    await page.setViewport({ width: L.W, height: L.H });
    await page.goto(link, { waitUntil: 'load' });
    await L.until(page, 'the page is ready again', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    await drawnText(page, read(fTwoBh), 'the link shows the same');
    const picked = await page.evaluate(() => [...document.querySelectorAll('#host option')].filter((o) => o.selected).map((o) => o.value));
    sayIf(JSON.stringify(picked) === JSON.stringify([h2]) && await page.$eval('#byhost', (e) => e.checked),
        'the link: the second host picked, by host on', 'after the link: picked ' + JSON.stringify(picked));

    console.log('== by host off');
    await page.click('#byhost');
    await L.until(page, 'by_host=0 in the URL', () => /[?&]by_host=0(&|$)/.test(location.search), null, 30);
    await drawnText(page, read(fTwo), 'the page shows fold of the second host');
    console.log('page folded: fold of the second archive alone');
    sayIf(L.foreign(log, origin).length === 0, 'no request left the server', 'foreign requests ' + L.foreign(log, origin));
    await browser.close();
});
