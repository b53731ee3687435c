import { answer, api, type Schemas } from './api.ts';
import { select } from './dom.ts';

export type ChannelChoice = Pick<Schemas['Channel'], 'id' | 'name' | 'status'>;

/** The organization's channels in this environment (the first 100), for the views that filter by one. */
export async function channelChoices(): Promise<ChannelChoice[]> {
  const { data } = await answer(api.GET('/v1/channels', { params: { query: { limit: 100 } } }));
  return data;
}

/**
 * A channel picked from a list by its name instead of a typed id (`ch_…`, which nobody remembers);
 * the first option is "All channels" (the empty value), and archived channels say so.
 */
export function channelPicker(name: string, channels: ChannelChoice[], selected = ''): HTMLSelectElement {
  const picker = select(name, [
    ['', 'All channels'],
    ...channels.map((c): [string, string] => [
      c.id,
      c.status === 'active' ? c.name : `${c.name} (${c.status})`,
    ]),
  ]);
  // A channel the list does not hold (past the first 100, or from a link) stays selectable.
  if (selected && !channels.some((c) => c.id === selected)) picker.append(new Option(selected, selected));
  picker.value = selected;
  return picker;
}
