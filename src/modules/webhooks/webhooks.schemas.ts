import { Type } from '@sinclair/typebox';
import { ApiDate, NullableApiDate, PageQuery } from '../../platform/http/schemas.ts';
import { EVENT_TYPES } from './event-types.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const WebhookDestination = Type.Object(
  {
    id: Type.String({ examples: ['whd_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    url: Type.String(),
    description: Nullable(Type.String()),
    eventTypes: Type.Array(Type.String(), { description: '["*"] or a list of event types' }),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
    disabledReason: Nullable(
      Type.Union([Type.Literal('gone'), Type.Literal('failing'), Type.Literal('manual')], {
        description: 'gone: the receiver answered 410; failing: 5 days of failed attempts; manual: /disable',
      }),
    ),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    createdAt: ApiDate,
    updatedAt: ApiDate,
  },
  { $id: 'WebhookDestination' },
);

export const WebhookDestinationWithSecret = Type.Composite(
  [
    Type.Omit(WebhookDestination, []),
    Type.Object({ secret: Type.String({ description: 'whsec_…; shown once, in this response only' }) }),
  ],
  { $id: 'WebhookDestinationWithSecret' },
);

/**
 * `["*"]` alone, or types of the catalogue (repeats collapse): the schema says both, so a client
 * and the document see the rule the service keeps. A list holding `"*"` beside a type fails the
 * second form at the `"*"`, which says where the fault is.
 */
const EventTypes = Type.Unsafe<string[]>({
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  anyOf: [
    { type: 'array', const: ['*'] },
    { type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] } },
  ],
  description: `["*"] (every type, alone) or some of: ${EVENT_TYPES.join(', ')}`,
});

export const CreateDestinationBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    eventTypes: Type.Optional(EventTypes),
  },
  { additionalProperties: false },
);

export const UpdateDestinationBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    eventTypes: Type.Optional(EventTypes),
  },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object(
  { graceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400 })) },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ examples: ['dlv_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    destinationId: Type.String(),
    eventId: Type.String({ description: 'The payload id and webhook-id header (msg_…)' }),
    eventType: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attemptCount: Type.Integer(),
    lastAttemptAt: NullableApiDate,
    nextAttemptAt: NullableApiDate,
    lastResponseStatus: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    createdAt: ApiDate,
  },
  { $id: 'WebhookDelivery' },
);

export const WebhookAttempt = Type.Object({
  attemptedAt: ApiDate,
  responseStatus: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
});

export const WebhookDeliveryWithAttempts = Type.Composite(
  [Type.Omit(WebhookDelivery, []), Type.Object({ attempts: Type.Array(WebhookAttempt) })],
  { $id: 'WebhookDeliveryWithAttempts' },
);

export const DeliveriesQuery = Type.Object({
  ...PageQuery,
  destinationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  ),
  eventType: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
});
