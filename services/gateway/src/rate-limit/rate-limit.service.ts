import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { RATE_LIMITER, type RateLimiter } from './rate-limiter';

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

function policies(config: GatewayConfig): Record<RateLimitBucket, Policy> {
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
 * 429 (403 for shortening, see Policy.status). While Redis is away the limiter counts in this process (FallbackRateLimiter);
 * should a limiter still fail, requests pass: the limiter protects the service, it must
 * not become the reason it is down.
 */
@Injectable()
export class RateLimitService {
  private readonly policies: Record<RateLimitBucket, Policy>;
  private readonly windowMs: number;

  constructor(
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(SERVICE_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.policies = policies(config);
    this.windowMs = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  }

  /**
   * Counts one request of `subject` (a user id, or clientKey(req) for an address); throws
   * the bucket's status past the limit.
   */
  async enforce(bucket: RateLimitBucket, subject: string, res: Response): Promise<void> {
    const policy = this.policies[bucket];
    let decision;
    try {
      decision = await this.limiter.hit(`${bucket}:${subject}`, policy.limit, this.windowMs);
    } catch (error) {
      this.logger.warn({ err: String(error), bucket }, 'rate limit not checked');
      return;
    }
    if (decision.allowed) return;
    const wait = Math.max(1, Math.ceil(decision.resetInMs / 1000));
    res.setHeader('retry-after', String(wait));
    throw new HttpException({ message: policy.message(wait) }, policy.status);
  }

  /**
   * Counts `count` requests of `subject` at once (the links of a bulk call) and answers how
   * many are within the limit, with the message for the others; Retry-After is set when
   * some are not. A limiter that fails grants them all, as enforce lets a request pass.
   */
  async grant(
    bucket: RateLimitBucket,
    subject: string,
    count: number,
    res: Response,
  ): Promise<{ granted: number; refusal: string }> {
    const policy = this.policies[bucket];
    let decision;
    try {
      decision = await this.limiter.hit(`${bucket}:${subject}`, policy.limit, this.windowMs, count);
    } catch (error) {
      this.logger.warn({ err: String(error), bucket }, 'rate limit not checked');
      return { granted: count, refusal: '' };
    }
    const wait = Math.max(1, Math.ceil(decision.resetInMs / 1000));
    if (decision.granted < count) res.setHeader('retry-after', String(wait));
    return { granted: decision.granted, refusal: policy.message(wait) };
  }
}
