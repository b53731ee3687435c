/**
 * How large a request body may be. Authenticated calls take up to BODY_LIMIT_BYTES (Fastify's
 * default for every route). The public site endpoints a visitor's browser posts to (a decision,
 * an identity token, an impression, a handoff) take PUBLIC_BODY_LIMIT_BYTES: anyone on the internet
 * can send them, a real one is under 40 KB (a decision with a TC string and a GPP string), and
 * every byte allowed is parsed before anything else is checked.
 */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const PUBLIC_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The route options of every public POST (spread them into the route's options), so a new public
 * route takes the public limit by taking these: `app.post(url, { ...PUBLIC_BODY, config, … })`.
 */
export const PUBLIC_BODY = { bodyLimit: PUBLIC_BODY_LIMIT_BYTES } as const;

/** A body limit as people write it: 1 MiB, 64 KiB, or bytes. */
export function describeBodyLimit(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
