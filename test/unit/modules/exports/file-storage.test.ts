import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalFileStorage } from '../../../../src/modules/exports/file-storage.ts';

const parents: string[] = [];
afterAll(() => {
  for (const dir of parents) fs.rmSync(dir, { recursive: true, force: true });
});

const mode = (entry: string) => (fs.statSync(entry).mode & 0o777).toString(8);

describe('local export file storage', () => {
  it('creates its folders 0700 and its files 0600 whatever the umask', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-file-storage-'));
    parents.push(parent);
    // DATA_DIR and DATA_DIR/exports do not exist yet: the storage creates both.
    const dataDir = path.join(parent, 'data');
    const storage = createLocalFileStorage(path.join(dataDir, 'exports'));
    const umask = process.umask(0o000);
    try {
      const file = await storage.createWriteStream('org_modes/exp_modes.jsonl');
      await new Promise((resolve) => file.stream.write('{"pseudonym":"abc"}\n', resolve));
      // The temporary file is as closed as the published one.
      const [temporary] = fs.readdirSync(path.join(dataDir, 'exports', 'org_modes'));
      expect(mode(path.join(dataDir, 'exports', 'org_modes', temporary))).toBe('600');
      await file.commit();
    } finally {
      process.umask(umask);
    }
    expect(mode(dataDir)).toBe('700');
    expect(mode(path.join(dataDir, 'exports'))).toBe('700');
    expect(mode(path.join(dataDir, 'exports', 'org_modes'))).toBe('700');
    expect(mode(path.join(dataDir, 'exports', 'org_modes', 'exp_modes.jsonl'))).toBe('600');
  });
});

// store-independent: export file storage on the file system, no database
