import path from 'node:path';
import express, { type RequestHandler } from 'express';

/** Where the IDE's files are served: Ruru's bundled GraphiQL, and our page's script. */
export const IDE_PATH = '/graphql-ide/';

/**
 * The IDE's page: no inline script (its configuration is in init.js), so the page can run
 * under a Content-Security-Policy of this origin only. Monaco and React set inline styles.
 */
const IDE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toolgate · GraphiQL</title>
<link rel="modulepreload" href="${IDE_PATH}ruru.js">
<link rel="stylesheet" href="${IDE_PATH}ruru.css">
<link rel="stylesheet" href="${IDE_PATH}page.css">
</head>
<body>
<div id="ruru-root"></div>
<script type="module" src="${IDE_PATH}init.js"></script>
</body>
</html>
`;

/**
 * Ruru's configuration, in a module of its own. The headers editor starts with the
 * Authorization header to fill in; GraphiQL sends those headers as the graphql-ws
 * connection params, which the websocket reads (src/realtime/websocket.ts).
 */
const INIT_JS = `import { React, createRoot, Ruru } from ${JSON.stringify(`${IDE_PATH}ruru.js`)};
const worker = (file) => new Worker(new URL(${JSON.stringify(IDE_PATH)} + file, import.meta.url), { type: 'module' });
globalThis.MonacoEnvironment = {
  getWorker(_, label) {
    return worker(label === 'json' ? 'jsonWorker.js' : label === 'graphql' ? 'graphqlWorker.js' : 'editorWorker.js');
  },
};
const headers = JSON.stringify({ Authorization: 'Bearer ' }, null, 2);
const config = {
  staticPath: ${JSON.stringify(IDE_PATH)},
  endpoint: new URL('/graphql', location.href).href,
  subscriptionEndpoint: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql',
  initialHeaders: headers,
  defaultHeaders: headers,
  isHeadersEditorEnabled: true,
  defaultEditorToolsVisibility: 'headers',
};
createRoot(document.getElementById('ruru-root')).render(React.createElement(Ruru, config));
`;

const PAGE_CSS = 'body { margin: 0; } #ruru-root { height: 100vh; }\n';

const IDE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // GraphiQL (React, Monaco) sets styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self'",
  "connect-src 'self' ws: wss:",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** The IDE page for a browser's GET of /graphql. */
export const serveIdePage: RequestHandler = (_req, res) => {
  res.setHeader('content-security-policy', IDE_CSP);
  res.setHeader('cache-control', 'no-cache');
  res.type('html').send(IDE_HTML);
};

/** Ruru's built GraphiQL (scripts, workers, style, font) as the npm package ships it. */
const RURU_STATIC = path.join(path.dirname(require.resolve('ruru')), '..', 'static');

/**
 * `/graphql-ide/`: Ruru's files from the package folder (ruru's own serveStatic loads its
 * bundle with a dynamic import, which the test runner's VM refuses), the page's script and
 * style. Nothing is loaded from another origin.
 */
export function ideAssetsRoute(): express.Router {
  const router = express.Router();
  const send =
    (type: string, body: string): RequestHandler =>
    (_req, res) => {
      res.setHeader('cache-control', 'no-cache');
      res.type(type).send(body);
    };
  router.get(`${IDE_PATH}init.js`, send('text/javascript', INIT_JS));
  router.get(`${IDE_PATH}page.css`, send('text/css', PAGE_CSS));
  // The folder itself is no page: the IDE is a browser's GET of /graphql.
  router.get(IDE_PATH.slice(0, -1), (_req, res) => res.redirect(302, '/graphql'));
  router.use(IDE_PATH, express.static(RURU_STATIC, { index: false, maxAge: '1h', redirect: false }));
  // A file that is not there is the client's mistake (a 404), not an error of the server.
  router.use(IDE_PATH, (_req, res) => {
    res.status(404).type('text/plain').send('Not found\n');
  });
  return router;
}
