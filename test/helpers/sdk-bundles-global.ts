import { writeSdkBundleIfChanged } from '../../sdk/build.ts';

/**
 * The service serves sdk/dist (sdk.js, gpp.js, tcf.js): build them from the sources under test once,
 * before any file starts, when sdk/src changed since the last build (the hash npm start's prestart
 * uses). Each browser test file used to rebuild all three itself, about two seconds of esbuild and
 * brotli each on two cores, while other files' services were reading the same files.
 */
export default async function setup() {
  await writeSdkBundleIfChanged(true);
}
