#!/usr/bin/env node
// The `toolgate` command's published path (package.json "bin", the image's CMD, `npx toolgate`):
// kept at dist/src/cli.js, so installs and npx caches that link the old path keep working.
// The command itself is src/cli/main.ts.
import './cli/main';
