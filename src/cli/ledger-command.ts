import type { Environment } from '../platform/auth/scopes.ts';
import { assertOrganization, type CommandIo, parse, required } from './commands.ts';
import { UsageError } from './errors.ts';

const LEDGER_USAGE =
  'usage: ledger forks [--json] | ledger accept-fork --org ORG_ID --environment test|live [--json]';

/**
 * `ledger forks`: the logs the sealer found forked (their database no longer extends a head it
 * signed) and whether each was accepted. `ledger accept-fork`: the operator's decision that the
 * database's tree is the log from now on (docs/guides/operate.md, "Ledger forks"): the sealer signs
 * again, after the heads it keeps; the lost head stays on record. Audited in that environment.
 */
export async function ledgerCommand(io: CommandIo, args: string[]) {
  const [action, ...rest] = args;
  if (action === 'forks') {
    const values = parse(rest, { json: { type: 'boolean' } });
    await io.withRuntime(async (runtime) => {
      const forks = await runtime.services.ledger.forks.list(1000);
      if (values.json) {
        io.out(JSON.stringify({ forks }));
        return;
      }
      if (forks.length === 0) io.out('No ledger fork found.');
      for (const fork of forks)
        io.out(
          `${fork.organizationId} ${fork.environment} ${fork.logId}: head ${fork.signedTreeSize} signed, ` +
            `the database has ${fork.databaseTreeSize} leaves${fork.databaseLogId && fork.databaseLogId !== fork.logId ? ` (log ${fork.databaseLogId})` : ''}; ` +
            `found ${fork.detectedAt.toISOString()}, ${fork.acceptedAt ? `accepted ${fork.acceptedAt.toISOString()}` : 'not accepted: the log is not signed'}`,
        );
    });
    return;
  }
  if (action !== 'accept-fork') throw new UsageError(LEDGER_USAGE);
  const values = parse(rest, {
    org: { type: 'string' },
    environment: { type: 'string' },
    json: { type: 'boolean' },
  });
  const org = required(values, 'org');
  const environment = required(values, 'environment');
  if (environment !== 'test' && environment !== 'live')
    throw new UsageError('--environment must be test or live');
  const scope = { organizationId: org, environment: environment as Environment };
  await io.withRuntime(async (runtime) => {
    await assertOrganization(runtime, org);
    const accepted = await runtime.store.tx(async (tx) => {
      const forks = await runtime.services.ledger.forks.accept(tx, scope);
      for (const fork of forks)
        await runtime.services.audit.record(
          tx,
          { ...scope, actor: { type: 'system', id: null }, requestId: null, ipPrefix: null },
          { action: 'ledger.fork_accepted', target: { type: 'ledger_log', id: fork.logId } },
        );
      return forks;
    });
    if (values.json) io.out(JSON.stringify({ accepted }));
    else if (accepted.length === 0) io.out(`No open ledger fork for ${org} (${environment}).`);
    else
      for (const fork of accepted)
        io.out(
          `Accepted: log ${fork.logId} of ${org} (${environment}) is signed again from its database's ${fork.databaseTreeSize} leaves; head ${fork.signedTreeSize} signed before stays inconsistent with the heads to come.`,
        );
  });
}
