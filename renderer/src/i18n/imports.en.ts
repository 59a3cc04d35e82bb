import type { ImportsMessages } from './imports.fr'

/** Imports that leave a trace: a success's result and a refusal's reasons in the history, the sample feed. */
const imports: ImportsMessages = {
  claims: {
    none: 'no prize claim opened',
    some: '{n} prize claim opened | {n} prize claims opened',
  },
  showReasons: 'See the reasons',
  reasons: {
    title: 'Why it was refused: {file}',
    noName: '(file without a name)',
    by: 'Refused on {at}, file imported by {actor}.',
    summary: '{bad} line to fix out of {lines}. | {bad} lines to fix out of {lines}.',
    kinds: '{n} kind of problem: | {n} kinds of problem, grouped:',
    times: 'once | {n} times',
    onLines: 'on {n} line | on {n} lines',
    lines: 'line {list} | lines {list}',
    moreLines: '{list}… and {n} more | {list}… and {n} more',
    firstCase: 'First case:',
    groupsLeft:
      'And {kinds} other kind of problem ({n} reasons), not kept in detail: fix these, then import again to see it. | And {kinds} other kinds of problem ({n} reasons), not kept in detail: fix these, then import again to see them.',
    incomplete: 'Refusal recorded by an earlier version of the app: only its first refused line was kept.',
    export: 'Export the reasons (CSV)',
    close: 'Close',
  },
  repeated: '({n} times)',
  kept: 'These reasons stay in the import history, grouped by kind of problem, with their CSV export.',
  sample: {
    button: 'Download a sample',
    hint: 'A small feed of three sales in the exact format the app reads (one JSON sale a line), made by the app.',
    importable:
      'Sample downloaded ({file}): the next three units of demonstration emission {emission}. It imports as it is.',
    formatOnly:
      'Sample downloaded ({file}): the format only, written for emission {emission}, which does not exist yet. No demonstration emission is on sale: importing it would be refused.',
  },
}

export default imports
