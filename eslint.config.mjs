// Layering (ARCHITECTURE.md, convention 7): imports go one way.
//   game-core -> nothing (no electron, node:*, vue, DOM, nor the rest of the app)
//   electron  -> game-core, contract; never the renderer
//   renderer  -> game-core and the contract's types; never electron's Node code
import tseslint from 'typescript-eslint'
import vueParser from 'vue-eslint-parser'
import { layersRule } from './scripts/lint-layers.mjs'

// Bare Node built-ins, and anything under node:
const nodeModules =
  '^(node:.*|fs|path|crypto|os|child_process|worker_threads|http|https|net|url|stream|util|buffer|events|module)(/.*)?$'

export default [
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', '**/*.d.ts'] },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin, carats: { rules: { layers: layersRule } } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // imports point down, a domain entered through its index.ts (scripts/lint-layers.mjs)
      'carats/layers': 'error',
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
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: nodeModules, message: 'game-core stays pure: no Node import (primitives are passed in).' },
            {
              regex: '^(electron|vue|pinia|naive-ui|@vue/.*|vue-.*)(/.*)?$',
              message: 'game-core stays pure: no electron or UI framework.',
            },
            { regex: '^\\.\\.?/(.*/)?(electron|renderer)(/|$)', message: 'game-core imports nothing from the app.' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'window', message: 'game-core has no DOM.' },
        { name: 'document', message: 'game-core has no DOM.' },
        { name: 'crypto', message: 'game-core takes its primitives as arguments.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Outcomes never come from Math.random.' },
      ],
    },
  },
  {
    files: ['electron/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^\\.\\.?/(.*/)?renderer(/|$)', message: 'electron never imports the renderer.' }],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            // Regexes, not gitignore-style groups: a group 'electron' also matched the folder in
            // relative imports of the contract ('../../electron/contract').
            { regex: nodeModules, message: 'The renderer has no Node access; use the api client.' },
            { regex: '^electron(/.*)?$', message: 'The renderer has no Electron access; use the api client.' },
            {
              regex: '^\\.\\.?/(.*/)?electron/(?!contract(/|$))',
              message: 'The renderer reaches the backend only through the contract.',
            },
          ],
        },
      ],
    },
  },
]
