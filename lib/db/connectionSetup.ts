/**
 * How the server reaches PostgreSQL and which settings its work runs with. `session`: each
 * connection is a backend of its own for its whole life (a direct connection, or pgbouncer's
 * session pooling), so settings are SET once after connecting and named statements stay
 * prepared. `transaction`: a pooler (pgbouncer's transaction pooling) lends a backend per
 * transaction, so nothing may outlive one: settings go with SET LOCAL at each BEGIN, and no
 * statement is named (another transaction may run on a backend that never prepared it).
 * Settings are never startup parameters: pgbouncer refuses those it does not know.
 */
export type PoolMode = 'session' | 'transaction';

/** Setting names and integer values: they become SQL text, so nothing else is accepted. */
export type Settings = Readonly<Record<string, number>>;

export interface ConnectionSetup {
  mode: PoolMode;
  settings: Settings;
}

/** Pools and their connections, each with the setup it was opened with (setUpConnection). */
const setups = new WeakMap<object, ConnectionSetup>();

/** Registers `db` (a pool, or a connection it opened) as reached with `setup`. */
export function setUpConnection(db: object, setup: ConnectionSetup): void {
  setups.set(db, setup);
}

/** Whether `db` is reached through a transaction-mode pooler (a plain pg.Pool or Client is not). */
export function isTransactionPooled(db: object): boolean {
  return setups.get(db)?.mode === 'transaction';
}

/**
 * The one door of named statements: `statement` as given, or without its name when `db` is
 * transaction-pooled (then sent unnamed, parsed and planned at each use).
 */
export function named<T extends { name: string }>(db: object, statement: T): Omit<T, 'name'> & { name?: string } {
  if (!isTransactionPooled(db)) return statement;
  const { name: _name, ...unnamed } = statement;
  return unnamed;
}

/**
 * Behind transaction pooling, a statement named without named() goes unnamed all the same (the
 * next transaction's backend would not know the name, or another client's statement holds it),
 * and `onNamed` hears of each such name once: every name must pass named().
 */
export function sendUnnamed(client: { query: unknown }, onNamed: (name: string) => void): void {
  const query = (client.query as (...args: unknown[]) => unknown).bind(client);
  const reported = new Set<string>();
  client.query = (config: unknown, ...rest: unknown[]) => {
    const name = (config as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name === '') return query(config, ...rest);
    if (!reported.has(name)) onNamed(name);
    reported.add(name);
    // A Query object is the caller's for this call only; a config object may be a shared constant.
    if (typeof (config as { submit?: unknown }).submit === 'function') (config as { name?: string }).name = undefined;
    else config = { ...(config as object), name: undefined };
    return query(config, ...rest);
  };
}

function assignments(settings: Settings, local: boolean): string[] {
  return Object.entries(settings).map(([name, value]) => {
    if (!/^[a-z_]+$/.test(name) || !Number.isSafeInteger(value)) throw new TypeError(`connection setting ${name} = ${value} is not a name and an integer`);
    return `SET ${local ? 'LOCAL ' : ''}${name} = ${value}`;
  });
}

/** The SETs a new session-mode connection runs first ('' when transaction-pooled or unregistered). */
export function sessionSettingsSql(db: object): string {
  const setup = setups.get(db);
  return setup?.mode === 'session' ? assignments(setup.settings, false).join('; ') : '';
}

/**
 * `BEGIN <modes>` with the SET LOCALs the transaction needs, one round trip: the connection's
 * settings when transaction-pooled, then `overrides` (work that lifts statement_timeout).
 */
export function beginSql(db: object, modes = '', overrides: Settings = {}): string {
  const setup = setups.get(db);
  const settings = setup?.mode === 'transaction' ? { ...setup.settings, ...overrides } : overrides;
  return [`BEGIN${modes ? ` ${modes}` : ''}`, ...assignments(settings, true)].join('; ');
}
