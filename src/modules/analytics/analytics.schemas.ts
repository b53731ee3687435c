import { Type } from '@sinclair/typebox';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', examples: ['2026-11-24'] });
const Count = Type.Integer({ minimum: 0 });

export const AnalyticsQuery = Type.Object(
  {
    channelId: Type.String({ minLength: 1, maxLength: 64 }),
    from: Type.Optional({ ...Day, description: 'First UTC day (inclusive); default 29 days before `to`' }),
    to: Type.Optional({ ...Day, description: 'Last UTC day (inclusive); default today' }),
    interval: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], { default: 'day' }),
    ),
    groupBy: Type.Optional(
      Type.Union([Type.Literal('region'), Type.Literal('regime'), Type.Literal('configVersion')]),
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
  purposes: Type.Record(Type.String(), Type.Object({ granted: Count, denied: Count })),
};

/** One period (and group) of contract §18's counts. */
export const AnalyticsRow = Type.Object(
  {
    period: { ...Day, description: 'The first day of the period (weeks start on Monday)' },
    region: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    regime: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    configVersion: Type.Optional(Type.Integer()),
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
