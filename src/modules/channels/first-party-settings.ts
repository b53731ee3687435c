import type { FieldError } from '../../platform/http/errors.ts';

/**
 * The rule of a channel's `firstPartyPath` (docs/guides/keep-the-choice.md); its cookieDomain's rules
 * are origins.service.ts's, beside the Public Suffix List answers they share with the public endpoints.
 */

/** The path's own rule beyond its pattern: no empty segment, no trailing slash. */
export function firstPartyPathErrors(path: string | null | undefined): FieldError[] {
  if (path === null || path === undefined) return [];
  if (path.includes('//') || path.endsWith('/')) {
    return [
      {
        path: '/firstPartyPath',
        message: `has an empty segment or a trailing slash; write it as "${path.replace(/\/+/g, '/').replace(/\/$/, '')}"`,
      },
    ];
  }
  return [];
}
