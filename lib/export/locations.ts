import type pg from 'pg';
import { named } from '../db/connectionSetup.js';
import { EXPORT_LOCATION_SELECT_LIST, type ExportLocations } from './adifRecord.js';

/**
 * The station locations an export's records take their MY_* fields from, read once, in the
 * export's snapshot (call inside its REPEATABLE READ transaction, so that they are the
 * locations as the rows' snapshot has them). `stationIds` are the export's own, already checked
 * as the requester's.
 */
export async function readExportLocations(client: Pick<pg.PoolClient, 'query'>, stationIds: readonly number[]): Promise<ExportLocations> {
  const { rows } = await client.query<[number, ...string[]]>({
    ...named(client, { name: 'export-locations', text: `SELECT ${EXPORT_LOCATION_SELECT_LIST} FROM stations WHERE id = ANY($1::int[])` }),
    values: [stationIds],
    rowMode: 'array',
  });
  return new Map(rows.map(([id, ...values]) => [id, values]));
}
