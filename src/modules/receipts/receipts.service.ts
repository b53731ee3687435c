import type { Static } from '@sinclair/typebox';
import type { DbScope } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { EvidenceRow, EvidenceService } from '../evidence/evidence.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { OrganizationsService } from '../organizations/organizations.service.ts';
import { receiptStatement } from './receipt-statement.ts';
import type { Receipt } from './receipts.schemas.ts';

export type ReceiptData = Static<typeof Receipt>;

/**
 * Visitor receipts (docs/receipts.md). A receipt says what was recorded in plain terms, with no subject
 * id or pseudonym, the ledger's inclusion proof once the event is sealed, and the service's signature
 * over its content (receipt-statement.ts). The controller is the organization: it, not a channel (a
 * website), is the party that answers for the processing.
 */
export function createReceiptsService(deps: {
  evidence: Pick<EvidenceService, 'findByReceiptToken'>;
  channels: Pick<ChannelsService, 'findChannel' | 'findConfigVersion'>;
  organizations: Pick<OrganizationsService, 'getOrganization'>;
  ledger: Pick<LedgerService, 'inclusionProof' | 'signReceipt'>;
}) {
  const { evidence, channels, organizations, ledger } = deps;

  async function proofOf(db: DbScope, row: EvidenceRow): Promise<ReceiptData['proof']> {
    try {
      const proof = await ledger.inclusionProof(
        db,
        { organizationId: row.organizationId, environment: row.environment },
        row.id,
      );
      const { logId, leafIndex, treeSize, auditPath, treeHead } = proof;
      return { logId, leafIndex, treeSize, auditPath, treeHead };
    } catch (error) {
      if (error instanceof AppError && error.code === 'evidence_not_sealed') return null;
      throw error;
    }
  }

  return {
    /** The receipt a token opens; a wrong or missing token, or a purged or unknown event, is a 404. */
    async get(db: DbScope, eventId: string, token: string | undefined): Promise<ReceiptData> {
      const row = token ? await evidence.findByReceiptToken(db, eventId, token) : null;
      if (!row) throw notFound('receipt');
      const [organization, channel] = await Promise.all([
        organizations.getOrganization(row.organizationId, db.read),
        channels.findChannel(row.organizationId, row.environment, row.channelId, db.read),
      ]);
      const config =
        channel && row.configVersion !== null
          ? await channels.findConfigVersion(channel, row.configVersion)
          : null;
      const known = new Map((config?.purposes ?? []).map((p) => [p.key, p]));
      const decisions = row.decisions ?? {};
      // The notice's order first, then any key the notice no longer names.
      const keys = [
        ...(config?.purposes ?? []).map((p) => p.key).filter((key) => key in decisions),
        ...Object.keys(decisions).filter((key) => !known.has(key)),
      ];
      const receipt: Omit<ReceiptData, 'signature'> = {
        eventId: row.id,
        controller: {
          name: organization?.name ?? '',
          privacyPolicyUrl: config?.privacyPolicy.url ?? null,
          privacyPolicyVersion: row.policyVersion,
        },
        channelId: row.channelId,
        recordedAt: apiDate(row.recordedAt),
        configVersion: row.configVersion,
        region: row.region,
        regime: row.regime,
        language: row.language,
        purposes: keys.map((key) => {
          const purpose = known.get(key);
          const translated = row.language ? purpose?.translations[row.language]?.name : undefined;
          return {
            key,
            name: translated ?? purpose?.name ?? key,
            legalBasis: purpose?.legalBasis ?? null,
            decision: decisions[key],
          };
        }),
        leafHash: row.receiptHash,
        proof: await proofOf(db, row),
      };
      const signature = await ledger.signReceipt(receiptStatement(receipt));
      return { ...receipt, signature };
    },
  };
}

export type ReceiptsService = ReturnType<typeof createReceiptsService>;
