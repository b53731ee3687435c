/**
 * A compiled build of a checkout, to measure a start with plain `node` against
 * today's tsx start (bench/writepath.ts --scenario a|b --before DIR, and start-up times):
 *
 *   npx tsx bench/compile.ts DIR     # writes DIR/build (DIR: a worktree of this repository)
 *
 * tsc emits every file of DIR/src into DIR/build, same layout and depth (so the paths the code
 * builds from import.meta.url, such as ../../../sdk/dist, still resolve), `.ts` imports rewritten
 * to `.js`, with source maps; the files the code reads beside itself are copied.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? '.');
const config = path.join(root, 'tsconfig.compiled.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: {
      noEmit: false,
      rootDir: 'src',
      outDir: 'build',
      sourceMap: true,
      rewriteRelativeImportExtensions: true,
      allowJs: true,
    },
    include: ['src'],
    exclude: ['src/**/*.test.ts'],
  }),
);
try {
  execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', config], { stdio: 'inherit' });
} finally {
  fs.rmSync(config);
}
const copies = ['platform/db/migrations', 'modules/sites/sdk-placeholder.js', 'cli'];
for (const copy of copies) {
  fs.cpSync(path.join(root, 'src', copy), path.join(root, 'build', copy), {
    recursive: true,
    filter: (source) => !source.endsWith('.ts') || fs.statSync(source).isDirectory(),
  });
}
process.stderr.write(`compiled ${root}/src into ${root}/build\n`);
