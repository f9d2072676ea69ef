import type { ResourceDefinition } from '../../lib/http/v2/resource.js';

/** A request that holds a backend for half a minute, through pool.query or a checked-out client of the bulk or the page pool. */
export const slowProbes: ResourceDefinition[] = [
  {
    name: 'lookup',
    description: 'slow probe',
    scoped: false,
    list: {
      summary: 'sleeps in the database',
      query: { type: 'object', properties: { via: { type: 'string', enum: ['query', 'client', 'page'] }, tag: { type: 'string' } } },
      handler: async ({ services, query }) => {
        const sql = `SELECT pg_sleep(30), '${String(query.tag).replace(/\W/g, '')}'`;
        if (query.via === 'query') await services.db.query(sql);
        else {
          const client = await (query.via === 'page' ? services.pageDb : services.bulkDb).connect();
          try {
            await client.query(sql);
          } finally {
            client.release();
          }
        }
        return { data: [] };
      },
    },
  },
];
