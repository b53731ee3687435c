import manifest from '../package.json' with { type: 'json' };

/** Sent as X-Consent-Sdk-Version: the package's own version, so evidence names the client that recorded it. */
export const SDK_VERSION: string = manifest.version;
