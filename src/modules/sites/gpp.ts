/**
 * Whether a GPP string (IAB Global Privacy Platform, contract §15) decodes, checked with the IAB's
 * own library (`@iabgpp/cmpapi`, no hand-written decoder): null when it does, else why not. Every
 * section is decoded (`toObject`), not just the header. Loaded on first use: most decisions carry
 * no GPP string.
 */
export async function gppDecodeError(value: string): Promise<string | null> {
  const { GppModel } = await import('@iabgpp/cmpapi');
  try {
    new GppModel(value).toObject();
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `is not a GPP string that decodes: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
  }
}
