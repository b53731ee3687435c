/**
 * A duration in the layers' language, by the browser's own rules for it (Intl): "1 day", "1 jour",
 * "365 dni", never "1 jours". Seconds are shown in the largest unit that fits (days from one day
 * on, then hours, minutes, seconds), rounded to a whole number.
 */
const UNITS: Array<[unit: string, seconds: number]> = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function formatDuration(seconds: number, language: string): string {
  const [unit, size] = UNITS.find(([, s]) => seconds >= s) ?? UNITS[UNITS.length - 1];
  const value = Math.round(seconds / size);
  try {
    return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
  } catch {
    // A browser without unit formatting: the number and the unit's symbol, the same in every language.
    return `${value} ${unit[0]}`;
  }
}

/** Days (the vendor list's retention periods) as a duration. */
export const formatDays = (days: number, language: string) => formatDuration(days * 86_400, language);
