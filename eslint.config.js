// ESLint (flat config): typescript-eslint's recommended-type-checked rules over every TypeScript file the
// project type-checks — src/ with its strict tsconfig.json, the rest (tests, bench, examples, worker, web demo)
// with tsconfig.test.json. Formatting is Prettier's (.prettierrc.json); `npm run lint` checks both.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.wrangler/**', 'test/fixtures/**', 'test-results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The runtime, stdio and fleet recipes (docs/runtimes.md, docs/stdio.md, docs/fleet.md) are a user's app:
    // they import `edge-mcp` as installed, which resolves only in the apps test/runtimes.test.ts,
    // test/stdio-recipes.test.ts and test/e2e/fleet-runtimes.test.ts build from them (and type-check there).
    files: ['examples/runtimes/**/*.ts', 'examples/stdio/**/*.ts', 'examples/fleet/**/*.ts'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    // Plain JavaScript (this file, the conformance runner): Node scripts, not type-checked.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
)
