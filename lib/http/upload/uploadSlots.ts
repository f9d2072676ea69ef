import { ApiError } from '../errors.js';

/** Seconds a refused upload is told to wait (the Retry-After of 429 and 503). */
export const UPLOAD_RETRY_AFTER_SECONDS = 5;

/**
 * Places for the uploads a process reads at once (decompressing, parsing and spooling cost CPU,
 * memory and disk while they run): `perProcess` in all, `perOwner` for one owner. One beyond is
 * refused at once, before a byte of its body is read: 503 when the process is full, 429 when
 * the owner is, both with Retry-After.
 */
export class UploadSlots {
  private total = 0;
  private readonly owners = new Map<number, number>();

  constructor(private readonly limits: { perProcess: number; perOwner: number }) {}

  /** Places taken now. */
  get inUse(): number {
    return this.total;
  }

  /** Takes a place for `owner`, or throws 429/503; call the returned function once when the upload ends. */
  take(owner: number): () => void {
    const mine = this.owners.get(owner) ?? 0;
    const retry = { retry_after: UPLOAD_RETRY_AFTER_SECONDS };
    const headers = { 'Retry-After': String(UPLOAD_RETRY_AFTER_SECONDS) };
    if (mine >= this.limits.perOwner) {
      throw new ApiError(429, 'rate_limited', `${mine} uploads of yours are being received; at most ${this.limits.perOwner} at once`, { ...retry, active: mine, max: this.limits.perOwner }, headers);
    }
    if (this.total >= this.limits.perProcess) {
      throw new ApiError(503, 'server_busy', `The server is receiving ${this.total} uploads, its most at once; try again in ${UPLOAD_RETRY_AFTER_SECONDS} seconds`, retry, headers);
    }
    this.total++;
    this.owners.set(owner, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.owners.get(owner)! - 1;
      if (left === 0) this.owners.delete(owner);
      else this.owners.set(owner, left);
    };
  }
}

/** Bodies up to this size, declared and not compressed, are read without taking a place: their cost is bounded by it. */
export const SMALL_BODY_BYTES = 1024 * 1024;

/** Whether a request body takes an upload place: compressed, or of undeclared length, or larger than SMALL_BODY_BYTES. */
export function takesUploadSlot(headers: { 'content-encoding'?: string; 'content-length'?: string }): boolean {
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') return true;
  const declared = headers['content-length'];
  return declared === undefined || !(Number(declared) <= SMALL_BODY_BYTES);
}
