import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyResolver } from './api-key-resolver';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import type { KeyRevocations } from './key-revocations';
import { KEY_REVOCATIONS } from './key-revocations.token';

/**
 * API keys: their management for signed-in users, and the guard every public call passes
 * (ApiRoute), which takes a key where the call's entry allows one.
 */
@Global()
@Module({})
export class ApiKeysModule {
  static forRoot(revocations: KeyRevocations): DynamicModule {
    return {
      module: ApiKeysModule,
      controllers: [ApiKeysController],
      providers: [
        { provide: KEY_REVOCATIONS, useValue: revocations },
        ApiKeyResolver,
        ApiKeyGuard,
        ApiKeysService,
      ],
      exports: [ApiKeyResolver, ApiKeyGuard],
    };
  }
}
