import { PassThrough, Writable } from 'node:stream';
import { main } from '../../lib/cli/main.js';

/** What a `logbook` process would have printed and exited with. */
export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

function collector(chunks: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
}

/**
 * The command line run in this process (lib/cli/main.ts with streams of its own, `input` on its
 * stdin, the end of input when none): a command's output and status as a spawned `logbook`
 * gives them, without a Node start-up and the modules loaded again for every command. Start-up
 * itself, signals and the process's stdin stay with tests that spawn bin/logbook.js.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string | Buffer): Promise<CliRun> {
  const stdin = new PassThrough();
  stdin.end(input === undefined ? undefined : Buffer.from(input));
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const status = await main(args, { stdin, stdout: collector(out), stderr: collector(err), env });
  return { status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
