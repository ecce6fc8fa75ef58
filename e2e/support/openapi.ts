// The published contract as a black-box oracle: webhook payloads are checked against the JSON
// Schemas of the OpenAPI document the gateway serves (`webhooks.<type>.post.requestBody`), with
// its components, by a JSON Schema 2020-12 validator. No gateway code is imported.
import Ajv2020 from 'ajv8/dist/2020';

interface OpenApiDocument {
  components: { schemas: Record<string, object> };
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>;
}

/** Validates a webhook payload against the documented schema of its `type`; answers the problems (empty: valid). */
export type WebhookPayloadCheck = (payload: { type: string }) => string[];

export async function webhookPayloadCheck(baseUrl: string): Promise<WebhookPayloadCheck> {
  const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  // The document's own $refs (#/components/schemas/X) resolve against it as a whole.
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  const validators = new Map(
    Object.entries(doc.webhooks).map(([type, op]) => {
      const schema = JSON.parse(
        JSON.stringify(op.post.requestBody.content['application/json'].schema).replaceAll('"#/components/', '"openapi#/components/'),
      ) as object;
      return [type, ajv.compile(schema)] as const;
    }),
  );
  return (payload) => {
    const validate = validators.get(payload.type);
    if (!validate) return [`no documented webhook of type '${payload.type}'`];
    return validate(payload) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  };
}
