import {
  BadRequestException,
  Controller,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Inject,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  publicApi,
  shortenQuerySchema,
  type BulkLinkResult,
  type BulkLinksResponse,
  type DeleteResponse,
  type SessionUser,
  type ShortenResponse,
  type ShortLink,
} from '@shortener/contracts';
import { Input, type Refusal, type RouteInput } from '@shortener/chassis-nest';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { ShortenRateLimitGuard, shortenBudget } from '../rate-limit/shorten-rate-limit.guard';
import { CurrentUser } from '../session/session.guards';
import { LiveStreams } from '../stats/live-streams';
import { LinksService, type GivenRules } from './links.service';

/**
 * A URL too long is refused like the links service's other rules for a URL the page
 * accepts: 403 with the message, which the page shows (SPEC section 8). Anything else too
 * big (days of 1e21, past a safe integer) is a 400 like any other bad input.
 */
const refuseShorten: Refusal = (issue) =>
  issue.code === 'too_big' && issue.path[0] === 'url'
    ? new ForbiddenException(issue.message)
    : new BadRequestException(issue.message);

/** The domain and rules a bulk item gives, as given (the links service checks each). */
function rulesOf(item: RouteInput<typeof publicApi.createLinks>['body'][number]): GivenRules {
  const given = Object.entries({
    domain: item.domain,
    ios: item.ios,
    android: item.android,
    geo: item.geo,
    password: item.password,
    maxVisits: item.maxVisits,
  }).filter(([, value]) => value !== undefined);
  return Object.fromEntries(given);
}

/** Links of one bulk call shortened at the same time (each one call to the links service). */
const BULK_CALLS_AT_ONCE = 4;

@Controller()
export class LinksController {
  constructor(
    @Inject(LinksService) private readonly links: LinksService,
    @Inject(LiveStreams) private readonly liveStreams: LiveStreams,
    @Inject(RateLimitService) private readonly limits: RateLimitService,
  ) {}

  /** POST /api/shorten/?url=&days= (no body), signed in or not. */
  @ApiRoute(publicApi.shorten, { guards: [ShortenRateLimitGuard], refuse: refuseShorten })
  shorten(
    @Input() { query }: RouteInput<typeof publicApi.shorten>,
    @CurrentUser() user: SessionUser | null,
    @RequestId() requestId: string | undefined,
  ): Promise<ShortenResponse> {
    return this.links.shorten(query, user, requestId);
  }

  /**
   * POST /api/links: up to 100 links, each answered as shorten would answer it (the same
   * query schema, refusals and links call). Each link counts against the caller's shorten
   * budget (a key's, or the page's); those past it are answered 429, and none at all within
   * it is a 429 for the call.
   */
  @ApiRoute(publicApi.createLinks)
  async createMany(
    @Input() { body }: RouteInput<typeof publicApi.createLinks>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BulkLinksResponse> {
    const { bucket, subject } = shortenBudget(req, user);
    const { granted, refusal } = await this.limits.grant(bucket, subject, body.length, res);
    if (granted === 0) throw new HttpException({ message: refusal }, HttpStatus.TOO_MANY_REQUESTS);
    const results: BulkLinkResult[] = body.map(() => ({
      status: HttpStatus.TOO_MANY_REQUESTS,
      message: refusal,
    }));
    let next = 0;
    // An alias asked for again within the call waits for the item before it that asked for
    // it (case aside, on any domain): the first given takes it, whichever call is faster.
    const byAlias = new Map<string, Promise<void>>();
    const worker = async (): Promise<void> => {
      while (next < granted) {
        const index = next++;
        const item = body[index]!;
        const alias = typeof item.alias === 'string' ? item.alias.toLowerCase() : undefined;
        const before = alias === undefined ? undefined : byAlias.get(alias);
        const done = (async () => {
          await before;
          results[index] = await this.shortenOne(item, user, requestId);
        })();
        if (alias !== undefined) byAlias.set(alias, done);
        await done;
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CALLS_AT_ONCE, granted) }, worker));
    return { results };
  }

  private async shortenOne(
    item: RouteInput<typeof publicApi.createLinks>['body'][number],
    user: SessionUser,
    requestId: string | undefined,
  ): Promise<BulkLinkResult> {
    try {
      const query = shortenQuerySchema.safeParse({
        url: item.url,
        // A query string carries days as text; JSON may carry a number.
        days: typeof item.days === 'number' ? String(item.days) : item.days,
        alias: item.alias ?? undefined,
      });
      if (!query.success) throw refuseShorten(query.error.issues[0]!);
      const created = await this.links.createOne(query.data, rulesOf(item), user, requestId);
      return { status: HttpStatus.CREATED, ...created };
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      const answer = error.getResponse();
      const message =
        typeof answer === 'object' && 'message' in answer && typeof answer.message === 'string'
          ? answer.message
          : error.message;
      return { status: error.getStatus(), message };
    }
  }

  @ApiRoute(publicApi.deleteLink)
  async remove(
    @Input() { params }: RouteInput<typeof publicApi.deleteLink>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<DeleteResponse> {
    const answer = await this.links.remove(params.urlID, user, requestId);
    // Its live streams here end at once, Redis or not; other instances hear it from the feed.
    this.liveStreams.linkRemoved(params.urlID);
    return answer;
  }

  /** PATCH /api/links/{urlID}: refused like shorten (a URL too long is a 403 there too). */
  @ApiRoute(publicApi.editLink, { refuse: refuseShorten })
  edit(
    @Input() { params, body }: RouteInput<typeof publicApi.editLink>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<ShortLink> {
    return this.links.edit(params.urlID, body, user, requestId);
  }

  @ApiRoute(publicApi.restoreLink)
  restore(
    @Input() { params }: RouteInput<typeof publicApi.restoreLink>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<ShortLink> {
    return this.links.restore(params.urlID, user, requestId);
  }
}
