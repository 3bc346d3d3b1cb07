import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { textSimHash, DEFAULT_SHINGLES } from '../src/dedup/shingles.js';
import { prepareText } from '../src/relevance/keyword-matcher.js';
const site = 'corpora/synth/site'; const files: [string,Buffer][] = [];
for (const h of readdirSync(site)) { const w=(d:string)=>{ for (const e of readdirSync(d,{withFileTypes:true})) { const p=join(d,e.name); if (e.isDirectory()) w(p); else if (p.endsWith('.html') && files.length<3000) files.push([`http://${h}/x`, readFileSync(p)]);}}; w(join(site,h)); }
const parser = new Parse5Parser();
const texts = files.map(([u,b])=>parser.parse(b.toString('utf8'),u,{}).text);
const prepared = texts.map((t)=>prepareText(t));
const fps = prepared.map((p)=>{const s=textSimHash(p, DEFAULT_SHINGLES); return `${s.fingerprint.hi} ${s.fingerprint.lo} ${s.shingles}`;}).join('\n');
writeFileSync(process.argv[2] ?? '/tmp/fps.txt', fps);
let best=1e9; for (let r=0;r<8;r++){const t0=performance.now(); for (const p of prepared) textSimHash(p, DEFAULT_SHINGLES); best=Math.min(best,performance.now()-t0);} console.log('simhash', (best*1000/prepared.length).toFixed(1));
best=1e9; for (let r=0;r<5;r++){const t0=performance.now(); for (const t of texts) prepareText(t); best=Math.min(best,performance.now()-t0);} console.log('prepare', (best*1000/prepared.length).toFixed(1));
