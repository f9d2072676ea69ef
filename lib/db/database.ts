import pg from 'pg';
import type { Logger } from '../log.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded.js';
import { migrate } from './migrate.js';

/** bigint (int8) columns hold ids and Hz frequencies, all far below 2^53: read them as numbers. */
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
/** timestamp without time zone is UTC in this schema; keep it as text and format it ourselves. */
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (value: string) => value);
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

export interface Database {
  pool: pg.Pool;
  url: string;
  /** Migrations this open applied. */
  migrationsApplied: string[];
  close(): Promise<void>;
}

export interface OpenOptions {
  logger: Logger;
  url?: string;
  migrate?: boolean;
  poolSize?: number;
}

/** Connects to DATABASE_URL, or starts the embedded server when none is given; migrates. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  const { logger } = options;
  let embedded: EmbeddedDatabase | undefined;
  let url = options.url ?? process.env.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedDatabase(logger);
    url = embedded.url;
  }
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  pool.on('error', (error) => logger.error('idle database connection failed', { error: error.message }));
  let migrationsApplied: string[] = [];
  try {
    if (options.migrate !== false) {
      migrationsApplied = await migrate(pool);
      if (migrationsApplied.length) logger.info('migrations applied', { applied: migrationsApplied });
    }
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    url,
    migrationsApplied,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}
