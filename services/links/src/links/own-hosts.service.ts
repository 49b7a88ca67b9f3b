import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { periodic, type PeriodicJob } from '@shortener/chassis';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import { ownHosts, type LinksConfig } from '../config';

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
 * The hosts our short links answer on, for the no-loops rule of `checkTargetUrl`: the
 * configured ones (PUBLIC_ORIGIN, SHORT_LINK_HOSTS), the addresses their names resolve to
 * (looked up in the background, again every ten minutes) and this machine's own addresses,
 * so that an IP literal of our host is refused like its name.
 */
@Injectable()
export class OwnHostsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly configured: string[];
  private current: string[];
  private job: PeriodicJob | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) config: LinksConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.configured = ownHosts(config);
    this.current = [...this.configured, ...interfaceAddresses()];
  }

  /** host[:port] entries, names and addresses. */
  get hosts(): readonly string[] {
    return this.current;
  }

  onApplicationBootstrap(): void {
    // Run at start, not awaited: a slow resolver must not hold up the start; names are
    // refused meanwhile.
    this.job = periodic({
      name: 'own hosts refresh',
      everyMs: REFRESH_MS,
      run: () => this.refresh(),
      logger: this.logger,
      runAtStart: true,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job?.stop();
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
    this.current = [...new Set([...this.configured, ...interfaceAddresses(), ...resolved])];
  }
}
