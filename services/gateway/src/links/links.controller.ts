import {
  Controller,
  HttpCode,
  HttpStatus,
  Inject,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  shortenQuerySchema,
  type DeleteResponse,
  type SessionUser,
  type ShortenResponse,
} from '@shortener/contracts';
import { parseRequest } from '../edge/parse-request';
import { RequestId } from '../edge/request-id.decorator';
import { ShortenRateLimitGuard } from '../rate-limit/shorten-rate-limit.guard';
import { CurrentUser, OptionalSessionGuard, SignedInGuard } from '../session/session.guards';
import { LinksService } from './links.service';

@Controller('api')
export class LinksController {
  constructor(@Inject(LinksService) private readonly links: LinksService) {}

  /** POST /api/shorten/?url=&days= (no body), signed in or not. */
  @Post('shorten')
  @HttpCode(201)
  @UseGuards(OptionalSessionGuard, ShortenRateLimitGuard)
  shorten(
    @Query() query: unknown,
    @CurrentUser() user: SessionUser | null,
    @RequestId() requestId: string | undefined,
  ): Promise<ShortenResponse> {
    // A URL too long is refused like the links service's other rules for a URL the page
    // accepts: 403 with the message, which the page shows (SPEC section 8).
    const request = parseRequest(shortenQuerySchema, query, (issue) =>
      issue.code === 'too_big' ? HttpStatus.FORBIDDEN : HttpStatus.BAD_REQUEST,
    );
    return this.links.shorten(request, user, requestId);
  }

  @Post('delete/:urlID')
  @HttpCode(200)
  @UseGuards(SignedInGuard)
  remove(
    @Param('urlID') urlID: string,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<DeleteResponse> {
    return this.links.remove(urlID, user, requestId);
  }
}
