#!/usr/bin/env node
// The npm `bin` entry. Help, the version and commands sent to a running server are answered in
// plain JavaScript; a command that runs here loads the compiled service (dist/server, built by
// `npm install` and rebuilt by `npm start` when src/ changed), or, when that build is missing or
// older than src/, the TypeScript sources through tsx.
import module from 'node:module';
import v8 from 'node:v8';
import { forwardToServer } from '../src/cli/control-client.mjs';
import { answerWithoutLoading } from '../src/cli/usage.mjs';

const argv = process.argv.slice(2);
const answer = answerWithoutLoading(argv);
if (answer) {
  if (answer.stdout) process.stdout.write(answer.stdout);
  if (answer.stderr) process.stderr.write(answer.stderr);
  process.exitCode = answer.code;
} else {
  const forwarded = await forwardToServer(argv, process.env);
  if (forwarded !== null) process.exitCode = forwarded;
  else {
    // The embedded store (PGlite) is PostgreSQL compiled to WebAssembly (about 9 MB of code). By
    // default V8 compiles it with its baseline compiler (Liftoff) and then recompiles the functions
    // that run often with its optimizing one (TurboFan): at start-up, while PGlite opens the data
    // directory and the migrations are checked, that recompiling was about 1 CPU-second of a 3.8
    // CPU-second restart and ~90 MB of memory. Liftoff only: a restart costs about 2.7 CPU-seconds
    // and 300 MB; PGlite's own statements run somewhat slower afterwards (10-30% in a
    // transaction loop, noisy; bench/startup.mjs and the README's start-up section). PostgreSQL
    // (DATABASE_URL) loads no WebAssembly, so nothing changes there. Set before any module is
    // compiled: V8 reads the flag when it compiles PGlite's module.
    if (!process.env.DATABASE_URL) v8.setFlagsFromString('--liftoff-only');
    const { serverBuildIsCurrent, serverEntryUrl } = await import('../scripts/server-build.mjs');
    if (serverBuildIsCurrent()) {
      // Node 22.1+: V8 keeps the compiled code of the modules (the service and node_modules) on
      // disk, so a restart does not compile them again.
      module.enableCompileCache?.();
      // `serve` says which it runs once its arguments and port are checked (src/cli/serve.ts).
      globalThis.consentServiceBuild = 'compiled';
      await import(serverEntryUrl());
    } else {
      globalThis.consentServiceBuild = 'sources';
      const { register } = await import('tsx/esm/api');
      register();
      await import('../src/main.ts');
    }
  }
}
