import { principalOf } from '../../platform/auth/auth.hooks.ts';
import { authProblems, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { AnalyticsQuery, AnalyticsResponse } from './analytics.schemas.ts';
import type { AnalyticsService } from './analytics.service.ts';

/** Contract §18: how a channel's banner performs, from aggregates (never a scan of the evidence). */
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
        querystring: AnalyticsQuery,
        response: { 200: AnalyticsResponse, 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => deps.analytics.consent(principalOf(request), request.query),
  );
}
