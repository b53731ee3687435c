import { h } from '../../dom.ts';

/**
 * The vendor list's `standardTexts` (TCF v2.4, for policy 5.0.b): texts the policy has CMPs show
 * word for word, such as the standard explanation of each feature. IAB publishes them in the list
 * and its language files, either on the entry itself (`features["1"].standardTexts`) or in the
 * list's `standardTexts` keyed by kind and id (`standardTexts.features["1"]`); the service passes
 * both through in the slice's language. The texts are shown as published, one paragraph each.
 */
export type Kind = 'purposes' | 'specialPurposes' | 'features' | 'specialFeatures';

/** Every string in a text tree, in order (at most 20: a standard text is a sentence or a few). */
function strings(tree: unknown, out: string[] = []): string[] {
  if (out.length >= 20) return out;
  if (typeof tree === 'string') {
    if (tree.trim()) out.push(tree);
  } else if (Array.isArray(tree)) {
    for (const item of tree) strings(item, out);
  } else if (tree && typeof tree === 'object') {
    for (const value of Object.values(tree)) strings(value, out);
  }
  return out;
}

export function standardTexts(
  listTexts: unknown,
  kind: Kind,
  id: number,
  item: { standardTexts?: unknown },
): Node[] {
  const byKind = (listTexts as Record<string, Record<string, unknown> | undefined> | undefined)?.[kind];
  const texts = [...strings(item.standardTexts), ...strings(byKind?.[String(id)])];
  return Array.from(new Set(texts)).map((text) => h('p', { 'data-tcf-standard-text': true }, text));
}
