/**
 * The answers of a costly function for the keys asked most recently, at most `maxEntries`
 * of them: when full, the least recently used goes first (a hit moves its key to the end of
 * the map's order). Traffic repeats a few User-Agents, addresses and referrers; a miss costs
 * the function and a map insert, a hit a map lookup and move.
 */
export class RecentCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly maxEntries: number,
    private readonly make: (key: string) => V,
  ) {}

  /** The answer for `key`, made when it is not kept. */
  get(key: string): V {
    const kept = this.entries.get(key);
    if (kept !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept;
    }
    const made = this.make(key);
    if (this.maxEntries > 0) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(key, made);
    }
    return made;
  }

  get size(): number {
    return this.entries.size;
  }
}
