import { Type } from '@sinclair/typebox';
import { principalOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Envelope,
  envelope,
  IdParams,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { ledgerDocsHtml } from './ledger.docs.ts';
import { type LedgerService, presentTreeHead } from './ledger.service.ts';

const Hex = Type.String({ pattern: '^[0-9a-f]{64}$' });

export const TreeHeadSchema = Type.Object(
  {
    logId: Type.String({ examples: ['log_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    treeSize: Type.Integer({ minimum: 1 }),
    rootHash: Hex,
    timestamp: Type.String({
      format: 'date-time',
      description: 'RFC 3339 UTC, whole seconds; signed as shown',
    }),
    keyId: Type.String(),
    signature: Type.String({ description: 'Base64 Ed25519 signature (see /docs/ledger)' }),
  },
  { $id: 'LedgerTreeHead' },
);

const InclusionProof = Type.Object(
  {
    logId: Type.String(),
    leafIndex: Type.Integer({ minimum: 0 }),
    leafHash: Hex,
    treeSize: Type.Integer({ minimum: 1 }),
    rootHash: Hex,
    auditPath: Type.Array(Hex, { description: 'RFC 9162 §2.1.3 inclusion path, leaf side first' }),
    treeHead: TreeHeadSchema,
  },
  { $id: 'InclusionProof' },
);

const ConsistencyProof = Type.Object(
  {
    first: Type.Integer(),
    second: Type.Integer(),
    proof: Type.Array(Hex, { description: 'RFC 9162 §2.1.4 consistency proof' }),
  },
  { $id: 'ConsistencyProof' },
);

const ConsistencyQuery = Type.Object(
  {
    first: Type.Integer({ minimum: 1, description: 'The older tree size' }),
    second: Type.Integer({ minimum: 1, description: 'The newer tree size, at most the newest signed one' }),
  },
  { additionalProperties: false },
);

const LedgerKey = Type.Object(
  {
    keyId: Type.String(),
    algorithm: Type.Literal('Ed25519'),
    publicKey: Type.String({ description: 'Base64 of the raw 32-byte Ed25519 public key' }),
  },
  { $id: 'LedgerKey' },
);

/** The ledger's routes (docs/decisions/ledger.md) and its auditor's page (/docs/ledger). */
export function ledgerRoutes(app: App, deps: { ledger: LedgerService; cursors: CursorCodec }) {
  const { ledger, cursors } = deps;
  const tags = ['Evidence ledger'];

  app.get(
    '/v1/public/ledger-keys',
    {
      config: { auth: 'public' },
      onRequest: [app.publicRateLimit],
      schema: {
        operationId: 'listLedgerKeys',
        tags,
        summary: 'Public keys that sign tree heads, old ones included',
        security: [],
        response: { 200: Envelope(Type.Array(LedgerKey)), 429: Problem },
      },
    },
    async (request) => envelope(await ledger.publishedKeys(request.db)),
  );

  app.get(
    '/v1/evidence/:id/proof',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'getEvidenceProof',
        tags,
        summary: 'Inclusion proof of an evidence event against the newest signed tree head',
        params: IdParams,
        response: { 200: Envelope(InclusionProof), 404: Problem, 409: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(await ledger.inclusionProof(request.db, principalOf(request), request.params.id)),
  );

  app.get(
    '/v1/evidence/tree-heads',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'listTreeHeads',
        tags,
        summary: 'Signed tree heads of the evidence log, newest first',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: ListEnvelope(TreeHeadSchema), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      return pagedList(cursors, {
        list: 'ledger-tree-heads',
        query: request.query,
        fetch: (limit, after) =>
          ledger.treeHeads(request.db, principalOf(request), limit, after ? after.t : null),
        present: presentTreeHead,
        position: (row) => ({ t: row.treeSize, id: row.logId }),
      });
    },
  );

  app.get(
    '/v1/evidence/consistency',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'getConsistencyProof',
        tags,
        summary: 'Consistency proof between two tree sizes of the evidence log',
        querystring: ConsistencyQuery,
        response: { 200: Envelope(ConsistencyProof), 422: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        await ledger.consistencyProof(
          request.db,
          principalOf(request),
          request.query.first,
          request.query.second,
        ),
      ),
  );

  app.get('/docs/ledger', { schema: { hide: true } }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    return ledgerDocsHtml();
  });
}
