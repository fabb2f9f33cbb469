// qa 730's browser half: a run the page's server started is followed
// live and kept.  POSTs a 5 s profile run of examples/hot (pid given),
// starts `staprelay fold -h HOST --run NAME` alongside (the comparison
// the shell makes), then, in the page: the run is listed with its state
// as SSE `run` events come (queued, running, done); after it is done,
// selecting it puts run=NAME in the URL and draws its flame graph with
// hot's functions; a reload of that URL draws it again (kept after the
// run ended).  Writes DIR/api.folded (GET /api/folded?run=NAME) and
// DIR/fold.folded (fold's stdout); prints "RUN NAME" last.
// usage: node t730.js URL STAPRELAY HOST PID DIR
'use strict';
const fs = require('fs');
const { spawn } = require('child_process');
const L = require('./lib.js');
const [url, sr, host, pid, dir] = process.argv.slice(2);
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
const HOT = ['hot_multiply', 'hot_hash'];

L.run(async () => {
    const { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 90);
    await L.until(page, 'live: connected', () => /live: connected/.test(document.getElementById('conn').textContent), null, 90);
    const ans = await page.evaluate(async (pid) => {
        const r = await fetch('/api/run', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: 'script=profile&seconds=5&hz=99&pid=' + pid });
        return { status: r.status, body: await r.json() };
    }, pid);
    const name = ans.body.run;
    sayIf(ans.status === 200 && name, 'POST /api/run: accepted', 'POST /api/run: ' + JSON.stringify(ans));
    // fold follows the same run from now on, as web's follower does
    const fold = spawn(sr, ['fold', '-h', host, '--run', name], { stdio: ['ignore', fs.openSync(dir + '/fold.folded', 'w'), fs.openSync(dir + '/fold.err', 'w')] });
    const foldDone = new Promise((res) => fold.on('exit', (code) => res(code)));

    await L.until(page, 'the run is listed', (n) => document.querySelector('#runs li[data-run="' + n + '"]'), name, 60);
    console.log('the page lists the run');
    await L.until(page, 'the list shows it running', (n) => { const li = document.querySelector('#runs li[data-run="' + n + '"]'); return li && li.dataset.state === 'running'; }, name, 180);
    console.log('the list shows it running, live');
    await L.until(page, 'the run done and its records all in', (n) => { const r = window.staprelay_web.runs[n]; return r && r.state === 'done' && r.following === false; }, name, 240);
    const li = await page.$eval('#runs li[data-run="' + name + '"]', (e) => e.dataset.state);
    sayIf(li === 'done', 'the list shows it done', 'the list shows ' + li);
    const states = await page.evaluate((n) => window.staprelay_web.runEvents.filter((e) => e.name === n).map((e) => e.state), name);
    const seq = states.filter((s, i) => i === 0 || s !== states[i - 1]);
    fs.writeFileSync(dir + '/states', states.join('\n') + '\n');
    sayIf(seq.join(',') === 'queued,running,done', 'SSE run events: queued, running, done', 'SSE run states: ' + seq.join(','));
    const counts = await page.evaluate((n) => window.staprelay_web.runEvents.filter((e) => e.name === n).map((e) => e.samples), name);
    sayIf(counts.some((c) => c > 0 && c < counts[counts.length - 1]), 'SSE run events: the sample count grew while it ran', 'counts: ' + counts.join(','));

    await page.click('#runs li[data-run="' + name + '"]');
    const inUrl = await page.evaluate(() => new URLSearchParams(location.search).get('run'));
    sayIf(inUrl === name, 'selecting it puts run=NAME in the URL', 'the URL: ' + inUrl);
    const hotIn = async (what) => L.until(page, what, (hot) => {
        const names = [...document.querySelectorAll('#viewbody svg.flame g.f')].map((g) => g.dataset.n);
        return hot.every((f) => names.includes(f)) && names;
    }, HOT, 90);
    await hotIn('hot\'s functions in the run\'s flame graph');
    console.log('the run\'s flame graph shows hot_multiply and hot_hash');
    const total = await page.evaluate(() => +document.querySelector('#viewbody svg.flame').dataset.total);

    await page.reload({ waitUntil: 'load' });
    await L.until(page, 'the page is ready again', () => window.staprelay_web && window.staprelay_web.ready, null, 90);
    await hotIn('hot\'s functions after a reload of run=NAME');
    const total2 = await page.evaluate(() => +document.querySelector('#viewbody svg.flame').dataset.total);
    const li2 = await L.until(page, 'the run listed after the reload', (n) => { const e = document.querySelector('#runs li[data-run="' + n + '"]'); return e && e.dataset.state; }, name, 60);
    sayIf(total2 === total && total > 0 && li2 === 'done', 'after the run ended, a reload of its URL draws the same flame graph (kept)',
        'totals ' + total + ' then ' + total2 + ', listed ' + li2);

    const code = await Promise.race([foldDone, new Promise((res) => setTimeout(() => res('timeout'), 240000))]);
    sayIf(code === 0, 'staprelay fold -h HOST --run NAME: exit 0', 'fold: ' + code);
    const folded = await page.evaluate(async (n) => (await fetch('/api/folded?run=' + encodeURIComponent(n))).text(), name);
    fs.writeFileSync(dir + '/api.folded', folded);
    sayIf(log.errors.length === 0, 'no script errors', log.errors.join('; '));
    await browser.close();
    console.log('RUN ' + name);
});
