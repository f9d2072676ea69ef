/**
 * An array parameter as an expression whose elements the planner cannot see: `(SELECT $n::t[])::t[]`.
 *
 * PostgreSQL plans a named statement anew at every execution while its plan for unseen values
 * (which guesses ten elements for an array parameter) looks dearer than the plans made for the
 * values given, which count the array's elements. A statement that takes a batch of varying
 * size was therefore planned at every execution, costing more of the database's CPU than
 * running it (0.5–0.8 ms). Behind a sub-select the array is unseen in both kinds of plan, so
 * they cost the same and the plan cache keeps the generic one after its five trials. The outer
 * cast keeps `= ANY(…)` an array comparison rather than a sub-query's.
 */
export function opaqueArray(placeholder: string, elementType: string): string {
  return `(SELECT ${placeholder}::${elementType}[])::${elementType}[]`;
}
