import proxyAddr from 'proxy-addr';

/** Whether the peer at `address` is a proxy whose X-Forwarded-For is believed. */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * TRUSTED_PROXIES, compiled once for every service that reads X-Forwarded-For, so the list
 * means the same everywhere: what Express's 'trust proxy' accepts (the gateway hands it
 * this function), that is addresses, CIDR ranges, IPv4 or IPv6, and the names `loopback`,
 * `linklocal` and `uniquelocal`. An empty list trusts nobody. A wrong entry is a start-up
 * error naming the variable.
 */
export function compileTrustedProxies(entries: readonly string[]): TrustProxy {
  try {
    return proxyAddr.compile([...entries]);
  } catch (error) {
    throw new Error(`TRUSTED_PROXIES: ${(error as Error).message}`);
  }
}
