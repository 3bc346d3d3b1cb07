/**
 * A base commit checked out beside this checkout for side-by-side benchmarks (bench-versus.ts,
 * bench-analysis-ab.ts): `git worktree add --detach` in a temporary folder, this checkout's
 * node_modules linked into it, removed by `remove()` (idempotent; falls back to deleting the
 * folder and `git worktree prune`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const git = (args: string[], cwd: string): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** This checkout's root, the base's full commit id, HEAD's, and whether tracked files have changes; throws git's message. */
export function resolveBase(base: string): { root: string; baseSha: string; headSha: string; dirty: boolean } {
  try {
    const root = git(['rev-parse', '--show-toplevel'], process.cwd());
    const baseSha = git(['rev-parse', '--verify', `${base}^{commit}`], root);
    const headSha = git(['rev-parse', 'HEAD'], root);
    const dirty = git(['status', '--porcelain', '--untracked-files=no'], root) !== '';
    return { root, baseSha, headSha, dirty };
  } catch (err) {
    throw new Error(`${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
  }
}

export interface BaseWorktree {
  tree: string;
  /** Removes the worktree (once; later calls do nothing). */
  remove(): void;
}

/** A temporary folder name for the base's tree (made now, filled by {@link addBaseWorktree}). */
export function baseTreeFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

/** Checks `sha` out into `tree` (an empty folder) with `root`'s node_modules linked in. */
export function addBaseWorktree(root: string, sha: string, tree: string, keep = false): BaseWorktree {
  let removed = false;
  const remove = () => {
    if (removed || keep) return;
    removed = true;
    try {
      git(['worktree', 'remove', '--force', tree], root);
    } catch {
      rmSync(tree, { recursive: true, force: true });
      try {
        git(['worktree', 'prune'], root);
      } catch {
        // nothing more to do: `git worktree prune` later cleans the record
      }
    }
  };
  if (!existsSync(join(root, 'node_modules'))) throw new Error(`${root}/node_modules is missing`);
  try {
    git(['worktree', 'add', '--detach', tree, sha], root);
    symlinkSync(realpathSync(join(root, 'node_modules')), join(tree, 'node_modules'));
  } catch (err) {
    remove();
    throw err;
  }
  return { tree, remove };
}
