import { request, Agent } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpDir } from '../helpers/tmp.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends a request with the exact target and Host header given (node:http does not rewrite the path). */
export function rawRequest(port: number, target: string, host: string | null, method = 'GET', agent?: Agent, extra: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((ok, ko) => {
    const headers: Record<string, string> = { ...extra };
    if (host !== null) headers.host = host;
    const req = request({ host: '127.0.0.1', port, path: target, method, headers, agent, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', ko);
    });
    req.on('error', ko);
    req.end();
  });
}

/** Writes files (path relative to the returned temp folder → content) and returns the folder (removed as tmpDir's are). */
export function makeTree(files: Record<string, string>, prefix = 'topicrawl-eval-'): string {
  const dir = tmpDir(prefix);
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return dir;
}

/** Hrefs of <a href="…"> in document order (double- or single-quoted). */
export function hrefs(html: string): string[] {
  const out: string[] = [];
  const re = /<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) out.push((m[1] ?? m[2]).replace(/&amp;/g, '&'));
  return out;
}
