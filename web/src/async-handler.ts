/**
 * An async function as an event handler (an attribute expects a function returning void). The dashboard's
 * handlers show their own errors in the page; what one lets through is logged instead of becoming an
 * unhandled rejection.
 */
export function asyncHandler<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): (...args: A) => void {
  return (...args) => {
    fn(...args).catch((err: unknown) => console.error(err));
  };
}
