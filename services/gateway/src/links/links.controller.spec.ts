import type { Request, Response } from 'express';
import { HttpStatus, ConflictException } from '@nestjs/common';
import type { ShortenResponse } from '@shortener/contracts';
import type { RateLimitService } from '../rate-limit/rate-limit.service';
import type { LiveStreams } from '../stats/live-streams';
import { LinksController } from './links.controller';
import type { LinksService } from './links.service';

const USER = { id: 'user-1', fullName: 'Gina', profilePicture: '' };

/**
 * A links service where an alias is taken by whoever reaches it first, case aside, and the
 * first call answers late (its connection was the slow one): the order calls arrive in is
 * not the order given.
 */
function linksService(): { service: LinksService; arrived: string[] } {
  const taken = new Set<string>();
  const arrived: string[] = [];
  let calls = 0;
  const service = {
    async createOne(query: { url: string; alias?: string }): Promise<ShortenResponse> {
      const late = calls++ === 0;
      if (late) await new Promise((resolve) => setTimeout(resolve, 50));
      arrived.push(query.url);
      const code = query.alias ?? `code${calls}`;
      if (taken.has(code.toLowerCase())) throw new ConflictException('That alias is taken.');
      taken.add(code.toLowerCase());
      return { url: code } as ShortenResponse;
    },
  } as unknown as LinksService;
  return { service, arrived };
}

function controller(links: LinksService): LinksController {
  const limits = {
    grant: (_bucket: string, _subject: string, count: number) =>
      Promise.resolve({ granted: count, refusal: '' }),
  } as unknown as RateLimitService;
  return new LinksController(links, {} as LiveStreams, limits);
}

describe('POST /api/links (bulk)', () => {
  it('gives an alias asked for twice in one call to the first that asks, in the order given', async () => {
    const { service } = linksService();
    const { results } = await controller(service).createMany(
      {
        body: [
          { url: 'https://example.com/1', alias: 'spring-sale' },
          { url: 'https://example.com/2' },
          { url: 'https://example.com/3', alias: 'SPRING-SALE' },
        ],
      } as never,
      USER,
      undefined,
      { headers: {} } as Request,
      {} as Response,
    );
    expect(results.map((result) => result.status)).toEqual([
      HttpStatus.CREATED,
      HttpStatus.CREATED,
      HttpStatus.CONFLICT,
    ]);
  });

  it('still shortens links without a shared alias at the same time', async () => {
    const { service, arrived } = linksService();
    await controller(service).createMany(
      {
        body: [
          { url: 'https://example.com/1', alias: 'one-alias' },
          { url: 'https://example.com/2', alias: 'another' },
          { url: 'https://example.com/3' },
        ],
      } as never,
      USER,
      undefined,
      { headers: {} } as Request,
      {} as Response,
    );
    // The first call's late answer held none of the others back.
    expect(arrived).toEqual([
      'https://example.com/2',
      'https://example.com/3',
      'https://example.com/1',
    ]);
  });
});
