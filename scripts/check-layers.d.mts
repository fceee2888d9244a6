// Types for scripts/check-layers.mjs (plain JS so that `npm test` runs it without a compiler).
export declare const LAYERS: string[][];
export declare const MAX_LINES: number;
export declare function checkLayers(root: string): string[];
export declare function checkOutside(root: string): string[];
