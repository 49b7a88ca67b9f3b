/**
 * Build-time configuration, inlined by Vite (`define` in vite.config.ts): the footer's
 * source link is the root package.json's `repository`, so a fork edits it there.
 */
export const config = {
  repositoryUrl: __REPOSITORY_URL__,
} as const;
