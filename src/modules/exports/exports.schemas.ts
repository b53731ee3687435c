import { Type } from '@sinclair/typebox';
import { ApiDate, DateTimeInput, NullableApiDate } from '../../platform/http/schemas.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ExportResource = Type.Object(
  {
    id: Type.String({ examples: ['exp_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    status: Type.Union(['queued', 'running', 'succeeded', 'failed', 'expired'].map((s) => Type.Literal(s))),
    format: Type.Union([Type.Literal('jsonl'), Type.Literal('csv')]),
    filters: Type.Object({
      channelId: Nullable(Type.String()),
      from: NullableApiDate,
      to: NullableApiDate,
    }),
    includeProofs: Type.Boolean(),
    rowCount: Type.Union([Type.Integer(), Type.Null()]),
    byteSize: Type.Union([Type.Integer(), Type.Null()]),
    sha256: Type.Union([Type.String({ description: 'SHA-256 of the file, hex' }), Type.Null()]),
    createdAt: ApiDate,
    startedAt: NullableApiDate,
    completedAt: NullableApiDate,
    expiresAt: NullableApiDate,
    failureReason: Nullable(Type.String()),
  },
  { $id: 'Export' },
);

export const CreateExportBody = Type.Object(
  {
    channelId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    from: Type.Optional(Nullable(DateTimeInput('RFC 3339; inclusive, on recordedAt'))),
    to: Type.Optional(Nullable(DateTimeInput('RFC 3339; inclusive, on recordedAt'))),
    format: Type.Optional(Type.Union([Type.Literal('jsonl'), Type.Literal('csv')], { default: 'jsonl' })),
    includeProofs: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

/** GET /v1/exports/:id/file: the file itself, streamed (the serializer is bypassed). */
export const ExportFile = {
  description: 'The export file: one JSON event per line (jsonl) or CSV with a header row',
  headers: {
    'Content-Disposition': Type.String({
      pattern: '^attachment; filename="exp_[0-9A-Za-z]+\\.(jsonl|csv)"$',
    }),
    ETag: Type.String({ description: 'The SHA-256 of the file, hex, quoted' }),
    Digest: Type.String({ description: 'sha-256=<base64> (RFC 3230)' }),
    'Repr-Digest': Type.String({ description: 'sha-256=:<base64>: (RFC 9530)' }),
    'Cache-Control': Type.String(),
  },
  content: {
    'application/x-ndjson': { schema: Type.String() },
    'text/csv': { schema: Type.String() },
  },
};
