import { Type } from '@sinclair/typebox';
import { ApiDate, NullableApiDate } from '../../platform/http/schemas.ts';
import { REGIMES } from '../regions/regions.schemas.ts';
import { SCAN_PHASES, SCAN_STATUSES } from './scans.tables.ts';

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ScanFinding = Type.Object(
  {
    kind: literals(['cookie', 'storage', 'request']),
    name: Type.String({ description: 'Cookie name, storage key, or the request host' }),
    domain: Type.String({ description: "Cookie domain, the storage origin's host, or the request host" }),
    thirdParty: Type.Boolean(),
    phase: literals(SCAN_PHASES),
    url: Type.String({ description: 'The scanned page it was seen on' }),
    detail: Type.Union([Type.String(), Type.Null()], {
      description: 'localStorage or sessionStorage; the resource type of a request (script, image, …)',
    }),
    technologyId: Type.Union([Type.String(), Type.Null()], {
      description: 'The declared technology it matches; null when undeclared',
    }),
    purposeKey: Type.Union([Type.String(), Type.Null()]),
    classification: Type.Union([
      Type.Object({ category: Type.String(), vendor: Type.String() }),
      Type.Null(),
    ]),
    violation: Type.Boolean({
      description:
        'An optional item present before consent or after reject, where the banner asked first (opt-in)',
    }),
  },
  { $id: 'ScanFinding' },
);

export const ScanResource = Type.Object(
  {
    id: Type.String({ examples: ['scn_4kF9x2mQ7pL1vN8sR3tY6w'] }),
    channelId: Type.String(),
    status: literals(SCAN_STATUSES),
    urls: Type.Array(Type.String()),
    configVersion: Type.Integer(),
    regime: Type.Union([literals(REGIMES), Type.Null()], {
      description: 'The regime the banner applied to the scanner, which decides what is a violation',
    }),
    createdAt: ApiDate,
    startedAt: NullableApiDate,
    completedAt: NullableApiDate,
    failureReason: Type.Union([Type.String(), Type.Null()]),
    summary: Type.Union([
      Type.Object({
        cookies: Type.Integer(),
        storage: Type.Integer(),
        requests: Type.Integer(),
        undeclared: Type.Integer(),
        violations: Type.Integer(),
      }),
      Type.Null(),
    ]),
    findings: Type.Array(ScanFinding, { description: 'Empty until the scan succeeded' }),
    warnings: Type.Array(Type.String(), {
      description:
        'What a succeeded scan could not see: a banner that did not load or was not found, hosts the address rules refused, findings cut off',
    }),
  },
  { $id: 'Scan' },
);

export const CreateScanBody = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: "A page on one of the channel's origins; default: the root of each active origin",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ScanParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  scanId: Type.String({ minLength: 1, maxLength: 64 }),
});
