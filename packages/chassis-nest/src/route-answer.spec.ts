import 'reflect-metadata';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import {
  internalApi,
  opsApi,
  publicApi,
  type DeleteResponse,
  type ResolvedLink,
} from '@shortener/contracts';
import { Route } from './contract-route';

// Compiled by `tsc -b` with the package: each @ts-expect-error below fails the build if the
// line under it compiles, that is if a handler could answer other than its entry says.

const resolved: ResolvedLink = { url: 'https://example.com/', expiresAt: 0 };

class Handlers {
  @Route(internalApi.resolveLink)
  resolve(): Promise<ResolvedLink> {
    return Promise.resolve(resolved);
  }

  @Route(internalApi.deleteLink)
  remove(): Promise<void> {
    return Promise.resolve();
  }

  /** A stream is written through @Res(): the handler returns nothing. */
  @Route(internalApi.visitsCsv)
  csv(): void {}

  @Route(opsApi.health)
  health(): void {}

  // @ts-expect-error the entry answers a resolved link, not a string
  @Route(internalApi.resolveLink)
  wrongBody(): Promise<string> {
    return Promise.resolve('not a link');
  }

  // @ts-expect-error the entry answers {loggedIn: true}, not a resolved link
  @Route(publicApi.deleteLink)
  wrongEntry(): ResolvedLink {
    return resolved;
  }

  // @ts-expect-error a JSON answer must be returned, not left out
  @Route(publicApi.deleteLink)
  nothing(): Promise<void> {
    return Promise.resolve();
  }

  // @ts-expect-error a 204 has no body to return
  @Route(internalApi.deleteLink)
  bodyOn204(): DeleteResponse {
    return { loggedIn: true };
  }
}

describe("a handler's answer, typed from its entry", () => {
  it('compiles for the answers the entries give (the errors are checked by tsc -b)', () => {
    const prototype = Handlers.prototype as unknown as Record<string, object>;
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, prototype['resolve']!)).toBe(200);
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, prototype['remove']!)).toBe(204);
  });
});
