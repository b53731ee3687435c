import type { Decision, Decisions, SiteConfig } from './types.ts';

/**
 * The consent signals of tags other than Google's (docs/guides/tag-managers.md): Microsoft UET's
 * consent mode and Clarity's `consentv2` when the channel turns them on (`integrations`), and a
 * `consent_update` event on `dataLayer` for tag managers' triggers. Each writes to the tag's own
 * queue when the tag has not loaded, which the tag reads when it does.
 */
type Clarity = ((...args: unknown[]) => void) & { q?: unknown[] };
interface Page {
  uetq?: { push(...args: unknown[]): unknown };
  clarity?: Clarity;
  dataLayer?: unknown[];
}
const page = () => window as unknown as Page;

function uet(command: 'default' | 'update', adStorage: Decision) {
  const w = page();
  w.uetq = w.uetq || [];
  w.uetq.push('consent', command, { ad_storage: adStorage });
}

/** First, before any tag can read it: UET denied until the visitor's state is applied. */
export function integrationDefaults(config: SiteConfig): void {
  if (config.integrations?.microsoftUet) uet('default', 'denied');
}

/**
 * A new state of the page (`state`: the Consent Mode signals the purposes map the decisions to):
 * UET's update, Clarity's consentv2, then the dataLayer event, so that a tag manager's trigger on
 * `consent_update` sees the signals already updated. No event while nothing is decided.
 */
export function signalIntegrations(
  config: SiteConfig,
  state: Record<string, Decision>,
  decisions: Decisions | null,
): void {
  const w = page();
  if (config.integrations?.microsoftUet) uet('update', state.ad_storage);
  if (config.integrations?.microsoftClarity) {
    // Clarity's own queue stub, as its tag defines it: calls wait in `clarity.q` until it loads.
    w.clarity =
      w.clarity ||
      function (this: unknown) {
        const clarity = w.clarity as Clarity;
        clarity.q = clarity.q || [];
        // biome-ignore lint/complexity/noArguments: Clarity replays its queue as Arguments objects, as its own stub pushes them.
        clarity.q.push(arguments);
      };
    w.clarity('consentv2', { ad_Storage: state.ad_storage, analytics_Storage: state.analytics_storage });
  }
  if (decisions) {
    w.dataLayer = w.dataLayer || [];
    w.dataLayer.push({ event: 'consent_update', consent: { ...decisions } });
  }
}
