/// <reference types="vite/client" />

/** The web page of the root package.json's `repository`, for the footer (vite.config.ts). */
declare const __REPOSITORY_URL__: string;
