import { Type } from '@sinclair/typebox';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', examples: ['2026-11-24'] });
const Count = Type.Integer({ minimum: 0 });

export const AnalyticsQuery = Type.Object(
  {
    channelId: Type.String({ minLength: 1, maxLength: 64 }),
    from: Type.Optional({
      ...Day,
      description:
        'First UTC day (inclusive), 1970-01-01 to 9999-12-31; default 29 days before `to`. At most 366 days before `to`',
    }),
    to: Type.Optional({
      ...Day,
      description: 'Last UTC day (inclusive), 1970-01-01 to 9999-12-31; default today',
    }),
    interval: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], { default: 'day' }),
    ),
    groupBy: Type.Optional(
      Type.Union(
        [
          Type.Literal('region'),
          Type.Literal('regime'),
          Type.Literal('configVersion'),
          Type.Literal('platform'),
        ],
        {
          description:
            'At most 50 groups are returned: those with the most decisions in the range, then the most impressions, then by key. The rest are summed into one group `"other"` in each period.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Counts = {
  impressions: Count,
  decisions: Count,
  acceptAll: Count,
  rejectAll: Count,
  custom: Count,
  gpc: Count,
  imports: {
    ...Count,
    description: 'Decisions imported from the site’s previous CMP (source import), also counted above',
  },
  handoffs: {
    ...Count,
    description: 'Decisions handed over from another registrable domain (source handoff), also counted above',
  },
  purposes: Type.Record(Type.String(), Type.Object({ granted: Count, denied: Count })),
};

const OTHER = 'The 50 groups with the most decisions (then impressions) are named; `"other"` sums the rest';

/** One period (and group) of the counts. */
export const AnalyticsRow = Type.Object(
  {
    period: { ...Day, description: 'The first day of the period (weeks start on Monday)' },
    region: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: `With groupBy=region: an ISO 3166 code, null (unknown), or "other". ${OTHER}`,
      }),
    ),
    regime: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: `With groupBy=regime: opt-in, opt-out, notice-only, null (unknown), or "other". ${OTHER}`,
      }),
    ),
    configVersion: Type.Optional(
      Type.Union([Type.Integer(), Type.Literal('other')], {
        description: `With groupBy=configVersion: the version the visitor saw, or "other". ${OTHER}`,
      }),
    ),
    platform: Type.Optional(
      Type.String({
        description:
          'With groupBy=platform: "web" (a web channel’s pages), or the app’s X-Consent-Platform: ios, android, other (docs/guides/apps.md). Four keys at most, so never summed into "other"',
      }),
    ),
    ...Counts,
  },
  { $id: 'AnalyticsRow' },
);

export const AnalyticsResponse = Type.Object(
  {
    data: Type.Array(AnalyticsRow),
    meta: Type.Object({ totals: Type.Object(Counts) }),
    error: Type.Null(),
  },
  { $id: 'AnalyticsEnvelope' },
);

export const ImpressionBody = Type.Object(
  {
    configVersion: Type.Integer({ minimum: 1 }),
    language: Type.Optional(Type.String({ maxLength: 35 })),
  },
  { additionalProperties: false, $id: 'ImpressionBody' },
);
