import { type Policy, stillHolds } from '../regime.ts';
import { noticeSeen } from '../storage.ts';
import type { SdkWords } from '../strings.ts';
import type { StoredConsent } from '../types.ts';
import { whenBody } from '../when.ts';
import type { Notice } from './notice.ts';

/** What the SDK knows when a notice-only or opt-out visitor's page settles (consent.ts). */
export interface PassiveContext {
  siteKey: string;
  configVersion: number;
  policy: Policy;
  stored: StoredConsent | null;
  strings: SdkWords;
  language: string;
  policyUrl: string | null;
  optOut: boolean;
  /** The GPC signal was recorded as the visitor's opt-out: the notice and the button say so. */
  gpcHonored: boolean;
  /** The notice was shown: the page view counts its impression. */
  onShown(): void;
}

/** One SDK instance's notice UI as sdk.js uses it (notice-loader.ts loads it on first use). */
export interface NoticeUi {
  passive(ctx: PassiveContext): void;
  hide(): void;
  hideChoicesLink(): void;
}

/**
 * The notice until the visitor dismisses it (the dismissal kept in this browser, holding as a
 * decision holds) or has a decision of their own, then, in opt-out, the "Your Privacy Choices"
 * button. The SDK's GPC record is not the visitor's own: the notice still shows with it.
 */
export function passive(notice: Notice, ctx: PassiveContext) {
  const { siteKey, strings, language, optOut } = ctx;
  const seen = noticeSeen(siteKey);
  const noticed = (ctx.stored?.d && !ctx.stored.g) || stillHolds(seen?.v, seen?.t, ctx.policy, Date.now());
  whenBody(() => {
    if (!noticed) {
      notice.show({
        strings,
        language,
        policyUrl: ctx.policyUrl,
        optOut,
        gpcHonored: ctx.gpcHonored,
        onDismiss() {
          noticeSeen(siteKey, { v: ctx.configVersion, t: Date.now() });
          passive(notice, { ...ctx, stored: null });
        },
      });
      ctx.onShown();
    } else if (optOut)
      notice.showChoicesLink(strings.choices, language, ctx.gpcHonored ? strings.gpcHonored : '');
  });
}
