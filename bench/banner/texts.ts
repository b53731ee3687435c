/**
 * The words every banner of the bench shows: our channel's purposes carry them, and the peers'
 * configurations repeat them, so each banner draws the same amount of text. The banner's own
 * sentences are our SDK's English ones, copied here as plain text (the bench reads nothing of the SDK).
 */
export const BANNER_TEXT = {
  title: 'Your privacy choices',
  body: 'We use cookies and similar technologies for the purposes listed under "Customize". Nothing optional runs unless you allow it. You can change your choice at any time.',
  accept: 'Accept all',
  reject: 'Reject all',
  customize: 'Customize',
  prefsTitle: 'Privacy preferences',
  prefsBody: 'Choose which purposes you allow. Required ones keep the site working and are always on.',
  save: 'Save choices',
  close: 'Close',
};

export interface Category {
  key: 'necessary' | 'analytics' | 'marketing';
  name: string;
  description: string;
  required: boolean;
}

export const CATEGORIES: Category[] = [
  {
    key: 'necessary',
    name: 'Strictly necessary',
    description: 'Keeps the site working: your session, security and this choice.',
    required: true,
  },
  {
    key: 'analytics',
    name: 'Analytics',
    description: 'Measure how the site is used, so we can improve it.',
    required: false,
  },
  {
    key: 'marketing',
    name: 'Marketing',
    description: 'Show you relevant advertising here and on other sites.',
    required: false,
  },
];

export const PRIVACY_POLICY_URL = 'https://news.example.com/privacy';
