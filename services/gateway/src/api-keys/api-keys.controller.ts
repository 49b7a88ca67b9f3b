import { Controller, Inject } from '@nestjs/common';
import { publicApi, type ApiKey, type CreatedApiKey, type SessionUser } from '@shortener/contracts';
import { Input, type RouteInput } from '@shortener/chassis-nest';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser } from '../session/session.guards';
import { ApiKeysService } from './api-keys.service';

/** The signed-in user's API keys: with a session only (their entries name no apiKeyScope). */
@Controller()
export class ApiKeysController {
  constructor(@Inject(ApiKeysService) private readonly keys: ApiKeysService) {}

  @ApiRoute(publicApi.listApiKeys)
  list(
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<ApiKey[]> {
    return this.keys.list(user, requestId);
  }

  @ApiRoute(publicApi.createApiKey)
  create(
    @Input() { body }: RouteInput<typeof publicApi.createApiKey>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<CreatedApiKey> {
    return this.keys.create(user, body, requestId);
  }

  @ApiRoute(publicApi.revokeApiKey)
  revoke(
    @Input() { params }: RouteInput<typeof publicApi.revokeApiKey>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<void> {
    return this.keys.revoke(user, params.keyId, requestId);
  }
}
