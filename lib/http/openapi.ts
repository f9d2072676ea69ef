import { requiredScope, supportedVerbs, type JsonSchema, type Operation, type ResourceDefinition, type Verb } from './v2/resource.js';

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
    },
  },
};

function envelope(data: JsonSchema | undefined): JsonSchema {
  return {
    type: 'object',
    required: ['data', 'meta'],
    properties: {
      data: data ?? {},
      meta: {
        type: 'object',
        required: ['timestamp', 'resource', 'method'],
        properties: { timestamp: { type: 'string' }, resource: { type: 'string' }, method: { type: 'string' } },
      },
    },
  };
}

function queryParameters(schema: JsonSchema | undefined): unknown[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    description: property.description,
    schema: property,
  }));
}

function mediaTypes(bodies: Record<string, JsonSchema> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(bodies ?? {}).map(([type, schema]) => [type, { schema }]));
}

function operationObject(resource: ResourceDefinition, verb: string, operation: Operation, id: boolean): Record<string, unknown> {
  return {
    summary: operation.summary,
    tags: [resource.name],
    security: [{ bearer: [] }, { apiKey: [] }],
    ...(resource.scoped ? { 'x-required-scope': requiredScope(resource, verb.toUpperCase() as Verb) } : {}),
    parameters: [
      ...(id ? [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }] : []),
      ...queryParameters(operation.query),
    ],
    ...(operation.body
      ? {
        requestBody: { required: true, content: { 'application/json': { schema: operation.body }, ...mediaTypes(operation.otherBodies) } },
        ...(operation.bodyMode === 'stream' ? { 'x-streamed-body': true } : {}),
      }
      : {}),
    responses: {
      ...Object.fromEntries(Object.entries(operation.otherResponses ?? {}).map(([status, { description, data }]) => [
        status, { description, ...(data ? { content: { 'application/json': { schema: envelope(data) } } } : {}) },
      ])),
      [verb === 'delete' ? '204' : verb === 'post' ? '201' : '200']: verb === 'delete'
        ? { description: 'Deleted' }
        : { description: 'Success', content: { 'application/json': { schema: envelope(operation.response) } } },
      default: { description: 'Error', content: { 'application/json': { schema: errorSchema } } },
    },
  };
}

/** The OpenAPI 3.1 document, generated from the same resource declarations the server dispatches. */
export function openApiDocument(resources: ResourceDefinition[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {
    '/api/v2/status': {
      get: {
        summary: 'Service status (no token needed)',
        tags: ['status'],
        responses: { 200: { description: 'Status', content: { 'application/json': { schema: envelope({ type: 'object', properties: { name: { type: 'string' }, status: { type: 'string' }, version: { type: 'string' }, live_updates: { type: 'string', enum: ['off', 'ok', 'degraded', 'down'] } } }) } } } },
      },
    },
  };
  for (const resource of resources) {
    const collection: Record<string, unknown> = {};
    const item: Record<string, unknown> = {};
    if (resource.list) collection.get = operationObject(resource, 'get', resource.list, false);
    if (resource.create) collection.post = operationObject(resource, 'post', resource.create, false);
    if (resource.show) item.get = operationObject(resource, 'get', resource.show, true);
    if (resource.update) item.patch = operationObject(resource, 'patch', resource.update, true);
    if (resource.remove) item.delete = operationObject(resource, 'delete', resource.remove, true);
    if (Object.keys(collection).length) paths[`/api/v2/${resource.name}`] = collection;
    if (Object.keys(item).length) paths[`/api/v2/${resource.name}/{id}`] = item;
    for (const [name, view] of Object.entries(resource.views ?? {})) {
      paths[`/api/v2/${resource.name}/${name}`] = { get: operationObject(resource, 'get', view, false) };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Logbook API', version, description: 'v2 REST interface of the logbook server' },
    paths,
    tags: resources.map((r) => ({ name: r.name, description: `${r.description} Verbs: ${supportedVerbs(r).join(', ')}.` })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A v2 token (prefix wl2_)' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}
