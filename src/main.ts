import {
  bootstrapCommand,
  keysCommand,
  membersCommand,
  migrateCommand,
  orgsCommand,
  UsageError,
} from './cli/commands.ts';
import { serveCommand } from './cli/serve.ts';
import { verifyExportCommand } from './cli/verify-export.ts';
import { ConfigError, loadConfig } from './config.ts';
import { OrganizationError } from './modules/organizations/organizations.service.ts';
import { DataDirInUseError } from './platform/db/store.ts';
import { AppError } from './platform/http/errors.ts';

const USAGE = `usage: consent-service <command>
  serve [--role api|worker|all]           run the API and/or the worker (default all) on PORT (default 3000)
  bootstrap --org NAME --owner EMAIL [--password-stdin] [--json]
  members add --org ORG_ID --email E --role owner|admin|developer|analyst [--password-stdin] [--json]
  members set-password --org ORG_ID --email E --password-stdin   console password, read from stdin
  keys create --org ORG_ID --member E --env test|live --scopes a,b --name N [--json]
  orgs set-limit --org ORG_ID --per-minute N|default [--json]
  migrate                                 apply database migrations and exit
  verify-export FILE --key PUBLIC_KEY_BASE64   check an includeProofs JSONL export offline (no database)`;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(argv: string[]) {
  const [command, ...args] = argv;
  if (command === 'verify-export') {
    // Offline: no configuration or database. Non-zero exit after every failure and the summary.
    if ((await verifyExportCommand(args, out)) > 0) process.exitCode = 1;
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serveCommand(config, args);
    case 'bootstrap':
      return bootstrapCommand(config, args, out);
    case 'members':
      return membersCommand(config, args, out);
    case 'keys':
      return keysCommand(config, args, out);
    case 'orgs':
      return orgsCommand(config, args, out);
    case 'migrate':
      return migrateCommand(config, args, out);
    case undefined:
    case 'help':
    case '--help':
      out(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // Known failures are one line for the person at the terminal; anything else keeps its stack.
  if (error instanceof UsageError || error instanceof ConfigError) {
    // A ConfigError lists every bad setting, one per line: each line gets the prefix.
    const lines = error instanceof ConfigError ? error.message.split('\n') : [error.message];
    process.stderr.write(lines.map((line) => `consent-service: ${line}\n`).join(''));
    process.exit(2);
  }
  if (error instanceof OrganizationError || error instanceof DataDirInUseError) {
    process.stderr.write(`consent-service: ${error.message}\n`);
    process.exit(1);
  }
  if (error instanceof AppError) {
    process.stderr.write(`consent-service: ${error.code}: ${error.detail}\n`);
    process.exit(1);
  }
  process.stderr.write(`consent-service: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
