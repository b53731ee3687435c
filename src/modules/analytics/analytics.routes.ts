import { principalOf } from '../../platform/auth/auth.hooks.ts';
import { authProblems, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { AnalyticsQuery, AnalyticsResponse } from './analytics.schemas.ts';
import type { AnalyticsService } from './analytics.service.ts';

/** How a channel's banner performs, from aggregates (never a scan of the evidence). */
export function analyticsRoutes(app: App, deps: { analytics: AnalyticsService }) {
  app.get(
    '/v1/analytics/consent',
    {
      config: { auth: { scope: 'evidence:read' } },
      schema: {
        operationId: 'getConsentAnalytics',
        tags: ['Analytics'],
        summary:
          'Impressions, decisions and their outcomes per period (and region, regime or config version)',
        description: [
          'Counts per period (its first day; weeks start on Monday), oldest first, from the aggregates kept as events are written. Every period of the range is present, with zeros when nothing happened. `from`/`to` are UTC days from 1970-01-01 to 9999-12-31, at most 366 days apart; otherwise 422 `validation_failed`.',
          'With `groupBy`, at most 50 groups are returned: those with the most decisions in the range, then the most impressions, then by key; the rest are summed into one group `"other"`, last in each period. Every returned group is in every period, so an answer has at most 366 × 51 rows however many groups were seen. No real key is `"other"` (regions are upper-case ISO 3166 codes or null, regimes `opt-in`/`opt-out`/`notice-only` or null, config versions integers).',
          '`meta.totals` holds the same counts over the whole range, every group included.',
        ].join('\n\n'),
        querystring: AnalyticsQuery,
        response: { 200: AnalyticsResponse, 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => deps.analytics.consent(principalOf(request), request.query),
  );
}
