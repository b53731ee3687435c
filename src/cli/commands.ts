import type { Config } from '../config.ts';
import { passwordProblem } from '../modules/console/passwords.ts';
import { OrganizationError } from '../modules/organizations/organizations.service.ts';
import { ROLES } from '../platform/auth/scopes.ts';
import type { Tx } from '../platform/db/store.ts';
import { bootstrapOrganization } from './bootstrap.ts';
import { UsageError } from './errors.ts';
import { parse, required } from './options.ts';
import type { Runtime } from './runtime.ts';

/**
 * Where a store command runs: in the CLI's own process (it opens the store for this command) or in
 * the server that holds the embedded store (the command came over its control socket). The
 * commands are the same code either way; only their input, output and store differ.
 */
export interface CommandIo {
  config: Config;
  out(line: string): void;
  /** A line for the person at the terminal, on stderr (stdout stays the command's output, --json too). */
  note(line: string): void;
  /** All of stdin: this process's, or what the CLI read from its own stdin and forwarded. */
  readStdin(): Promise<string>;
  /** The directory the CLI was run in (a relative --dir is taken from there, not the server's). */
  cwd: string;
  /**
   * Runs fn with a migrated store and its services, after saying on stderr which store it is.
   * Only `create: true` (bootstrap, migrate, demo) may create one: any other command finding no
   * store fails with "no store at …" and leaves DATA_DIR as it was.
   */
  withRuntime<T>(fn: (runtime: Runtime) => Promise<T>, options?: { create?: boolean }): Promise<T>;
}

export { parse, required } from './options.ts';

/**
 * The password piped on stdin (`--password-stdin`, like `docker login`): never an argument, which
 * would land in shell history and `ps`. One trailing newline is dropped; it is checked before any
 * change is made, so a refused password leaves nothing half done.
 */
async function passwordFromStdin(io: CommandIo, values: Record<string, unknown>): Promise<string | null> {
  if (!values['password-stdin']) return null;
  const password = (await io.readStdin()).replace(/\r?\n$/, '');
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem);
  return password;
}

/**
 * An organization-wide change made from the command line (a member, a password, a limit) belongs
 * to neither environment: it is recorded in both audit logs, with the system as actor, in the
 * transaction of the change (every mutation is audited).
 */
async function auditOrganizationChange(
  runtime: Runtime,
  tx: Tx,
  organizationId: string,
  action: string,
  target: { type: string; id: string },
) {
  for (const environment of ['test', 'live'] as const) {
    await runtime.services.audit.record(
      tx,
      { organizationId, environment, actor: { type: 'system', id: null }, requestId: null, ipPrefix: null },
      { action, target },
    );
  }
}

export async function bootstrapCommand(io: CommandIo, args: string[]) {
  const values = parse(args, {
    org: { type: 'string' },
    owner: { type: 'string' },
    json: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
  });
  const name = required(values, 'org');
  const ownerEmail = required(values, 'owner');
  const password = await passwordFromStdin(io, values);
  await io.withRuntime(
    async (runtime) => {
      // Running the walkthrough twice must not leave two organizations of one name to tell apart.
      const existing = await runtime.services.organizations.findOrganizationByName(name);
      if (existing) {
        throw new OrganizationError(
          `an organization named "${existing.name}" already exists: ${existing.id} (add members or keys to it, or choose another name)`,
        );
      }
      const result = await bootstrapOrganization(runtime.store, runtime.services, { name, ownerEmail });
      if (password !== null) {
        await runtime.store.tx((tx) =>
          runtime.services.sessions.setPassword(tx, result.organization.id, result.member.id, password),
        );
      }
      if (values.json) io.out(JSON.stringify(result));
      else {
        io.out(`Organization ${result.organization.id} (${result.organization.name})`);
        io.out(`Owner ${result.member.id} <${result.member.email}>`);
        io.out(`Test key: ${result.apiKeys.test}`);
        io.out(`Live key: ${result.apiKeys.live}`);
        io.out('Keep these keys secret: they are shown only now.');
      }
    },
    { create: true },
  );
}

const MEMBERS_USAGE =
  'usage: members add --org ORG_ID --email E --role ROLE [--password-stdin] [--json] | members set-password --org ORG_ID --email E --password-stdin';

export async function membersCommand(io: CommandIo, args: string[]) {
  const [action, ...rest] = args;
  if (action === 'set-password') return setPasswordCommand(io, rest);
  if (action !== 'add') throw new UsageError(MEMBERS_USAGE);
  const values = parse(rest, {
    org: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    json: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
  });
  const [org, email, role] = [required(values, 'org'), required(values, 'email'), required(values, 'role')];
  // A bad role is a mistake in the command line (exit 2), found before the store is opened.
  if (!(ROLES as readonly string[]).includes(role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const password = await passwordFromStdin(io, values);
  await io.withRuntime(async (runtime) => {
    const member = await runtime.store.tx(async (tx) => {
      const added = await runtime.services.organizations.addMember(tx, org, email, role);
      await auditOrganizationChange(runtime, tx, org, 'member.added', { type: 'member', id: added.id });
      return added;
    });
    if (password !== null) await setPasswordAudited(runtime, org, member.id, password);
    const result = { member: { id: member.id, organizationId: org, email: member.email, role: member.role } };
    io.out(
      values.json
        ? JSON.stringify(result)
        : `Member ${member.id} <${member.email}> (${member.role}) added to ${org}`,
    );
  });
}

/** Sets a member's console password (their sessions end), audited in the same transaction. */
async function setPasswordAudited(runtime: Runtime, org: string, memberRef: string, password: string) {
  // "no member … in org_x" would send someone looking for the member when the id is what is wrong.
  await assertOrganization(runtime, org);
  return runtime.store.tx(async (tx) => {
    const member = await runtime.services.sessions.setPassword(tx, org, memberRef, password);
    await auditOrganizationChange(runtime, tx, org, 'member.password_set', { type: 'member', id: member.id });
    return member;
  });
}

/** `members set-password`: sets or replaces a console password; the member's sessions end. */
async function setPasswordCommand(io: CommandIo, args: string[]) {
  const values = parse(args, {
    org: { type: 'string' },
    email: { type: 'string' },
    json: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
  });
  const [org, email] = [required(values, 'org'), required(values, 'email')];
  if (!values['password-stdin']) throw new UsageError('--password-stdin is required (pipe the password in)');
  const password = (await passwordFromStdin(io, values)) as string;
  await io.withRuntime(async (runtime) => {
    const member = await setPasswordAudited(runtime, org, email, password);
    const result = {
      member: { id: member.id, organizationId: org, email: member.email, passwordSet: true },
    };
    io.out(values.json ? JSON.stringify(result) : `Password set for ${member.email} in ${org}`);
  });
}

/** An unknown organization id is its own message, before any lookup of a member in it. */
export async function assertOrganization(runtime: Runtime, org: string): Promise<void> {
  if (!(await runtime.services.organizations.getOrganization(org)))
    throw new OrganizationError(`no organization ${org}`);
}

export async function keysCommand(io: CommandIo, args: string[]) {
  const [action, ...rest] = args;
  if (action !== 'create') {
    throw new UsageError(
      'usage: keys create --org ORG_ID --member E --env test|live --scopes a,b --name N [--json]',
    );
  }
  const values = parse(rest, {
    org: { type: 'string' },
    member: { type: 'string' },
    env: { type: 'string' },
    scopes: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean' },
  });
  const org = required(values, 'org');
  const memberRef = required(values, 'member');
  const environment = required(values, 'env');
  if (environment !== 'test' && environment !== 'live') throw new UsageError('--env must be test or live');
  const scopes = required(values, 'scopes')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const name = required(values, 'name');
  await io.withRuntime(async (runtime) => {
    const { organizations, apiKeys } = runtime.services;
    await assertOrganization(runtime, org);
    const member = await organizations.findMember(org, memberRef);
    if (!member) throw new OrganizationError(`no member ${memberRef} in ${org}`);
    const issued = await apiKeys.issue(
      runtime.store.scope(null),
      {
        organizationId: org,
        environment,
        actor: { type: 'member', id: member.id },
        requestId: null,
        ipPrefix: null,
      },
      { organizationId: org, memberId: member.id, role: member.role },
      { name, scopes },
      null,
    );
    const result = { apiKey: apiKeys.toResource(issued.key), secret: issued.secret };
    io.out(
      values.json
        ? JSON.stringify(result)
        : `Key ${issued.key.id}: ${issued.secret}\nKeep it secret: it is shown only now.`,
    );
  });
}

export async function orgsCommand(io: CommandIo, args: string[]) {
  const [action, ...rest] = args;
  if (action !== 'set-limit')
    throw new UsageError('usage: orgs set-limit --org ORG_ID --per-minute N|default');
  const values = parse(rest, {
    org: { type: 'string' },
    'per-minute': { type: 'string' },
    json: { type: 'boolean' },
  });
  const org = required(values, 'org');
  const raw = required(values, 'per-minute');
  const perMinute = raw === 'default' ? null : Number(raw);
  if (perMinute !== null && (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > 1_000_000)) {
    throw new UsageError('--per-minute must be an integer from 1 to 1000000, or "default"');
  }
  await io.withRuntime(async (runtime) => {
    await runtime.store.tx(async (tx) => {
      await runtime.services.organizations.setRateLimit(tx, org, perMinute);
      await auditOrganizationChange(runtime, tx, org, 'organization.rate_limit_set', {
        type: 'organization',
        id: org,
      });
    });
    const result = {
      // The limit all the organization's API keys share (each key also keeps RATE_LIMIT_PER_MINUTE).
      organization: { id: org, rateLimitPerMinute: perMinute ?? io.config.orgRateLimitPerMinute },
    };
    io.out(
      values.json
        ? JSON.stringify(result)
        : `Rate limit of ${org}, all its API keys together: ${result.organization.rateLimitPerMinute}/min`,
    );
  });
}

export async function migrateCommand(io: CommandIo, args: string[]) {
  parse(args, {});
  // Opening the store migrates it (a running server did so at its start).
  await io.withRuntime(async () => {}, { create: true });
  io.out('Migrations applied.');
}

/**
 * `demo [--password-stdin] [--json]`: the demo organization's test channel and the page that shows
 * its banner; with --password-stdin the demo owner's console password too, so the decision can be
 * seen in the console without a second command.
 */
export async function demoCommand(io: CommandIo, args: string[]) {
  const values = parse(args, { json: { type: 'boolean' }, 'password-stdin': { type: 'boolean' } });
  const password = await passwordFromStdin(io, values);
  const { printDemoSite } = await import('./demo.ts');
  await io.withRuntime(
    (runtime) =>
      printDemoSite(runtime, io, {
        json: values.json === true,
        setPassword:
          password === null ? null : (org, member) => setPasswordAudited(runtime, org, member, password),
      }),
    { create: true },
  );
}
