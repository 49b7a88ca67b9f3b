import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { RATE_LIMITERS, type RateLimitCounter, type RateLimiters } from './rate-limiter';

/** What is limited, each with its own count per client. */
export type RateLimitBucket =
  'api' | 'shorten-anonymous' | 'shorten-signed-in' | 'sign-in' | 'api-key' | 'shorten-api-key';

interface Policy {
  limit: number;
  message: (seconds: number) => string;
  /**
   * 429, except for shortening: the web page shows the server's message for a 403 only
   * (SPEC section 8), and a user who shortens too often must read how long to wait.
   */
  status: HttpStatus.TOO_MANY_REQUESTS | HttpStatus.FORBIDDEN;
}

const seconds = (count: number): string => `${count} second${count === 1 ? '' : 's'}`;

function policiesOf(config: GatewayConfig): Record<RateLimitBucket, Policy> {
  return {
    api: {
      limit: config.API_RATE_LIMIT,
      message: (wait) => `Too many requests: please wait ${seconds(wait)} and try again.`,
      status: HttpStatus.TOO_MANY_REQUESTS,
    },
    'shorten-anonymous': {
      limit: config.SHORTEN_RATE_LIMIT_ANONYMOUS,
      message: (wait) =>
        `Too many links shortened: please wait ${seconds(wait)}, or sign in for a higher limit.`,
      status: HttpStatus.FORBIDDEN,
    },
    'shorten-signed-in': {
      limit: config.SHORTEN_RATE_LIMIT_SIGNED_IN,
      message: (wait) => `Too many links shortened: please wait ${seconds(wait)} and try again.`,
      status: HttpStatus.FORBIDDEN,
    },
    // A script reads the status, not a page: 429 for each of a key's limits.
    'api-key': {
      limit: config.API_KEY_RATE_LIMIT,
      message: (wait) =>
        `Too many requests with this API key: please wait ${seconds(wait)} and try again.`,
      status: HttpStatus.TOO_MANY_REQUESTS,
    },
    'shorten-api-key': {
      limit: config.SHORTEN_RATE_LIMIT_API_KEY,
      message: (wait) => `Too many links shortened: please wait ${seconds(wait)} and try again.`,
      status: HttpStatus.TOO_MANY_REQUESTS,
    },
    'sign-in': {
      limit: config.SIGN_IN_RATE_LIMIT,
      message: (wait) => `Too many sign-in attempts: please wait ${seconds(wait)} and try again.`,
      status: HttpStatus.TOO_MANY_REQUESTS,
    },
  };
}

/**
 * Applies the configured limits: past one, Retry-After and a message the page shows, with
 * 429 (403 for shortening, see Policy.status). While Redis is away the limits are counted in
 * this process (redisRateLimiters); should a counter still fail, requests pass: the limiter
 * protects the service, it must not become the reason it is down.
 */
@Injectable()
export class RateLimitService {
  private readonly policies: Record<RateLimitBucket, Policy>;
  private readonly counters: Record<RateLimitBucket, RateLimitCounter>;

  constructor(
    @Inject(RATE_LIMITERS) limiters: RateLimiters,
    @Inject(SERVICE_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.policies = policiesOf(config);
    this.counters = Object.fromEntries(
      Object.entries(this.policies).map(([bucket, policy]) => [
        bucket,
        limiters.counter({
          keyPrefix: bucket,
          points: policy.limit,
          duration: config.RATE_LIMIT_WINDOW_SECONDS,
        }),
      ]),
    ) as Record<RateLimitBucket, RateLimitCounter>;
  }

  /**
   * Counts one request of `subject` (a user id, or clientKey(req) for an address); throws
   * the bucket's status past the limit.
   */
  async enforce(bucket: RateLimitBucket, subject: string, res: Response): Promise<void> {
    const policy = this.policies[bucket];
    const counted = await this.count(bucket, subject, 1);
    if (!counted || counted.consumedPoints <= policy.limit) return;
    const wait = waitSeconds(counted);
    res.setHeader('retry-after', String(wait));
    throw new HttpException({ message: policy.message(wait) }, policy.status);
  }

  /**
   * Counts `count` requests of `subject` at once (the links of a bulk call) and answers how
   * many are within the limit, with the message for the others; Retry-After is set when
   * some are not. A counter that fails grants them all, as enforce lets a request pass.
   */
  async grant(
    bucket: RateLimitBucket,
    subject: string,
    count: number,
    res: Response,
  ): Promise<{ granted: number; refusal: string }> {
    const policy = this.policies[bucket];
    const counted = await this.count(bucket, subject, count);
    if (!counted) return { granted: count, refusal: '' };
    const before = counted.consumedPoints - count;
    const granted = Math.min(count, Math.max(0, policy.limit - before));
    const wait = waitSeconds(counted);
    if (granted < count) res.setHeader('retry-after', String(wait));
    return { granted, refusal: policy.message(wait) };
  }

  /** The bucket's count after these, or undefined when it could not be counted. */
  private async count(
    bucket: RateLimitBucket,
    subject: string,
    points: number,
  ): Promise<RateLimiterRes | undefined> {
    try {
      return await this.counters[bucket].consume(subject, points);
    } catch (error) {
      // rate-limiter-flexible rejects with the count when it is past the limit.
      if (error instanceof RateLimiterRes) return error;
      this.logger.warn({ err: String(error), bucket }, 'rate limit not checked');
      return undefined;
    }
  }
}

const waitSeconds = (counted: RateLimiterRes): number =>
  Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
