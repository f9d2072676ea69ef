import { contests } from '../../../../catalog/contests.js';
import { subdivisionsFor } from '../../../../catalog/subdivisions.js';
import { dxccEntities, dxccEntity, type DxccEntityOrder } from '../../../../dxcc/entities.js';
import { validationError } from '../../../errors.js';
import { present } from '../../params.js';
import type { JsonSchema, ResourceDefinition } from '../../resource.js';

/**
 * Instance-wide reference lists for pickers and client-side validation. Each lists what a
 * client may choose for new data: import-only contests and subdivisions and deleted DXCC
 * entities are left out (they stay valid in imported logs).
 */

/** The list a function computes once, on first use; the catalogue modules cache their parsing too. */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

const contestList = once(() =>
  contests().filter((c) => !c.importOnly).map(({ id, contest, name }) => ({ id, contest, name })),
);

const DXCC_ORDERS: readonly DxccEntityOrder[] = ['name', 'prefix'];

// Code 0 is "None" (no DXCC entity), not something to pick.
const currentEntities = (order: DxccEntityOrder) =>
  dxccEntities(order)
    .filter((e) => !e.deleted && e.adif !== 0)
    .map(({ adif, name, prefix, continent, cqz, ituz, lat, long }) => ({ adif, name, prefix, continent, cqz, ituz, lat, long }));
const dxccLists: Record<DxccEntityOrder, () => ReturnType<typeof currentEntities>> = {
  name: once(() => currentEntities('name')),
  prefix: once(() => currentEntities('prefix')),
};

function choice<T extends string>(query: Record<string, string>, name: string, allowed: readonly T[], fallback: T | null): T | null {
  const value = query[name];
  if (!present(value)) return fallback;
  const key = value.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(key)) {
    throw validationError(`Unknown ${name} "${value}"`, { field: name, allowed });
  }
  return key as T;
}

function dxccParam(query: Record<string, string>): number {
  const value = query.dxcc;
  if (!present(value)) throw validationError('topic=subdivisions needs the parameter "dxcc" (a DXCC entity number)', { field: 'dxcc' });
  const code = /^\d{1,4}$/.test(value.trim()) ? Number(value) : NaN;
  if (!dxccEntity(code)) throw validationError(`"${value}" is not a DXCC entity number`, { field: 'dxcc' });
  return code;
}

const TOPICS = {
  contest: () => contestList(),
  dxcc: (query: Record<string, string>) => dxccLists[choice(query, 'order', DXCC_ORDERS, 'name')!](),
  subdivisions: (query: Record<string, string>) =>
    subdivisionsFor(dxccParam(query)).filter((s) => !s.importOnly).map(({ state, name }) => ({ state, name })),
} as const;
type Topic = keyof typeof TOPICS;
const TOPIC_NAMES = Object.keys(TOPICS) as Topic[];

const text = (description: string): JsonSchema => ({ type: 'string', description });

export const catalogResource: ResourceDefinition = {
  name: 'catalog',
  description: 'Reference lists: contests, DXCC entities, subdivisions of an entity',
  scoped: false,
  list: {
    summary: 'Without topic: the topic names; with topic: that list',
    query: {
      type: 'object',
      properties: {
        topic: text(`one of ${TOPIC_NAMES.join(', ')}`),
        order: text('topic=dxcc: name (default) or prefix'),
        dxcc: text('topic=subdivisions (required): DXCC entity number'),
      },
    },
    response: { type: ['object', 'array'] },
    handler: async ({ query }) => {
      const topic = choice(query, 'topic', TOPIC_NAMES, null);
      if (topic === null) return { data: { topics: TOPIC_NAMES }, meta: { topic: null } };
      const items = TOPICS[topic](query);
      return { data: items, meta: { topic, count: items.length } };
    },
  },
};
