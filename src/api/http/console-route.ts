import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response } from 'express';

/** Where `npm run build` writes the console (scripts/build-console.mjs). */
export const CONSOLE_DIST = path.join('dist', 'console');

const HOST = /^[A-Za-z0-9.[\]:-]{1,255}$/;

/**
 * The console's Content-Security-Policy: everything from this origin only, no inline script
 * or style, never framed. `connect-src` names the websocket of this host explicitly (older
 * browsers do not count ws: as 'self').
 */
export function consoleCsp(host: string | undefined): string {
  const sockets = host && HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self'${sockets}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

function securityHeaders(req: Request, res: Response): void {
  res.setHeader('content-security-policy', consoleCsp(req.headers.host));
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
}

/**
 * `/console`: the approval console, a single-page app built into dist/console/ (hashed,
 * immutable assets under /console/assets/, and index.html, never cached, naming them).
 * Navigation is by URL fragment, so the one page serves every view. Without a build the
 * page says how to make one.
 */
export function consoleRoute(root: string): express.Router {
  const dir = path.join(root, CONSOLE_DIST);
  const router = express.Router();
  router.use((req, res, next) => {
    securityHeaders(req, res);
    next();
  });
  router.use('/assets', express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, redirect: false }));
  // An asset that is not there (an old page naming a hash since replaced) is a 404, not a server error.
  router.use('/assets', (_req, res) => {
    res.status(404).type('text/plain').send('Not found\n');
  });
  router.get('/', (_req, res) => {
    const index = path.join(dir, 'index.html');
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send('The console is not built: run npm run build\n');
      return;
    }
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
