// qa 109's browser half: staprelay web's page with hotcold=1 (a hot/cold
// archive of one `staprelay run hotcold`): the hot/cold box is ticked,
// the flame graph's frames are fold --hotcold's (FOLDED, written by the
// bash half: each frame's width is the sum of the stacks through it),
// in ns, the offcpu part blue and the oncpu part in the hot colours;
// unticking the box draws the samples without the hot/cold stacks.
// usage: node t109.js URL FOLDED
'use strict';
const fs = require('fs');
const L = require('./lib.js');
const [url, foldedFile] = process.argv.slice(2);
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
const rgb = (f) => (f.match(/\d+/g) || []).map(Number);
const hot = (f) => { const [r, , b] = rgb(f); return r >= 205 && b <= 55; };
const blue = (f) => { const [r, g, b] = rgb(f); return r === g && r <= 140 && b >= 205; };

L.run(async () => {
    const origin = new URL(url).origin + '/';
    const { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    await L.until(page, 'the flame graph', () => document.querySelector('#viewbody svg.flame g.f'), null, 60);
    sayIf(await page.$eval('#hotcold', (e) => e.checked), 'page: the hot/cold box is ticked (from the URL)', 'the box is not ticked');
    const f = await L.flame(page);
    // the width of the depth-1 frames: oncpu and offcpu's totals in fold's text
    const want = {};
    for (const line of fs.readFileSync(foldedFile, 'utf8').split('\n')) {
        const m = line.match(/^(oncpu|offcpu);.* (\d+(?:\.\d+)?)$/);
        if (m) want[m[1]] = (want[m[1]] || 0) + Number(m[2]);
    }
    const part = (n) => f.frames.find((x) => x.dep === 1 && x.n === n);
    const same = (a, b) => a && Math.abs(a.w - b) <= Math.max(1, b * 1e-9);
    sayIf(same(part('oncpu'), want.oncpu) && same(part('offcpu'), want.offcpu),
        'page: oncpu and offcpu weigh what fold --hotcold gives them',
        'page oncpu ' + (part('oncpu') || {}).w + ' offcpu ' + (part('offcpu') || {}).w + ', fold ' + JSON.stringify(want));
    // each frame's part: the depth-1 frame whose box holds it (the
    // napper runs a little, so hc_nap_loop is in both; so is the
    // spinner, preempted)
    const parts = f.frames.filter((x) => x.dep === 1);
    const partOf = (x) => (parts.find((p) => x.box[0] >= p.box[0] - 0.5 && x.box[2] <= p.box[2] + 0.5) || {}).n;
    const wrong = f.frames.filter((x) => x.dep >= 1 && !(partOf(x) === 'offcpu' ? blue(x.fill) : hot(x.fill)));
    sayIf(wrong.length === 0, 'page: the offcpu part blue, the oncpu part hot', 'frames of the other palette: ' +
        JSON.stringify(wrong.slice(0, 5).map((x) => [x.n, partOf(x), x.fill])));
    const nap = f.frames.filter((x) => x.n === 'hc_nap_loop' && partOf(x) === 'offcpu');
    const spin = f.frames.filter((x) => x.n === 'hc_spin' && partOf(x) === 'oncpu');
    sayIf(nap.length > 0 && spin.length > 0, 'page: hc_nap_loop off CPU, hc_spin on it', 'hc_nap_loop off ' + nap.length + ', hc_spin on ' + spin.length);
    const title = await page.$eval('#viewbody svg.flame g.f title', (t) => t.textContent);
    sayIf(/ ns, /.test(title), 'page: counted in ns', 'the root title ' + title);
    await page.click('#hotcold');
    await L.until(page, 'the plain flame graph', () => !/hotcold=/.test(location.search) &&
        document.querySelector('#viewbody svg.flame') && ![...document.querySelectorAll('#viewbody svg.flame g.f')].some((g) => g.dataset.dep === '1' && /^o[nf]+cpu$/.test(g.dataset.n)), null, 60);
    console.log('page: unticked, the samples without hot/cold\'s root frames');
    sayIf(L.foreign(log, origin).length === 0, 'no request left the server', 'foreign requests ' + L.foreign(log, origin));
    await browser.close();
});
