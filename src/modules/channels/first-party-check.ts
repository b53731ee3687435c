import type { Static } from '@sinclair/typebox';
import type { Tx } from '../../platform/db/store.ts';
import { type FieldError, validationFailed } from '../../platform/http/errors.ts';
import type { ChannelRow } from './channels.repo.ts';
import type { UpdateChannelBody } from './channels.schemas.ts';
import { cmpImportErrors } from './cmp-imports.ts';
import { firstPartyPathErrors } from './first-party-settings.ts';
import { originsRepo } from './origins.repo.ts';
import { cookieDomainErrors } from './origins.service.ts';
import { purposesRepo } from './purposes.repo.ts';

/**
 * The first-party settings of a channel create or PATCH (docs/guides/keep-the-choice.md), checked in
 * `tx` against what they depend on: the cookie Domain must cover every active origin, and imports
 * map onto active optional purposes. Only what the input sets is checked; a new channel (`channel`
 * null) has neither origins nor purposes yet. Every error at once, as one 422.
 */
export async function assertFirstPartySettings(
  tx: Tx,
  channel: Pick<ChannelRow, 'organizationId' | 'id'> | null,
  input: Pick<Static<typeof UpdateChannelBody>, 'firstPartyPath' | 'cookieDomain' | 'imports'>,
): Promise<void> {
  const errors: FieldError[] = [...firstPartyPathErrors(input.firstPartyPath)];
  if (input.cookieDomain !== undefined) {
    const origins = channel ? await originsRepo.active(tx, channel) : [];
    errors.push(...cookieDomainErrors(input.cookieDomain, origins));
  }
  if (input.imports !== undefined && input.imports.length > 0) {
    const purposes = channel ? await purposesRepo.all(tx, channel) : [];
    errors.push(...cmpImportErrors(input.imports, purposes));
  }
  if (errors.length > 0) throw validationFailed(errors);
}
