/**
 * The README's screenshot of the live crawl page (docs/live-page.png): generates the synthetic corpus
 * in a temporary folder, runs the real `topicrawl crawl topics/synth-astronomy.yaml --corpus …
 * --metrics-port 0` on it (with a politeness delay, so the crawl lasts), opens the page it serves in
 * Debian's Chromium once the crawl has recorded `--after` pages, saves a screenshot, and stops the
 * crawl with Ctrl-C (SIGINT). Nothing is left behind but the PNG.
 *   npx tsx scripts/screenshot-live.ts [--out docs/live-page.png] [--after 400] [--pages 3000] [--hosts 30] [--delay-ms 100]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import type { StatusJson } from '../src/metrics/status-json.js';

const argv = yargs(hideBin(process.argv))
  .scriptName('screenshot-live')
  .option('out', { type: 'string', default: 'docs/live-page.png', describe: 'the PNG to write' })
  .option('after', { type: 'number', default: 400, describe: 'pages the crawl has recorded when the screenshot is taken' })
  .option('pages', { type: 'number', default: 3000, describe: 'pages of the synthetic corpus' })
  .option('hosts', { type: 'number', default: 30, describe: 'hosts of the synthetic corpus' })
  .option('delay-ms', { type: 'number', default: 100, describe: 'politeness delay of the crawl (ms)' })
  .option('chromium', { type: 'string', default: '/usr/bin/chromium' })
  .strict()
  .help()
  .parseSync();

const root = new URL('../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'topicrawl-screenshot-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
try {
  generateSynthCorpus(join(dir, 'synth'), { seed: 1, pages: argv.pages, hosts: argv.hosts });
  const child = spawn(process.execPath, [
    join(root, 'bin/topicrawl.js'), 'crawl', join(root, 'topics/synth-astronomy.yaml'), '--corpus', join(dir, 'synth'), '--db', join(dir, 'c.db'),
    '--metrics-port', '0', '--set', `politeness.delay_ms=${argv['delay-ms']}`, '--max-pages', String(argv.after * 4),
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /metrics at \S+metrics, live page at (\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.on('close', (code) => reject(new Error(`the crawl ended (code ${code}) before it served metrics: ${stderr}`)));
  });
  for (;;) {
    const s = (await (await fetch(`${url}status.json`)).json()) as StatusJson;
    if (s.pagesThisRun >= argv.after || s.state === 'ended') break;
    await sleep(250);
  }
  const browser = await chromium.launch({ executablePath: argv.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1040, height: 1000 }, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: 'load' });
    while (!(await page.evaluate<boolean>('Number(document.body.dataset.polls) >= 1'))) await sleep(100);
    mkdirSync(dirname(argv.out), { recursive: true });
    await page.screenshot({ path: argv.out, fullPage: true });
    const s = (await (await fetch(`${url}status.json`)).json()) as StatusJson;
    console.log(`wrote ${argv.out} at ${s.pagesThisRun} pages (${url})`);
  } finally {
    await browser.close();
  }
  child.kill('SIGINT');
  await new Promise((r) => child.on('close', r));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
