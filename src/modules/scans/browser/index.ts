/** The scan engine's public face: the scans job imports from here only. */
export { ScanFailure } from './deadlines.ts';
export type { Lookup } from './guard-proxy.ts';
export type {
  ObservedCookie,
  ObservedRequest,
  ObservedStorage,
  PageScan,
  ScanPhase,
} from './observations.ts';
export { MAX_OBSERVATIONS_PER_PHASE, SCAN_PHASES } from './observations.ts';
export type { ResponseReader } from './page-phases.ts';
export { runBrowserScan, type ScanOptions } from './scanner.ts';
