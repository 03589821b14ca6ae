// @ts-check
// ESLint with typescript-eslint's type-aware rules over every TypeScript and JavaScript file of the repo.
// `npm run lint` runs it (and `npm test` runs that first, so CI fails on a finding). Why each rule that differs
// from the recommended sets is set as it is, is written beside it.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // Generated (web/src/api/schema.ts by openapi-typescript) or built output, not sources.
    ignores: ['node_modules/', 'dist/', 'data/', '.tmp/', 'test-artifacts/', 'web/src/api/schema.ts', 'bench/results/'],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // The project service finds each file's nearest tsconfig.json (the root one, or web/tsconfig.json for
        // the dashboard); the few plain .mjs/.js scripts outside any tsconfig get a default program.
        projectService: {
          allowDefaultProject: ['*.js', 'bin/*.mjs', '.ci/*.mjs', 'test/support/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's test()/describe()/it() return promises that the runner itself awaits.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after'] },
          ],
        },
      ],
      // A new member of a union (content part, provider kind, outcome) must fail the lint until every switch
      // over it handles it; a `default:` branch does not excuse a switch from listing the union's members.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Many async functions implement a Promise-returning interface over a synchronous engine (node:sqlite,
      // in-memory stores): `async` is what turns their throws into rejections, so "no await" is intended.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // `!` on request data turns a missing field into a 500 instead of the dialect's 400: forbidden where requests
    // are read and answered (the dialects' decoders, the routes and body parsers, the pipeline) and in the
    // dashboard. Elsewhere (byte-level decoders after a length check, the stores' rows, routing tables, bench
    // harnesses) `!` mostly follows a check that noUncheckedIndexedAccess cannot see, and stays allowed.
    files: ['src/front/**', 'src/server/**', 'src/pipeline/**', 'web/src/**'],
    ignores: ['**/*.test.ts', '**/*.test-util.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'error' },
  },
  {
    // Tests read HTTP answers as parsed JSON (`any`) and assert on them: the assertion is the type check, and
    // typing every answer would only restate it. A wrong `!` in a test fails that test, which is its purpose.
    files: ['test/**', '**/*.test.ts', '**/*.test-util.ts'],
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
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
);
