// qa 724's browser half: "profile this host for N s" (--allow-runs).
// The page shows the control only when /api/info says runs are allowed;
// a request within the PMDA's limits is accepted (the page shows the
// PMDA's answer and the run's name), one over them is refused with the
// PMDA's reason.  Prints the run's name on the last line for the shell.
// usage: node t724.js URL
'use strict';
const L = require('./lib.js');
const [url] = process.argv.slice(2);
function sayIf(ok, yes, no) { console.log(ok ? yes : 'FAIL: ' + no); }

L.run(async () => {
    const { browser, page, log } = await L.open(url);
    await L.until(page, 'the page is ready', () => window.staprelay_web && window.staprelay_web.ready, null, 60);
    sayIf(await page.$eval('#runbox', (e) => !e.hidden), 'the page offers "profile this host for N s"', 'no run control');
    const ask = async (secs) => {
        await page.$eval('#runsecs', (e, s) => { e.value = s; }, String(secs));
        await page.evaluate(() => { window.staprelay_web.runAnswer = null; });
        await page.click('#runbtn');
        return L.until(page, 'the PMDA\'s answer', () => window.staprelay_web.runAnswer && document.getElementById('runmsg').textContent, null, 60);
    };
    const a = await ask(3);
    const name = (a.match(/^accepted: (\S+)/) || [])[1];
    sayIf(name, 'a 3 s run: the page shows the PMDA\'s answer "accepted: NAME"', 'the answer was: ' + a);
    const r = await ask(999);
    sayIf(/^refused: \S/.test(r), 'a 999 s run: the page shows "refused: " and the PMDA\'s reason', 'the answer was: ' + r);
    console.log('the reason names the limit: ' + /60/.test(r));
    sayIf(log.errors.length === 0, 'no script errors', log.errors.join('; '));
    await browser.close();
    console.log('RUN ' + (name || ''));
});
