/** Types of runtime.cjs (plain JavaScript: the bin runs before anything is compiled or loaded). */
export function sourceState(dir: string): { newest: number; count: number };
export function distIsFresh(root: string): boolean;
