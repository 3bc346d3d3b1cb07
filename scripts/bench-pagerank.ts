/**
 * PageRankGraph at crawl scale (the engine of partial-pagerank): builds a graph of `--nodes` nodes
 * with 10 out-links each (skewed random targets, duplicates dropped), then runs PageRank from scratch.
 *
 *   npx tsx scripts/bench-pagerank.ts [--nodes 1000000]
 *
 * Prints the build time, the time of one run and of one iteration, and, as the yardstick measured in
 * the same run, a bare pass over the same edge list in plain typed arrays (the least one iteration
 * can cost): the ratio says how close an iteration comes to it, whatever the machine's load.
 * This was a test assertion (build < 15 s, run < 5 s); timing belongs here, the test keeps the
 * functional checks at a smaller size.
 */
import { parseArgs } from 'node:util';
import { PageRankGraph } from '../src/strategy/pagerank-graph.js';

const { values: a } = parseArgs({ options: { nodes: { type: 'string', default: '1000000' } } });
const n = Number(a.nodes);
const command = `npx tsx scripts/bench-pagerank.ts ${process.argv.slice(2).join(' ')}`.trim();

let s = 7;
const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
const g = new PageRankGraph();
const out = new Int32Array(10);
const edgesFrom: number[] = [];
const flatTargets = new Int32Array(n * 10);
let used = 0;
const t0 = performance.now();
for (let i = 1; i <= n; i++) {
  for (let k = 0; k < 10; k++) out[k] = 1 + Math.floor(rnd() * rnd() * n);
  g.addEdges(i, out);
}
const buildMs = performance.now() - t0;
// the yardstick's copy of the edges (kept out of the build time)
for (let i = 1; i <= n; i++) {
  edgesFrom.push(used);
  for (const t of g.outlinks(i)) flatTargets[used++] = t;
}
edgesFrom.push(used);

const t1 = performance.now();
const run = g.compute({ damping: 0.85 });
const runMs = performance.now() - t1;

// bare pass: y[t] += share over every edge, the inner loop of an iteration without its bookkeeping
const x = new Float64Array(n + 1).fill(1);
const y = new Float64Array(n + 1);
const passes = 5;
const t2 = performance.now();
for (let p = 0; p < passes; p++) {
  y.fill(0.15);
  for (let i = 1; i <= n; i++) {
    const start = edgesFrom[i - 1];
    const end = edgesFrom[i];
    const share = (0.85 * x[i]) / (end - start);
    for (let e = start; e < end; e++) y[flatTargets[e]] += share;
  }
}
const bareMs = (performance.now() - t2) / passes;
const iterMs = runMs / Math.max(1, run.iterations);

console.log(`${command}`);
console.log(`nodes ${g.nodeCount}, edges ${g.edgeCount}, converged ${run.converged} after ${run.iterations} iterations`);
console.log(`build                 ${(buildMs / 1000).toFixed(2)} s (${((buildMs * 1e6) / g.edgeCount).toFixed(0)} ns per edge, random numbers included)`);
console.log(`one run from scratch  ${(runMs / 1000).toFixed(2)} s`);
console.log(`one iteration         ${iterMs.toFixed(1)} ms`);
console.log(`bare edge pass        ${bareMs.toFixed(1)} ms (same edges, plain arrays, mean of ${passes})`);
console.log(`iteration ÷ bare pass ×${(iterMs / bareMs).toFixed(2)}`);
