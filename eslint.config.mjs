// Layering (ARCHITECTURE.md, convention 7): imports go one way.
//   game-core -> nothing (no electron, node:*, vue, DOM, nor the rest of the app)
//   electron  -> game-core, contract; never the renderer
//   renderer  -> game-core and the contract's types; never electron's Node code
import tseslint from 'typescript-eslint'
import vueParser from 'vue-eslint-parser'

const nodeBuiltins = ['node:*', 'fs', 'path', 'crypto', 'os', 'child_process', 'worker_threads', 'http', 'url', 'stream', 'util', 'buffer', 'events']

export default [
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', '**/*.d.ts'] },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['renderer/**/*.vue'],
    languageOptions: { parser: vueParser, parserOptions: { parser: tseslint.parser, sourceType: 'module' } },
  },
  {
    files: ['game-core/**/*.ts'],
    ignores: ['game-core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*', ...nodeBuiltins], message: 'game-core stays pure: no electron or Node import (primitives are passed in).' },
          { group: ['vue', 'vue/*', 'pinia', 'naive-ui', '@vue/*'], message: 'game-core stays pure: no UI framework.' },
          { group: ['../electron/**', '../renderer/**', '**/electron/**', '**/renderer/**'], message: 'game-core imports nothing from the app.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'window', message: 'game-core has no DOM.' },
        { name: 'document', message: 'game-core has no DOM.' },
        { name: 'crypto', message: 'game-core takes its primitives as arguments.' },
      ],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Outcomes never come from Math.random.' }],
    },
  },
  {
    files: ['electron/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/renderer/**'], message: 'electron never imports the renderer.' }],
      }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*', ...nodeBuiltins], message: 'The renderer has no Node or Electron access; use the api client.' },
          { group: ['**/electron/*', '**/electron/*/**', '!**/electron/contract', '!**/electron/contract/**'], message: 'The renderer reaches the backend only through the contract.' },
        ],
      }],
    },
  },
]
