// Types of undici's own files that src/fetch/undici-parts.ts loads (undici types its index only).
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  const build: typeof buildConnector;
  export default build;
}
declare module 'undici/lib/core/util.js' {
  /** A raw header name as a lower-case string (interned for the headers undici knows). */
  export function headerNameToString(value: string | Buffer): string;
}
