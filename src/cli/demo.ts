import type { AuditContext } from '../modules/audit/audit.service.ts';
import type { ChannelRow } from '../modules/channels/channels.service.ts';
import type { CreatePurposeInput } from '../modules/channels/purposes.service.ts';
import { demoPagePath } from '../modules/demo/demo.page.ts';
import type { Runtime } from './runtime.ts';

/** The demo's names: found again by them, so running `demo` twice reuses what the first run made. */
export const DEMO_ORGANIZATION = 'Demo organization';
export const DEMO_OWNER = 'demo@example.com';
const DEMO_CHANNEL = 'Demo channel';

/**
 * Purposes a first banner needs to look real: one a visitor cannot refuse, two they can. `init`
 * gives its development channel the same ones.
 */
export const SAMPLE_PURPOSES: CreatePurposeInput[] = [
  {
    key: 'necessary',
    name: 'Strictly necessary',
    description: 'Keeps the site working and remembers this choice.',
    required: true,
  },
  {
    key: 'analytics',
    name: 'Analytics',
    description: 'Counts visits to learn which pages are useful.',
    consentModeSignals: ['analytics_storage'],
  },
  {
    key: 'marketing',
    name: 'Marketing',
    description: 'Shows ads that match your interests on other sites.',
    consentModeSignals: ['ad_storage', 'ad_user_data', 'ad_personalization'],
    gpcOptOut: true,
  },
];

export interface DemoSite {
  organizationId: string;
  ownerEmail: string;
  channelId: string;
  siteKey: string;
  url: string;
  /** Whether this run created the channel (false: an earlier run's is reused). */
  created: boolean;
}

/**
 * The demo organization's test channel with the sample purposes, created on the first run and
 * reused after (an archived one is replaced). Test data only: a test channel accepts pages on
 * localhost and 127.0.0.1 unregistered, so the demo page needs no origin.
 */
export async function ensureDemoSite(runtime: Runtime, baseUrl: string): Promise<DemoSite> {
  const { store, services } = runtime;
  let organization = await services.organizations.findOrganizationByName(DEMO_ORGANIZATION);
  if (!organization) {
    organization = await store.tx(async (tx) => {
      const created = await services.organizations.createOrganization(tx, DEMO_ORGANIZATION);
      await services.organizations.addMember(tx, created.id, DEMO_OWNER, 'owner');
      return created;
    });
  }
  const context: AuditContext = {
    organizationId: organization.id,
    environment: 'test',
    actor: { type: 'system', id: null },
    requestId: null,
    ipPrefix: null,
  };
  const db = store.scope(null);
  let channel: ChannelRow | undefined = (await services.channels.list(db, context, 100, null)).find(
    (row) => row.name === DEMO_CHANNEL && row.status === 'active',
  );
  const created = !channel;
  if (!channel) {
    channel = await services.channels.create(db, context, {
      name: DEMO_CHANNEL,
      description: 'Made by `npx consent-service demo`: sample purposes, test data only.',
    });
    for (const purpose of SAMPLE_PURPOSES)
      await services.channels.purposes.create(db, context, channel.id, purpose);
  }
  return {
    organizationId: organization.id,
    ownerEmail: DEMO_OWNER,
    channelId: channel.id,
    siteKey: channel.siteKey,
    url: `${baseUrl}${demoPagePath(channel.siteKey)}`,
    created,
  };
}

/**
 * `consent-service demo [--json]`: the demo site, and what to open. In the server that holds the
 * embedded store (the command came over its socket) or in this process; main.ts then starts a
 * server here when none answers, so the printed page works.
 */
export async function printDemoSite(
  runtime: Runtime,
  io: { out(line: string): void; config: { baseUrl: string } },
  options: {
    json: boolean;
    /** Sets the demo owner's console password (`demo --password-stdin`), or null to leave it. */
    setPassword: ((organizationId: string, email: string) => Promise<unknown>) | null;
  },
) {
  const demo = await ensureDemoSite(runtime, io.config.baseUrl);
  if (options.setPassword) await options.setPassword(demo.organizationId, demo.ownerEmail);
  if (options.json) {
    const { url, channelId, siteKey, organizationId } = demo;
    io.out(JSON.stringify({ url, channelId, siteKey, organizationId }));
    return;
  }
  io.out(
    `${demo.created ? 'Created' : 'Reusing'} the test channel ${demo.channelId} of "${DEMO_ORGANIZATION}" (${demo.organizationId}), with sample purposes.`,
  );
  io.out('');
  io.out(`  Demo page:  ${demo.url}`);
  io.out(
    `  Evidence:   ${io.config.baseUrl}/console#/evidence  (sign in as ${demo.ownerEmail}, "Test data")`,
  );
  io.out('');
  if (options.setPassword) {
    io.out(`Open the demo page, answer the banner, then sign in as ${demo.ownerEmail} with the password you`);
    io.out('gave to see your decision in the console.');
    return;
  }
  io.out('Open the demo page, answer the banner, then see your decision in the console. A console password');
  io.out(`for ${demo.ownerEmail}, if it has none yet (at least 12 characters, read from stdin):`);
  io.out(
    `  echo 'a long passphrase here' | npx consent-service members set-password --org ${demo.organizationId} --email ${demo.ownerEmail} --password-stdin`,
  );
  io.out('(or run demo again with --password-stdin).');
}
