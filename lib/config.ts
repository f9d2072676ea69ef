import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject, JSONSchemaType, ValidateFunction } from 'ajv';
import type { PoolMode } from './db/connectionSetup.js';
import type { RateLimit } from './ratelimit/types.js';

/** Club-member fields an instance owner may withhold (SPEC.md "Limits" 5). */
export const HIDEABLE_USERDATA = ['user_firstname', 'user_lastname', 'user_locator', 'user_name', 'user_email', 'user_language'] as const;
export type HideableUserdata = (typeof HIDEABLE_USERDATA)[number];

/** Lifetime of browser tokens when `worker.token_ttl_seconds` is not set. */
export const DEFAULT_BROWSER_TOKEN_TTL_SECONDS = 3600;

export interface WorkerConfig {
  /** The worker's internal port; `urls` instead lists several workers (sharing Redis) to fail over between. */
  url?: string;
  urls?: string[];
  secret?: string;
  /** Sign browser tokens and authenticate internal calls with two keys derived from `secret` (lib/worker/workerKeys.ts); no pairing with the original's worker or application. */
  derived_keys?: boolean;
  public_url?: string;
  timeout_ms?: number;
  token_ttl_seconds?: number;
  /** Read by the worker process (`logbook worker`), not by the API. */
  ws_bind?: string;
  internal_bind?: string;
  topic_ttl?: number;
  redis_url?: string;
}

/** Background imports (POST /api/v2/qso with Prefer: respond-async). */
export interface ImportJobsConfig {
  /** Where uploads wait for their import (default: <LOGBOOK_HOME>/import-jobs). */
  spool_dir?: string;
  /** Queued or running jobs one owner may have at once. */
  max_active_per_owner: number;
  /** Spooled bytes (decompressed) of all queued and running jobs together. */
  max_spool_bytes: number;
  /** Jobs one process imports at the same time; the others wait queued. */
  concurrency: number;
  /**
   * Seconds a job's process may go without renewing its heartbeat before any process fails the
   * job (its process is taken as gone, whatever its host) and its spool stops counting.
   */
  lease_seconds: number;
}

/** Uploads (POST /api/v2/qso bodies that are decompressed, parsed as documents or forms, or spooled) read at once. */
export interface UploadsConfig {
  /** In one process; one more is 503 with Retry-After. */
  max_concurrent: number;
  /** Of one owner in one process; one more is 429 with Retry-After. */
  max_concurrent_per_owner: number;
}

/** Failed sign-ins allowed per account and per client address (lib/http/app/signIn.ts). */
export interface SignInLimits {
  account: RateLimit;
  address: RateLimit;
}

/** How PostgreSQL is reached (README, "Behind pgbouncer"). */
export interface DatabaseConfig {
  /** `transaction` behind pgbouncer's transaction pooling: no named statements, no session state. */
  pool_mode: PoolMode;
  /** A direct connection (not through the pooler) to LISTEN for token revocations on; without it, transaction mode polls. */
  listen_url?: string;
}

export interface Config {
  api_rate_limits: Record<string, RateLimit> | null;
  rate_limit_store: 'memory' | 'postgres' | 'redis';
  apiv2_hide_userdata: HideableUserdata[];
  worker: WorkerConfig;
  /** Streamed bodies (ADIF imports): 256 MiB admits a 200 MB ADIF document. */
  max_body_bytes: number;
  /** Bodies read into memory (ordinary JSON writes). */
  max_json_body_bytes: number;
  max_bulk_qsos: number;
  /** Rows an import moves into `qso` per statement (ImportOptions.rowsPerBatch; absent: the pipeline's default). */
  import_batch_rows?: number;
  /** Days the change feed keeps deletions; an older cursor answers 410 cursor_expired. */
  change_retention_days: number;
  metrics: { enabled: boolean; path: string };
  import_jobs: ImportJobsConfig;
  uploads: UploadsConfig;
  /**
   * Reverse proxies in front of the server (true = 1): the client address is the one the
   * outermost trusted proxy appended to X-Forwarded-For (lib/http/clientAddress.ts).
   */
  trust_proxy: boolean | number;
  /** PostgreSQL statement_timeout of the API's connections, in ms (0: none); exports and imports are exempt. */
  statement_timeout_ms: number;
  /**
   * How long an answer may wait on a client that reads none of it before the connection is
   * closed (and the request treated as abandoned), in ms (0: no limit).
   */
  response_stall_timeout_ms: number;
  /**
   * A client reading its waiting answer slower than this many bytes a second, averaged over
   * response_min_rate_window_ms, is dropped like a stalled one (0: no minimum).
   */
  response_min_bytes_per_second: number;
  response_min_rate_window_ms: number;
  /**
   * Bytes of a list page's answer read ahead of a slow client into memory (the rest waits on
   * disk, SPILL_BYTES at most), so that the page gives its database connection back before the
   * client has read it (0: none); READ_AHEAD_PAGES pages at once a process at most.
   */
  page_read_ahead_bytes: number;
  /** A browser-app session unused this long is over (fractions allowed). */
  session_idle_minutes: number;
  /** A browser-app session is over this long after sign-in, however used. */
  session_max_hours: number;
  sign_in_limits: SignInLimits;
  database: DatabaseConfig;
}

type ConfigFile = Partial<Config>;

const rateLimitSchema = {
  type: 'object',
  required: ['requests', 'window'],
  additionalProperties: false,
  properties: {
    requests: { type: 'integer', minimum: 1 },
    window: { type: 'number', exclusiveMinimum: 0 },
  },
} as const;

const configSchema: JSONSchemaType<ConfigFile> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    api_rate_limits: { type: 'object', nullable: true, required: [], additionalProperties: rateLimitSchema },
    rate_limit_store: { type: 'string', enum: ['memory', 'postgres', 'redis'], nullable: true },
    apiv2_hide_userdata: { type: 'array', items: { type: 'string', enum: [...HIDEABLE_USERDATA] }, uniqueItems: true, nullable: true },
    worker: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        url: { type: 'string', pattern: '^https?://', nullable: true },
        urls: { type: 'array', items: { type: 'string', pattern: '^https?://' }, minItems: 1, nullable: true },
        secret: { type: 'string', minLength: 32, nullable: true },
        derived_keys: { type: 'boolean', nullable: true },
        public_url: { type: 'string', pattern: '^wss?://', nullable: true },
        timeout_ms: { type: 'integer', minimum: 50, maximum: 60000, nullable: true },
        token_ttl_seconds: { type: 'integer', minimum: 1, nullable: true },
        ws_bind: { type: 'string', nullable: true },
        internal_bind: { type: 'string', nullable: true },
        topic_ttl: { type: 'number', exclusiveMinimum: 0, nullable: true },
        redis_url: { type: 'string', pattern: '^rediss?://', nullable: true },
      },
    },
    max_body_bytes: { type: 'integer', minimum: 1024, nullable: true },
    max_json_body_bytes: { type: 'integer', minimum: 1024, nullable: true },
    max_bulk_qsos: { type: 'integer', minimum: 1, maximum: 1_000_000, nullable: true },
    import_batch_rows: { type: 'integer', minimum: 1, maximum: 1_000_000, nullable: true },
    change_retention_days: { type: 'integer', minimum: 1, maximum: 36_500, nullable: true },
    metrics: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        enabled: { type: 'boolean' },
        path: { type: 'string', pattern: '^/(?!api/|index\\.php/)' },
      },
    },
    trust_proxy: { anyOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0, maximum: 16 }, { type: 'null' }] },
    statement_timeout_ms: { type: 'integer', minimum: 0, maximum: 86_400_000, nullable: true },
    response_stall_timeout_ms: { type: 'integer', minimum: 0, maximum: 86_400_000, nullable: true },
    response_min_bytes_per_second: { type: 'integer', minimum: 0, maximum: 1024 * 1024 * 1024, nullable: true },
    response_min_rate_window_ms: { type: 'integer', minimum: 1000, maximum: 3_600_000, nullable: true },
    page_read_ahead_bytes: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024, nullable: true },
    session_idle_minutes: { type: 'number', exclusiveMinimum: 0, maximum: 525_600, nullable: true },
    session_max_hours: { type: 'number', exclusiveMinimum: 0, maximum: 8_760, nullable: true },
    sign_in_limits: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: { account: rateLimitSchema, address: rateLimitSchema },
    },
    database: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        pool_mode: { type: 'string', enum: ['session', 'transaction'], nullable: true },
        listen_url: { type: 'string', pattern: '^postgres(ql)?://', nullable: true },
      },
    },
    import_jobs: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        spool_dir: { type: 'string', minLength: 1, nullable: true },
        max_active_per_owner: { type: 'integer', minimum: 1, maximum: 100, nullable: true },
        max_spool_bytes: { type: 'integer', minimum: 1024, nullable: true },
        concurrency: { type: 'integer', minimum: 1, maximum: 16, nullable: true },
        lease_seconds: { type: 'integer', minimum: 5, maximum: 3600, nullable: true },
      },
    },
    uploads: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        max_concurrent: { type: 'integer', minimum: 1, maximum: 1000, nullable: true },
        max_concurrent_per_owner: { type: 'integer', minimum: 1, maximum: 1000, nullable: true },
      },
    },
  },
} as unknown as JSONSchemaType<ConfigFile>;

/**
 * Compiled on first use, and not for no file at all (`{}`, which the schema allows: it requires
 * no key): commands that read no configuration (the CLI's commands without --config, help)
 * skip the compilation, a tenth of a short command's CPU.
 */
let compiled: ValidateFunction<ConfigFile> | undefined;
function validate(input: unknown): input is ConfigFile {
  if (isEmptyObject(input)) return true;
  // Loaded here too (its 65 modules are a fifth of the command line's start-up), synchronously
  // as loadConfig is: ajv is a CommonJS package.
  if (!compiled) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass };
    compiled = new Ajv({ allErrors: false }).compile(configSchema);
  }
  return compiled(input);
}

function isEmptyObject(input: unknown): boolean {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && Object.keys(input).length === 0;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function describe(error: ErrorObject): string {
  const key = error.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `config: unknown key ${key === '(top level)' ? extra : `${key}.${extra}`}`;
  }
  return `config: ${key} ${error.message ?? 'is invalid'}`;
}

/** How many API processes will share the configuration (`serve --workers N`). */
export interface ConfigContext {
  processes: number;
}

/** Windows must be shared as soon as several processes count them: Redis when there is one, else PostgreSQL. */
function defaultRateLimitStore(env: NodeJS.ProcessEnv, processes: number): Config['rate_limit_store'] {
  if (env.REDIS_URL) return 'redis';
  return processes > 1 ? 'postgres' : 'memory';
}

export function defaultConfig(env: NodeJS.ProcessEnv = process.env, context: ConfigContext = { processes: 1 }): Config {
  return {
    api_rate_limits: null,
    rate_limit_store: defaultRateLimitStore(env, context.processes),
    apiv2_hide_userdata: [],
    worker: {},
    max_body_bytes: 256 * 1024 * 1024,
    max_json_body_bytes: 16 * 1024 * 1024,
    max_bulk_qsos: 10_000,
    change_retention_days: 90,
    metrics: { enabled: true, path: '/metrics' },
    import_jobs: { max_active_per_owner: 3, max_spool_bytes: 4 * 1024 * 1024 * 1024, concurrency: 1, lease_seconds: 30 },
    uploads: { max_concurrent: 8, max_concurrent_per_owner: 2 },
    trust_proxy: false,
    statement_timeout_ms: 30_000,
    response_stall_timeout_ms: 30_000,
    response_min_bytes_per_second: 16 * 1024,
    response_min_rate_window_ms: 20_000,
    page_read_ahead_bytes: 1024 * 1024,
    session_idle_minutes: 720,
    session_max_hours: 168,
    sign_in_limits: { account: { requests: 5, window: 300 }, address: { requests: 20, window: 900 } },
    database: { pool_mode: 'session' },
  };
}

/** The workers the API publishes to, most preferred first (`worker.urls`, or `worker.url` alone). */
export function workerUrls(worker: WorkerConfig): string[] {
  return worker.urls ?? (worker.url === undefined ? [] : [worker.url]);
}

/** Validates a parsed config object and fills defaults; the first problem is one line naming the key. */
export function buildConfig(input: unknown, env: NodeJS.ProcessEnv = process.env, context: ConfigContext = { processes: 1 }): Config {
  if (!validate(input)) throw new ConfigError(describe(compiled!.errors![0]!));
  const file = input as ConfigFile;
  const base = defaultConfig(env, context);
  const config: Config = {
    ...base,
    ...Object.fromEntries(Object.entries(file).filter(([, value]) => value !== undefined && value !== null)),
    api_rate_limits: file.api_rate_limits ?? null,
    worker: { ...file.worker },
    metrics: { ...base.metrics, ...file.metrics },
    import_jobs: { ...base.import_jobs, ...file.import_jobs },
    sign_in_limits: { ...base.sign_in_limits, ...file.sign_in_limits },
    uploads: { ...base.uploads, ...file.uploads },
    database: {
      pool_mode: file.database?.pool_mode ?? base.database.pool_mode,
      ...(file.database?.listen_url ? { listen_url: file.database.listen_url } : {}),
    },
  };
  if (config.worker.url !== undefined && config.worker.urls !== undefined) {
    throw new ConfigError('config: worker.url and worker.urls exclude each other; list every worker in worker.urls');
  }
  if (env.WORKER_SECRET) config.worker.secret = env.WORKER_SECRET;
  if (env.WORKER_DERIVED_KEYS) {
    if (!/^(true|false)$/.test(env.WORKER_DERIVED_KEYS)) throw new ConfigError('config: WORKER_DERIVED_KEYS must be true or false');
    config.worker.derived_keys = env.WORKER_DERIVED_KEYS === 'true';
  }
  if (config.worker.secret !== undefined && config.worker.secret.length < 32) {
    throw new ConfigError('config: worker.secret (or WORKER_SECRET) must be at least 32 characters');
  }
  if (config.rate_limit_store === 'redis' && !env.REDIS_URL) {
    throw new ConfigError('config: rate_limit_store is "redis" but REDIS_URL is not set');
  }
  if (config.rate_limit_store === 'memory' && config.api_rate_limits !== null && context.processes > 1) {
    throw new ConfigError(`config: rate_limit_store "memory" would give each of the ${context.processes} worker processes its own windows; use "postgres" or "redis"`);
  }
  return config;
}

/** Reads --config FILE or $LOGBOOK_CONFIG (JSON); no file means defaults. */
export function loadConfig(file = process.env.LOGBOOK_CONFIG, env: NodeJS.ProcessEnv = process.env, context: ConfigContext = { processes: 1 }): Config {
  if (!file) return buildConfig({}, env, context);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`config: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return buildConfig(parsed, env, context);
}
