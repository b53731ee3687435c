import { api, type Schemas } from '../api.ts';
import { h } from '../dom.ts';
import { section, type ViewContext } from '../ui.ts';

type Channel = Schemas['Channel'];

/** One thing missing or wrong on a channel, and where it is put right. */
export type Step = { text: string; fix: string; href: string; external?: boolean };

const GUIDES = '/docs/guides';

/** The data of a list call, or null when the call failed or the role may not make it (a step is then not shown). */
async function listOrNull<T>(call: Promise<{ data?: { data: T[] } }>): Promise<T[] | null> {
  try {
    return (await call).data?.data ?? null;
  } catch {
    return null;
  }
}

/**
 * What a privacy manager should do next about a channel, read from what the API already says:
 * each step names what is missing or wrong and links to the place that fixes it. Steps whose
 * data the member's role cannot read are left out rather than guessed.
 */
export async function channelNextSteps(ctx: ViewContext, channel: Channel): Promise<Step[]> {
  const id = channel.id;
  const page = `#/channels/${encodeURIComponent(id)}`;
  const steps: Step[] = [];
  const app = channel.platform === 'app';
  const [origins, apps, keys, scans, destinations] = await Promise.all([
    app
      ? null
      : listOrNull(api.GET('/v1/channels/{id}/origins', { params: { path: { id }, query: { limit: 100 } } })),
    app
      ? listOrNull(api.GET('/v1/channels/{id}/apps', { params: { path: { id }, query: { limit: 100 } } }))
      : null,
    // Keys are listed per environment: only a live session can tell whether a live key exists.
    ctx.session.environment === 'live' && ctx.can('api_keys:read')
      ? listOrNull(api.GET('/v1/api-keys', { params: { query: { limit: 100 } } }))
      : null,
    listOrNull(api.GET('/v1/channels/{id}/scans', { params: { path: { id }, query: { limit: 1 } } })),
    ctx.can('webhooks:read')
      ? listOrNull(api.GET('/v1/webhook-destinations', { params: { query: { limit: 100 } } }))
      : null,
  ]);

  if (!channel.privacyPolicy?.url) {
    steps.push({
      text: 'No privacy-policy URL: the banner links to no policy, which regulators expect it to.',
      fix: 'Set privacyPolicy.url (Add the banner, step 1)',
      href: `${GUIDES}/add-the-banner.md`,
      external: true,
    });
  }
  if (origins && !origins.some((o) => o.status === 'active')) {
    steps.push({
      text: 'No origin registered: the banner is refused on every page.',
      fix: 'Add your site’s origin',
      href: `${page}/origins`,
    });
  }
  if (apps && !(apps as { status?: string }[]).some((a) => a.status !== 'archived')) {
    steps.push({
      text: 'No app id registered: every app call is refused.',
      fix: 'Register your app',
      href: `${GUIDES}/apps.md`,
      external: true,
    });
  }
  if (keys && !keys.some((k) => k.environment === 'live' && k.status === 'active')) {
    steps.push({
      text: 'No active live API key: your backend cannot read this channel’s evidence.',
      fix: 'Create a live key',
      href: '#/api-keys',
    });
  }
  if (channel.environment === 'test') {
    steps.push({
      text: 'A test channel: its decisions are purged after 24 hours.',
      fix: 'Create a live channel for your site',
      href: '#/channels',
    });
  }
  const vendorList = channel.tcf ? await vendorListStep(page) : null;
  if (vendorList) steps.push(vendorList);
  const violations = scans?.[0]?.summary?.violations ?? 0;
  if (violations > 0) {
    steps.push({
      text: `The last scan found ${violations} ${violations === 1 ? 'violation' : 'violations'}: trackers before consent or after a refusal.`,
      fix: 'Open the scan',
      href: `${page}/tracker-scans`,
    });
  }
  for (const destination of destinations ?? []) {
    if (destination.status === 'disabled' && destination.disabledReason !== 'manual') {
      steps.push({
        text: `Webhook destination ${destination.url} is ${destination.disabledReason === 'gone' ? 'gone (410)' : 'failing'} and was disabled.`,
        fix: 'Fix and enable it',
        href: '#/webhooks',
      });
    }
  }
  return steps;
}

/**
 * A TCF channel's vendor list: none held yet, or the worker's fetches failing (visitors are then
 * shown the last good list, which goes out of date as IAB publishes new ones every week).
 */
async function vendorListStep(page: string): Promise<Step | null> {
  const fix = { fix: 'See the vendor list status', href: `${page}/iab-tcf` };
  try {
    const { data, response } = await api.GET('/v1/tcf/vendor-list', {});
    if (!response.ok || !data) {
      return { text: 'The IAB vendor list has not been fetched yet: TCF visitors see no vendors.', ...fix };
    }
    const { consecutiveFailures, lastSuccessAt } = data.data.fetch;
    if (consecutiveFailures === 0) return null;
    return {
      text: `The IAB vendor list could not be fetched the last ${consecutiveFailures === 1 ? 'time' : `${consecutiveFailures} times`}${lastSuccessAt ? ` (last fetched ${lastSuccessAt.slice(0, 10)})` : ''}: TCF visitors are shown version ${data.data.vendorListVersion}, which goes out of date. Check that the worker runs and reaches TCF_GVL_URL (its log says why).`,
      ...fix,
    };
  } catch {
    return null;
  }
}

/** The "Next steps" card: each step with its fix as a link; a plain line when nothing is missing. */
export function nextStepsSection(steps: Step[]): HTMLElement {
  if (steps.length === 0) return section('Next steps', h('p', {}, 'Nothing is missing on this channel.'));
  return section(
    'Next steps',
    h(
      'ul',
      { class: 'next-steps' },
      ...steps.map((step) =>
        h(
          'li',
          {},
          `${step.text} `,
          h(
            'a',
            step.external ? { href: step.href, target: '_blank', rel: 'noopener' } : { href: step.href },
            step.external ? `${step.fix} (opens in a new tab)` : step.fix,
          ),
        ),
      ),
    ),
  );
}
