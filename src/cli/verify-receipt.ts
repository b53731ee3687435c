import { createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyInclusion } from '../modules/ledger/merkle.ts';
import { ledgerKeyId, type TreeHead, verifyTreeHead } from '../modules/ledger/signing.ts';
import { receiptStatement } from '../modules/receipts/receipt-statement.ts';
import { CliFailure, UsageError } from './errors.ts';
import { optionError } from './options.ts';

type Output = (line: string) => void;

const USAGE = 'usage: verify-receipt FILE_OR_URL --key PUBLIC_KEY_BASE64';

/** SPKI DER header of an Ed25519 public key (RFC 8410): the raw 32 bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const HEX64 = /^[0-9a-f]{64}$/;

interface Receipt {
  eventId: string;
  controller: { name: string; privacyPolicyUrl: string | null; privacyPolicyVersion: string | null };
  channelId: string;
  recordedAt: string;
  configVersion: number | null;
  region: string | null;
  regime: string | null;
  language: string | null;
  purposes: Array<{ key: string; name: string; legalBasis: string | null; decision: string }>;
  leafHash: string;
  proof: null | {
    logId: string;
    leafIndex: number;
    treeSize: number;
    auditPath: string[];
    treeHead: TreeHead;
  };
  signature: { keyId: string; value: string };
}

/**
 * The raw 32 bytes of an Ed25519 public key given as `GET /v1/public/ledger-keys` publishes it
 * (base64 of the raw key), or as base64url, or as the base64 of its SPKI DER (the body of a PEM).
 */
export function parsePublicKey(text: string): Buffer | null {
  const body = text.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(body)) return null;
  const bytes = Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length === 32) return bytes;
  if (bytes.length === 44 && bytes.subarray(0, 12).equals(ED25519_SPKI_PREFIX)) return bytes.subarray(12);
  return null;
}

/**
 * `consent-service verify-receipt FILE_OR_URL --key PUBLIC_KEY_BASE64` (docs/receipts.md): checks a
 * visitor's receipt with the service's public key obtained independently, without the service's
 * database: the Ed25519 signature over the receipt's content (receipt-statement.ts), the RFC 9162
 * inclusion proof from its leaf hash to the tree head's root, and the tree head's Ed25519
 * signature. The receipt is a JSON file (the `{data}` envelope or the receipt itself) or its URL,
 * fetched with Accept: application/json. `--key` may be given more than once (a key change between
 * the tree head and the receipt's signature); each signature is checked with the key its keyId
 * names. Prints "Verified" and what was recorded, or one line per failure; returns the number of
 * failures (an unsealed receipt counts as one).
 */
export async function verifyReceiptCommand(args: string[], out: Output): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ options: { key: { type: 'string'; multiple: true } }; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({
      args,
      options: { key: { type: 'string', multiple: true } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${optionError(error, ['key']).message}\n${USAGE}`);
  }
  const [source, ...extra] = parsed.positionals;
  if (!source || extra.length > 0) throw new UsageError(USAGE);
  const given = parsed.values.key ?? [];
  if (given.length === 0) throw new UsageError(`--key is required (${USAGE})`);
  const keys = new Map<string, Buffer>();
  for (const text of given) {
    const key = parsePublicKey(text);
    if (!key)
      throw new UsageError(
        '--key must be an Ed25519 public key: the base64 of its raw 32 bytes (as /v1/public/ledger-keys publishes it)',
      );
    keys.set(ledgerKeyId(key), key);
  }

  const receipt = checkShape(await load(source));
  const failures: string[] = [];
  const fail = (what: string, reason: string) => {
    failures.push(what);
    out(`FAIL ${what}: ${reason}`);
  };
  const keyFor = (keyId: string) => keys.get(keyId);
  const givenIds = [...keys.keys()].join(', ');

  // 1. The service's word that this content is the event behind leafHash.
  const statementKey = keyFor(receipt.signature.keyId);
  if (!statementKey) {
    fail('receipt signature', `signed by key ${receipt.signature.keyId}, not by the given key (${givenIds})`);
  } else if (!ed25519Verifies(statementKey, receiptStatement({ ...receipt }), receipt.signature.value)) {
    fail(
      'receipt signature',
      `does not verify with key ${receipt.signature.keyId}: the receipt's content is not what the service signed (was it changed?)`,
    );
  }

  // 2. and 3. The leaf is in the log, and the log's tree head is the service's.
  const { proof } = receipt;
  if (proof === null) {
    fail(
      'not yet sealed',
      'the event is recorded but not yet sealed into the evidence log; fetch the receipt again later',
    );
  } else {
    const head = proof.treeHead;
    const included =
      proof.logId === head.logId &&
      proof.treeSize === head.treeSize &&
      verifyInclusion(
        proof.leafIndex,
        head.treeSize,
        Buffer.from(receipt.leafHash, 'hex'),
        proof.auditPath.map((h) => Buffer.from(h, 'hex')),
        Buffer.from(head.rootHash, 'hex'),
      );
    if (!included) {
      fail(
        'inclusion proof',
        `leaf ${proof.leafIndex} does not lead to the root of the tree head of ${head.logId} at size ${head.treeSize}`,
      );
    }
    const headKey = keyFor(head.keyId);
    if (!headKey) {
      fail('tree head signature', `signed by key ${head.keyId}, not by the given key (${givenIds})`);
    } else if (!verifyTreeHead(head, headKey)) {
      fail(
        'tree head signature',
        `the tree head of ${head.logId} at size ${head.treeSize} does not verify with key ${head.keyId}`,
      );
    }
  }

  if (failures.length === 0 && proof) {
    out(
      `Verified: receipt ${receipt.eventId} is signed by key ${receipt.signature.keyId}, and its event is leaf ` +
        `${proof.leafIndex} of log ${proof.logId} at size ${proof.treeSize} (tree head of ${proof.treeHead.timestamp}, key ${proof.treeHead.keyId})`,
    );
  } else {
    out(
      `Not verified (${failures.join(', ')}): receipt ${receipt.eventId}; what it states is shown below, unconfirmed`,
    );
  }
  for (const line of recorded(receipt)) out(line);
  return failures.length;
}

/** What was recorded, in the receipt's words. */
function recorded(r: Receipt): string[] {
  const policy = r.controller.privacyPolicyUrl ?? 'not given';
  const version = r.controller.privacyPolicyVersion ? ` (version ${r.controller.privacyPolicyVersion})` : '';
  const width = Math.max(...r.purposes.map((p) => p.key.length), 0);
  return [
    `  Recorded by:     ${r.controller.name}`,
    `  Recorded at:     ${r.recordedAt}`,
    `  Channel:         ${r.channelId}`,
    `  Privacy policy:  ${policy}${version}`,
    `  Notice version:  ${r.configVersion ?? 'unknown'}`,
    `  Region:          ${r.region ?? 'unknown'}${r.regime ? ` (${r.regime})` : ''}`,
    `  Language:        ${r.language ?? 'not given'}`,
    `  Leaf hash:       ${r.leafHash}`,
    '  Decisions:',
    ...r.purposes.map(
      (p) =>
        `    ${p.key.padEnd(width)}  ${p.decision.padEnd(7)}  ${p.name}; legal basis: ${p.legalBasis ?? 'not given'}`,
    ),
  ];
}

function ed25519Verifies(rawKey: Buffer, message: Buffer, signatureBase64: string): boolean {
  const signature = Buffer.from(signatureBase64, 'base64');
  if (signature.length !== 64) return false;
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, rawKey]),
    format: 'der',
    type: 'spki',
  });
  return verify(null, message, key, signature);
}

/** The receipt from a file or a URL: the `{data}` envelope or the receipt itself. */
async function load(source: string): Promise<unknown> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    let res: Response;
    try {
      res = await fetch(source, { headers: { accept: 'application/json' } });
    } catch (error) {
      throw new CliFailure(`cannot fetch the receipt: ${(error as Error).cause ?? (error as Error).message}`);
    }
    text = await res.text();
    if (!res.ok) {
      // A wrong or expired token, a purged event: the service's problem title says which.
      let detail = '';
      try {
        const problem = JSON.parse(text) as { title?: string; detail?: string };
        detail = `: ${problem.detail ?? problem.title ?? ''}`;
      } catch {}
      throw new CliFailure(`the receipt address answered ${res.status}${detail}`);
    }
  } else {
    if (!fs.existsSync(source)) throw new CliFailure(`no such file: ${source}`);
    text = fs.readFileSync(source, 'utf8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliFailure('the receipt is not JSON');
  }
  const data = (json as { data?: unknown } | null)?.data;
  return data !== undefined && typeof data === 'object' ? data : json;
}

/** A receipt with every member the checks read, of the right type; otherwise a one-line failure. */
function checkShape(value: unknown): Receipt {
  const r = value as Receipt;
  const isString = (v: unknown) => typeof v === 'string';
  const orNull = (v: unknown) => v === null || isString(v);
  const problems: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  if (!r || typeof r !== 'object' || Array.isArray(r))
    throw new CliFailure('the receipt is not a JSON object');
  need(isString(r.eventId), 'eventId');
  need(
    !!r.controller &&
      isString(r.controller.name) &&
      orNull(r.controller.privacyPolicyUrl) &&
      orNull(r.controller.privacyPolicyVersion),
    'controller',
  );
  need(isString(r.channelId), 'channelId');
  need(isString(r.recordedAt), 'recordedAt');
  need(r.configVersion === null || Number.isInteger(r.configVersion), 'configVersion');
  need(orNull(r.region) && orNull(r.regime) && orNull(r.language), 'region, regime or language');
  need(
    Array.isArray(r.purposes) &&
      r.purposes.every(
        (p) => p && isString(p.key) && isString(p.name) && orNull(p.legalBasis) && isString(p.decision),
      ),
    'purposes',
  );
  need(isString(r.leafHash) && HEX64.test(r.leafHash), 'leafHash');
  need(!!r.signature && isString(r.signature.keyId) && isString(r.signature.value), 'signature');
  const p = r.proof;
  need(
    p === null ||
      (!!p &&
        isString(p.logId) &&
        Number.isInteger(p.leafIndex) &&
        Number.isInteger(p.treeSize) &&
        Array.isArray(p.auditPath) &&
        p.auditPath.every((h) => isString(h) && HEX64.test(h)) &&
        !!p.treeHead &&
        isString(p.treeHead.logId) &&
        Number.isInteger(p.treeHead.treeSize) &&
        isString(p.treeHead.rootHash) &&
        HEX64.test(p.treeHead.rootHash) &&
        isString(p.treeHead.timestamp) &&
        isString(p.treeHead.keyId) &&
        isString(p.treeHead.signature)),
    'proof',
  );
  if (problems.length > 0) throw new CliFailure(`not a receipt: missing or malformed ${problems.join(', ')}`);
  return r;
}
