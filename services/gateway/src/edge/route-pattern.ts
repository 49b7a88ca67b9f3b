import type { PublicRoute } from '@shortener/contracts';

/** The paths a `publicApi` entry answers: its path with each `{name}` one segment. */
export function routePattern(route: PublicRoute): RegExp {
  return new RegExp(
    `^${route.path
      .split(/\{\w+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );
}
