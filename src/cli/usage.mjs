// Plain JavaScript on purpose: bin/consent-service.mjs answers --help and --version from here
// without loading tsx, the app, drizzle or PGlite (a help screen must not cost seconds).
import fs from 'node:fs';
import { nearest } from './nearest.mjs';

/** One entry per command: its synopsis lines, then what it does. */
export const COMMAND_HELP = {
  serve: `usage: consent-service serve [--role api|worker|all]

Runs the API and the background worker (default --role all) on PORT (default 3000), data in
DATA_DIR (embedded store) or DATABASE_URL (PostgreSQL). --role api and --role worker need
PostgreSQL. With the embedded store, the other commands work while it runs: they are sent to
the server over a local socket in DATA_DIR.`,
  bootstrap: `usage: consent-service bootstrap --org NAME --owner EMAIL [--password-stdin] [--json]

Creates an organization, its owner member, and one test and one live API key with every owner
scope; the keys are shown only now. Refuses a name an organization already has (it names its id).
  --password-stdin   also set the owner's console password, read from stdin
  --json             print {"organization","member","apiKeys"} as JSON`,
  members: `usage: consent-service members add --org ORG_ID --email E --role owner|admin|developer|analyst [--password-stdin] [--json]
       consent-service members set-password --org ORG_ID --email E --password-stdin [--json]

add           adds a member to the organization (optionally with a console password)
set-password  sets or replaces a member's console password (at least 12 characters), read from
              stdin (never an argument); the member's console sessions end`,
  keys: `usage: consent-service keys create --org ORG_ID --member E --env test|live --scopes a,b --name N [--json]

Issues an API key for a member (by id or email), with the same rules as the API: the scopes must
be in the catalogue and allowed to the member's role. The secret is shown only now.`,
  orgs: `usage: consent-service orgs set-limit --org ORG_ID --per-minute N|default [--json]

Sets the limit all API keys of the organization share together, in place of
ORG_RATE_LIMIT_PER_MINUTE ("default" removes it). Each key keeps its own RATE_LIMIT_PER_MINUTE too.`,
  demo: `usage: consent-service demo [--password-stdin] [--json]

Shows a banner before you write any page: creates (or reuses) the test channel "Demo channel" of
the organization "Demo organization" (owner demo@example.com) with sample purposes, and prints the
address of a demo page the service serves with that channel's banner, and where the decisions
appear in the console. A running server takes the command; without one, a server starts here and
runs until Ctrl-C.
  --password-stdin   also set demo@example.com's console password, read from stdin
  --json             print {"url","channelId","siteKey","organizationId"} as JSON`,
  init: `usage: consent-service init --origin URL [--framework html|react|next] [--dir PATH] [--org ORG_ID] [--json]

Sets up your project to show the banner: creates (or, run again, reuses) the test channel
"Development channel" of the organization (--org, or the only one) with sample purposes and
registers --origin (where your pages are served from, e.g. http://localhost:5173), then writes
into --dir (default: the current directory):
  html         consent-service-snippet.html, the script tag to paste into your pages' <head>
  react, next  the provider component (consent-provider.tsx, or .jsx without TypeScript) and
               .env.local with the site key and the service's address (no API key)
Without --framework it is read from --dir's package.json: next, else react, else html. A file
that exists is never overwritten: init names it and exits 1, having written nothing.
  --json   print {"channelId","siteKey","files"} as JSON`,
  packages: `usage: consent-service packages --out DIR [--json]

Copies the npm packages' tarballs (@consent-service/browser, react, client, core, react-native;
packed by npm install) into DIR, a folder of your project, and prints the npm install line of
each: your package.json then names file: paths in your project instead of the service's address.
  --json   print {"dir","packages":[{"name","version","file","install"}]} as JSON`,
  ledger: `usage: consent-service ledger forks [--json]
       consent-service ledger accept-fork --org ORG_ID --environment test|live [--json]

forks        lists the evidence logs whose database no longer extends a tree head the service
             signed (a failover to a standby that missed writes, a restored backup); such a log
             is not signed until its fork is accepted
accept-fork  accepts the database's tree as the log from now on: the sealer signs it again; the
             head signed before stays on record, inconsistent with the new ones (tell whoever
             holds it; docs/guides/operate.md, "Ledger forks")`,
  migrate: `usage: consent-service migrate

Applies the database migrations and exits (serve also applies them at start).`,
  'verify-export': `usage: consent-service verify-export FILE --key PUBLIC_KEY_BASE64

Checks an includeProofs JSONL export offline (no database, no network): the tree head's signature,
then every event's leaf hash, receipt hash and inclusion proof. Exit 0 if all hold, 1 otherwise.`,
  'verify-receipt': `usage: consent-service verify-receipt FILE_OR_URL --key PUBLIC_KEY_BASE64

Checks a visitor's receipt (docs/receipts.md): a JSON file (the {"data": …} answer or the receipt), or
the receipt's URL, fetched with Accept: application/json. With the service's public key (base64 of
the raw 32-byte Ed25519 key, as GET /v1/public/ledger-keys publishes it; obtain it independently)
it checks the signature over the receipt's content, the inclusion proof of its leaf in the log and
the tree head's signature, then prints "Verified" and what was recorded. --key may be repeated
(a key change). Exit 0 if all hold, 1 otherwise (also for a receipt not yet sealed).`,
};

export const USAGE = `usage: consent-service <command> [options]

Commands:
  demo [--json]                      a banner on a demo page served by the service, in one command
  init --origin URL [--framework F]  a test channel and the files your project needs for its banner
  packages --out DIR                 copy the npm packages into your project, to install from there
  serve [--role api|worker|all]      run the API and/or the worker on PORT (default 3000)
  bootstrap --org NAME --owner EMAIL  create an organization, its owner and two API keys
  members add | set-password         add a member; set a member's console password
  keys create                        issue an API key for a member
  orgs set-limit                     set the rate limit all keys of an organization share
  ledger forks | accept-fork         evidence logs halted on a fork; accept one
  migrate                            apply database migrations and exit
  verify-export FILE --key KEY       check an includeProofs export offline
  verify-receipt FILE|URL --key KEY  check a visitor's receipt (its file or its URL)

Options: -h, --help (also after a command: consent-service bootstrap --help), --version
Exit codes: 0 done, 1 failed, 2 usage error.`;

export function version() {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return pkg.version;
}

/**
 * What to answer without loading anything: help, the version, or a usage error for a missing or
 * unknown command. Null when the command must run.
 * @param {string[]} argv
 * @returns {{ code: number, stdout?: string, stderr?: string } | null}
 */
export function answerWithoutLoading(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) return { code: 2, stderr: `${USAGE}\n` };
  if (command === '--version' || command === '-V' || command === 'version' || rest.includes('--version'))
    return { code: 0, stdout: `consent-service ${version()}\n` };
  if (command === '--help' || command === '-h' || command === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { code: 0, stdout: `${USAGE}\n` };
    if (!Object.hasOwn(COMMAND_HELP, topic)) return unknownCommand(topic);
    return { code: 0, stdout: `${COMMAND_HELP[topic]}\n` };
  }
  if (!Object.hasOwn(COMMAND_HELP, command)) return unknownCommand(command);
  if (rest.includes('--help') || rest.includes('-h'))
    return { code: 0, stdout: `${COMMAND_HELP[command]}\n` };
  return null;
}

function unknownCommand(command) {
  // `consent-service --bogus`: an option where the command goes is an unknown option, not a command.
  const isOption = command.startsWith('-');
  const guess = nearest(command, isOption ? ['--help', '--version'] : Object.keys(COMMAND_HELP));
  return {
    code: 2,
    stderr: `consent-service: unknown ${isOption ? 'option' : 'command'} "${command}" (${guess ? `did you mean ${guess}? ` : ''}see consent-service --help)\n`,
  };
}
