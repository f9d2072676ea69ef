import type { Command } from './command.js';

/**
 * What `logbook --help`, `logbook help <command>` and `<command> --help` print: one line per
 * command and per flag. Kept apart from the commands so that one table holds every text; a
 * test checks that each declared option has its line.
 */
interface CommandHelp {
  summary: string;
  flags: Record<string, string>;
}

const json = { json: 'print exactly one JSON object instead of a sentence' };
const config = { config: 'JSON configuration file (also $LOGBOOK_CONFIG)' };
/** The Cabrillo header values (docs/cabrillo.md lists what each category accepts). */
const CABRILLO_FLAG_HELP = {
  'category-operator': 'SINGLE-OP (default), MULTI-OP or CHECKLOG', 'category-band': 'ALL, 160M … LIGHT (default: the one band of the log, else ALL)',
  'category-mode': 'CW, DIGI, FM, RTTY, SSB or MIXED (default: from the log)', 'category-power': 'HIGH (default), LOW or QRP',
  'category-station': 'FIXED (default), MOBILE, PORTABLE, …', 'category-transmitter': 'ONE (default), TWO, LIMITED, UNLIMITED or SWL',
  'category-assisted': 'NON-ASSISTED (default) or ASSISTED', 'category-overlay': 'CLASSIC, ROOKIE, TB-WIRES, YOUTH, NOVICE-TECH or OVER-50',
  'contest-name': 'CONTEST name when the sponsor wants another', club: 'CLUB', operators: 'OPERATORS (default: the QSOs\' operators)',
  location: 'LOCATION (e.g. DX, or an ARRL section)', name: 'NAME', email: 'EMAIL', address: 'ADDRESS lines, separated by newlines (at most 6)',
  soapbox: 'SOAPBOX lines, separated by newlines (at most 20)', 'claimed-score': 'CLAIMED-SCORE (written only when given)',
};

export const COMMAND_HELP: Record<string, CommandHelp> = {
  serve: {
    summary: 'run the v1 + v2 API, the browser app at / and the live page',
    flags: { port: 'TCP port (default 8080, or $PORT)', host: 'address to listen on (default 127.0.0.1)', ...config, workers: 'API processes sharing the port (default: number of CPUs)' },
  },
  migrate: { summary: 'apply the sql/ migrations', flags: { ...json } },
  'user add': {
    summary: 'create a user account',
    flags: {
      username: 'login name (unique)', callsign: 'the user\'s callsign', email: 'e-mail address', firstname: 'first name', lastname: 'last name',
      locator: 'Maidenhead locator', language: 'user interface language', club: 'a clubstation account', admin: 'an instance administrator',
      'password-stdin': 'read the sign-in password (10 characters or more) from standard input', ...json,
    },
  },
  'user set-password': {
    summary: 'set a user\'s sign-in password, read from standard input; ends their browser sessions',
    flags: { user: 'user id', ...json },
  },
  'user list': { summary: 'list the user accounts', flags: { ...json } },
  'club member add': {
    summary: 'make a user a member of a clubstation',
    flags: { club: 'clubstation user id', user: 'member user id', level: 'member (3), member_adif (6) or officer (9)', ...json },
  },
  'club member remove': { summary: 'withdraw a club membership', flags: { club: 'clubstation user id', user: 'member user id', ...json } },
  'station add': {
    summary: 'create a station location',
    flags: {
      user: 'owner user id', name: 'location name', callsign: 'station callsign', gridsquare: 'Maidenhead locator', city: 'city',
      dxcc: 'DXCC entity number (default: from the callsign)', cq: 'CQ zone (default: from the callsign)', itu: 'ITU zone (default: from the callsign)',
      active: 'make it the user\'s active location', ...json,
    },
  },
  'station list': { summary: 'list a user\'s station locations', flags: { user: 'owner user id', ...json } },
  'logbook add': {
    summary: 'create a logbook (a public slug over some locations)',
    flags: { user: 'owner user id', name: 'logbook name', slug: 'public slug (default: from the name)', stations: 'comma-separated station location ids', ...json },
  },
  'logbook publish': {
    summary: 'publish a logbook at /public/{slug} (docs/public-log.md)',
    flags: {
      'show-times': 'show QSO times on the public page (default: hidden)', 'hide-frequency': 'hide frequencies on the public page (default: shown)',
      banner: 'text shown on the page, at most 500 characters (default: keep the current one)', ...json,
    },
  },
  'logbook unpublish': { summary: 'take a logbook\'s public page down at once, its open sockets closed', flags: { ...json, ...config } },
  'token create': {
    summary: 'create a v2 API token (shown once)',
    flags: {
      user: 'owner user id', name: 'token name', scopes: 'comma-separated scopes such as qso:read,qso:write', expires: '30, 90, 365 (days) or never',
      'expires-at': 'exact expiry (ISO 8601)', club: 'a clubstation the token acts for (the user must be a member)', ...json,
    },
  },
  'token revoke': { summary: 'revoke a v2 token by id', flags: { ...json } },
  'token list': { summary: 'list a user\'s v2 tokens (metadata only)', flags: { user: 'owner user id', ...json } },
  'key create': { summary: 'create a legacy v1 API key', flags: { user: 'owner user id', rw: 'read-write key (default)', ro: 'read-only key', ...json } },
  import: {
    summary: 'import an ADIF or ADX file (.gz too, or - for stdin) into a station location',
    flags: {
      station: 'station location id', 'dry-run': 'check only: count what would be imported, skipped as duplicates and failed', ...json,
      'on-duplicate': 'records already in the log: skip, confirm or merge (default: confirm for recognised downloads, else skip)',
      'insert-unmatched': "insert a recognised download's records that match no QSO (default: for a QRZ or Club Log download, or into a location without QSOs)",
      'no-insert-unmatched': "only report a download's records that match no QSO (default for a LoTW report or eQSL inbox into a location with QSOs)",
      'strict-callsign': "refuse records whose STATION_CALLSIGN (else OPERATOR) is not the location's callsign (default: import them with a warning)",
      config: 'JSON configuration file (import_batch_rows)',
    },
  },
  export: {
    summary: 'export a station location as ADIF, or a contest session as Cabrillo 3.0 (stdout, or a file)',
    flags: {
      station: 'station location id', 'since-id': 'only QSOs with an id above N', output: 'write to FILE (gzip when it ends in .gz)', ...json,
      contest: 'contest session id (with --cabrillo)', cabrillo: 'write the contest session as a Cabrillo 3.0 log; its checks go to stderr',
      ...CABRILLO_FLAG_HELP,
    },
  },
  worker: {
    summary: 'run the live-update worker (WebSockets)',
    flags: {
      'ws-port': 'browser WebSocket port (default 9000)', 'internal-port': 'port the API publishes to (default 9001)',
      'ws-bind': 'address of the WebSocket port', 'internal-bind': 'address of the internal port', ...config,
    },
  },
};

/** `logbook --help`: every command with its summary. */
export function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: logbook <command> [options]',
    '       logbook help <command>     (or: logbook <command> --help)',
    '       logbook --version',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${COMMAND_HELP[c.name]?.summary ?? ''}`),
  ].join('\n');
}

/** One command's usage line and one line per flag. */
export function commandHelp(command: Command): string {
  const help = COMMAND_HELP[command.name];
  const flags = Object.entries(command.options).map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : '';
    const value = spec.type === 'string' ? ' VALUE' : '';
    return [`  ${short}--${name}${value}`, help?.flags[name] ?? ''] as const;
  });
  const width = Math.max(0, ...flags.map(([flag]) => flag.length));
  return [
    `usage: logbook ${command.usage}`,
    ...(help ? ['', help.summary] : []),
    ...(flags.length ? ['', 'options:', ...flags.map(([flag, text]) => `${flag.padEnd(width)}  ${text}`)] : []),
    `  ${'--help'.padEnd(width - 2)}  this text`,
  ].join('\n');
}
