/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where the footer's "Source code" link points; set at build time. */
  readonly VITE_REPOSITORY_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
