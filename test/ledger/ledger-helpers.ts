import { createPublicKey, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import { type EvidenceRow, evidenceEvents } from '../../src/modules/evidence/evidence.tables.ts';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { createPartitionsFor } from '../../src/modules/evidence/partitions.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { randomBase62 } from '../../src/platform/ids.ts';
import { leafHashOf, mth, verifyInclusionProof } from './rfc9162.ts';

export interface Scope {
  organizationId: string;
  environment: 'test' | 'live';
}

/** A fresh Ed25519 key: PKCS#8 PEM for LEDGER_SIGNING_KEY and the raw public key, base64. */
export function newSigningKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return {
    pem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    publicKey: raw.toString('base64'),
  };
}

/** SPKI DER header of an Ed25519 public key (RFC 8410): the raw 32 bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Checks a tree head's signature from its documented format alone (docs/decisions/ledger.md), with
 * node:crypto and none of the service's code: Ed25519 over the UTF-8 of
 * `consent-service tree head v1\n<logId>\n<treeSize>\n<rootHash hex>\n<timestamp>`,
 * against a raw public key (Buffer, or base64 as `GET /v1/public/ledger-keys` publishes it).
 */
export function independentSignatureVerifies(
  head: { logId: string; treeSize: number; rootHash: string; timestamp: string; signature: string },
  rawPublicKey: Buffer | string,
): boolean {
  const raw = typeof rawPublicKey === 'string' ? Buffer.from(rawPublicKey, 'base64') : rawPublicKey;
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, raw]),
    format: 'der',
    type: 'spki',
  });
  const signed = `consent-service tree head v1\n${head.logId}\n${head.treeSize}\n${head.rootHash}\n${head.timestamp}`;
  return verify(null, Buffer.from(signed, 'utf8'), key, Buffer.from(head.signature, 'base64'));
}

/**
 * Inserts `n` evidence events straight into the table (fast bulk leaves for the ledger tests), one
 * second apart from `from`, with receipt hashes computed as the service does. The ledger's trigger
 * queues them for sealing like any other insert. The live months they fall in are made first, as the
 * service's writer makes them (createPartitionsFor): the store is made with the partitions of the
 * current month onwards, so an event dated in an earlier month (a day back on the first of a month)
 * has no partition to go to until one is made.
 */
export async function insertEvents(
  store: Store,
  scope: Scope,
  n: number,
  options: { from?: Date; channelId?: string } = {},
): Promise<EvidenceRow[]> {
  const start = (options.from ?? new Date()).getTime();
  const rows: EvidenceRow[] = [];
  for (let i = 0; i < n; i++) {
    const row: EvidenceRow = {
      ...scope,
      id: `evt_${randomBase62(22)}`,
      channelId: options.channelId ?? 'ch_ledgertest000000000000',
      subjectPseudonym: `psn_${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`,
      decisions: { analytics: i % 2 === 0 ? 'granted' : 'denied' },
      configVersion: 1,
      policyVersion: '1',
      source: 'api',
      language: 'en',
      gpc: false,
      origin: null,
      userAgent: `bulk ${i}`,
      ipPrefix: null,
      // As events recorded before regions existed: their canonical form has no region members.
      region: null,
      regionSource: null,
      regime: null,
      gppString: null,
      tcString: null,
      tcf: null,
      recordedAt: new Date(Math.floor(start / 1000) * 1000 + i * 1000),
      receiptHash: '',
      receiptTokenHash: null,
      purgedAt: null,
    };
    row.receiptHash = evidenceLeafHash(evidenceEventBody(row, 'unmasked'));
    rows.push(row);
  }
  await createPartitionsFor(store, rows);
  for (let i = 0; i < rows.length; i += 500) {
    await store.tx((tx) => tx.insert(evidenceEvents).values(rows.slice(i, i + 500)));
  }
  return rows;
}

/** The leaf hash of an event as exported (unmasked, receipt and ledger removed), computed independently. */
export function independentLeafHash(event: Record<string, unknown>): string {
  const { receipt: _r, ledger: _l, ...rest } = event;
  return leafHashOf(Buffer.from(canonicalize(rest) as string, 'utf8'));
}

/** Checks an inclusion proof response with the independent verifier. */
export function proofVerifies(
  leafHash: string,
  proof: { leafIndex: number; treeSize: number; auditPath: string[]; rootHash: string },
): boolean {
  return verifyInclusionProof(proof.leafIndex, proof.treeSize, leafHash, proof.auditPath, proof.rootHash);
}

export { mth };
