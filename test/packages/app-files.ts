import fs from 'node:fs';

/**
 * The throwaway app's own files (test/packages/throwaway-app.ts installs the packages beside them):
 * kept as text here so the repository's type check does not read them without the app's packages.
 */

/** Strict, as a customer's project is; NodeNext, the strictest resolution of the packages' exports. */
export const TSCONFIG = JSON.stringify({
  compilerOptions: {
    strict: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    jsx: 'react-jsx',
    noEmit: true,
    skipLibCheck: false,
  },
  include: ['*.tsx'],
});

/**
 * Uses every export of the three packages. The `@ts-expect-error` lines fail the check when a
 * package's types are missing or loose (`any` accepts anything, and the directive then goes unused).
 */
export const EXAMPLE_TSX = `
import {
  type ConsentApi, type ConsentListener, type ConsentOptions, createConsent, type Decision, type Decisions,
  type Purpose, type Regime, type SiteConfig, type TcfConfig, type Technology,
} from '@consent-service/browser';
import {
  type ConsentClient, type ConsentClientOptions, ConsentServiceError, type ConsentState as SubjectState,
  type components, createConsentClient, type FieldError, type operations, type Page, paginate, type paths,
  type Problem, verifyWebhook, type WebhookEvent, WebhookVerificationError,
} from '@consent-service/client';
import {
  type ConsentApi as ProviderApi, ConsentGate, type ConsentGateProps, ConsentProvider,
  type ConsentProviderProps, type ConsentState, type Decision as ReactDecision,
  type Decisions as ReactDecisions, useConsent, useConsentFor,
} from '@consent-service/react';
import type { JSX } from 'react';

const options: ConsentOptions = {
  baseUrl: 'https://consent.example.com',
  siteKey: 'site_1',
  region: 'DE',
  identityToken: null,
};
const consent: ConsentApi = createConsent(options);
const listener: ConsentListener = (decisions: Decisions | null) => {
  const analytics: Decision | undefined = decisions?.analytics;
  console.log(analytics, consent.getDecisions());
};
const stop: () => void = consent.onChange(listener);
stop();
consent.showPreferences();
consent.acceptAll();
consent.rejectAll();
consent.reset();
export const signedIn: Promise<boolean> = consent.identify('eyJ…');
consent.forget();
export const ids: Array<string | null> = [consent.getReceiptUrl(), consent.getSubjectId()];
export function describeConfig(config: SiteConfig): string {
  const purposes: Purpose[] = config.purposes;
  const technologies: Technology[] = config.technologies;
  const regime: Regime | undefined = config.regime;
  const tcf: TcfConfig | null | undefined = config.tcf;
  return [purposes.length, technologies.length, regime, tcf?.cmpId].join();
}
// @ts-expect-error the base URL is required
createConsent({ siteKey: 'site_1' });

function Analytics(): JSX.Element {
  const granted: boolean = useConsentFor('analytics');
  const state: ConsentState = useConsent();
  const api: ProviderApi | null = state.api;
  const decisions: ReactDecisions | null = state.decisions;
  const marketing: ReactDecision | undefined = decisions?.marketing;
  return (
    <p>
      {String(granted)} {String(state.ready)} {marketing} {api?.getSubjectId()}
      <button type="button" onClick={state.showPreferences}>Privacy settings</button>
      <button type="button" onClick={state.acceptAll}>Accept</button>
      <button type="button" onClick={state.rejectAll}>Reject</button>
      <button type="button" onClick={() => state.identify('eyJ…').then((ok: boolean) => console.log(ok))}>Sign in</button>
      <button type="button" onClick={state.forget}>Sign out</button>
    </p>
  );
}
const provider: ConsentProviderProps = { baseUrl: 'https://consent.example.com', siteKey: 'site_1', identityToken: 'eyJ…' };
const gate: ConsentGateProps = { purpose: 'analytics', fallback: <p>Analytics is off</p> };
export const tree = (
  <ConsentProvider {...provider}>
    <ConsentGate {...gate}>
      <Analytics />
    </ConsentGate>
    {/* @ts-expect-error a gate needs its purpose */}
    <ConsentGate fallback={null}>never</ConsentGate>
  </ConsentProvider>
);

const clientOptions: ConsentClientOptions = { baseUrl: 'https://consent.example.com', apiKey: 'svc_test_x' };
const client: ConsentClient = createConsentClient(clientOptions);
type Channel = components['schemas']['Channel'];
type ListChannels = paths['/v1/channels']['get'];
type ListChannelsOperation = operations['listChannels'];
export async function backend(subjectId: string): Promise<Array<string | number>> {
  const seen: Array<string | number> = [];
  const { data } = await client.api.GET('/v1/channels/{id}', { params: { path: { id: 'ch_1' } } });
  const channel: Channel | undefined = data?.data;
  if (channel) seen.push(channel.siteKey);
  for await (const item of paginate((cursor) =>
    client.api.GET('/v1/channels', { params: { query: { limit: 100, cursor } } }),
  )) {
    seen.push(item.id);
  }
  const state: SubjectState | null = await client.consentState('ch_1', subjectId);
  if (state) seen.push(state.channelId);
  const page: Page<Channel> = { data: [], meta: { nextCursor: null } };
  seen.push(page.data.length);
  try {
    const event: WebhookEvent = await verifyWebhook('whsec_x', new Headers(), '{}', { toleranceSeconds: 300 });
    seen.push(event.id);
  } catch (error) {
    if (error instanceof WebhookVerificationError) seen.push(error.message);
    if (error instanceof ConsentServiceError) {
      const problem: Problem | null = error.problem;
      const fields: FieldError[] = error.errors;
      seen.push(error.status, error.code, problem?.title ?? '', fields.length);
    }
  }
  // @ts-expect-error no such path in the API
  await client.api.GET('/v1/no-such-path');
  return seen;
}
export type Unused = [ListChannels, ListChannelsOperation];
`;

/**
 * The page the Chromium check opens: a gate on analytics under the provider, in StrictMode (whose
 * double effect must still start one SDK), and a button that opens the preferences.
 */
export const PAGE_TSX = `
import { ConsentGate, ConsentProvider, ConsentScript, useConsent } from '@consent-service/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const { baseUrl, siteKey } = (window as unknown as { consentTest: { baseUrl: string; siteKey: string } }).consentTest;

function Settings() {
  const { showPreferences, ready, decisions } = useConsent();
  return (
    <p>
      <button type="button" id="privacy-settings" onClick={showPreferences}>Privacy settings</button>
      <output id="state" data-ready={String(ready)}>{JSON.stringify(decisions)}</output>
    </p>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ConsentProvider baseUrl={baseUrl} siteKey={siteKey}>
      <Settings />
      <ConsentGate purpose="analytics" fallback={<p id="fallback">Analytics is off</p>}>
        <p id="gated">Analytics is on</p>
      </ConsentGate>
      <ConsentScript purpose="analytics" src="data:text/javascript,window.trackerRuns%3D(window.trackerRuns%7C%7C0)%2B1" />
    </ConsentProvider>
  </StrictMode>,
);
`;

/**
 * Server render of a gated tree, and what each package exports at run time, as JSON: run by Node
 * in the app, where there is no window, importing the packages as a server framework does.
 */
export const SSR_MJS = `
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import * as browser from '@consent-service/browser';
import * as client from '@consent-service/client';
import * as react from '@consent-service/react';

function Status() {
  const { ready, decisions } = react.useConsent();
  return h('output', { id: 'status' }, JSON.stringify({ ready, decisions, analytics: react.useConsentFor('analytics') }));
}
const html = renderToString(
  h(react.ConsentProvider, { baseUrl: 'https://consent.example.com', siteKey: 'site_1' },
    h(Status),
    h(react.ConsentGate, { purpose: 'analytics', fallback: h('p', { id: 'fallback' }, 'Analytics is off') },
      h('p', { id: 'gated' }, 'Analytics is on'))),
);
const exports = Object.fromEntries(
  Object.entries({ browser, client, react }).map(([name, module]) => [name, Object.keys(module).sort()]),
);
console.log(JSON.stringify({ html, window: typeof window, exports }));
`;

/** Names the examples of the docs use without defining them. */
const DOC_GLOBALS = `declare function startAnalytics(): void;
declare const process: { env: Record<string, string | undefined> };
declare const token: string;
`;

/**
 * The TypeScript examples of the guide and the package READMEs that use the packages, as files of
 * the app (doc-1.tsx, …): they are type-checked with example.tsx. Examples that need Next.js itself
 * (next/script) or the files beside them (a layout importing './…') are left out.
 */
export function docExamples(markdownFiles: string[]): Record<string, string> {
  const blocks = markdownFiles.flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(/^```tsx?\n([\s\S]*?)^```/gm)].map((m) => m[1]),
  );
  const usable = blocks.filter(
    (code) => /@consent-service\/(browser|react|core)'/.test(code) && !/from '(next\/|\.\/)/.test(code),
  );
  return Object.fromEntries(usable.map((code, i) => [`doc-${i + 1}.tsx`, DOC_GLOBALS + code]));
}

/** The smallest use of the browser package: what its size in a customer's bundle is measured on. */
export const MINIMAL_JS = `
import { createConsent } from '@consent-service/browser';
createConsent({ baseUrl: 'https://consent.example.com', siteKey: 'site_1' });
`;

export function pageHtml(siteKey: string, baseUrl: string, bundle: string): string {
  const config = JSON.stringify({ baseUrl, siteKey });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>React shop</title></head>
<body><main id="root"></main>
<script>window.consentTest = ${config};</script>
<script>${bundle.replaceAll('</script', '<\\/script')}</script>
</body></html>`;
}
