/**
 * Databases served inside this process (the embedded mode's PGlite), by the URL the services
 * are given: a ManagedDataSource whose URL is here reaches it through its `pg`-shaped module
 * (a Pool class) instead of over the network.
 */
const inProcess = new Map<string, object>();

/** Serves `url` in this process through `driver`; the returned function withdraws it. */
export function serveInProcess(url: string, driver: object): () => void {
  inProcess.set(url, driver);
  return () => void inProcess.delete(url);
}

/** The module serving `url` in this process, if one is. */
export function inProcessDriver(url: string): object | undefined {
  return inProcess.get(url);
}
