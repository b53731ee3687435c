import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the browser SDK's built bundle is served from: `sdk/dist/sdk.js` at the repository root
 * (the SDK build writes it there). Until it exists, a placeholder script from this module is
 * served instead. Read once per process, on the first request: rebuild, then restart to serve a
 * new bundle.
 */
export const SDK_BUNDLE_PATH = fileURLToPath(new URL('../../../sdk/dist/sdk.js', import.meta.url));
const PLACEHOLDER_PATH = fileURLToPath(new URL('./sdk-placeholder.js', import.meta.url));

export interface SdkBundle {
  source: string;
  etag: string;
  /** Whether this is the real bundle (false: the placeholder). */
  built: boolean;
}

let loaded: SdkBundle | null = null;

export function sdkBundle(): SdkBundle {
  if (loaded) return loaded;
  const built = fs.existsSync(SDK_BUNDLE_PATH);
  const source = fs.readFileSync(built ? SDK_BUNDLE_PATH : PLACEHOLDER_PATH, 'utf8');
  const etag = `"${createHash('sha256').update(source).digest('base64url').slice(0, 27)}"`;
  loaded = { source, etag, built };
  return loaded;
}
