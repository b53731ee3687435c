/**
 * @consent-service/react: React bindings of @consent-service/browser. The provider starts the SDK in
 * an effect (a dynamic import, so the SDK is not even loaded on the server), and every hook reads
 * "no decision yet" until then: a server render, and the first client render that hydrates it, show
 * each gate's fallback, and nothing touches `window` before the effect runs.
 */
import type { ConsentApi, Decisions } from '@consent-service/browser';
import {
  createContext,
  type JSX,
  type ReactNode,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';

export type { ConsentApi, Decision, Decisions } from '@consent-service/browser';

export interface ConsentProviderProps {
  /** The service's base URL, e.g. `https://consent.example.com`. */
  baseUrl: string;
  /** The site key of your channel (the snippet's `data-site-key`). */
  siteKey: string;
  /** Test channels only: the region to act as if the visitor were in (the snippet's `data-region`). */
  region?: string;
  /**
   * A signed-in visitor's identity token, when the page knows it as it starts (the snippet's
   * `data-identity-token`). Read when the SDK starts; a visitor who signs in or out later: identify(),
   * forget().
   */
  identityToken?: string | null;
  children?: ReactNode;
}

/** What useConsent() returns. */
export interface ConsentState {
  /** False until the SDK has started in the browser (always false on the server). */
  ready: boolean;
  /** The decisions in force on this page; null until the visitor decided (or the regime's defaults apply). */
  decisions: Decisions | null;
  /** Opens the preferences (the customize view). */
  showPreferences(): void;
  /** Grants every purpose, recorded with source "api". */
  acceptAll(): void;
  /** Denies every optional purpose, recorded with source "api". */
  rejectAll(): void;
  /**
   * Signs the visitor in with the identity token your backend signed (the Signed-in visitors guide):
   * the account's choice applies on this device. Resolves false when the service refused the token.
   */
  identify(token: string): Promise<boolean>;
  /** Signs the visitor out on this device: forgets the account and its choice here, and asks again. */
  forget(): void;
  /** The SDK itself (getReceiptUrl, getSubjectId, reset, …); null until ready. */
  api: ConsentApi | null;
}

const ConsentContext = createContext<ConsentState | null>(null);

/**
 * Starts the SDK in the browser (a dynamic import, so the server never loads it). createConsent
 * runs one SDK per site on a page: a provider mounted twice (StrictMode's double effect in
 * development, a remount) gets the SDK the first one started instead of a second banner.
 */
const startConsent = (
  baseUrl: string,
  siteKey: string,
  region?: string,
  identityToken?: string | null,
): Promise<ConsentApi> =>
  import('@consent-service/browser').then(({ createConsent }) =>
    createConsent({ baseUrl, siteKey, region, identityToken }),
  );

/** Starts the consent SDK for `siteKey` in the browser and gives its state to the hooks below it. */
export function ConsentProvider({
  baseUrl,
  siteKey,
  region,
  identityToken,
  children,
}: ConsentProviderProps): JSX.Element {
  const [api, setApi] = useState<ConsentApi | null>(null);
  const [decisions, setDecisions] = useState<Decisions | null>(null);
  // Read once, when the SDK starts: identify() and forget() sign the visitor in and out later.
  const startToken = useRef(identityToken);

  useEffect(() => {
    let stop: (() => void) | undefined;
    let unmounted = false;
    startConsent(baseUrl, siteKey, region, startToken.current).then((sdk) => {
      if (unmounted) return;
      setApi(sdk);
      setDecisions(sdk.getDecisions());
      stop = sdk.onChange(setDecisions);
    });
    return () => {
      unmounted = true;
      stop?.();
    };
  }, [baseUrl, siteKey, region]);

  const state = useMemo<ConsentState>(() => {
    // Before the SDK is ready a call waits for it, as the snippet's API does for its config.
    // On the server there is no SDK to wait for: the actions do nothing there (identify resolves false).
    const started = (): Promise<ConsentApi> | null =>
      api
        ? Promise.resolve(api)
        : typeof window === 'undefined'
          ? null
          : startConsent(baseUrl, siteKey, region, startToken.current);
    const call = (fn: (sdk: ConsentApi) => void) => () => {
      if (api) fn(api);
      else void started()?.then(fn);
    };
    return {
      ready: api !== null,
      decisions,
      showPreferences: call((sdk) => sdk.showPreferences()),
      acceptAll: call((sdk) => sdk.acceptAll()),
      rejectAll: call((sdk) => sdk.rejectAll()),
      identify: (token: string) => started()?.then((sdk) => sdk.identify(token)) ?? Promise.resolve(false),
      forget: call((sdk) => sdk.forget()),
      api,
    };
  }, [api, decisions, baseUrl, siteKey, region]);

  return <ConsentContext.Provider value={state}>{children}</ConsentContext.Provider>;
}

/** The consent state and actions of the nearest ConsentProvider. */
export function useConsent(): ConsentState {
  const state = useContext(ConsentContext);
  if (!state) throw new Error('useConsent() and ConsentGate need a <ConsentProvider> above them');
  return state;
}

/** Whether the visitor has granted `purposeKey` (false before a decision, and on the server). */
export function useConsentFor(purposeKey: string): boolean {
  return useConsent().decisions?.[purposeKey] === 'granted';
}

export interface ConsentGateProps {
  /** The purpose key (e.g. `analytics`) the children need. */
  purpose: string;
  /** What to render until the purpose is granted (and on the server); nothing when absent. */
  fallback?: ReactNode;
  children?: ReactNode;
}

/** Renders its children only while `purpose` is granted, else `fallback`. */
export function ConsentGate({ purpose, fallback = null, children }: ConsentGateProps): JSX.Element {
  return <>{useConsentFor(purpose) ? children : fallback}</>;
}

export interface ConsentScriptProps {
  /** The purpose key (e.g. `analytics`) the script needs. */
  purpose: string;
  /** The third-party script's URL. */
  src: string;
  /** Called once the script has loaded. */
  onLoad?: () => void;
}

/**
 * Scripts ConsentScript inserted, by URL, for the whole page: a script runs once however many times
 * an effect runs (StrictMode runs each twice in development), and however often the component mounts.
 */
const insertedScripts = new Set<string>();

/**
 * Loads a third-party script (an analytics tag, say) once `purpose` is granted, and only once per
 * page, StrictMode included. Renders nothing. A script cannot be unloaded: when the visitor
 * withdraws the purpose, the script stays, and it is the script's own consent API (or a reload)
 * that stops it.
 */
export function ConsentScript({ purpose, src, onLoad }: ConsentScriptProps): null {
  const granted = useConsentFor(purpose);
  const loaded = useRef(onLoad);
  loaded.current = onLoad;
  useEffect(() => {
    if (!granted || insertedScripts.has(src)) return;
    insertedScripts.add(src);
    const script = document.createElement('script');
    script.src = src;
    script.async = true;
    script.setAttribute('data-consent-script', purpose);
    script.addEventListener('load', () => loaded.current?.());
    document.head.appendChild(script);
  }, [granted, src, purpose]);
  return null;
}
