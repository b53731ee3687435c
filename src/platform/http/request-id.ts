import type { IncomingMessage } from 'node:http';
import { randomBase62 } from '../ids.ts';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Echo a well-formed client X-Request-Id; otherwise make one (README "API conventions"). */
export function requestIdFor(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  if (typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent)) return sent;
  return `req_${randomBase62(22)}`;
}
