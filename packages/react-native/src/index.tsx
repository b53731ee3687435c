/**
 * @consent-service/react-native: React Native components on the headless @consent-service/core.
 * The client decides what a choice means; these components only draw it, from React Native's own
 * components (so they render on iOS, Android and, through react-native-web, in a browser).
 */
import {
  type ConsentClient,
  type ConsentClientOptions,
  createConsentClient,
  type Decisions,
  type SiteConfig,
} from '@consent-service/core';
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { Modal, Pressable, StyleSheet, Switch, Text, View } from 'react-native';

export interface ConsentState {
  /** The client has its config (load() resolved). */
  ready: boolean;
  decisions: Decisions | null;
  /** Whether the banner must ask now. */
  shouldAsk: boolean;
  config: SiteConfig | null;
  /** Whether the preferences are open. */
  preferencesOpen: boolean;
  client: ConsentClient;
  acceptAll(): Promise<unknown>;
  rejectAll(): Promise<unknown>;
  decide(choice: Record<string, boolean>): Promise<unknown>;
  showPreferences(): void;
  hidePreferences(): void;
}

const ConsentContext = createContext<ConsentState | null>(null);

/** Starts one client for the tree (or takes the one given) and loads it once. */
export function ConsentProvider(props: {
  options?: ConsentClientOptions;
  client?: ConsentClient;
  children?: ReactNode;
}) {
  const { options, client: given, children } = props;
  // One client per provider: options are read once, as a native SDK is configured once.
  const [client] = useState(() => given ?? createConsentClient(options as ConsentClientOptions));
  const [, setVersion] = useState(0);
  const [ready, setReady] = useState(false);
  const [preferencesOpen, setPreferencesOpen] = useState(false);
  useEffect(() => {
    let live = true;
    const stop = client.onChange(() => live && setVersion((v) => v + 1));
    client.load().then(
      () => live && setReady(true),
      (error) => console.warn('[consent-service] config unavailable; nothing optional will run', error),
    );
    return () => {
      live = false;
      stop();
    };
  }, [client]);
  const after = (made: Promise<unknown>) => made.finally(() => setPreferencesOpen(false));
  const state: ConsentState = {
    ready,
    decisions: client.getDecisions(),
    shouldAsk: ready && client.shouldAsk(),
    config: client.config(),
    preferencesOpen,
    client,
    acceptAll: () => after(client.acceptAll()),
    rejectAll: () => after(client.rejectAll()),
    decide: (choice) => after(client.decide(choice, { source: 'preference_center' })),
    showPreferences: () => setPreferencesOpen(true),
    hidePreferences: () => setPreferencesOpen(false),
  };
  return <ConsentContext.Provider value={state}>{children}</ConsentContext.Provider>;
}

export function useConsent(): ConsentState {
  const state = useContext(ConsentContext);
  if (!state) throw new Error('useConsent() needs a <ConsentProvider> above it');
  return state;
}

/** Renders `children` only while `purpose` is granted; `fallback` otherwise. */
export function ConsentGate(props: { purpose: string; fallback?: ReactNode; children?: ReactNode }) {
  const { decisions } = useConsent();
  return <>{decisions?.[props.purpose] === 'granted' ? props.children : (props.fallback ?? null)}</>;
}

/** A button of the banner: every choice looks the same, so "Reject all" is as prominent as "Accept all". */
function Choice(props: { label: string; onPress(): void; half?: boolean }) {
  return (
    <Pressable
      accessibilityRole="button"
      accessibilityLabel={props.label}
      onPress={props.onPress}
      style={[styles.button, props.half && styles.half]}
    >
      <Text style={styles.buttonText}>{props.label}</Text>
    </Pressable>
  );
}

const purposeName = (config: SiteConfig, key: string) =>
  config.purposes.find((p) => p.key === key)?.name ?? key;

/** The first layer: shown while the client says to ask, with "Accept all", "Reject all" and "Manage". */
export function ConsentBanner(props: { title?: string; message?: string }) {
  const { shouldAsk, preferencesOpen, config, acceptAll, rejectAll, showPreferences } = useConsent();
  if (!config) return null;
  const optional = config.purposes.filter((p) => !p.required).map((p) => purposeName(config, p.key));
  return (
    <Modal visible={shouldAsk && !preferencesOpen} transparent animationType="slide">
      <View accessibilityRole="alert" accessibilityLabel="Privacy choices" style={styles.sheet}>
        <Text accessibilityRole="header" style={styles.title}>
          {props.title ?? 'Your privacy'}
        </Text>
        <Text style={styles.text}>
          {props.message ?? `We would like to use ${optional.join(', ')}. You can change this at any time.`}
        </Text>
        <View style={styles.row}>
          <Choice half label="Reject all" onPress={() => void rejectAll()} />
          <Choice half label="Accept all" onPress={() => void acceptAll()} />
        </View>
        <Choice label="Manage choices" onPress={showPreferences} />
      </View>
    </Modal>
  );
}

/** The preferences: a switch per optional purpose (required ones shown on and locked), then "Save". */
export function ConsentPreferences() {
  const { preferencesOpen, config } = useConsent();
  // Drawn anew on each opening, so the switches start from the decisions in force then.
  return preferencesOpen && config ? <PreferencesSheet config={config} /> : null;
}

function PreferencesSheet({ config }: { config: SiteConfig }) {
  const { decisions, decide, hidePreferences } = useConsent();
  const [choice, setChoice] = useState<Record<string, boolean>>(() =>
    Object.fromEntries(Object.entries(decisions ?? {}).map(([key, value]) => [key, value === 'granted'])),
  );
  return (
    <Modal visible transparent animationType="slide" onRequestClose={hidePreferences}>
      <View accessibilityLabel="Privacy preferences" style={styles.sheet}>
        <Text accessibilityRole="header" style={styles.title}>
          Privacy preferences
        </Text>
        {config.purposes.map((p) => (
          <View key={p.key} style={styles.row}>
            <Text style={styles.text}>{p.name}</Text>
            <Switch
              accessibilityLabel={p.name}
              disabled={p.required}
              value={p.required || choice[p.key] === true}
              onValueChange={(on) => setChoice((c) => ({ ...c, [p.key]: on }))}
            />
          </View>
        ))}
        <Choice label="Save choices" onPress={() => void decide(choice)} />
      </View>
    </Modal>
  );
}

const styles = StyleSheet.create({
  sheet: { marginTop: 'auto', padding: 20, gap: 12, backgroundColor: '#fff' },
  title: { fontSize: 18, fontWeight: '600', color: '#111' },
  text: { fontSize: 15, color: '#222', flexShrink: 1 },
  row: { flexDirection: 'row', gap: 12, justifyContent: 'space-between', alignItems: 'center' },
  button: {
    flexGrow: 1,
    paddingVertical: 12,
    paddingHorizontal: 16,
    borderRadius: 8,
    backgroundColor: '#1a56db',
  },
  /** The two of a row share it equally, whatever their labels' lengths. */
  half: { flexGrow: 1, flexShrink: 1, flexBasis: 0 },
  buttonText: { color: '#fff', fontSize: 16, fontWeight: '600', textAlign: 'center' },
});
