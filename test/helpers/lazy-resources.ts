import http from 'node:http';
import { inject } from 'vitest';

/** The run's shared resources, by name, and what each one is (lazy-resources-global.ts makes them). */
interface Resources {
  /** The migrated embedded store's dumped data directory: a file path. */
  'pglite-template': string;
  /** The migrated template database's name (PostgreSQL runs). */
  'postgres-template': string;
  /** The shared Chromium's WebSocket endpoint, or '' when there is none to share. */
  chromium: string;
  /** The SDK's bundles in sdk/dist are built from the sources under test. */
  'sdk-bundles': true;
}

const asked = new Map<string, Promise<unknown>>();

/**
 * Asks the run's main process for a shared resource, which it makes the first time any file asks.
 * Plain node:http rather than fetch: every fetch of a test file is checked against the OpenAPI
 * document (openapi-setup.ts), and this is not the service. No timeout: the first ask waits for the
 * making (a migration, a browser's start), which a loaded machine may stretch.
 */
export function resource<K extends keyof Resources>(name: K): Promise<Resources[K]> {
  let value = asked.get(name);
  if (!value) {
    value = new Promise((resolve, reject) => {
      http
        .get(`${inject('lazyResourcesUrl')}/${name}`, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(JSON.parse(body))
              : reject(new Error(`the run could not make ${name}: ${body}`)),
          );
        })
        .on('error', reject);
    });
    // A failure is not kept: the next file asks again (and gets the same failure from the main process).
    value.catch(() => asked.delete(name));
    asked.set(name, value);
  }
  return value as Promise<Resources[K]>;
}
