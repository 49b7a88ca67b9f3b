import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { ManagedDataSource, type DatabaseOptions } from './database';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';

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

/** Provides the service's ManagedDataSource (its own schema, its own migrations). */
@Module({})
export class DatabaseModule {
  static forRoot(options: Omit<DatabaseOptions, 'logger'>): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        {
          provide: ManagedDataSource,
          inject: [SERVICE_LOGGER],
          useFactory: (logger: Logger) => new ManagedDataSource({ ...options, logger }),
        },
        DatabaseLifecycle,
      ],
      exports: [ManagedDataSource],
    };
  }
}
