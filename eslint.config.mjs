import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The services that must not import each other: the packages of services/services.json.
const servicePackages = JSON.parse(
  readFileSync(new URL('./services/services.json', import.meta.url), 'utf8'),
).services.map((service) => service.package);

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '.infra/**',
      '.data/**',
      'artifacts/**',
      '.cache/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.{js,cjs}'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Boundaries: services share code only through workspace packages, never each other's source.
    files: ['services/**/*.ts', 'packages/**/*.ts', 'frontend/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/services/**', '**/packages/**', '../../*/src/**', '../../../*/src/**'],
              message: 'Import shared code by its package name (@shortener/...), never by path.',
            },
            {
              group: servicePackages.flatMap((name) => [name, `${name}/*`]),
              message: 'Services never import each other: talk over HTTP or events.',
            },
          ],
        },
      ],
    },
  },
  {
    // The embedded mode's host is the one place that composes the services in one process;
    // nothing imports it, and it never reaches into a service's source, only its exported service.
    files: ['services/embedded/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', 'tests/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
