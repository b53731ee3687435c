#!/usr/bin/env node
// The npm `bin` entry: runs the TypeScript CLI through tsx so the repo needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
