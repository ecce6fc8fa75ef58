// The machine-readable reference, served from the same route table it describes.
import { z } from 'zod';
import { defineRoute, ok, type Route } from '../route';
import type { OpenApiDocument } from '../openapi';

export function metaRoutes(document: () => OpenApiDocument): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['Meta'],
      auth: 'none',
      responses: { 200: z.looseObject({ openapi: z.literal('3.1.0'), paths: z.record(z.string(), z.unknown()) }) },
      async handler() {
        return ok({ ...document() });
      },
    }),
  ];
}
