// GET /v1/connect/{provider}: what a PMS's API can perform, read from the capability matrix
// (through the pms-adapter, which owns it), before connecting or writing.
import { z } from 'zod';
import type { pms } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import { toApiCapabilities } from '../mappers';
import { defineRoute, ok, type Route } from '../route';
import { connectCapabilitiesSchema, providerParam } from '@vrp/api-model';

export function connectRoutes(upstream: Upstream<pms.PmsAdapterServiceClient>): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/connect/:provider',
      operationId: 'getProviderCapabilities',
      summary: 'What a PMS supports',
      description:
        'The capabilities of a PMS (`capabilities.pms`, and `capabilities.reservations`), from the same capability matrix that decides `422 pms_write_unsupported`. A write a flag marks false is refused before anything is sent to the PMS; make that change in the PMS instead.',
      tags: ['Connect'],
      auth: 'api_key',
      params: z.strictObject({ provider: providerParam }),
      responses: { 200: z.object({ data: connectCapabilitiesSchema }) },
      errors: ['not_found'],
      async handler({ params }) {
        const { capabilities } = await upstream.call('getProviderCapabilities', { provider: params.provider });
        if (!capabilities) throw new Error('pms-adapter answered GetProviderCapabilities without capabilities');
        const api = toApiCapabilities({ reservations: capabilities.reservations, pms: capabilities.pms });
        return ok({ data: { provider: capabilities.provider, capabilities: api } });
      },
    }),
  ];
}
