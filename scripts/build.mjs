// `npm run build:server` (and the end of `npm run build`): the service's TypeScript compiled to
// build/ (tsconfig.build.json), what `npm start` runs.
import { compileServer } from './start.mjs';

await compileServer();
