import type pg from 'pg';
import { anyUser } from '../accounts/users.js';

/**
 * What `serve` (npm start) tells a person on stdout once it listens: the address to open and,
 * while the instance has no user yet, the three commands that make it usable. The JSON log on
 * stderr stays for machines.
 */
export async function welcome(url: string, db: pg.Pool, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const lines = [`logbook is running: open ${url}/ (Ctrl-C stops it)`];
  if (!(await anyUser(db))) {
    lines.push(
      'first steps, in another terminal in this folder:',
      '  npx logbook user add --username alice --callsign N0CALL',
      '  npx logbook station add --user 1 --name Home --callsign N0CALL',
      '  npx logbook token create --user 1 --name app --scopes qso:read,qso:write,station:read',
      `then sign in at ${url}/ with that token (npx logbook --help lists every command)`,
    );
  }
  out.write(`${lines.join('\n')}\n`);
}
