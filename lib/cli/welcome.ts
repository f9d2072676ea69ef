import type pg from 'pg';
import { anyUser } from '../accounts/users.js';

/**
 * What `serve` (npm start) tells a person on stdout once it listens: the address to open and,
 * while the instance has no user yet, the two commands that make it usable. The JSON log on
 * stderr stays for machines.
 */
export async function welcome(url: string, db: pg.Pool, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const lines = [`logbook is running: open ${url}/ (Ctrl-C stops it)`];
  if (!(await anyUser(db))) {
    lines.push(
      'first steps, in another terminal in this folder:',
      '  npx logbook user add --username alice --callsign N0CALL --password-stdin   (type the password, then Ctrl-D)',
      '  npx logbook station add --user 1 --name Home --callsign N0CALL',
      `then sign in at ${url}/ as alice; the app makes API tokens for loggers (or: npx logbook token create)`,
      '(npx logbook --help lists every command)',
    );
  }
  out.write(`${lines.join('\n')}\n`);
}
