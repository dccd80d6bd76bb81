// `toolgate persisted list|export`: hands out the persisted-operation manifests (the partner kit).
import fs from 'node:fs';
import { type Command, Option } from 'commander';
import { loadConfig } from '../config';
import { buildToolgateSchema } from '../api/schema';
import { AUDIENCES, type Audience, type PersistedDocument, PersistedDocuments, manifestFiles } from '../api/persisted-documents';

const FORMATS = ['apollo', 'documents'] as const;
type Format = (typeof FORMATS)[number];

/** The configured manifests, checked against the schema as the server checks them at boot. */
async function loadManifests(audience: Audience | 'all'): Promise<PersistedDocument[]> {
  const { api } = loadConfig();
  const manifests = PersistedDocuments.load(
    manifestFiles({ firstParty: api.persistedDocumentsFile, partner: api.partnerDocumentsFile }),
    await buildToolgateSchema(),
  );
  return manifests.list().filter((doc) => audience === 'all' || doc.audience === audience);
}

/**
 * `apollo`: Apollo's persisted query list (format apollo-persisted-query-manifest, version 1:
 * id = the bare SHA-256 hex, name, type, body). `documents`: GraphQL-over-HTTP persisted
 * documents, `sha256:<hex>` → text (what the server loads, and `documentId` sends).
 */
export function manifestAs(format: Format, documents: PersistedDocument[]): unknown {
  if (format === 'documents') return Object.fromEntries(documents.map((doc) => [doc.id, doc.text]));
  return {
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: documents.map((doc) => ({ id: doc.id.slice('sha256:'.length), name: doc.operationName, type: doc.operationType, body: doc.text })),
  };
}

export function addPersistedCommands(program: Command, done: (code: number) => void): void {
  const persisted = program.command('persisted').description('the persisted operations partners and first-party clients send by id');
  const audience = (fallback: string) =>
    new Option('--audience <audience>', 'partner, first-party or all').choices([...AUDIENCES, 'all']).default(fallback);
  persisted
    .command('list')
    .description('one line per operation: audience, type, name, document id')
    .addOption(audience('all'))
    .option('--json', 'one JSON line per operation')
    .action(async (opts: { audience: Audience | 'all'; json?: boolean }) => {
      for (const doc of await loadManifests(opts.audience)) {
        const line = { audience: doc.audience, type: doc.operationType, name: doc.operationName, id: doc.id };
        process.stdout.write(
          opts.json
            ? `${JSON.stringify(line)}\n`
            : `${[line.audience.padEnd(11), line.type.padEnd(12), (line.name ?? '').padEnd(24), line.id].join(' ')}\n`,
        );
      }
      done(0);
    });
  persisted
    .command('export')
    .description("print a manifest to hand out (the partner kit's by default)")
    .addOption(audience('partner'))
    .addOption(
      new Option('--format <format>', 'apollo (persisted query list, with names) or documents (id → text)').choices(FORMATS).default('apollo'),
    )
    .option('--out <file>', 'write it to this file instead')
    .action(async (opts: { audience: Audience | 'all'; format: Format; out?: string }) => {
      const text = `${JSON.stringify(manifestAs(opts.format, await loadManifests(opts.audience)), null, 2)}\n`;
      if (opts.out) fs.writeFileSync(opts.out, text);
      else process.stdout.write(text);
      done(0);
    });
}
