/** Orders breakdown rows the way they are shown: largest count first, then by name. */
export function byCountThenName<T extends { count: number }>(name: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => b.count - a.count || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
}
