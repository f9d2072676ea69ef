/** `work`'s value and the milliseconds it took to settle from now. */
export function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const begin = Date.now();
  return work.then((value) => ({ value, ms: Date.now() - begin }));
}
