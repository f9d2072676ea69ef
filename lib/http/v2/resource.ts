import type { Context } from 'koa';
import type { Scalar } from '../body.js';
import type { EnvelopeMeta } from '../envelope.js';
import type { Services } from '../../services.js';
import type { Principal } from './principal.js';
import { scopeFor } from '../../auth/scopes.js';

export type Verb = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 both read). */
export type JsonSchema = Record<string, unknown>;

/**
 * How the dispatcher treats a write body: `scalar` parses it and rejects non-scalar members
 * (the v2 convention), `json` parses any JSON object, `stream` leaves the request stream to
 * the handler (large imports).
 */
export type BodyMode = 'scalar' | 'json' | 'stream';

export interface RequestContext {
  ctx: Context;
  resource: string;
  method: Verb;
  id: string | null;
  query: Record<string, string>;
  body: Record<string, unknown>;
  principal: Principal;
  services: Services;
  /** Envelope meta for this request; handlers add their own members (pagination, filters). */
  meta: EnvelopeMeta;
}

/** What a handler answers: `data` in the envelope, or `undefined` after writing ctx itself (204, streams). */
export interface HandlerResult {
  data: unknown;
  status?: number;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type Handler = (request: RequestContext) => Promise<HandlerResult | undefined>;

export interface Operation {
  summary: string;
  handler: Handler;
  /** Query parameters (all strings on the wire), validated before the handler runs. */
  query?: JsonSchema;
  /** Write body, validated before the handler runs (not for `stream`). */
  body?: JsonSchema;
  bodyMode?: BodyMode;
  /** Response `data` schema, for the OpenAPI document. */
  response?: JsonSchema;
  /** Request bodies besides JSON that a `stream` handler reads, by media type (OpenAPI only). */
  otherBodies?: Record<string, JsonSchema>;
  /** Answers besides the usual success (e.g. 202 for an accepted job), by status (OpenAPI only). */
  otherResponses?: Record<string, { description: string; data?: JsonSchema }>;
}

/**
 * A v2 resource declares its operations once; the verbs it supports, the `Allow` header,
 * 405 answers, scope checks and the OpenAPI document all derive from this declaration.
 */
export interface ResourceDefinition {
  name: string;
  description: string;
  /** false: a valid token is enough (token, catalog); true: the verb's scope is needed. */
  scoped: boolean;
  /** Scopes by verb when they are not `<name>:<action>` (import jobs are guarded by the qso scopes). */
  scopes?: Partial<Record<Verb, string>>;
  list?: Operation;
  show?: Operation;
  create?: Operation;
  update?: Operation;
  remove?: Operation;
  /** Read-only sub-collections by name (`GET /<resource>/<view>`, e.g. qso/changes), under the list's scope. */
  views?: Record<string, Operation>;
}

export function supportedVerbs(resource: ResourceDefinition): Verb[] {
  const verbs: Verb[] = [];
  if (resource.list || resource.show) verbs.push('GET');
  if (resource.create) verbs.push('POST');
  if (resource.update) verbs.push('PATCH');
  if (resource.remove) verbs.push('DELETE');
  return verbs;
}

/** The scope a verb on a scoped resource needs. */
export function requiredScope(resource: ResourceDefinition, verb: Verb): string {
  return resource.scopes?.[verb] ?? scopeFor(resource.name, verb);
}

export type { Scalar };
