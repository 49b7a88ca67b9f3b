import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@shortener/chassis-postgres';
import { ApiKeysModule } from './api-keys/api-keys.module';
import type { AuthConfig } from './config';
import { authMigrations } from './migrations';
import { SessionsModule } from './sessions/sessions.module';
import { SignInModule } from './sign-in/sign-in.module';

@Module({})
export class AppModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          schema: 'auth',
          entities: [],
          migrations: authMigrations,
          applicationName: 'auth',
          migrate: config.DB_MIGRATE,
        }),
        SessionsModule,
        SignInModule,
        ApiKeysModule,
      ],
    };
  }
}
