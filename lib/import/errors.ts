import { byteExcerpt } from '../adif/excerpt.js';

/**
 * Nothing in an import's input could be read as ADIF or ADX: it is empty, or no `<EOH>`, no
 * record and no `<ADX>` root came out of it (a binary file, a program, a text that is no log).
 * The doors answer it as the caller's mistake (exit status 1, HTTP 400, v1's failure shape);
 * the message quotes the input's first bytes only as a short escaped excerpt.
 */
/**
 * Another import holds the location (ImportOptions.lockWait 'none'): nothing was read or written;
 * the caller tries again later.
 */
export class LocationBusyError extends Error {
  constructor(readonly stationId: number) {
    super(`another import into station location ${stationId} is running`);
    this.name = 'LocationBusyError';
  }
}

export class UnreadableInputError extends Error {
  constructor(firstBytes: Uint8Array) {
    super(
      firstBytes.length === 0
        ? 'nothing to import: the input is empty'
        : `nothing to import: the input is neither ADIF nor ADX (it begins with "${byteExcerpt(firstBytes)}")`,
    );
    this.name = 'UnreadableInputError';
  }
}
