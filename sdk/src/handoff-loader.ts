import { pieceUrl } from './bundle-urls.ts';
import type { FollowContext } from './handoff/follow.ts';
import type { Handed } from './handoff/redeem.ts';
import { loadBundle } from './load-bundle.ts';

/** How long the SDK waits for handoff.js and the redeem before it asks the visitor instead. */
const HANDOFF_TIMEOUT_MS = 5000;

/** What handoff.js registers (sdk/src/handoff/index.ts). */
interface Registered {
  arrive(site: string, subjectId: string): Promise<Handed | null>;
  followLinks(ctx: FollowContext): void;
}

/**
 * Whether the address brings a token with the visitor's choice: `#cs_app=` from the app that opened
 * this page in its WebView, or on a crossDomain channel `#cs_handoff=` from a sibling domain's page.
 */
export const handoffArrived = (crossDomain: boolean) =>
  /[#&]cs_app=/.test(location.hash) || (crossDomain && /[#&]cs_handoff=/.test(location.hash));

/** handoff.js, loaded (null when it cannot be had within HANDOFF_TIMEOUT_MS). */
export const loadHandoff = (site: string) =>
  loadBundle(pieceUrl(site, 'handoff'), '__consentServiceHandoff', HANDOFF_TIMEOUT_MS, (h: Registered) => h);

/**
 * The choice the arriving token hands over, redeemed for `subjectId`; null: none, or not within
 * HANDOFF_TIMEOUT_MS (the visitor is asked; a redeem that ends later is recorded by the service
 * all the same).
 */
export const redeemHandoff = (site: string, subjectId: string): Promise<Handed | null> =>
  loadHandoff(site).then((h) =>
    h
      ? Promise.race([
          h.arrive(site, subjectId),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), HANDOFF_TIMEOUT_MS)),
        ])
      : null,
  );
