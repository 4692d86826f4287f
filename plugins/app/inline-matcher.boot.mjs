// Entry of the inline matcher's worker thread (plugins/app/inline-matcher.ts): registers tsx's
// loader inside the worker, as `node --import tsx` does for the service, then loads the worker.
import { register } from 'tsx/esm/api';

register();
await import('./inline-matcher.worker.ts');
