// Writes .env.example from the configuration's definitions (src/config-variables.ts); run after
// `npm run build` (npm run docs:env does both). test/unit/config-variables.test.ts fails on drift.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { renderEnvExample } = require('../dist/src/config-variables.js');
fs.writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
