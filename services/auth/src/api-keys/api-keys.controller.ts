import { Controller, Inject, NotFoundException, UnauthorizedException } from '@nestjs/common';
import {
  API_KEY_MESSAGES,
  internalApi,
  MESSAGES,
  type ApiKey,
  type ApiKeyCaller,
  type CreatedApiKey,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { Caller, Input, Route, type RouteInput } from '@shortener/chassis-nest';
import { ApiKeysService } from './api-keys.service';

function ownerOf(caller: CallerIdentity): string {
  if (caller.userId === null) throw new UnauthorizedException(MESSAGES.unauthorized);
  return caller.userId;
}

const noKey = (): NotFoundException => new NotFoundException(API_KEY_MESSAGES.invalid);

/** The internal API the gateway manages and resolves API keys with. */
@Controller()
export class ApiKeysController {
  constructor(@Inject(ApiKeysService) private readonly keys: ApiKeysService) {}

  /** Unknown, revoked or malformed: 404, which the gateway answers 401. */
  @Route(internalApi.lookUpApiKey, noKey)
  async lookUp(
    @Input() { body }: RouteInput<typeof internalApi.lookUpApiKey>,
  ): Promise<ApiKeyCaller> {
    const caller = await this.keys.lookUp(body.key);
    if (!caller) throw noKey();
    return caller;
  }

  @Route(internalApi.listApiKeys)
  async list(@Caller() caller: CallerIdentity): Promise<{ keys: ApiKey[] }> {
    return { keys: await this.keys.list(ownerOf(caller)) };
  }

  @Route(internalApi.createApiKey)
  create(
    @Caller() caller: CallerIdentity,
    @Input() { body }: RouteInput<typeof internalApi.createApiKey>,
  ): Promise<CreatedApiKey> {
    return this.keys.create(ownerOf(caller), body);
  }

  @Route(internalApi.revokeApiKey)
  async revoke(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.revokeApiKey>,
  ): Promise<void> {
    if (!(await this.keys.revoke(ownerOf(caller), params.id))) {
      throw new NotFoundException(API_KEY_MESSAGES.notFound);
    }
  }
}
