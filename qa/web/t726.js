// qa 726's browser half: the source lines of a function picked in the
// page.  The top table's row of hot_hash opens its sandwich, whose
// "source lines" button opens the source view: its text must be
// `staprelay annotate '^hot_hash$' FILE` (written by the bash half),
// byte for byte; the view is in the URL (a reload shows it again).
// usage: node t726.js URL ANNOTATE_OUTPUT
'use strict';
const fs = require('fs');
const L = require('./lib.js');
const [url, annFile] = process.argv.slice(2);
const want = fs.readFileSync(annFile, 'utf8');
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }
const shown = (page, what) => L.until(page, what, () => {
    const v = window.staprelay_web.view;
    return v && v.view === 'source' && (v.text !== null || v.error) ? { text: v.text, error: v.error || null,
        pre: document.getElementById('srctext').textContent } : null;
}, null, 60);

L.run(async () => {
    const origin = new URL(url).origin + '/';
    let { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    await page.click('#tabs button[data-view=top]');
    await L.until(page, 'the top table', () => document.querySelector('#viewbody td.name[data-fn="hot_hash"]'), null, 60);
    await page.click('#viewbody td.name[data-fn="hot_hash"]');
    await L.until(page, 'the sandwich of hot_hash', () => {
        const v = window.staprelay_web.view;
        return v && v.view === 'sandwich' && v.fn === 'hot_hash' && document.getElementById('swsource');
    }, null, 30);
    console.log('top row hot_hash: its sandwich, with a "source lines" button');
    await page.click('#swsource');
    let r = await shown(page, 'the source view');
    sayIf(r.text === want && r.pre === want, 'source view: staprelay annotate \'^hot_hash$\', byte for byte',
        'source view: ' + JSON.stringify(r).slice(0, 300));
    const q = new URLSearchParams(new URL(page.url()).search);
    sayIf(q.get('view') === 'source' && q.get('fn') === 'hot_hash', 'the URL: view=source&fn=hot_hash',
        'the URL ' + page.url());
    await page.reload({ waitUntil: 'load' });
    await L.until(page, 'the page is ready again', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    r = await shown(page, 'the source view after a reload');
    sayIf(r.text === want, 'after a reload: the same source lines', 'after a reload: ' + JSON.stringify(r).slice(0, 300));
    const tabOn = await page.$eval('#tabs button[data-view=source]', (b) => b.classList.contains('on'));
    sayIf(tabOn, 'the source tab is the one shown', 'the source tab is not marked');
    sayIf(L.foreign(log, origin).length === 0, 'no request left the server', 'foreign requests ' + L.foreign(log, origin));
    await browser.close();
});
