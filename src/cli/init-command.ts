import fs from 'node:fs';
import path from 'node:path';
import type { AuditContext } from '../modules/audit/audit.service.ts';
import type { ChannelRow } from '../modules/channels/channels.service.ts';
import { normalizeOrigin } from '../modules/channels/origin.ts';
import { OrganizationError } from '../modules/organizations/organizations.service.ts';
import type { CommandIo } from './commands.ts';
import { SAMPLE_PURPOSES } from './demo.ts';
import { CliFailure, UsageError } from './errors.ts';
import {
  type Detected,
  detectFramework,
  existingFiles,
  FRAMEWORKS,
  type Framework,
  planFiles,
  writeFiles,
} from './init-files.ts';
import { parse, required } from './options.ts';
import type { Runtime } from './runtime.ts';

/** The channel init makes, found again by its name so that a second run reuses it. */
export const INIT_CHANNEL = 'Development channel';
/** Organizations named in the message that asks for --org. */
const ORGANIZATIONS_SHOWN = 10;

interface InitChannel {
  organizationId: string;
  channel: ChannelRow;
  created: boolean;
  originAdded: boolean;
}

/** --org, or the only organization; with several, the person picks (their names are listed). */
async function chooseOrganization(runtime: Runtime, org: string | undefined): Promise<string> {
  const { organizations } = runtime.services;
  if (org !== undefined) {
    if (!(await organizations.getOrganization(org))) throw new OrganizationError(`no organization ${org}`);
    return org;
  }
  const found = await organizations.listOrganizations(ORGANIZATIONS_SHOWN + 1);
  if (found.length === 0)
    throw new OrganizationError(
      'no organization yet: create one first (npx consent-service bootstrap --org NAME --owner EMAIL)',
    );
  if (found.length === 1) return found[0].id;
  const names = found
    .slice(0, ORGANIZATIONS_SHOWN)
    .map((row) => `${row.id} "${row.name}"`)
    .join(', ');
  throw new OrganizationError(
    `several organizations: pick one with --org (${names}${found.length > ORGANIZATIONS_SHOWN ? ', …' : ''})`,
  );
}

/**
 * The organization's test channel "Development channel" with the sample purposes and `origin`
 * registered: created on the first run, reused (and the origin added when new) after.
 */
async function ensureInitChannel(
  runtime: Runtime,
  org: string | undefined,
  origin: string,
): Promise<InitChannel> {
  const { store, services } = runtime;
  const organizationId = await chooseOrganization(runtime, org);
  const context: AuditContext = {
    organizationId,
    environment: 'test',
    actor: { type: 'system', id: null },
    requestId: null,
    ipPrefix: null,
  };
  const db = store.scope(null);
  let channel = (await services.channels.list(db, context, 100, null)).find(
    (row) => row.name === INIT_CHANNEL && row.status === 'active',
  );
  const created = !channel;
  if (!channel) {
    channel = await services.channels.create(db, context, {
      name: INIT_CHANNEL,
      description: 'Made by `npx consent-service init`: sample purposes, test data only.',
    });
    for (const purpose of SAMPLE_PURPOSES)
      await services.channels.purposes.create(db, context, channel.id, purpose);
  }
  const origins = await services.channels.origins.list(db, context, channel.id, 1000, null);
  const originAdded = !origins.some((row) => row.status === 'active' && row.origin === origin);
  if (originAdded) await services.channels.origins.create(db, context, channel.id, { origin });
  return { organizationId, channel, created, originAdded };
}

function chooseFramework(dir: string, given: unknown): Detected {
  if (given === undefined) {
    try {
      return detectFramework(dir);
    } catch (error) {
      throw new CliFailure((error as Error).message);
    }
  }
  if (!(FRAMEWORKS as readonly unknown[]).includes(given))
    throw new UsageError(`--framework must be one of ${FRAMEWORKS.join(', ')}`);
  return { framework: given as Framework, reason: 'given with --framework' };
}

/**
 * `init --origin URL [--framework html|react|next] [--dir PATH] [--org ORG_ID] [--json]`: a test
 * channel and the files the project needs to show its banner. Every check that can fail without the
 * store (the origin, the directory, files that exist) comes before the channel is made, so a
 * refused run changes nothing anywhere.
 */
export async function initCommand(io: CommandIo, args: string[]) {
  const values = parse(args, {
    origin: { type: 'string' },
    framework: { type: 'string' },
    dir: { type: 'string' },
    org: { type: 'string' },
    json: { type: 'boolean' },
  });
  const normalized = normalizeOrigin(required(values, 'origin'), { environment: 'test' });
  if (!normalized.ok)
    throw new UsageError(
      `--origin ${normalized.reason}: give where your pages are served from, e.g. http://localhost:5173`,
    );
  const dir = path.resolve(io.cwd, typeof values.dir === 'string' ? values.dir : '.');
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new CliFailure(`no directory ${dir}: give your project's folder with --dir`);
  const { framework, reason } = chooseFramework(dir, values.framework);
  const files = planFiles(dir, framework);
  const existing = existingFiles(dir, files);
  if (existing.length > 0)
    throw new CliFailure(
      `${existing.map((file) => path.join(dir, file)).join(' and ')} already ${existing.length > 1 ? 'exist' : 'exists'}: init never overwrites a file, and wrote nothing (move it away and run init again)`,
    );
  await io.withRuntime(async (runtime) => {
    io.note(`framework: ${framework} (${reason})`);
    const made = await ensureInitChannel(runtime, values.org as string | undefined, normalized.origin);
    const site = await runtime.services.sites.resolve(made.channel.siteKey);
    const written = writeFiles(dir, files, {
      channelId: made.channel.id,
      siteKey: made.channel.siteKey,
      baseUrl: io.config.baseUrl,
      snippet: runtime.services.sites.snippet(site).html,
    });
    if (values.json) {
      io.out(JSON.stringify({ channelId: made.channel.id, siteKey: made.channel.siteKey, files: written }));
      return;
    }
    printSummary(io, made, normalized.origin, framework, written, dir);
  });
}

function printSummary(
  io: CommandIo,
  made: InitChannel,
  origin: string,
  framework: Framework,
  written: string[],
  dir: string,
) {
  io.out(
    `${made.created ? 'Created' : 'Reusing'} the test channel ${made.channel.id} ("${INIT_CHANNEL}") of ${made.organizationId}, site key ${made.channel.siteKey}; origin ${origin} ${made.originAdded ? 'registered' : 'was registered already'}.`,
  );
  io.out('Wrote:');
  for (const file of written) io.out(`  ${file}`);
  io.out('Next:');
  if (framework === 'html') {
    io.out(`  paste ${path.basename(written[0])} into the <head> of your pages, and open them on ${origin}.`);
  } else {
    const provider = path.relative(dir, written[0]);
    io.out(
      `  1. the React bindings: npx consent-service packages --out ${path.join(dir, 'vendor', 'consent-service')}`,
    );
    io.out('     then, in your project, the npm install line it prints for @consent-service/react');
    io.out(`  2. wrap your app in <Consent> from ./${provider.replace(/\.[jt]sx$/, '')}`);
    io.out(`  3. start your dev server on ${origin}: the banner shows (the service must be running)`);
  }
  io.out(
    'A test channel keeps test data only (purged after 24 hours); the console shows it under "Test data".',
  );
}
