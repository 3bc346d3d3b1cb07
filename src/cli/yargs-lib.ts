// yargs as the CLI loads it: one module to import it from. From the sources this is yargs itself;
// the build bundles it with the CLI (dist/cli/main.cjs, scripts/build.ts), because loading yargs's
// ~30 ES modules one by one took about half of `topicrawl --help`'s start-up. (Bundled, y18n does
// not find its locale files: messages stay in English whatever LANG says.)
export { default } from 'yargs';
export { hideBin } from 'yargs/helpers';
