import { FixedIntegerEncoder, GppModel, TraditionalBase64UrlEncoder } from '@iabgpp/cmpapi';

/**
 * GPP strings for the tests and benches of the GPP checks (src/modules/gpp/gpp*.ts): real ones by
 * `@iabgpp/cmpapi`'s own encoder, hostile ones assembled from its own field encoders (the encoder
 * never makes overlapping ranges: it keeps a set of ids).
 */

/** A US National (section 7) string as the SDK sent it: notices given, nothing opted out. */
export const USNAT = 'DBABLA~BVQqAAAAAgA.QA';

const base64 = TraditionalBase64UrlEncoder.getInstance();
const int = (value: number, width: number) => FixedIntegerEncoder.encode(value, width);

/** A tcfeuv2 string (header and section) by the library's encoder, with these vendor consents. */
export function tcfEuGpp(vendorConsents: number[]): string {
  const model = new GppModel();
  model.setFieldValue('tcfeuv2', 'CmpId', 300);
  model.setFieldValue('tcfeuv2', 'VendorConsents', vendorConsents);
  return model.encode();
}

/**
 * A tcfcav1 (TCF Canada, section 5) string by the library's encoder, with these vendor express
 * consents: vendor ranges the decoder expands, as tcfeuv2's, without being a TC string of the EU
 * TCF, which the service holds to the channel's TCF settings.
 */
export function tcfCaGpp(vendorExpressConsent: number[]): string {
  const model = new GppModel();
  model.setFieldValue('tcfcav1', 'CmpId', 300);
  model.setFieldValue('tcfcav1', 'VendorExpressConsent', vendorExpressConsent);
  return model.encode();
}

/**
 * A tcfeuv2 string whose core segment's vendor consents are `ranges` range entries of 1..`last`
 * (the fixed fields, 213 bits, of a real string first; then MaxVendorId, IsRangeEncoding 1,
 * NumEntries and the entries; empty legitimate interests; no publisher restrictions). With the
 * defaults, the 603-character string that stopped the shared decoder: the library
 * expands it to 6.5 million ids.
 */
export function hostileTcfEuGpp(options: { ranges?: number; last?: number } = {}): string {
  const ranges = options.ranges ?? 100;
  const last = options.last ?? 65535;
  const [header, section] = tcfEuGpp([1]).split('~');
  const fixed = base64.decode(section.split('.')[0]).slice(0, 213);
  const entries = int(ranges, 12) + `1${int(1, 16)}${int(last, 16)}`.repeat(ranges);
  const core = `${fixed}${int(65535, 16)}1${entries}${int(0, 16)}0${int(0, 12)}`;
  return `${header}~${base64.encode(core)}`;
}
