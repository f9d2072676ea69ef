/**
 * Collects query parameters while a WHERE clause is assembled, so that every value goes to
 * PostgreSQL as a bound parameter and never as SQL text.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
