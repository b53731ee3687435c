/** The banner's own words in one language (English: sdk/src/strings.ts). */
export interface UiStrings {
  title: string;
  body: string;
  accept: string;
  reject: string;
  customize: string;
  prefsTitle: string;
  prefsBody: string;
  save: string;
  required: string;
  gpcOff: string;
  usedBy: string;
  policy: string;
  gpc: string;
  /**
   * Opt-out regions: the GPC signal was recorded as an opt-out (the visitor may still opt back in);
   * California's regulations (§7025(c)(6)) ask for these words, on the choices link and the preferences.
   */
  gpcHonored: string;
  /** The notice (notice-only and opt-out regimes) and the opt-out link. */
  choices: string;
  noticeTitle: string;
  notice: string;
  optOut: string;
  dismiss: string;
  /** The preferences view's link to the receipt of the visitor's last decision. */
  receipt: string;
  newTab: string;
  /** A signed-in visitor's first layer: the choice is the account's (docs/guides/signed-in-visitors.md). */
  signedIn: string;
  /** Sibling domains (crossDomain): the first layer's words before the other domains' hosts. */
  alsoOn: string;
}

/**
 * The banner's words in the languages other than English that the SDK speaks. They are not in
 * sdk.js (every byte there is paid by every visitor): the service sends those of a channel's own
 * languages in its config (`bannerWords`), and tcf.js, which is loaded only where the TCF applies,
 * carries them all.
 */
const de: UiStrings = {
  title: 'Ihre Datenschutz-Einstellungen',
  body: 'Wir verwenden Cookies und ähnliche Technologien für die unter „Anpassen“ aufgeführten Zwecke. Optionales läuft nur mit Ihrer Erlaubnis. Sie können Ihre Wahl jederzeit ändern.',
  accept: 'Alle akzeptieren',
  reject: 'Alle ablehnen',
  customize: 'Anpassen',
  prefsTitle: 'Datenschutz-Einstellungen',
  prefsBody:
    'Wählen Sie, welche Zwecke Sie erlauben. Erforderliche halten die Website funktionsfähig und sind immer aktiv.',
  save: 'Auswahl speichern',
  required: '(immer aktiv)',
  gpcOff: '(aus: Global Privacy Control)',
  usedBy: 'Verwendet von',
  policy: 'Datenschutzerklärung',
  gpc: 'Ihr Browser sendet ein Global-Privacy-Control-Signal, daher bleiben die betroffenen Zwecke aus.',
  gpcHonored: 'Opt-out-Anfrage berücksichtigt',
  choices: 'Ihre Datenschutzoptionen',
  noticeTitle: 'Cookies auf dieser Website',
  notice:
    'Wir verwenden Cookies und ähnliche Technologien für die in unserer Datenschutzerklärung beschriebenen Zwecke.',
  optOut:
    'Sie sind aktiv, solange Sie nicht widersprechen; das können Sie jederzeit unter „Ihre Datenschutzoptionen“.',
  dismiss: 'Schließen',
  receipt: 'Ihre Quittung',
  newTab: '(öffnet in einem neuen Tab)',
  signedIn: 'Sie sind angemeldet: Ihre Wahl gilt auf jedem Gerät, auf dem Sie angemeldet sind.',
  alsoOn: 'Ihre Wahl gilt auch auf:',
};

const fr: UiStrings = {
  title: 'Vos choix de confidentialité',
  body: 'Nous utilisons des cookies et des technologies similaires pour les finalités listées sous « Personnaliser ». Rien d’optionnel ne fonctionne sans votre accord. Vous pouvez changer d’avis à tout moment.',
  accept: 'Tout accepter',
  reject: 'Tout refuser',
  customize: 'Personnaliser',
  prefsTitle: 'Préférences de confidentialité',
  prefsBody:
    'Choisissez les finalités que vous autorisez. Les finalités requises font fonctionner le site et restent actives.',
  save: 'Enregistrer mes choix',
  required: '(toujours actif)',
  gpcOff: '(désactivé : Global Privacy Control)',
  usedBy: 'Utilisé par',
  policy: 'Politique de confidentialité',
  gpc: 'Votre navigateur envoie un signal Global Privacy Control : les finalités concernées restent donc désactivées.',
  gpcHonored: 'Demande d’opposition respectée',
  choices: 'Vos choix en matière de confidentialité',
  noticeTitle: 'Cookies sur ce site',
  notice:
    'Nous utilisons des cookies et des technologies similaires pour les finalités décrites dans notre politique de confidentialité.',
  optOut:
    'Ils sont actifs sauf si vous vous y opposez, ce que vous pouvez faire à tout moment via « Vos choix en matière de confidentialité ».',
  dismiss: 'Fermer',
  receipt: 'Votre reçu',
  newTab: '(s’ouvre dans un nouvel onglet)',
  signedIn: 'Vous êtes connecté : votre choix s’applique sur chaque appareil où vous êtes connecté.',
  alsoOn: 'Votre choix vaut aussi sur :',
};

const es: UiStrings = {
  title: 'Sus opciones de privacidad',
  body: 'Usamos cookies y tecnologías similares para los fines indicados en «Personalizar». Nada opcional se ejecuta sin su permiso. Puede cambiar su elección en cualquier momento.',
  accept: 'Aceptar todo',
  reject: 'Rechazar todo',
  customize: 'Personalizar',
  prefsTitle: 'Preferencias de privacidad',
  prefsBody:
    'Elija qué fines permite. Los necesarios mantienen el sitio en funcionamiento y están siempre activos.',
  save: 'Guardar selección',
  required: '(siempre activo)',
  gpcOff: '(desactivado: Global Privacy Control)',
  usedBy: 'Usado por',
  policy: 'Política de privacidad',
  gpc: 'Su navegador envía una señal Global Privacy Control, por lo que los fines afectados quedan desactivados.',
  gpcHonored: 'Solicitud de exclusión respetada',
  choices: 'Sus opciones de privacidad',
  noticeTitle: 'Cookies en este sitio',
  notice:
    'Usamos cookies y tecnologías similares para los fines descritos en nuestra política de privacidad.',
  optOut:
    'Están activas salvo que se oponga, lo que puede hacer en cualquier momento en «Sus opciones de privacidad».',
  dismiss: 'Cerrar',
  receipt: 'Su recibo',
  newTab: '(se abre en una pestaña nueva)',
  signedIn: 'Ha iniciado sesión: su elección se aplica en todos los dispositivos donde haya iniciado sesión.',
  alsoOn: 'Su elección también vale en:',
};

/** Every translation, by lower-case language tag. */
export const BANNER_WORDS: Readonly<Record<string, UiStrings>> = { de, fr, es };

/**
 * The words of the channel's languages (exact tags, then primary subtags: `de-AT` gets `de`), keyed
 * by the lower-case tag the SDK looks up; {} for a channel in English alone.
 */
export function bannerWordsFor(languages: readonly string[]): Record<string, UiStrings> {
  const words: Record<string, UiStrings> = {};
  for (const language of languages) {
    const lang = language.toLowerCase();
    const found = BANNER_WORDS[lang] ?? BANNER_WORDS[lang.split('-')[0]];
    if (found) words[lang] = found;
  }
  return words;
}
