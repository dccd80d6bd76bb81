// The approval console (console/): one minified, content-hashed bundle of script and style
// in dist/console/assets/, and dist/console/index.html naming them (no inline script).
// Run by `npm run build`; prints the bundle's size (the README quotes it).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist', 'console');

/**
 * The typed documents of gql/graphql.ts carry the whole AST; the console sends only the
 * persisted id (`__meta__.hash`), so the bundle gets the id alone.
 */
const idsOnly = {
  name: 'persisted-ids-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]gql[\\/]graphql\.ts$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      const contents = source.replace(
        /^(export const \w+ = )\{"__meta__":\{"hash":"(sha256:[0-9a-f]{64})"\}.*?( as unknown as DocumentNode<.*>;)$/gm,
        '$1{"__meta__":{"hash":"$2"}}$3',
      );
      return { contents, loader: 'ts' };
    });
  },
};

fs.rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: { console: path.join(root, 'console', 'src', 'main.tsx'), styles: path.join(root, 'console', 'src', 'styles.css') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: path.join(out, 'assets'),
  metafile: true,
  legalComments: 'none',
  plugins: [idsOnly],
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
const html = fs
  .readFileSync(path.join(root, 'console', 'index.html'), 'utf8')
  .replace('__JS__', path.basename(js))
  .replace('__CSS__', path.basename(css));
fs.writeFileSync(path.join(out, 'index.html'), html);

const size = (file) => {
  const bytes = fs.readFileSync(file);
  return `${(bytes.length / 1024).toFixed(1)} kB (${(zlib.gzipSync(bytes).length / 1024).toFixed(1)} kB gzip)`;
};
console.log(`console: ${path.basename(js)} ${size(js)}, ${path.basename(css)} ${size(css)}`);
