import type { ApiKeysService } from '../modules/api-keys/api-keys.service.ts';
import type { OrganizationsService } from '../modules/organizations/organizations.service.ts';
import { ROLE_SCOPES } from '../platform/auth/scopes.ts';
import type { Store } from '../platform/db/store.ts';

export interface BootstrapResult {
  organization: { id: string; name: string };
  member: { id: string; email: string; role: string };
  apiKeys: { test: string; live: string };
}

/** A new organization, its owner, and one test and one live key with every scope an owner may hold. */
export async function bootstrapOrganization(
  store: Store,
  services: { organizations: OrganizationsService; apiKeys: ApiKeysService },
  input: { name: string; ownerEmail: string },
): Promise<BootstrapResult> {
  const { organization, owner } = await store.tx(async (tx) => {
    const organization = await services.organizations.createOrganization(tx, input.name);
    const owner = await services.organizations.addMember(tx, organization.id, input.ownerEmail, 'owner');
    return { organization, owner };
  });
  const holder = { organizationId: organization.id, memberId: owner.id, role: owner.role };
  const keys = { test: '', live: '' };
  for (const environment of ['test', 'live'] as const) {
    const context = {
      organizationId: organization.id,
      environment,
      actor: { type: 'system' as const, id: null },
      requestId: null,
      ipPrefix: null,
    };
    const issued = await services.apiKeys.issue(
      store.scope(null),
      context,
      holder,
      { name: `Bootstrap ${environment} key`, scopes: [...ROLE_SCOPES.owner] },
      null,
    );
    keys[environment] = issued.secret;
  }
  return {
    organization: { id: organization.id, name: organization.name },
    member: { id: owner.id, email: owner.email, role: owner.role },
    apiKeys: keys,
  };
}
