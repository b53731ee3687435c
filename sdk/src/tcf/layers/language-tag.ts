/**
 * A language tag's primary subtag: `fr-CA` → `fr`, `PT_br` → `pt`. Apart from strings.ts, whose
 * sentence tables the headless core (packages/core) does not carry, so the core reads the vendor
 * list's language by the same rule as the layers.
 */
export const primaryOf = (tag: string) => tag.trim().toLowerCase().split(/[-_]/)[0];
