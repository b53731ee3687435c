import { apiDate } from '../../platform/http/dates.ts';
import { AppError } from '../../platform/http/errors.ts';
import { authProblems, Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { VendorList, VendorListQuery } from './tcf.schemas.ts';
import type { TcfService } from './tcf.service.ts';
import { vendorListArrays } from './vendor-list/vendor-list-view.ts';

/** Before the worker's first successful fetch there is no list to show or to check vendors against. */
export function noVendorListYet(): AppError {
  return new AppError(
    'invalid_state',
    'No IAB Global Vendor List has been fetched yet: the worker fetches it from TCF_GVL_URL now that it was asked for (try again in a few seconds); if it stays missing, check that TCF_GVL_URL is reachable from the worker and that a worker is running (see its logs).',
  );
}

/** The newest Global Vendor List the mirror holds, for the console's vendor picker. */
export function tcfRoutes(
  app: App,
  deps: { tcf: Pick<TcfService, 'latestVendorList' | 'requestFetch' | 'mirrorState'> },
) {
  app.get(
    '/v1/tcf/vendor-list',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'getTcfVendorList',
        tags: ['TCF'],
        summary: 'The newest IAB Global Vendor List the service holds (`?q=` filters vendors by name)',
        description:
          'The version the worker last fetched from TCF_GVL_URL: its purposes, special purposes, features, special features, stacks, data categories and vendors, each sorted by id and keeping the list’s own field names, and how the worker’s fetches go (`fetch`). Deleted vendors are left out. Before the first successful fetch: 409 `invalid_state`.',
        querystring: VendorListQuery,
        response: { 200: Envelope(VendorList), 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const list = await deps.tcf.latestVendorList(request.db.read);
      if (!list) {
        // The worker fetches nothing while no channel uses TCF: this asks it to.
        await deps.tcf.requestFetch();
        throw noVendorListYet();
      }
      const state = await deps.tcf.mirrorState(request.db.read);
      const orNull = (date: Date | null | undefined) => (date ? apiDate(date) : null);
      return envelope({
        vendorListVersion: list.vendorListVersion,
        tcfPolicyVersion: list.tcfPolicyVersion,
        lastUpdated: apiDate(list.lastUpdated),
        ...vendorListArrays(list.body, request.query.q),
        fetch: {
          lastSuccessAt: orNull(state?.lastSuccessAt),
          lastAttemptAt: orNull(state?.lastAttemptAt),
          consecutiveFailures: state?.consecutiveFailures ?? 0,
        },
      });
    },
  );
}
