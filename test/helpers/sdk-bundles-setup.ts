import { resource } from './lazy-resources.ts';

/**
 * The service serves sdk/dist (sdk.js and its pieces) and keeps what it read for the life of its
 * process, so they are built from the sources under test before a file starts a service, in this
 * process or as a child. The run's first file has them built when sdk/src changed (about two seconds
 * of esbuild and brotli), and checked otherwise (about 40 ms); every later file waits for nothing.
 * Unit tests (the "unit" project) run without it.
 */
await resource('sdk-bundles');
