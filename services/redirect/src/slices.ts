import { setImmediate as yieldToEvents } from 'node:timers/promises';

/** Work done between two looks at the clock. */
const ITEMS_PER_LOOK = 64;

/**
 * Calls `each` for every item, giving the event loop back whenever a slice has run for
 * `sliceMs`: work off the request path (checking and packing visits) never holds requests
 * up for longer than about that.
 */
export async function inSlices<T>(
  items: readonly T[],
  each: (item: T) => void,
  sliceMs = 1,
): Promise<void> {
  let sliceEnd = performance.now() + sliceMs;
  for (let index = 0; index < items.length; index++) {
    each(items[index]!);
    if (index % ITEMS_PER_LOOK === ITEMS_PER_LOOK - 1 && performance.now() > sliceEnd) {
      await yieldToEvents();
      sliceEnd = performance.now() + sliceMs;
    }
  }
}
