import { pieceUrl } from '../bundle-urls.ts';
import type { GppSection, TcfGppHandle } from '../gpp/cmp.ts';
import { GPP_TIMEOUT_MS } from '../gpp-loader.ts';
import { loadBundle } from '../load-bundle.ts';
import type { TcfStart } from '../tcf-loader.ts';

type Registered = { start(cmpId: number, section: GppSection): TcfGppHandle };

/**
 * The GPP CMP API of a TCF channel that also has a gppCmpId: for opt-in visitors `__gpp` carries
 * the EU TCF section (tcfeuv2), set from each TC string tcf.js makes or restores, so both APIs
 * hold the same consents. tcf.js loads gpp.js itself (sdk.js loads it for US opt-out visitors
 * only), keeping sdk.js as small for everyone else. Null without a gppCmpId, and when gpp.js cannot
 * be had: `__tcfapi` works without it and the snippet's GPP stub keeps answering as a stub.
 */
export function gppForTcf(ctx: TcfStart): Promise<TcfGppHandle | null> {
  const cmpId = ctx.config.gppCmpId;
  if (!cmpId) return Promise.resolve(null);
  return loadBundle(pieceUrl(ctx.site, 'gpp'), '__consentServiceGpp', GPP_TIMEOUT_MS, (gpp: Registered) =>
    gpp.start(cmpId, 'tcfeuv2'),
  );
}
