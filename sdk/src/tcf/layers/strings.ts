/**
 * The TCF layers' own sentences. The names and descriptions of purposes, features, stacks and data
 * categories come from the vendor list's language file; only the layers' framing is ours, in the
 * SDK's languages (English otherwise). `{n}` is replaced by a number.
 */
export interface TcfStrings {
  /** First layer. */
  intro: string;
  vendorCount: string;
  seeVendors: string;
  purposesHeading: string;
  specialFeaturesNote: string;
  legitimateInterest: string;
  withdraw: string;
  scope: string;
  ownPurposes: string;
  manage: string;
  /** Second layer. */
  manageTitle: string;
  manageIntro: string;
  purposes: string;
  specialPurposes: string;
  specialPurposesNote: string;
  features: string;
  featuresNote: string;
  specialFeatures: string;
  vendors: string;
  consent: string;
  objection: string;
  optIn: string;
  details: string;
  vendorPurposes: string;
  vendorLegInt: string;
  vendorSpecialPurposes: string;
  vendorFeatures: string;
  vendorSpecialFeatures: string;
  retention: string;
  retentionFor: string;
  dataCategories: string;
  storage: string;
  nonCookie: string;
  legIntClaim: string;
  partnerCount: string;
  illustrations: string;
  ownTitle: string;
}

const en: TcfStrings = {
  intro:
    'We and our partners store and access information on your device, such as cookies and unique identifiers, and process personal data such as browsing data, for the purposes below.',
  vendorCount: 'We work with {n} partners (vendors).',
  seeVendors: 'Their list, with what each does, is under "Manage options".',
  purposesHeading: 'With your permission, we and our partners may:',
  specialFeaturesNote: 'Some of these are special features that are only used if you opt in.',
  legitimateInterest:
    'Some partners do not ask for consent but rely on their legitimate interest to process your data. You have the right to object to it under "Manage options"; "Reject all" objects for you.',
  withdraw:
    'You can withdraw your consent or change your choices at any time through the "{choices}" link on this site.',
  scope: 'Your choices apply to this site only.',
  ownPurposes: 'This site also asks for:',
  manage: 'Manage options',
  manageTitle: 'Manage options',
  manageIntro:
    'Choose what you allow. Nothing is allowed unless you switch it on; legitimate interests apply unless you object.',
  purposes: 'Purposes',
  specialPurposes: 'Special purposes',
  specialPurposesNote: 'Partners use these without asking, to run and secure the service. For information.',
  features: 'Features',
  featuresNote: 'Partners may combine the purposes above with these. For information.',
  specialFeatures: 'Special features',
  vendors: 'Partners (vendors)',
  consent: 'Consent',
  objection: 'Legitimate interest (switch off to object)',
  optIn: 'Allow',
  details: 'Details of {name}',
  vendorPurposes: 'Purposes (consent)',
  vendorLegInt: 'Purposes (legitimate interest)',
  vendorSpecialPurposes: 'Special purposes',
  vendorFeatures: 'Features',
  vendorSpecialFeatures: 'Special features',
  retention: 'Data kept for',
  retentionFor: '{n} days',
  dataCategories: 'Data used',
  storage: 'Stores cookies for up to {n} days.',
  nonCookie: 'Also uses other ways to store or access information on your device.',
  legIntClaim: 'Legitimate interest at stake',
  partnerCount: 'Partners asking consent: {c}. Claiming a legitimate interest: {l}.',
  illustrations: 'Examples',
  ownTitle: 'This site’s own purposes',
};

const de: TcfStrings = {
  intro:
    'Wir und unsere Partner speichern Informationen auf Ihrem Gerät und greifen darauf zu, etwa Cookies und eindeutige Kennungen, und verarbeiten personenbezogene Daten wie Browsing-Daten für die folgenden Zwecke.',
  vendorCount: 'Wir arbeiten mit {n} Partnern (Anbietern) zusammen.',
  seeVendors: 'Ihre Liste, mit dem, was jeder tut, finden Sie unter „Optionen verwalten“.',
  purposesHeading: 'Mit Ihrer Erlaubnis dürfen wir und unsere Partner:',
  specialFeaturesNote: 'Einige davon sind besondere Merkmale, die nur mit Ihrer Zustimmung genutzt werden.',
  legitimateInterest:
    'Einige Partner bitten nicht um Einwilligung, sondern stützen sich auf ihr berechtigtes Interesse. Sie können dem unter „Optionen verwalten“ widersprechen; „Alle ablehnen“ widerspricht für Sie.',
  withdraw:
    'Sie können Ihre Einwilligung jederzeit über den Link „{choices}“ auf dieser Website widerrufen oder ändern.',
  scope: 'Ihre Auswahl gilt nur für diese Website.',
  ownPurposes: 'Diese Website fragt außerdem nach:',
  manage: 'Optionen verwalten',
  manageTitle: 'Optionen verwalten',
  manageIntro:
    'Wählen Sie, was Sie erlauben. Nichts ist erlaubt, bis Sie es einschalten; berechtigte Interessen gelten, bis Sie widersprechen.',
  purposes: 'Zwecke',
  specialPurposes: 'Besondere Zwecke',
  specialPurposesNote:
    'Partner nutzen diese ohne Nachfrage, um den Dienst zu betreiben und zu sichern. Zur Information.',
  features: 'Merkmale',
  featuresNote: 'Partner können die obigen Zwecke damit kombinieren. Zur Information.',
  specialFeatures: 'Besondere Merkmale',
  vendors: 'Partner (Anbieter)',
  consent: 'Einwilligung',
  objection: 'Berechtigtes Interesse (ausschalten, um zu widersprechen)',
  optIn: 'Erlauben',
  details: 'Details zu {name}',
  vendorPurposes: 'Zwecke (Einwilligung)',
  vendorLegInt: 'Zwecke (berechtigtes Interesse)',
  vendorSpecialPurposes: 'Besondere Zwecke',
  vendorFeatures: 'Merkmale',
  vendorSpecialFeatures: 'Besondere Merkmale',
  retention: 'Speicherdauer',
  retentionFor: '{n} Tage',
  dataCategories: 'Verwendete Daten',
  storage: 'Speichert Cookies bis zu {n} Tage.',
  nonCookie: 'Nutzt auch andere Wege, um Informationen auf Ihrem Gerät zu speichern oder abzurufen.',
  legIntClaim: 'Berechtigtes Interesse',
  partnerCount: 'Partner, die um Einwilligung bitten: {c}. Mit berechtigtem Interesse: {l}.',
  illustrations: 'Beispiele',
  ownTitle: 'Eigene Zwecke dieser Website',
};

const fr: TcfStrings = {
  intro:
    'Nos partenaires et nous stockons et accédons à des informations sur votre appareil, comme des cookies et des identifiants uniques, et traitons des données personnelles comme les données de navigation, pour les finalités ci-dessous.',
  vendorCount: 'Nous travaillons avec {n} partenaires (fournisseurs).',
  seeVendors: 'Leur liste, avec ce que fait chacun, se trouve sous « Gérer les options ».',
  purposesHeading: 'Avec votre accord, nos partenaires et nous pouvons :',
  specialFeaturesNote:
    'Certaines sont des fonctionnalités spéciales utilisées seulement si vous les activez.',
  legitimateInterest:
    'Certains partenaires ne demandent pas votre consentement mais s’appuient sur leur intérêt légitime. Vous pouvez vous y opposer sous « Gérer les options » ; « Tout refuser » s’y oppose pour vous.',
  withdraw:
    'Vous pouvez retirer votre consentement ou modifier vos choix à tout moment via le lien « {choices} » de ce site.',
  scope: 'Vos choix ne valent que pour ce site.',
  ownPurposes: 'Ce site demande aussi :',
  manage: 'Gérer les options',
  manageTitle: 'Gérer les options',
  manageIntro:
    'Choisissez ce que vous autorisez. Rien n’est autorisé tant que vous ne l’activez pas ; les intérêts légitimes s’appliquent sauf opposition.',
  purposes: 'Finalités',
  specialPurposes: 'Finalités spéciales',
  specialPurposesNote:
    'Utilisées sans demande, pour faire fonctionner et sécuriser le service. Pour information.',
  features: 'Fonctionnalités',
  featuresNote: 'Les partenaires peuvent les combiner aux finalités ci-dessus. Pour information.',
  specialFeatures: 'Fonctionnalités spéciales',
  vendors: 'Partenaires (fournisseurs)',
  consent: 'Consentement',
  objection: 'Intérêt légitime (désactiver pour s’opposer)',
  optIn: 'Autoriser',
  details: 'Détails de {name}',
  vendorPurposes: 'Finalités (consentement)',
  vendorLegInt: 'Finalités (intérêt légitime)',
  vendorSpecialPurposes: 'Finalités spéciales',
  vendorFeatures: 'Fonctionnalités',
  vendorSpecialFeatures: 'Fonctionnalités spéciales',
  retention: 'Durée de conservation',
  retentionFor: '{n} jours',
  dataCategories: 'Données utilisées',
  storage: 'Stocke des cookies jusqu’à {n} jours.',
  nonCookie: 'Utilise aussi d’autres moyens de stocker ou lire des informations sur votre appareil.',
  legIntClaim: 'Intérêt légitime invoqué',
  partnerCount: 'Partenaires demandant le consentement : {c}. Invoquant un intérêt légitime : {l}.',
  illustrations: 'Exemples',
  ownTitle: 'Finalités propres à ce site',
};

const es: TcfStrings = {
  intro:
    'Nosotros y nuestros socios almacenamos y accedemos a información en su dispositivo, como cookies e identificadores únicos, y tratamos datos personales como los de navegación, para los fines siguientes.',
  vendorCount: 'Trabajamos con {n} socios (proveedores).',
  seeVendors: 'Su lista, con lo que hace cada uno, está en «Gestionar opciones».',
  purposesHeading: 'Con su permiso, nosotros y nuestros socios podemos:',
  specialFeaturesNote: 'Algunas son características especiales que solo se usan si usted las activa.',
  legitimateInterest:
    'Algunos socios no piden consentimiento sino que se basan en su interés legítimo. Puede oponerse en «Gestionar opciones»; «Rechazar todo» se opone por usted.',
  withdraw:
    'Puede retirar su consentimiento o cambiar sus opciones en cualquier momento con el enlace «{choices}» de este sitio.',
  scope: 'Sus opciones se aplican solo a este sitio.',
  ownPurposes: 'Este sitio también pide:',
  manage: 'Gestionar opciones',
  manageTitle: 'Gestionar opciones',
  manageIntro:
    'Elija qué permite. Nada está permitido hasta que lo active; los intereses legítimos se aplican salvo que se oponga.',
  purposes: 'Fines',
  specialPurposes: 'Fines especiales',
  specialPurposesNote:
    'Se usan sin preguntar, para hacer funcionar y proteger el servicio. A título informativo.',
  features: 'Características',
  featuresNote: 'Los socios pueden combinarlas con los fines anteriores. A título informativo.',
  specialFeatures: 'Características especiales',
  vendors: 'Socios (proveedores)',
  consent: 'Consentimiento',
  objection: 'Interés legítimo (desactivar para oponerse)',
  optIn: 'Permitir',
  details: 'Detalles de {name}',
  vendorPurposes: 'Fines (consentimiento)',
  vendorLegInt: 'Fines (interés legítimo)',
  vendorSpecialPurposes: 'Fines especiales',
  vendorFeatures: 'Características',
  vendorSpecialFeatures: 'Características especiales',
  retention: 'Conservación de datos',
  retentionFor: '{n} días',
  dataCategories: 'Datos usados',
  storage: 'Guarda cookies hasta {n} días.',
  nonCookie: 'También usa otros medios para guardar o leer información en su dispositivo.',
  legIntClaim: 'Interés legítimo invocado',
  partnerCount: 'Socios que piden consentimiento: {c}. Que invocan interés legítimo: {l}.',
  illustrations: 'Ejemplos',
  ownTitle: 'Fines propios de este sitio',
};

const TABLE: Record<string, TcfStrings> = { en, de, fr, es };

export function tcfStringsFor(language: string): TcfStrings {
  const lang = language.toLowerCase();
  return TABLE[lang] || TABLE[lang.split('-')[0]] || en;
}

/** A sentence with its `{key}` placeholders filled in. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (_, key: string) => String(values[key] ?? ''));
