/** Types of helper-threads.cjs (plain JavaScript: the bin runs before anything is compiled or loaded). */
export const NICE: number;
export function lowerHelperThreads(nice?: number): number;
