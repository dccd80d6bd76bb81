import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { GraphQLError, getOperationAST, parse, validate, type GraphQLSchema, type OperationTypeNode } from 'graphql';
import { projectRoot } from '../support/paths';
import type { Role } from '../auth/roles';
import { AppError } from '../errors/app-error';

/**
 * Trusted documents: the operations GraphQL Code Generator wrote from operations/
 * (`npm run codegen`), loaded once at boot, one manifest per audience:
 * gql/persisted-documents.json (first-party: operations/*.graphql) and
 * gql/partner/persisted-documents.json (partner: operations/partner/).
 *
 * Glossary
 * - document id: `sha256:<hex>` (GraphQL-over-HTTP, appendix "Persisted Documents"), where
 *   hex is the SHA-256 of the stored text; Apollo's `extensions.persistedQuery.sha256Hash`
 *   carries the bare hex of the same text, so one manifest serves both protocols.
 * - trusted role: a role (partner by default) whose keys may run partner operations only,
 *   sent by id; query text from such a key is refused before it is parsed, and a
 *   first-party operation's id is unknown to it.
 * - first-party key: any other role; it may send text, ids, and Apollo's automatic persisted
 *   queries (APQ), which Apollo Server keeps in its own cache.
 */
export const AUDIENCES = ['partner', 'first-party'] as const;
export type Audience = (typeof AUDIENCES)[number];

export interface ManifestFile {
  file: string;
  audience: Audience;
}

export interface PersistedDocument {
  /** `sha256:<hex>` */
  id: string;
  audience: Audience;
  text: string;
  operationType: OperationTypeNode;
  operationName: string | null;
}

export class PersistedDocuments {
  private readonly byHash: Map<string, PersistedDocument>;

  constructor(documents: PersistedDocument[]) {
    this.byHash = new Map(documents.map((doc) => [doc.id.slice('sha256:'.length), doc]));
  }

  get size(): number {
    return this.byHash.size;
  }

  /** By `sha256:<hex>` or by the bare hex (APQ), of the audience when one is named. */
  find(id: string, audience?: Audience): PersistedDocument | undefined {
    const hex = id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
    const document = SHA256_HEX.test(hex) ? this.byHash.get(hex) : undefined;
    return audience && document?.audience !== audience ? undefined : document;
  }

  /** Every document, by audience then name. */
  list(): PersistedDocument[] {
    return [...this.byHash.values()].sort(
      (a, b) => a.audience.localeCompare(b.audience) || (a.operationName ?? '').localeCompare(b.operationName ?? ''),
    );
  }

  /**
   * Reads and checks a manifest: every id must be the SHA-256 of its text, and every text
   * one operation that is valid against the schema, so a stale manifest fails the boot
   * instead of failing partners at request time.
   */
  static load(files: ManifestFile[], schema: GraphQLSchema): PersistedDocuments {
    return new PersistedDocuments(files.flatMap(({ file, audience }) => readManifest(file, audience, schema)));
  }
}

function readManifest(file: string, audience: Audience, schema: GraphQLSchema): PersistedDocument[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the persisted-documents manifest ${file}: ${(error as Error).message}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`the persisted-documents manifest ${file} is not a JSON object of id → document`);
  }
  const documents: PersistedDocument[] = [];
  for (const [id, text] of Object.entries(raw)) {
    const problem = (why: string) => new Error(`persisted document ${id} in ${file}: ${why}`);
    if (!/^sha256:[0-9a-f]{64}$/.test(id) || typeof text !== 'string') throw problem('expected "sha256:<hex>": "<document>"');
    if (sha256Hex(text) !== id.slice('sha256:'.length)) throw problem('the id is not the SHA-256 of the document');
    const document = parse(text);
    const errors = validate(schema, document);
    if (errors.length > 0) throw problem(`does not validate against the schema (${errors[0].message}); run npm run codegen`);
    const operation = getOperationAST(document);
    if (!operation) throw problem('must hold exactly one operation');
    documents.push({ id, audience, text, operationType: operation.operation, operationName: operation.name?.value ?? null });
  }
  return documents;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The manifests: the configured files, or the project's gql/ and gql/partner/. */
export function manifestFiles(configured: { firstParty?: string; partner?: string } = {}): ManifestFile[] {
  return [
    { file: configured.firstParty ?? path.join(projectRoot(), 'gql', 'persisted-documents.json'), audience: 'first-party' },
    { file: configured.partner ?? path.join(projectRoot(), 'gql', 'partner', 'persisted-documents.json'), audience: 'partner' },
  ];
}

/** The parts of a request (HTTP body or query string, or a graphql-ws subscribe payload) that name the document. */
export interface DocumentRequest {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

/**
 * What to run, decided before anything is parsed:
 * - `manifest`: the text of a manifest document the request named by id;
 * - `text`: the request's own query text (first-party keys only);
 * - `apq`: an Apollo persisted-query hash the manifest does not hold (first-party keys
 *   only; Apollo Server looks it up in, or with text registers it in, its APQ cache).
 * Throws PERSISTED_QUERY_NOT_ALLOWED for text from a trusted role, PERSISTED_QUERY_NOT_FOUND
 * for an id the manifest does not hold (or, for a trusted role, an APQ hash).
 */
export type ResolvedDocument =
  | { kind: 'manifest'; document: PersistedDocument }
  | { kind: 'text'; query: string }
  | { kind: 'apq'; sha256Hash: string; query: string | undefined }
  | { kind: 'none' };

export function resolveDocument(request: DocumentRequest, role: Role, manifest: PersistedDocuments, trustedRoles: readonly Role[]): ResolvedDocument {
  const trusted = trustedRoles.includes(role);
  const query = typeof request.query === 'string' && request.query !== '' ? request.query : undefined;
  const documentId = request.documentId;
  const apqHash = persistedQueryHash(request.extensions);

  if (trusted && query !== undefined) throw persistedOnly(role);
  if (documentId !== undefined && documentId !== null) {
    if (query !== undefined) throw badRequest('Send either documentId or query, not both');
    const document = typeof documentId === 'string' ? manifest.find(documentId, trusted ? 'partner' : undefined) : undefined;
    if (!document) throw persistedQueryNotFound();
    return { kind: 'manifest', document };
  }
  if (apqHash !== undefined) {
    const document = manifest.find(apqHash, trusted ? 'partner' : undefined);
    if (document && (query === undefined || query === document.text)) return { kind: 'manifest', document };
    if (trusted) throw persistedQueryNotFound();
    // Checked here rather than by Apollo Server, whose errors for these carry no code.
    const sha256Hash = apqHash.replace(/^sha256:/, '');
    if (persistedQueryVersion(request.extensions) !== 1) throw badRequest('Unsupported persistedQuery version (1 is)');
    if (query !== undefined && sha256Hex(query) !== sha256Hash) throw badRequest('The persistedQuery sha256Hash does not match the query');
    return { kind: 'apq', sha256Hash, query };
  }
  if (trusted) throw persistedOnly(role);
  return query === undefined ? { kind: 'none' } : { kind: 'text', query };
}

function persistedQueryVersion(extensions: unknown): unknown {
  return (extensions as { persistedQuery?: { version?: unknown } }).persistedQuery?.version;
}

function persistedQueryHash(extensions: unknown): string | undefined {
  if (!extensions || typeof extensions !== 'object') return undefined;
  const persisted = (extensions as { persistedQuery?: unknown }).persistedQuery;
  if (!persisted || typeof persisted !== 'object') return undefined;
  const hash = (persisted as { sha256Hash?: unknown }).sha256Hash;
  return typeof hash === 'string' ? hash : '';
}

function persistedOnly(role: Role): AppError {
  return new AppError(
    'PERSISTED_QUERY_NOT_ALLOWED',
    `Keys with the ${role} role may run persisted operations only: send the documentId of a manifest operation, not query text`,
  );
}

function persistedQueryNotFound(): AppError {
  return new AppError('PERSISTED_QUERY_NOT_FOUND', 'No persisted operation has this id');
}

/** BAD_REQUEST is Apollo Server's code for a malformed GraphQL-over-HTTP request. */
function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } });
}
