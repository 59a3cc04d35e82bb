/** Types of scripts/sha256-wasm.mjs, for the test that checks the module written from it. */
export const ROOM: number
export const TARGET: string
export function wat(): string
export function wasmBytes(): Promise<Buffer>
export function moduleSource(): Promise<string>
