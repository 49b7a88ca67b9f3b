const DEFAULT_REPOSITORY_URL = 'https://github.com/';

/** Build-time configuration (Vite inlines `import.meta.env.VITE_*` when bundling). */
export const config = {
  repositoryUrl: import.meta.env.VITE_REPOSITORY_URL?.trim() || DEFAULT_REPOSITORY_URL,
} as const;
