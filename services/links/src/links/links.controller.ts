import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import {
  createLinkRequestSchema,
  MESSAGES,
  type InternalLink,
  type LinkList,
  type ResolvedLink,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { Caller, InternalAuthGuard } from '@shortener/chassis-nest';
import { LinksService } from './links.service';

const NOT_FOUND = 'Url not found';

function ownerOf(caller: CallerIdentity): string {
  if (caller.userId === null) throw new UnauthorizedException(MESSAGES.unauthorized);
  return caller.userId;
}

/** The internal API the gateway (and the redirect service, for resolve) calls. */
@Controller('internal')
@UseGuards(InternalAuthGuard)
export class LinksController {
  constructor(@Inject(LinksService) private readonly links: LinksService) {}

  @Post('links')
  @HttpCode(201)
  create(@Caller() caller: CallerIdentity, @Body() body: unknown): Promise<InternalLink> {
    const request = createLinkRequestSchema.safeParse(body ?? {});
    const { url, days } = request.success ? request.data : { url: undefined, days: undefined };
    return this.links.create(caller, url, days);
  }

  @Get('links')
  async list(@Caller() caller: CallerIdentity): Promise<LinkList> {
    return { links: await this.links.listOwned(ownerOf(caller)) };
  }

  @Get('links/:code')
  async get(@Caller() caller: CallerIdentity, @Param('code') code: string): Promise<InternalLink> {
    const link = await this.links.getOwned(ownerOf(caller), code);
    if (!link) throw new NotFoundException(NOT_FOUND);
    return link;
  }

  @Delete('links/:code')
  @HttpCode(204)
  async remove(@Caller() caller: CallerIdentity, @Param('code') code: string): Promise<void> {
    if (!(await this.links.deleteOwned(ownerOf(caller), code))) {
      throw new NotFoundException(NOT_FOUND);
    }
  }

  @Get('resolve/:code')
  async resolve(@Param('code') code: string): Promise<ResolvedLink> {
    const link = await this.links.resolve(code);
    if (!link) throw new NotFoundException(NOT_FOUND);
    return link;
  }
}
