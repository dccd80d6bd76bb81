// Rewrites the README's role table from the access matrix (src/auth/access.ts); run after
// `npm run build` (npm run docs:access does both). test/api/access-matrix.test.ts fails on drift.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { withAccessTable } = require('../dist/src/auth/access-table.js');
const readme = new URL('../README.md', import.meta.url);
fs.writeFileSync(readme, withAccessTable(fs.readFileSync(readme, 'utf8')));
