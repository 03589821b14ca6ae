/**
 * The `default` of a switch over a union: `value` has type `never` once every member is
 * handled, so a member added to the union fails to compile here until it is handled too.
 * Reached at run time only through a cast or bad input: it throws.
 */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
