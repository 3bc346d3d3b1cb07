import { Readable, type Writable } from 'node:stream';
import yargs from './yargs-lib.js';
import { TopicrawlError } from '../errors.js';
import { errorLines, exitCodeOf } from './cli-errors.js';
import { commonCrawl, metricsOptions, sharedCrawl, warcOptions } from './crawl-options.js';
import { VERSION } from './version.js';
import { evalOptions, trainOptions, tuneOptions } from './research-options.js';

/** `serve` prints a pasteable --resolve for every host of corpora up to this many hosts. */
const SERVE_LISTS_HOSTS = 50;
/** The `<db..>` positional of the report commands. */
const SEGMENTS_DESCRIPTION = 'SQLite crawl file; or the segments of a distributed crawl: several files, or a folder of *.db files';

export { exitCodeOf };

/**
 * The streams one run of the CLI reads and writes: the process's own in `main.ts`, captured ones
 * when a test runs the CLI in-process. Every command writes its output to `stdout`, its messages
 * and progress to `stderr` (a live progress line only when `stderr.isTTY`), and `normalize` reads
 * `stdin` (none given: an empty input).
 */
export interface CliIo {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  stdin?: Readable;
}

/**
 * Runs the `topicrawl` command line `argv` (without node and the script) to the end and resolves to
 * its exit code: 0, 1 (a failure, or `normalize` met an invalid URL), 2 (a user error: usage,
 * configuration, topic file, corpus). Errors are one line on `io.stderr`, never a stack trace. It
 * never exits the process, never sets `process.exitCode` and never changes the working directory;
 * relative paths are read against `process.cwd()`. Commands that run until interrupted (crawl,
 * recrawl, serve) listen for SIGINT/SIGTERM while they run and remove their listeners when done.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const out = { log: (s: string) => void io.stdout.write(`${s}\n`) };

  /** Prints a one-line error and records the exit code: 2 for user errors, 1 otherwise. Never a stack trace. */
  function fail(err: unknown): void {
    io.stderr.write(errorLines(err));
    exitCode = exitCodeOf(err);
  }

  /** Wraps a command handler so that anything it throws becomes a one-line error and an exit code. */
  function act<A>(fn: (a: A) => unknown): (a: A) => Promise<void> {
    return async (a) => {
      try {
        await fn(a);
      } catch (err) {
        fail(err);
      }
    };
  }

  const program = yargs(argv)
    .scriptName('topicrawl')
    .version(VERSION)
    .usage('$0 <command> [options]\n\nA focused web crawler. See README.md.')
    .command(
      'crawl <topic>',
      'crawl from a topic file (YAML) into a SQLite file; re-run the same command to resume',
      (y) =>
        y
          .positional('topic', { type: 'string', demandOption: true, describe: 'topic file' })
          .options(commonCrawl)
          .option('revisit', { type: 'boolean', describe: 'after the crawl, revisit the pages that are due (as topicrawl recrawl does)' })
          .options(warcOptions)
          .options(sharedCrawl)
          .options(metricsOptions),
      act(async (a) => {
        const { runCrawl } = await import('./crawl-command.js');
        await runCrawl(
          {
            topic: a.topic, db: a.db, strategy: a.strategy, maxPages: a['max-pages'], set: a.set, resolve: a.resolve, corpus: a.corpus, fresh: a.fresh, json: a.json,
            revisit: a.revisit, frontier: a.frontier, crawlId: a['crawl-id'], leaseMs: a['lease-ms'], workers: a.workers, workerIpc: a['worker-ipc'],
            mappedOnly: a['mapped-only'], metricsPort: a['metrics-port'], metricsHost: a['metrics-host'], metricsWorker: a['metrics-worker'],
            warc: a.warc, warcMaxBytes: a['warc-max-bytes'], analysisThreads: a['analysis-threads'],
          },
          out,
          io.stderr,
        );
      }),
    )
    .command(
      'demo',
      'the main job: serve corpora/tobacco-demo on loopback and crawl it with topics/tobacco.yaml (npm start)',
      (y) => y.options({ json: commonCrawl.json, db: { type: 'string', describe: 'SQLite crawl file (default: a new temporary file); started afresh on every run' }, set: commonCrawl.set }),
      act(async (a) => {
        const { runDemo } = await import('./crawl-command.js');
        await runDemo({ json: a.json, db: a.db, set: a.set }, out, io.stderr);
      }),
    )
    .command(
      'serve <corpus>',
      'serve a corpus on 127.0.0.1 (every host of the corpus on one port, by Host header)',
      (y) => y.positional('corpus', { type: 'string', demandOption: true }).option('port', { type: 'number', default: 0, describe: 'port (0: any free port)' }),
      act(async (a) => {
        const { loadCorpus } = await import('../eval/corpus.js');
        const { startCorpusServer } = await import('../eval/corpus-server.js');
        loadCorpus(a.corpus);
        const server = await startCorpusServer(a.corpus, { port: a.port });
        out.log(`serving ${a.corpus} on http://127.0.0.1:${server.port}/ for ${server.hosts.length} hosts; Ctrl-C to stop`);
        // every host, so that the line can be pasted as it is (the crawl then never looks a host up in DNS)
        const maps = server.hosts.map((h) => `--resolve ${h}=127.0.0.1:${server.port}`);
        if (maps.length <= SERVE_LISTS_HOSTS) out.log(`crawl it with: topicrawl crawl <topic.yaml> --mapped-only ${maps.join(' ')}`);
        else out.log(`crawl it with --mapped-only and a --resolve for each of its ${maps.length} hosts: ${maps.slice(0, 3).join(' ')} …`);
        out.log(`or simply: topicrawl crawl <topic.yaml> --corpus ${a.corpus}`);
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            void server.close().then(resolve);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
      }),
    )
    .command(
      'stats [db..]',
      'totals, status counts per host, estimated harvest, frontier size, discovery rate (or a shared crawl\'s frontier: --frontier --crawl-id)',
      (y) =>
        y
          .positional('db', { type: 'string', array: true, describe: SEGMENTS_DESCRIPTION })
          .option('json', { type: 'boolean' })
          .option('frontier', { type: 'string', describe: 'report a shared crawl from its frontier: redis://HOST:PORT/DB (with --crawl-id)' })
          .option('crawl-id', { type: 'string', describe: 'the shared crawl to report (with --frontier)' }),
      act(async (a) => {
        if (a.frontier) return (await import('./frontier-stats.js')).runFrontierStats({ frontier: a.frontier, crawlId: a['crawl-id'], json: a.json }, out);
        if (!a.db?.length) throw new TopicrawlError('E_USAGE', 'stats: name a crawl file (or the segments of a shared crawl), or give --frontier and --crawl-id');
        (await import('./report-commands.js')).runStats({ db: a.db, json: a.json }, out);
      }),
    )
    .command(
      'recrawl <db>',
      'revisit the due pages of a crawl file: conditional requests, change detection, adaptive intervals, deletions',
      (y) =>
        y
          .positional('db', { type: 'string', demandOption: true, describe: 'SQLite crawl file (its recorded configuration is used)' })
          .options({
            until: { type: 'string', describe: 'keep revisiting until DATE (2026-01-31T18:00:00Z) or for DURATION (12h, 7d); default: what is due now, then exit' },
            resolve: commonCrawl.resolve,
            'mapped-only': commonCrawl['mapped-only'],
            json: { type: 'boolean', describe: 'print the summary as JSON' },
          })
          .options(warcOptions),
      act(async (a) => {
        const { runRecrawl } = await import('./recrawl-command.js');
        await runRecrawl({ db: a.db, until: a.until, resolve: a.resolve, mappedOnly: a['mapped-only'], json: a.json, warc: a.warc, warcMaxBytes: a['warc-max-bytes'] }, out);
      }),
    )
    .command(
      'export <db..>',
      'one JSON line per fetched page, in fetch order (jsonl); or the stored responses as WARC files (warc)',
      (y) =>
        y
          .positional('db', { type: 'string', array: true, demandOption: true, describe: SEGMENTS_DESCRIPTION })
          .option('format', { type: 'string', default: 'jsonl', choices: ['jsonl', 'warc'] })
          .option('out', { type: 'string', describe: 'with --format warc: the folder for the WARC files and their CDXJ indexes (default <db name>-warc)' })
          .option('warc-max-bytes', warcOptions['warc-max-bytes']),
      act(async (a) => {
        if (a.format === 'warc') {
          const { runExportWarc } = await import('./export-warc-command.js');
          await runExportWarc({ db: a.db, out: a.out, maxBytes: a['warc-max-bytes'] }, out);
          return;
        }
        if (a.out !== undefined || a['warc-max-bytes'] !== undefined) throw new TopicrawlError('E_USAGE', '--out and --warc-max-bytes go with --format warc');
        (await import('./report-commands.js')).runExport({ db: a.db, format: a.format }, (s) => io.stdout.write(s));
      }),
    )
    .command(
      // yargs takes a variadic positional only last: the segments of a distributed crawl come
      // before the URL as `<db> <url> [more..]`, and the last argument is the URL
      'explain <db> <url> [more..]',
      'why a URL has its priority: state, depth, life, backlinks, parent, anchors, x·IB + y·IL + z·ID, strategy figures',
      (y) =>
        y
          .positional('db', { type: 'string', demandOption: true, describe: 'SQLite crawl file (or a folder of segments)' })
          .positional('url', { type: 'string', demandOption: true, describe: 'URL (normalised like the crawl does)' })
          .positional('more', {
            type: 'string', array: true,
            describe: 'a distributed crawl: `explain SEGMENT... URL` (the segments\' files or folders, then the URL last)',
          })
          .option('json', { type: 'boolean', describe: 'print one JSON object' }),
      act(async (a) => {
        const words = [a.db, a.url, ...(a.more ?? [])];
        const url = words.pop()!;
        (await import('./explain-command.js')).runExplain({ db: words.length === 1 ? words[0] : words, url, json: a.json }, out);
      }),
    )
    .command(
      'normalize [urls..]',
      'print each URL normalised, one per line (from the arguments, or stdin one per line)',
      (y) =>
        y
          .positional('urls', { type: 'string', array: true, describe: 'URLs; none: read stdin, one per line (blank lines skipped)' })
          .options({
            base: { type: 'string', describe: 'resolve relative URLs against this absolute URL' },
            'sort-query': { type: 'boolean', default: true, describe: 'sort query parameters by name (--no-sort-query keeps their order)' },
            strip: { type: 'string', describe: 'also strip this query parameter (utm_* is a prefix); repeatable, or comma-separated' },
          })
          .epilogue(
            'Output line i belongs to input URL i: an invalid URL gives an EMPTY line on stdout and ' +
              '"topicrawl: line N: <reason> [E_INVALID_URL]" on stderr (N counts stdin lines, blank ones included; ' +
              '"argument N" for arguments). Exit 0 if every URL was valid, 1 if any was not.',
          ),
      act(async (a) => {
        const strip = a.strip === undefined ? [] : ([] as unknown[]).concat(a.strip).map(String);
        const { runNormalize } = await import('./normalize-command.js');
        const code = await runNormalize(
          { urls: (a.urls ?? []).map(String), base: a.base, sortQuery: a['sort-query'], strip },
          { stdin: io.stdin ?? Readable.from([]), stdout: io.stdout, stderr: io.stderr },
        );
        if (code !== 0) exitCode = code;
      }),
    )
    .command(
      'robots <source> [urls..]',
      'judge URLs against a robots.txt (a file or an http(s) URL) for a user agent, naming the rule that decided',
      (y) =>
        y
          .positional('source', { type: 'string', demandOption: true, describe: 'robots.txt: a local file or an http(s) URL' })
          .positional('urls', { type: 'string', array: true, describe: 'URLs (or paths) to judge' })
          .options({
            agent: { type: 'string', demandOption: true, describe: 'user agent; its product token selects the group' },
            json: { type: 'boolean', describe: 'print a JSON array of {url, allowed, line, rule, reason}' },
          })
          .epilogue(
            'A URL source is fetched like the crawler does: up to 5 redirects; 4xx: allow all; 429, 5xx or unreachable: disallow all.',
          ),
      act(async (a) => (await import('./robots-command.js')).runRobots({ source: a.source, agent: a.agent, urls: (a.urls ?? []).map(String), json: a.json }, out)),
    )
    .command(
      'strategies',
      'list the ordering strategies',
      () => {},
      act(async () => {
        // loaded here, not at start-up: the registry imports every strategy
        const { STRATEGIES } = await import('../strategy/registry.js');
        for (const [name, s] of Object.entries(STRATEGIES)) out.log(`${name.padEnd(18)} ${s.description}`);
      }),
    )
    .command(
      'eval',
      'compare ordering strategies on a labelled corpus served on loopback: harvest rate, target recall, curves (results.json, report.html)',
      (y) =>
        y
          .options(evalOptions)
          .epilogue(
            'Every strategy crawls through the real crawl loop from the same seeds with the same budget, politeness off ' +
              '(no delay, robots.txt Crawl-delay ignored, its rules honoured) and one request in flight unless --concurrency says more, ' +
              'so each order is exactly the strategy\'s own and a run repeats. oracle knows the labels (labelled URLs first): the ceiling; random: the floor.',
          ),
      act(async (a) => {
        const { runEvalCommand } = await import('./eval-command.js');
        await runEvalCommand(
          { corpus: a.corpus, topic: a.topic, strategies: a.strategies, budget: a.budget, seeds: a.seeds, out: a.out, json: a.json, randomSeed: a['random-seed'], set: a.set,
            concurrency: a.concurrency },
          out,
          (s) => io.stderr.write(`${s}\n`),
        );
      }),
    )
    .command(
      'train',
      'train the topic\'s page classifier on labelled pages (a corpus and/or the topic\'s training.examples): k-fold cross-validated precision/recall/F1, then the model file',
      (y) =>
        y.options(trainOptions),
      act(async (a) => {
        const { runTrain } = await import('./train-command.js');
        await runTrain({ topic: a.topic, corpus: a.corpus, label: a.label, out: a.out, folds: a.folds, set: a.set }, out);
      }),
    )
    .command(
      'tune',
      'tune the topic\'s strategy.x/y/z, max_life and relevance.threshold by evaluation crawls of a labelled corpus; writes a tuned topic file',
      (y) =>
        y
          .options(tuneOptions)
          .conflicts('validate-seeds', 'validate-topic'),
      act(async (a) => {
        const { runTuneCommand } = await import('./tune-command.js');
        await runTuneCommand(
          {
            corpus: a.corpus, topic: a.topic, budget: a.budget, trials: a.trials, validateSeeds: a['validate-seeds'], validateTopic: a['validate-topic'], folds: a.folds,
            out: a.out, seed: a.seed, objective: a.objective, json: a.json, set: a.set,
          },
          out,
          (s) => io.stderr.write(`${s}\n`),
        );
      }),
    )
    .demandCommand(1, 'name a command: crawl, recrawl, demo, serve, stats, export, explain, eval, tune, train, normalize, robots, strategies')
    .strict()
    .fail((msg, err) => {
      // yargs reports usage errors (and errors thrown by handlers) here; nothing has started yet
      throw err ?? new TopicrawlError('E_USAGE', `${msg} (see topicrawl --help)`);
    })
    .help()
    .exitProcess(false);
  try {
    // with a callback yargs hands over what it would print (--help, --version) instead of printing it
    let printed = '';
    await program.parseAsync(argv, {}, (_err, _argv, output) => {
      printed = output;
    });
    if (printed) io.stdout.write(printed.endsWith('\n') ? printed : `${printed}\n`);
  } catch (err) {
    fail(err);
  }
  return exitCode;
}
