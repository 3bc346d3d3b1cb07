// yargs as the CLI loads it. From the sources this is yargs itself; the build (scripts/build.ts)
// replaces the compiled file with one bundle of yargs and its dependencies (esbuild), because
// loading yargs's ~30 ES modules one by one took about half of `topicrawl --help`'s start-up.
export { default } from 'yargs';
export { hideBin } from 'yargs/helpers';
