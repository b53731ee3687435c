import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';

/**
 * A request copied from the docs with its placeholder still in it (`/v1/channels/ch_…`,
 * `?channelId=ch_…`) is told so, naming the parameter, instead of a 404 or a pattern mismatch that
 * leaves the reader guessing. The docs write placeholders with an ellipsis (U+2026); `...` after an
 * id prefix (`ch_...`) is read as one too, since no id, key or enum value of the API has either.
 *
 * Free-text values are the integrator's own strings (a subject or account id may be anything, a
 * vendor search any words), so an ellipsis there is not second-guessed.
 */
const FREE_TEXT = new Set(['q', 'subjectId', 'accountId']);

/** An ellipsis anywhere, or three dots alone or after an id prefix (`ch_...`, `site_test_...`). */
const PLACEHOLDER = /\u2026|^(?:[a-z]+_)*\.\.\.$/;

export interface Placeholder {
  /** `path parameter id`, `query parameter channelId`. */
  where: string;
  value: string;
}

function search(kind: 'path' | 'query', values: unknown): Placeholder | null {
  if (!values || typeof values !== 'object') return null;
  for (const [name, raw] of Object.entries(values as Record<string, unknown>)) {
    if (kind === 'query' && FREE_TEXT.has(name)) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (typeof value === 'string' && PLACEHOLDER.test(value))
        return { where: `${kind} parameter ${name}`, value };
    }
  }
  return null;
}

/** The first path parameter, then query parameter, that holds a placeholder; null when none does. */
export function findPlaceholder(params: unknown, query: unknown): Placeholder | null {
  return search('path', params) ?? search('query', query);
}

/** Only short, printable values are quoted back: a placeholder, not whatever else was sent. */
const quoted = (value: string) =>
  value.length <= 40 && /^[\x21-\x7e\u2026]+$/.test(value) ? ` "${value}"` : '';

export function placeholderProblem({ where, value }: Placeholder): AppError {
  const name = where.slice(where.lastIndexOf(' ') + 1);
  return new AppError(
    'malformed_request',
    `The ${where} holds the placeholder${quoted(value)} of an example: replace it with a real id ` +
      '(the one the API returned when the resource was made, or that a list shows), then send the request again.',
    {
      errors: [
        { path: `${where.startsWith('path') ? 'path' : 'query'}:/${name}`, message: 'is a placeholder' },
      ],
    },
  );
}

/**
 * On every route, after authentication, scope and rate limit (onRequest) and before validation: a
 * placeholder is a 400 naming its parameter. Synchronous, as the app's other hot-path hooks.
 */
export function installPlaceholderCheck(app: FastifyInstance) {
  app.addHook('preValidation', (request, _reply, done) => {
    const found = findPlaceholder(request.params, request.query);
    done(found ? placeholderProblem(found) : undefined);
  });
}
