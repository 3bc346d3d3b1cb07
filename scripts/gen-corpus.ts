/**
 * Generates the synthetic labelled corpus (see src/eval/synth-corpus.ts).
 *   npx tsx scripts/gen-corpus.ts [--out corpora/synth] [--seed 1] [--pages 6000] [--hosts 60]
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import { TopicrawlError } from '../src/errors.js';

const argv = yargs(hideBin(process.argv))
  .scriptName('gen-corpus')
  .usage('$0 [options]: write the synthetic labelled corpus')
  .option('out', { type: 'string', default: 'corpora/synth', describe: 'output folder (created; an existing corpus there is replaced)' })
  .option('seed', { type: 'number', default: 1, describe: 'PRNG seed: same seed, same corpus' })
  .option('pages', { type: 'number', default: 6000, describe: 'approximate number of pages' })
  .option('hosts', { type: 'number', default: 60, describe: 'number of hosts' })
  .strict()
  .help()
  .parseSync();

try {
  const t0 = performance.now();
  const s = generateSynthCorpus(argv.out, { seed: argv.seed, pages: argv.pages, hosts: argv.hosts });
  const ms = Math.round(performance.now() - t0);
  const labels = Object.entries(s.labelled).map(([l, n]) => `${l} ${n}`).join(', ');
  console.log(`${s.dir}: ${s.pages} pages on ${s.hosts} hosts, ${(s.bytes / 1e6).toFixed(1)} MB, in ${ms} ms`);
  console.log(`labels: ${labels}; unlabelled ${s.unlabelled}`);
  console.log(`links ${s.links} (dead ${s.deadLinks}); robots.txt on ${s.robotsHosts.length} hosts`);
  console.log(`seeds: ${s.seeds.join(' ')}`);
} catch (err) {
  if (err instanceof TopicrawlError) {
    console.error(`gen-corpus: ${err.code}: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
