import type { Runtime } from './cli/runtime.ts';
import { answerWithoutLoading } from './cli/usage.mjs';
import type { Config } from './config.ts';

/**
 * The CLI in this process. Each command imports only what it needs, so `verify-export` and `verify-receipt` load no
 * database driver and `bootstrap` no HTTP app. (bin/consent-service.mjs answers --help and
 * --version, and hands store commands to a running server, before this file is even compiled.)
 */
async function main(argv: string[]) {
  const answer = answerWithoutLoading(argv);
  if (answer) {
    if (answer.stdout) process.stdout.write(answer.stdout);
    if (answer.stderr) process.stderr.write(answer.stderr);
    process.exitCode = answer.code;
    return;
  }
  const [command, ...args] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (command === 'verify-export') {
    // Offline: no configuration or database. Non-zero exit after every failure and the summary.
    const { verifyExportCommand } = await import('./cli/verify-export.ts');
    if ((await verifyExportCommand(args, out)) > 0) process.exitCode = 1;
    return;
  }
  if (command === 'packages') {
    // No configuration or database: it copies the tarballs `npm install` packed.
    const { packagesCommand } = await import('./cli/packages-command.ts');
    return packagesCommand(args, out, process.cwd());
  }
  if (command === 'verify-receipt') {
    // No configuration or database either: a file, or the receipt's URL fetched as JSON.
    const { verifyReceiptCommand } = await import('./cli/verify-receipt.ts');
    if ((await verifyReceiptCommand(args, out)) > 0) process.exitCode = 1;
    return;
  }
  const { loadConfig } = await import('./config.ts');
  const config = loadConfig();
  if (command === 'serve') {
    const { serveCommand } = await import('./cli/serve.ts');
    return serveCommand(config, args);
  }
  const { runStoreCommand } = await import('./cli/run-command.ts');
  await runStoreCommand(argv, {
    config,
    out,
    note: (line) => process.stderr.write(`consent-service: ${line}\n`),
    readStdin,
    cwd: process.cwd(),
    withRuntime: (fn, options) => withOwnRuntime(config, fn, options?.create === true),
  });
  // No server took the demo (none holds the embedded store, or the store is PostgreSQL): the page it
  // printed is served by the service, so one starts here unless one already answers on PORT.
  if (command === 'demo' && !(await serverAnswers(config))) {
    process.stderr.write(
      'consent-service: no server is running: starting one for the demo page (Ctrl-C stops it)\n',
    );
    const { serveCommand } = await import('./cli/serve.ts');
    return serveCommand(config, []);
  }
}

async function serverAnswers(config: Config): Promise<boolean> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${config.port}/healthz`);
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The store opened for this one command (no server holds it), closed after. Which store it is goes
 * to stderr first; a command that may not create one finds out before DATA_DIR is touched.
 */
async function withOwnRuntime<T>(
  config: Config,
  fn: (runtime: Runtime) => Promise<T>,
  create: boolean,
): Promise<T> {
  const [{ openRuntime }, { assertEmbeddedStoreExists, storeLine }] = await Promise.all([
    import('./cli/runtime.ts'),
    import('./cli/store-line.ts'),
  ]);
  if (!create) assertEmbeddedStoreExists(config);
  process.stderr.write(storeLine(config));
  const runtime = await openRuntime(config, { create });
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  const { describeError } = await import('./cli/errors.ts');
  const { exitCode, stderr } = describeError(error);
  process.stderr.write(stderr);
  process.exit(exitCode);
});
