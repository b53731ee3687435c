import type { CommandIo } from './commands.ts';
import { UsageError } from './errors.ts';

/**
 * Runs a store command (bootstrap, members, keys, orgs, migrate, demo, ledger, init): the one code
 * path of the direct CLI and of a running server's control socket.
 */
export async function runStoreCommand(argv: string[], io: CommandIo): Promise<void> {
  const [command, ...args] = argv;
  const commands = await import('./commands.ts');
  switch (command) {
    case 'bootstrap':
      return commands.bootstrapCommand(io, args);
    case 'members':
      return commands.membersCommand(io, args);
    case 'keys':
      return commands.keysCommand(io, args);
    case 'orgs':
      return commands.orgsCommand(io, args);
    case 'migrate':
      return commands.migrateCommand(io, args);
    case 'demo':
      return commands.demoCommand(io, args);
    case 'ledger':
      return (await import('./ledger-command.ts')).ledgerCommand(io, args);
    case 'init':
      return (await import('./init-command.ts')).initCommand(io, args);
    default:
      throw new UsageError(
        `unknown ${command?.startsWith('-') ? 'option' : 'command'} "${command}" (see consent-service --help)`,
      );
  }
}
