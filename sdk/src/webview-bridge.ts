/**
 * In an app's WebView, the app hears of every change of the visitor's choice
 * (docs/guides/apps.md): the SDK posts `{type: "consent-service:change", decisions, configVersion,
 * tcString?, gppString?}` to whichever bridge the app exposes: React Native's
 * `window.ReactNativeWebView` and Android's `window.ConsentServiceAndroid` take it as JSON text,
 * iOS's `window.webkit.messageHandlers.consentService` as an object. In a browser none is there and
 * nothing is sent.
 */
type Bridge = { postMessage(message: unknown): void } | undefined;

export function postToApp(message: Record<string, unknown>) {
  const w = window as unknown as Record<string, Bridge> & {
    webkit?: { messageHandlers?: { consentService?: Bridge } };
  };
  const text = JSON.stringify({ type: 'consent-service:change', ...message });
  try {
    for (const bridge of [w.ReactNativeWebView, w.ConsentServiceAndroid]) bridge?.postMessage(text);
    w.webkit?.messageHandlers?.consentService?.postMessage(JSON.parse(text));
  } catch {
    // The app's bridge threw: the page goes on; the app asks again (__tcfapi, getDecisions) if it must.
  }
}
