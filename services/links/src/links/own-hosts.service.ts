import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { PeriodicOptions } from '@shortener/chassis';
import { PeriodicProvider, SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import { ownHosts, type LinksConfig } from '../config';
import { isLoopbackHost } from '@shortener/link-cache';

const REFRESH_MS = 10 * 60_000;

/** An address as a URL writes its host: IPv6 in brackets. */
const asHost = (address: string): string => (isIP(address) === 6 ? `[${address}]` : address);

/** This machine's addresses: where the embedded mode answers when it listens beyond loopback. */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => asHost(entry.address)),
  );
}

/**
 * This machine's own names: its host name, and every name the hosts file maps to a loopback
 * address or to one of `addresses` (a name there answers here without asking any DNS).
 */
export function machineNames(hostsFile: string, addresses: readonly string[]): string[] {
  const names = [hostname()];
  for (const line of hostsFile.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || aliases.length === 0) continue;
    if (isLoopbackHost(asHost(address)) || addresses.includes(asHost(address)))
      names.push(...aliases);
  }
  return names;
}

const HOSTS_FILE = '/etc/hosts';

async function readHostsFile(): Promise<string> {
  try {
    return await readFile(HOSTS_FILE, 'utf8');
  } catch {
    return ''; // none (not Linux, say): the host name is still known
  }
}

/**
 * The hosts our short links answer on, for checkTargetUrl's no-loops rule: the configured ones,
 * their resolved addresses (refreshed in the background) and this machine's names and addresses.
 */
@Injectable()
export class OwnHostsService extends PeriodicProvider {
  private readonly configured: string[];
  private current: string[];

  constructor(
    @Inject(SERVICE_CONFIG) config: LinksConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
    this.configured = ownHosts(config);
    this.current = [...this.configured, ...interfaceAddresses(), hostname()];
  }

  /** host[:port] entries, names and addresses. */
  get hosts(): readonly string[] {
    return this.current;
  }

  protected periodicJob(): PeriodicOptions {
    // Run at start, not awaited: a slow resolver must not hold up the start; names are
    // refused meanwhile.
    return {
      name: 'own hosts refresh',
      everyMs: REFRESH_MS,
      run: () => this.refresh(),
      logger: this.logger,
      runAtStart: true,
    };
  }

  async refresh(): Promise<void> {
    const resolved: string[] = [];
    for (const host of this.configured) {
      let name: string;
      try {
        name = new URL(`http://${host}`).hostname;
      } catch {
        continue;
      }
      if (isIP(name) !== 0 || name.startsWith('[')) continue;
      try {
        const addresses = await lookup(name, { all: true });
        resolved.push(...addresses.map(({ address }) => asHost(address)));
      } catch (error) {
        this.logger.warn(
          { host: name, err: (error as Error).message },
          'own host not resolved: its addresses are not refused as targets until it is',
        );
      }
    }
    const addresses = interfaceAddresses();
    const names = machineNames(await readHostsFile(), addresses);
    this.current = [...new Set([...this.configured, ...addresses, ...names, ...resolved])];
  }
}
