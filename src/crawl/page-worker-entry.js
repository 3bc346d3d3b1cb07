// Worker entry: TypeScript sources run through tsx's loader, which worker threads do not inherit.
import { register } from 'tsx/esm/api';

register();
await import('./page-worker.ts');
