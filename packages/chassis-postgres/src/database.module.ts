import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { ManagedDataSource, schemaReadiness, type DatabaseOptions } from './database';
import { READINESS_CHECKS, SERVICE_LOGGER, type ReadinessChecks } from '@shortener/chassis-nest';

@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  onModuleInit(): void {
    // Not awaited: the service listens (alive, not ready) while PostgreSQL comes up.
    void this.database.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

/**
 * Provides the service's ManagedDataSource (its own schema, its own migrations), and adds
 * its checks to /readyz: PostgreSQL holds what the service serves, so without it, or with
 * a migration its code carries not yet run, the service is not ready.
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: Omit<DatabaseOptions, 'logger'>): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        {
          provide: ManagedDataSource,
          inject: [SERVICE_LOGGER, READINESS_CHECKS],
          useFactory: (logger: Logger, readiness: ReadinessChecks) => {
            const database = new ManagedDataSource({ ...options, logger });
            readiness.add(
              { name: 'postgres', check: () => database.check() },
              schemaReadiness(database),
            );
            return database;
          },
        },
        DatabaseLifecycle,
      ],
      exports: [ManagedDataSource],
    };
  }
}
