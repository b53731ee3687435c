#!/usr/bin/env node
// The npm `bin` entry. Help, the version and commands sent to a running server are answered in
// plain JavaScript; a command that runs here loads the compiled service (dist/server, built by
// `npm install` and rebuilt by `npm start` when src/ changed), or, when that build is missing or
// older than src/, the TypeScript sources through tsx.
import module from 'node:module';
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
