#!/usr/bin/env node
// The npm `bin` entry. Help, the version and commands sent to a running server are answered in
// plain JavaScript; only a command that runs here loads tsx and the TypeScript CLI (no build step).
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
    const { register } = await import('tsx/esm/api');
    register();
    await import('../src/main.ts');
  }
}
