// ESLint over the whole tree (`npm run lint`, and `.ci/run` after the typecheck). Type-aware, so the
// rules that need the compiler's view (promises, exhaustive switches) see what tsc sees.
// Each rule turned off below says why it does not fit this code base.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The Node globals our few plain JavaScript files (workers, build scripts) use: TypeScript knows
// them from @types/node, plain JavaScript needs them named.
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'queueMicrotask',
    'structuredClone',
    'AbortController',
    'performance',
    'globalThis',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tmp/**',
      'coverage/**',
      'data/**',
      // Generated from the server's documents by `npm run client:generate`.
      'clients/typescript/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          // Config files at the top that no tsconfig lists.
          allowDefaultProject: ['eslint.config.js'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A leading underscore marks what is unused on purpose: a parameter kept for its position,
      // a field taken out of a rest spread.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Off: `async` without `await` is deliberate here: it keeps the promise-returning signature an
      // interface asks for, and turns a synchronous throw into a rejection the caller handles.
      '@typescript-eslint/require-await': 'off',
      // Off: it flags `keyof T & string` (the idiom that keeps a key a string) and unions that spell
      // out the known values of an open string, both written on purpose.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // Passing on what a promise rejected with keeps the original error, whatever its type.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // Tests, benches and scripts read JSON answers and documents of the service; their assertions
    // are the check of the shape, so an `any` body is the point there, not an escape.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Answers of outside platforms (TikTok, YouTube, OAuth token endpoints) are read as loose JSON
    // and checked field by field with `typeof` where they are used: `any` is that reading.
    files: ['src/publishing/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: nodeGlobals,
    },
  },
);
