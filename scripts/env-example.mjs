// Writes .env.example and the README's configuration table from the settings table
// (src/config/settings*.ts); run after `npm run build` (npm run docs:env does both).
// test/unit/config-variables.test.ts fails on drift.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { renderEnvExample, withConfigTable } = require('../dist/src/config/docs.js');
fs.writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
const readme = new URL('../README.md', import.meta.url);
fs.writeFileSync(readme, withConfigTable(fs.readFileSync(readme, 'utf8')));
