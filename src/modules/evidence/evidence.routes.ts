import { principalOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { endOfSecond, queryDate, startOfSecond } from '../../platform/http/dates.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Envelope,
  envelope,
  IdParams,
  ListEnvelope,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { isVisitorRegion } from '../regions/regions.service.ts';
import { EvidenceEvent, EvidenceQuery } from './evidence.schemas.ts';
import type { EvidenceService } from './evidence.service.ts';
import { presentEvidence } from './evidence.service.ts';

/** Evidence reads: masked pseudonyms, purged events never shown. */
export function evidenceRoutes(app: App, deps: { evidence: EvidenceService; cursors: CursorCodec }) {
  const { evidence, cursors } = deps;
  const tags = ['Evidence'];

  app.get(
    '/v1/evidence',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'listEvidence',
        tags,
        summary: 'Consent evidence of the organization and environment, newest first',
        description:
          'A `channelId` that names no channel of the key’s organization and environment is a 404 `not_found` (not an empty list), and so is a `sameSubjectAs` that names no event of it.',
        querystring: EvidenceQuery,
        response: {
          200: ListEnvelope(EvidenceEvent),
          400: Problem,
          404: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { limit, cursor, ...query } = request.query;
      if (query.decision !== undefined && query.purpose === undefined) {
        throw validationFailed([{ path: 'query:/decision', message: 'needs a purpose filter' }]);
      }
      if (query.subjectId !== undefined && query.sameSubjectAs !== undefined) {
        throw validationFailed([
          {
            path: 'query:/sameSubjectAs',
            message: 'names the subject by an event; send it or subjectId, not both',
          },
        ]);
      }
      if (query.region !== undefined && !isVisitorRegion(query.region)) {
        throw validationFailed([
          {
            path: 'query:/region',
            message: 'must be an ISO 3166-1 alpha-2 or ISO 3166-2 code, such as US or US-CA',
          },
        ]);
      }
      const from = queryDate('from', query.from);
      const to = queryDate('to', query.to);
      const filters = {
        channelId: query.channelId,
        from: from && startOfSecond(from),
        to: to && endOfSecond(to),
        purpose: query.purpose,
        decision: query.decision,
        source: query.source,
        region: query.region,
        regime: query.regime,
        appId: query.appId,
        subjectId: query.subjectId,
        sameSubjectAs: query.sameSubjectAs,
      };
      // The cursor binds the filters; the subject enters it pseudonymized, never as the raw id.
      const subject =
        query.subjectId === undefined
          ? undefined
          : await evidence.pseudonymize(principal.organizationId, query.subjectId);
      const cursorFilters = { ...query, subjectId: subject };
      return pagedList(cursors, {
        list: 'evidence',
        filters: cursorFilters,
        query: { limit, cursor },
        fetch: (limit, after) => evidence.list(principal, filters, limit, after),
        present: presentEvidence,
        position: (r) => ({ t: r.recordedAt.getTime(), id: r.id }),
      });
    },
  );

  app.get(
    '/v1/evidence/:id',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'getEvidenceEvent',
        tags,
        summary: 'One evidence event',
        params: IdParams,
        response: { 200: Envelope(EvidenceEvent), 404: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(presentEvidence(await evidence.get(request.db, principalOf(request), request.params.id))),
  );
}
