/** Types of lint-layers.mjs, for the tests that call it. */
export declare const ROOT: string
export declare function rankOf(path: string): number | null
export declare function domainOf(path: string): string | null
export declare function layeringProblem(fromAbs: string, specifier: string): string | null
export declare function importCycles(): string[]
export declare function upwardImports(): string[]
export declare const layersRule: unknown
