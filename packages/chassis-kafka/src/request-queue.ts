/**
 * The part of kafkajs 2.2.4's RequestQueue (src/network/requestQueue) this patch reads: each
 * broker connection has one, holding the requests that wait to be sent.
 */
interface RequestQueue {
  pending: unknown[];
  /** Until when the broker asked this client to hold its requests (-1: never asked). */
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own interval between checks of requests held back by too many in flight. */
const CHECK_PENDING_MS = 10;

/**
 * kafkajs 2.2.4 checks each connection's waiting requests again 1 ms after every check, for ever,
 * also when none waits: "throttled until" starts at -1, so the next check is always due (the
 * negative delay Node 24 warns of, tulios/kafkajs#1751). An idle producer woke its process
 * 1,700 times a second for it (3% of a core). A check is needed only while a request waits:
 * queuing one schedules it (RequestQueue.push), and each answered or timed-out request checks
 * the queue. So with none waiting nothing is scheduled; a waiting request is checked when the
 * broker's throttle ends, or every 10 ms while too many are in flight, as kafkajs does.
 * kafkajs is pinned to 2.2.4 (package.json), its last release; the fix waits there unmerged.
 */
export function scheduleOnlyWhileWaiting(prototype: RequestQueue): void {
  prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(
    this: RequestQueue,
  ) {
    if (this.throttleCheckTimeoutId !== null || this.pending.length === 0) return;
    const throttled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      throttled > 0 ? throttled : CHECK_PENDING_MS,
    );
  };
}

let patched = false;

/** Applies scheduleOnlyWhileWaiting to kafkajs's RequestQueue, once a process. */
export function patchKafkaRequestQueue(): void {
  if (patched) return;
  patched = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const queue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueue };
  scheduleOnlyWhileWaiting(queue.prototype);
}
